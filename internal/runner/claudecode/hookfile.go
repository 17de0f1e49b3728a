package claudecode

import (
	"github.com/agent-eval/agent-eval/internal/intercept"
	"github.com/agent-eval/agent-eval/internal/runner"
)

// HookFile is the tool_handlers.yaml of a workspace ws whose agent is
// gated by the harness's hook but not held by Claude Code's sandbox (s's
// Sandbox off): the compiled handlers with the case's answers, and as
// denied paths the eval's path denies plus everything the harness hides
// from the agent (hidden.go: the dataset, the runs, eval.yaml, other
// workspaces, the user's credential folders), which the hook's path layer
// then enforces. Nil when the hook has nothing to do, unless always: an
// agent with no sandbox at all needs the hook for what the harness hides
// alone. Other hooked runners (Gemini CLI's) write it as this runner does.
func HookFile(s runner.RunSetup, ws string, overrides map[string]string, always bool) (*intercept.File, error) {
	r := &started{s: s}
	if r.s.Warn == nil {
		r.s.Warn = func(string) {}
	}
	h, err := r.hidden(ws)
	if err != nil {
		return nil, err
	}
	f := r.hookFile(ws, overrides, h)
	if f != nil || !always {
		return f, nil
	}
	f = &intercept.File{Root: ws, Handlers: []intercept.Handler{}}
	f.AddDeniedPaths(HiddenReason, h.hook...)
	return f, nil
}
