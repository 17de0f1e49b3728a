package cli

import (
	"slices"

	"github.com/agent-eval/agent-eval/internal/intercept"
	"github.com/agent-eval/agent-eval/internal/permissions"
	"github.com/agent-eval/agent-eval/internal/redact"
)

// hookFile is what a case's PreToolUse hook enforces: the eval's handlers
// (with the case's own answers) and the paths no Bash command may name
// (the hook's path layer), rooted where the agent works. Nil when there is
// nothing for the hook to do.
func (st *runState) hookFile(ws string, overrides map[string]string) *intercept.File {
	var f intercept.File
	if st.handlers != nil {
		f = intercept.WithCaseOverrides(*st.handlers, overrides)
	}
	deny, root := st.compiled.Deny, ws
	if st.repo != "" {
		keys, _ := st.answerKeyDenies(ws)
		deny, root = append(slices.Clone(deny), keys...), st.repo
	}
	f.Root = root
	// Under the sandbox the OS keeps the denied paths unreadable however a
	// command spells them; the hook's reading of command text would only add
	// false alarms (cat "$f") to ordinary work. The compiled handlers may
	// carry denied paths of their own (compile writes them): set or clear
	// them here either way.
	f.DeniedPaths, f.DeniedPathReasons = nil, nil
	if !st.sandbox.On {
		f.DeniedPaths = permissions.HookDeniedPaths(deny)
		f.DeniedPathReasons = redactReasons(permissions.HookDeniedPathReasons(st.compiled, f.DeniedPaths))
	}
	if st.handlers == nil && len(f.DeniedPaths) == 0 {
		return nil
	}
	if f.Handlers == nil {
		f.Handlers = []intercept.Handler{}
	}
	return &f
}

// redactReasons is reasons with anything secret-looking redacted: they reach
// the model in deny messages.
func redactReasons(reasons map[string]string) map[string]string {
	for p, why := range reasons {
		reasons[p] = redact.String(why)
	}
	return reasons
}
