package codex

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/agent-eval/agent-eval/internal/atomicfile"
	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/fakeapi"
	"github.com/agent-eval/agent-eval/internal/hook"
	"github.com/agent-eval/agent-eval/internal/intercept"
	"github.com/agent-eval/agent-eval/internal/pathutil"
	"github.com/agent-eval/agent-eval/internal/permissions"
	"github.com/agent-eval/agent-eval/internal/redact"
	"github.com/agent-eval/agent-eval/internal/runner"
	"github.com/agent-eval/agent-eval/internal/runner/claudecode"
	"github.com/agent-eval/agent-eval/internal/workspace"
)

// ProfileName is the permission profile the generated config.toml defines
// and selects (default_permissions).
const ProfileName = "agent_eval"

// FakeProvider is the model provider of a --fake-model run.
const FakeProvider = "agent_eval_fake"

// RulesFile is the exec-policy file in CODEX_HOME.
const RulesFile = "rules/eval.rules"

// SystemPrompt is what Codex's developer instructions get: runner.
// system_prompt, then the harness's own.
func SystemPrompt(own string) string {
	return strings.TrimSpace(strings.TrimSpace(own) + "\n\n" + harnessSystemPrompt)
}

const harnessSystemPrompt = "You are running inside an automated evaluation, without a human at the keyboard. " +
	"Some tool calls are checked by the harness and may be blocked. If a call is blocked, do not try to get around it: " +
	"do not rename or copy scripts, do not edit config.toml, hooks, rules or tool_handlers.yaml, and do not look for " +
	"another tool that does the same. Report that the call was blocked and carry on with the rest of the task."

// compiled is one workspace's Codex files.
type compiled struct {
	config   map[string]any
	rules    string // rules/eval.rules, "" for none
	handlers []byte // tool_handlers.yaml, nil when no hook is wired
	hooked   bool
	denied   []string // the profile's denied paths, absolute
}

// compile builds the workspace's config.toml, exec-policy rules and hook
// file from the eval: the model and its provider, effort, the sandbox
// (workspace-write with a permission profile denying eval.yaml's denied
// paths and what the harness hides; danger-full-access with
// permissions.sandbox: off), Bash denies as forbidden prefix_rules, and
// inputs.tools (and, without the sandbox, the denied paths) as the
// PreToolUse hook with the SessionStart canary; runner.settings merged
// over it all.
func (r *started) compile(w runner.Workspace, home string) (compiled, error) {
	var c compiled
	ev := r.s.Eval
	cfg := map[string]any{
		"approval_policy":             "never",
		"check_for_update_on_startup": false,
		"developer_instructions":      SystemPrompt(ev.Runner.SystemPrompt),
		"analytics":                   map[string]any{"enabled": false},
		"feedback":                    map[string]any{"enabled": false},
		"history":                     map[string]any{"persistence": "none"},
		// The agent's commands see no credential (Codex's own defaults
		// pass them all).
		"shell_environment_policy": map[string]any{"inherit": "all", "ignore_default_excludes": false,
			"exclude": []string{"*KEY*", "*TOKEN*", "*SECRET*", "*PASSWORD*", "*CREDENTIAL*"}},
	}
	if r.s.Model != "" {
		cfg["model"] = r.s.Model
	}
	if ev.Runner.Effort != "" {
		cfg["model_reasoning_effort"] = ev.Runner.Effort
	}
	if r.s.FakeModelURL != "" {
		cfg["model_provider"] = FakeProvider
		cfg["model_providers"] = map[string]any{FakeProvider: map[string]any{
			"name": "agent-eval fake model", "base_url": strings.TrimSuffix(r.s.FakeModelURL, "/") + "/v1",
			"env_key": FakeKeyEnv, "wire_api": "responses", "request_max_retries": 0, "stream_max_retries": 0,
		}}
	}
	perms := r.s.Permissions
	sandboxOff := ev.Permissions.SandboxMode() == config.SandboxOff
	if sandboxOff {
		cfg["sandbox_mode"] = "danger-full-access"
	} else {
		cfg["default_permissions"] = ProfileName
		profile, denied := r.profile(w.Dir, home, perms.Deny)
		cfg["permissions"] = map[string]any{ProfileName: profile}
		c.denied = denied
	}
	c.rules = execRules(perms)
	if hf := r.hookFile(w, sandboxOff); hf != nil {
		b, digest, err := workspace.MarshalHandlers(*hf)
		if err != nil {
			return c, err
		}
		c.handlers, c.hooked = b, true
		handlers := filepath.Join(w.Dir, hook.HandlersFile)
		gate := hook.FailClosed(intercept.ShellQuote(r.s.HarnessBin) + " hook --dialect " + hook.DialectCodex + " --handlers " +
			intercept.ShellQuote(handlers) + " --sha256 " + digest)
		canary := intercept.ShellQuote(r.s.HarnessBin) + " hook --canary SessionStart --dialect " + hook.DialectCodex +
			" --handlers " + intercept.ShellQuote(handlers)
		entry := func(matcher, command string) map[string]any {
			e := map[string]any{"hooks": []map[string]any{{"type": "command", "command": command, "timeout": hook.TimeoutSeconds}}}
			if matcher != "" {
				e["matcher"] = matcher
			}
			return e
		}
		cfg["hooks"] = map[string]any{
			"PreToolUse":   []map[string]any{entry(".*", gate)},
			"SessionStart": []map[string]any{entry("", canary)},
		}
	}
	owned := ownedSettings(cfg)
	user := runner.NativeSettings(ev)
	cfg = workspace.DeepMerge(cfg, user)
	if ignored := reassert(cfg, owned, user); len(ignored) > 0 {
		r.ignored.Do(func() {
			r.s.Warn("runner.settings " + strings.Join(ignored, ", ") + " ignored: the harness sets them (the sandbox and permission profile that hold permissions.deny, the approval policy that keeps the run headless, the fake model's provider)")
		})
	}
	if c.hooked {
		// runner.settings cannot take the harness's hook away.
		if h, ok := cfg["hooks"].(map[string]any); !ok || h["PreToolUse"] == nil || h["SessionStart"] == nil {
			return c, &runner.ConfigError{Err: fmt.Errorf("runner.settings.hooks replaces the harness's PreToolUse and SessionStart hooks, which enforce inputs.tools and the denied paths")}
		}
	}
	c.config = cfg
	return c, nil
}

