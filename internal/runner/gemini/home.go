package gemini

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agent-eval/agent-eval/internal/atomicfile"
	"github.com/agent-eval/agent-eval/internal/hook"
	"github.com/agent-eval/agent-eval/internal/intercept"
	"github.com/agent-eval/agent-eval/internal/permissions"
	"github.com/agent-eval/agent-eval/internal/runner"
	"github.com/agent-eval/agent-eval/internal/runner/claudecode"
	"github.com/agent-eval/agent-eval/internal/workspace"
)

// tempDirName is the agent's temp folder ($TMPDIR) in its home: where
// Gemini CLI writes its error reports, never the workspace.
const tempDirName = ".tmp"

// PolicyFileName is the compiled policy in the agent's .gemini folder.
const PolicyFileName = "agent-eval-policy.toml"

// CanaryEvent is the event the canary hook is wired to: every session
// fires it.
const CanaryEvent = "SessionStart"

// hookTimeoutMS is the BeforeTool hook's timeout, Gemini's unit.
const hookTimeoutMS = hook.TimeoutSeconds * 1000

func (s *session) policyFile() string {
	if s.r.policy.toml == "" {
		return ""
	}
	return filepath.Join(s.home, ".gemini", PolicyFileName)
}

// writeHome fills the agent's home: .gemini/settings.json (auth, no usage
// statistics or updates, retries off under the fake, the hooks,
// tools.exclude, runner.settings merged in), the policy file, GEMINI.md
// (the harness's instructions and runner.system_prompt), the temp folder;
// and the hook's tool_handlers.yaml in the workspace.
func (r *started) writeHome(home string, w runner.Workspace) error {
	dir := filepath.Join(home, ".gemini")
	for _, d := range []string{dir, filepath.Join(home, tempDirName)} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return fmt.Errorf("make the agent's home: %w", err)
		}
	}
	general := map[string]any{"disableAutoUpdate": true, "disableUpdateNag": true}
	if r.s.FakeModelURL != "" {
		general["maxAttempts"] = 1
	}
	settings := map[string]any{
		"security":  map[string]any{"auth": map[string]any{"selectedType": "gemini-api-key"}},
		"privacy":   map[string]any{"usageStatisticsEnabled": false},
		"telemetry": map[string]any{"enabled": false},
		"general":   general,
	}
	if len(r.policy.exclude) > 0 {
		settings["tools"] = map[string]any{"exclude": r.policy.exclude}
	}
	hf, err := claudecode.HookFile(r.s, w.Dir, w.Overrides, true)
	if err != nil {
		return err
	}
	if hf != nil {
		// The hook's own files, and the settings that wire it (rewritten
		// before every invocation too), are no call's business.
		hf.DeniedPaths = append(hf.DeniedPaths, protected...)
		fileToolDenies(hf, r.s.Permissions)
		for _, f := range []string{"settings.json", PolicyFileName} {
			hf.DeniedPaths = append(hf.DeniedPaths, "/"+filepath.Join(dir, f))
		}
		b, digest, err := workspace.MarshalHandlers(*hf)
		if err != nil {
			return err
		}
		handlers := filepath.Join(w.Dir, hook.HandlersFile)
		if err := atomicfile.Write(handlers, b, 0o644); err != nil {
			return fmt.Errorf("write the hook's handlers: %w", err)
		}
		settings["hooks"] = hooks(r.s.HarnessBin, handlers, digest)
		settings["hooksConfig"] = map[string]any{"enabled": true}
	}
	if extra := r.s.Eval.Runner.Settings; len(extra) > 0 {
		more := map[string]any{}
		for k, v := range extra {
			if k != "binary" {
				more[k] = v
			}
		}
		ours, wired := settings["hooks"].(map[string]any)
		var gate, canary any
		if wired {
			gate, canary = ours["BeforeTool"], ours[CanaryEvent]
		}
		settings = workspace.DeepMerge(settings, more) // merges into ours too
		if wired {
			// The gate and the canary stay the harness's, on, whatever
			// runner.settings says (its other hooks run beside them).
			merged := asMap(settings["hooks"])
			merged["BeforeTool"], merged[CanaryEvent] = gate, canary
			settings["hooks"] = merged
			settings["hooksConfig"] = map[string]any{"enabled": true}
		}
	}
	redactKeys(settings)
	b, err := json.MarshalIndent(settings, "", "  ")
	if err != nil {
		return fmt.Errorf("write the agent's settings: %w", err)
	}
	// atomicfile replaces a link an earlier step left, never writes
	// through it.
	if err := atomicfile.Write(filepath.Join(dir, "settings.json"), append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("write the agent's settings: %w", err)
	}
	if r.policy.toml != "" {
		if err := atomicfile.Write(filepath.Join(dir, PolicyFileName), []byte(r.policy.toml), 0o600); err != nil {
			return fmt.Errorf("write the agent's policy: %w", err)
		}
	}
	memory := claudecode.SystemPrompt(r.s.Eval.Runner.SystemPrompt) + "\n"
	if err := atomicfile.Write(filepath.Join(dir, "GEMINI.md"), []byte(memory), 0o600); err != nil {
		return fmt.Errorf("write the agent's instructions: %w", err)
	}
	return nil
}

// fileToolDenies adds the eval's Read denies to the hook's denied paths
// where the hook file lacks them because Bash is denied outright (a hook
// for Claude Code then leaves paths to its own Read rules): the hook's path
// layer is what holds them against Gemini's file tools.
func fileToolDenies(f *intercept.File, c permissions.Compiled) {
	deny := slices.DeleteFunc(slices.Clone(c.Deny), func(r string) bool { return r == "Bash" || r == "Bash(*)" || r == "Bash(:*)" })
	paths := permissions.HookDeniedPaths(deny)
	for p, why := range permissions.HookDeniedPathReasons(c, paths) {
		if f.DeniedPathReasons == nil {
			f.DeniedPathReasons = map[string]string{}
		}
		if _, ok := f.DeniedPathReasons[p]; !ok {
			f.DeniedPathReasons[p] = why
		}
	}
	for _, p := range paths {
		if !slices.Contains(f.DeniedPaths, p) {
			f.DeniedPaths = append(f.DeniedPaths, p)
		}
	}
}

// protected are the workspace files the hook keeps every call away from:
// the agent has no sandbox that would (the hook's own files).
var protected = []string{hook.HandlersFile, hook.LedgerFile}

func asMap(v any) map[string]any {
	m, _ := v.(map[string]any)
	if m == nil {
		m = map[string]any{}
	}
	return m
}

// hooks are the settings' hooks: the gate on every tool (BeforeTool,
// matcher "*") and the canary on SessionStart. The gate's timeout is the
// hook's (a timed-out hook lets the call run: measured), far above the
// hook's own deadline on a decision.
func hooks(harness, handlers, digest string) map[string]any {
	base := intercept.ShellQuote(harness) + " hook --handlers " + intercept.ShellQuote(handlers) + " --sha256 " + digest + " --dialect gemini"
	entry := func(name, command string) []any {
		return []any{map[string]any{"matcher": "*", "hooks": []any{map[string]any{"type": "command", "name": name,
			"command": command, "timeout": hookTimeoutMS}}}}
	}
	return map[string]any{
		// Gemini CLI runs the call when a hook exits 1 (measured; 2 and
		// 127 block): any failure of the gate's is made a block.
		"BeforeTool": entry("agent-eval-gate", base+" || exit 2"),
		CanaryEvent:  entry("agent-eval-canary", intercept.ShellQuote(harness)+" hook --canary "+CanaryEvent+" --handlers "+intercept.ShellQuote(handlers)+" --dialect gemini"),
	}
}

// redactKeys turns on Gemini CLI's redaction of the environment its shell
// commands get (off by default: a command saw GEMINI_API_KEY), with the
// model's credentials blocked by name and never re-allowed by
// runner.settings; its own patterns (*KEY*, *TOKEN*, *SECRET*, ...) do the
// rest.
func redactKeys(settings map[string]any) {
	list := func(v any) []any { l, _ := workspace.AsList(v); return l }
	sec := asMap(settings["security"])
	red := asMap(sec["environmentVariableRedaction"])
	blocked := slices.Clone(keyNames)
	for _, v := range list(red["blocked"]) {
		if k, ok := v.(string); ok && !slices.Contains(blocked, k) {
			blocked = append(blocked, k)
		}
	}
	var allowed []string
	for _, v := range list(red["allowed"]) {
		if k, ok := v.(string); ok && !slices.ContainsFunc(keyNames, func(n string) bool { return strings.EqualFold(n, k) }) {
			allowed = append(allowed, k)
		}
	}
	red["enabled"], red["blocked"] = true, blocked
	if allowed != nil {
		red["allowed"] = allowed
	} else {
		delete(red, "allowed")
	}
	sec["environmentVariableRedaction"] = red
	settings["security"] = sec
}