// ownedSettings are the keys of cfg the harness owns, with its values: what
// holds the eval's permissions (the sandbox mode, the permission profile and
// its selection), keeps the run headless (the approval policy) and points
// the agent at the fake model. A key it did not set (sandbox_mode under the
// profile) is owned as absent.
func ownedSettings(cfg map[string]any) map[string]any {
	owned := map[string]any{}
	for _, k := range []string{"approval_policy", "sandbox_mode", "default_permissions", "permissions", "model_provider"} {
		owned[k] = workspace.Clone(cfg[k])
	}
	if p, ok := cfg["model_provider"].(string); ok && p == FakeProvider {
		owned["model_providers"] = workspace.Clone(cfg["model_providers"])
	}
	return owned
}

// reassert puts the owned keys back into cfg after runner.settings (user)
// was merged over it and returns the settings that tried to change them,
// as runner.settings.KEY.
func reassert(cfg, owned, user map[string]any) []string {
	var ignored []string
	for _, k := range slices.Sorted(maps.Keys(owned)) {
		if _, set := user[k]; !set {
			continue
		}
		ignored = append(ignored, "runner.settings."+k)
		if v := owned[k]; v == nil {
			delete(cfg, k)
		} else {
			cfg[k] = v
		}
	}
	return ignored
}

// profile is the permission profile: Codex's workspace profile (read
// everywhere, write the workspace and the temp folders), with eval.yaml's
// denied paths and what the harness hides (the dataset, the runs, eval.yaml,
// the other workspaces, the run's private folder, the user's credentials)
// denied, and /tmp read-only: the private root of every run lives there.
func (r *started) profile(ws, home string, deny []string) (map[string]any, []string) {
	rel := map[string]any{".": "write"}
	abs := map[string]any{}
	for _, rule := range deny {
		p, access, ok := pathRule(rule)
		if !ok {
			continue
		}
		if access == "read" && (rel[p] == "deny" || abs[p] == "deny") {
			continue // Read and Edit denied: no access at all
		}
		if strings.HasPrefix(p, "/") {
			abs[p] = access
		} else {
			rel[p] = access
		}
	}
	for _, p := range r.hiddenPaths(ws, home) {
		abs[p] = "deny"
	}
	// /tmp read-only: the private roots of every run live there.
	fs := map[string]any{":workspace_roots": rel, ":slash_tmp": "read"}
	var denied []string
	for p, a := range rel {
		if a == "deny" {
			denied = append(denied, filepath.Join(ws, p))
		}
	}
	for p, a := range abs {
		fs[p] = a
		if a == "deny" {
			denied = append(denied, p)
		}
	}
	slices.Sort(denied)
	if own := r.s.OwnHome(ws); own != "" {
		fs[own] = "write" // the agent's home and temp folder
	}
	p := map[string]any{"extends": ":workspace", "filesystem": fs}
	if networkOn(r.s.Eval) {
		p["network"] = map[string]any{"enabled": true}
	}
	return p, denied
}

// networkOn: permissions.network lets the agent's commands reach any host
// ("*"). Codex's sandbox has no host allowlist: network is all or nothing.
func networkOn(ev *config.Eval) bool {
	n := ev.Permissions.Network
	return n != nil && slices.Contains(n.Allow, "*")
}

// pathRule reads a compiled Read/Edit deny rule as a profile entry: the
// path (relative to the workspace, or absolute) and its access (deny for
// Read, read for Edit: writes denied). Globs other than a trailing /**
// have no profile form (the hook's path layer judges them without the
// sandbox).
func pathRule(rule string) (path, access string, ok bool) {
	tool, arg, found := strings.Cut(rule, "(")
	if !found || !strings.HasSuffix(arg, ")") {
		return "", "", false
	}
	arg = strings.TrimSuffix(arg, ")")
	switch tool {
	case "Read", "Grep", "Glob":
		access = "deny"
	case "Edit", "Write":
		access = "read"
	default:
		return "", "", false
	}
	arg = strings.TrimSuffix(strings.TrimSuffix(arg, "/**"), "/*")
	if strings.HasPrefix(arg, "//") {
		arg = arg[1:]
	}
	arg = strings.TrimPrefix(arg, "./")
	if arg == "" || arg == "." || strings.ContainsAny(arg, "*?[") || strings.HasPrefix(arg, "~") {
		return "", "", false
	}
	return arg, access, true
}

// hiddenPaths are the absolute folders the agent's commands may not see:
// the dataset, the runs, eval.yaml and its handlers, the private root's
// other slots, the run's private folder and baselines, the user's
// credential folders. Only existing paths, never the agent's own slot.
func (r *started) hiddenPaths(ws, home string) []string {
	ev := r.s.Eval
	var cands []string
	add := func(p string) {
		if abs, err := filepath.Abs(p); err == nil && p != "" {
			cands = append(cands, abs)
		}
	}
	add(ev.DatasetDir())
	if r.s.RunDir != "" {
		add(filepath.Dir(r.s.RunDir))
	}
	add(r.s.Baselines)
	// The run's private folder but this session's CODEX_HOME, from which
	// Codex starts its sandbox helper: the other sessions' homes.
	if entries, err := os.ReadDir(r.s.Private); err == nil {
		for _, e := range entries {
			if p := filepath.Join(r.s.Private, e.Name()); p != filepath.Clean(home) {
				add(p)
			}
		}
	}
	if p := ev.Path(); p != "" {
		add(p)
		add(filepath.Join(ev.Dir(), hook.HandlersFile))
	}
	if home, err := os.UserHomeDir(); err == nil && home != "" && home != "/" {
		for _, c := range append(slices.Clone(claudecode.CredentialPaths), ".codex") { // ~/.codex: your Codex login
			add(filepath.Join(home, c))
		}
	}
	slot := workspace.HomeDir(ws)
	if root := r.s.WorkspaceRoot; root != "" {
		if entries, err := os.ReadDir(root); err == nil {
			for _, e := range entries {
				add(filepath.Join(root, e.Name()))
			}
		}
	}
	for _, other := range r.s.Workspaces {
		add(other)
	}
	var out []string
	for _, p := range cands {
		if pathutil.Within(p, ws) || pathutil.Within(p, slot) || pathutil.Within(ws, p) || pathutil.Within(home, p) {
			continue
		}
		if _, err := os.Lstat(p); err != nil || slices.Contains(out, p) {
			continue
		}
		out = append(out, p)
	}
	// A folder inside another hidden one is hidden with it: Codex's
	// sandbox cannot mount a deny inside a deny.
	return slices.DeleteFunc(out, func(p string) bool {
		return slices.ContainsFunc(out, func(q string) bool { return q != p && pathutil.Within(p, q) })
	})
}

// execRules are eval.yaml's Bash denies as exec-policy rules: each
// Bash(prefix:*) or Bash(command) a forbidden prefix_rule, whose
// justification is what the model is told.
func execRules(c permissions.Compiled) string {
	var b strings.Builder
	for _, rule := range c.Deny {
		arg, ok := strings.CutPrefix(rule, "Bash(")
		if !ok || !strings.HasSuffix(arg, ")") {
			continue
		}
		arg = strings.TrimSuffix(strings.TrimSuffix(arg, ")"), ":*")
		arg = strings.TrimSuffix(strings.TrimSpace(arg), " *")
		words := strings.Fields(arg)
		if len(words) == 0 || slices.ContainsFunc(words, func(w string) bool { return strings.ContainsAny(w, "*?") }) {
			continue // Bash, Bash(*): the hook denies every command
		}
		why := "eval.yaml denies " + rule
		if reason := c.Reasons[rule]; reason != "" {
			why += ": " + reason
		}
		pat, _ := json.Marshal(words)
		j, _ := json.Marshal(why)
		fmt.Fprintf(&b, "prefix_rule(pattern = %s, decision = \"forbidden\", justification = %s)\n", pat, j)
	}
	return b.String()
}

// hookFile is the workspace's tool_handlers.yaml: the compiled handlers
// with the case's answers, a handler denying every command when eval.yaml
// denies Bash outright, and the denied paths when the sandbox is off (the
// hook's path layer then stands in for it); nil when the hook has nothing
// to do.
func (r *started) hookFile(w runner.Workspace, sandboxOff bool) *intercept.File {
	var f intercept.File
	if r.s.Handlers != nil {
		f = intercept.WithCaseOverrides(*r.s.Handlers, w.Overrides)
	}
	f.Root = w.Dir
	deny := r.s.Permissions.Deny
	var tools []string
	for _, rule := range deny {
		switch {
		case rule == "Bash" || rule == "Bash(*)" || rule == "Bash(:*)":
			tools = append(tools, "Bash")
		case !strings.Contains(rule, "(") && rule != "Read" && rule != "Edit" && rule != "Write":
			tools = append(tools, rule) // mcp__server__tool, WebFetch, ...
		}
	}
	if len(tools) > 0 {
		f.Handlers = append(slices.Clone(f.Handlers), intercept.Handler{Match: "eval.yaml's permissions.deny", Patterns: tools})
	}
	f.DeniedPaths, f.DeniedPathReasons = nil, nil
	if sandboxOff {
		f.DeniedPaths = permissions.HookDeniedPaths(deny)
		f.DeniedPathReasons = redact.Map(permissions.HookDeniedPathReasons(r.s.Permissions, f.DeniedPaths))
	}
	if len(f.Handlers) == 0 && len(f.DeniedPaths) == 0 {
		return nil
	}
	if f.Handlers == nil {
		f.Handlers = []intercept.Handler{}
	}
	return &f
}

// write puts the compiled files in place: config.toml and the rules in
// CODEX_HOME, the handlers file in the workspace.
func (c compiled) write(ws, home string) error {
	if c.handlers != nil {
		// atomicfile replaces a link the agent left there, never writes
		// through it.
		if err := atomicfile.Write(filepath.Join(ws, hook.HandlersFile), c.handlers, 0o644); err != nil {
			return fmt.Errorf("write the hook's handlers: %w", err)
		}
	}
	// The rules folder holds the harness's rules alone: whatever else is
	// there (a rules file allowing what eval.rules forbids, a link) goes.
	rules := filepath.Join(home, filepath.Dir(RulesFile))
	if err := os.RemoveAll(rules); err != nil {
		return fmt.Errorf("write the exec-policy rules: %w", err)
	}
	if c.rules != "" {
		if err := os.Mkdir(rules, 0o700); err != nil {
			return fmt.Errorf("write the exec-policy rules: %w", err)
		}
		if err := atomicfile.Write(filepath.Join(home, RulesFile), []byte(c.rules), 0o600); err != nil {
			return fmt.Errorf("write the exec-policy rules: %w", err)
		}
	}
	var b bytes.Buffer
	if err := toml.NewEncoder(&b).Encode(c.config); err != nil {
		return &runner.ConfigError{Err: fmt.Errorf("runner.settings: cannot be written as Codex's config.toml: %w", err)}
	}
	if err := atomicfile.Write(filepath.Join(home, "config.toml"), b.Bytes(), 0o600); err != nil {
		return fmt.Errorf("write the agent's config.toml: %w", err)
	}
	return nil
}

// scriptOverride is the -c flag that names the invocation's fake-model
// script in the fake provider's headers.
func scriptOverride(name string) []string {
	return []string{"-c", "model_providers." + FakeProvider + ".http_headers={\"" + fakeapi.ScriptHeader + "\"=" + tomlString(name) + "}"}
}

// tomlString quotes s as a TOML basic string (JSON's escapes are TOML's).
func tomlString(s string) string {
	v, _ := json.Marshal(s)
	return string(v)
}
