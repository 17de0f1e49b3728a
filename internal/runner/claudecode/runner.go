package claudecode

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agent-eval/agent-eval/internal/atomicfile"
	"github.com/agent-eval/agent-eval/internal/boundary"
	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/fakeapi"
	"github.com/agent-eval/agent-eval/internal/hook"
	"github.com/agent-eval/agent-eval/internal/intercept"
	"github.com/agent-eval/agent-eval/internal/lifecycle"
	"github.com/agent-eval/agent-eval/internal/llm"
	"github.com/agent-eval/agent-eval/internal/openrouter"
	"github.com/agent-eval/agent-eval/internal/pathutil"
	"github.com/agent-eval/agent-eval/internal/permissions"
	"github.com/agent-eval/agent-eval/internal/redact"
	"github.com/agent-eval/agent-eval/internal/runner"
	"github.com/agent-eval/agent-eval/internal/transcript"
	"github.com/agent-eval/agent-eval/internal/workspace"
)

// ScrubEnv makes Claude Code strip credentials from the environment of the
// processes it starts (Bash, hooks).
const ScrubEnv = "CLAUDE_CODE_SUBPROCESS_ENV_SCRUB"

// CanaryEvent is the hook event the canary (hook --canary) is wired to:
// every session fires it once, before any tool call.
const CanaryEvent = "SessionStart"

// HookTimeoutSeconds is the timeout of the generated PreToolUse entries.
const HookTimeoutSeconds = hook.TimeoutSeconds

// New returns the claude-code runner.
func New() runner.Runner { return claudeRunner{} }

type claudeRunner struct{}

// Capabilities: Claude Code can do everything the engine asks of a runner.
func (claudeRunner) Capabilities() runner.Capabilities {
	return runner.Capabilities{Interception: true, NativePermissions: true, AskUserQuestion: true, Sandbox: true,
		RepoMode: true, Batch: true, Steps: true}
}

// started is the runner started for one run.
type started struct {
	s         runner.RunSetup
	bin       string
	version   string
	plugins   []string
	configDir string // the agent's own config dir for this run (trust)
	credDir   string // the hook's credentials folder, or ""
	credFile  string
	// plan is the OpenRouter plan in force (models.skill or --model
	// "openrouter:/…"), or nil; under --fake-model the fake plays
	// OpenRouter and the plan only names the models.
	plan *openrouter.Plan
}

// Start finds the agent, checks the sandbox and writes the run's own
// Claude Code config: every workspace trusted, so the allow rules of its
// .claude/settings.json take effect. The user's ~/.claude.json is never
// touched.
func (claudeRunner) Start(ctx context.Context, s runner.RunSetup) (_ runner.Agent, err error) {
	r := &started{s: s}
	if s.Warn == nil {
		r.s.Warn = func(string) {}
	}
	defer func() {
		if err != nil {
			err = errors.Join(err, r.Close()) // a folder left behind is said too
		}
	}()
	if r.bin, err = agentBinary(s.Eval, s.AgentBin); err != nil {
		return nil, err
	}
	if openrouter.Active(s.Eval, s.Model) {
		lookup := os.LookupEnv
		if s.FakeModelURL != "" {
			lookup = func(string) (string, bool) { return "fake-model", true }
		}
		plan, probs := openrouter.New(s.Eval, s.Model, filepath.Base(s.RunDir), lookup)
		if len(probs) > 0 {
			return nil, &runner.ConfigError{Err: fmt.Errorf("%s: %s", probs[0].Field, probs[0].Msg)}
		}
		r.plan = plan
	}
	if s.FakeModelURL == "" && r.plan == nil && !hasCredentials(s.Eval) {
		r.s.Warn(`neither ANTHROPIC_API_KEY nor ANTHROPIC_AUTH_TOKEN is set (nor Vertex or Bedrock, nor an apiKeyHelper), so Claude Code has no credentials and every case will fail "Not logged in": a claude login is not used under agent-eval; set one, or run offline with --fake-model`)
	}
	for _, d := range s.Eval.Runner.PluginDirs {
		abs, err := filepath.Abs(d)
		if err != nil {
			return nil, fmt.Errorf("runner.plugin_dirs: %w", err)
		}
		if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
			return nil, &runner.ConfigError{Err: fmt.Errorf("runner.plugin_dirs: %s is not a directory", d)}
		}
		r.plugins = append(r.plugins, abs)
	}
	if r.configDir, err = os.MkdirTemp(s.Private, "agent-eval-config-"); err != nil {
		return nil, fmt.Errorf("make the agent's config folder: %w", err)
	}
	// The sessions' folder exists before any agent runs: the sandbox hides
	// it, and Claude Code's sandbox leaves a file in place of a hidden path
	// that does not exist yet, in the way of the session it then writes.
	if err := os.Mkdir(filepath.Join(r.configDir, "projects"), 0o700); err != nil {
		return nil, fmt.Errorf("make the agent's config folder: %w", err)
	}
	projects := map[string]any{}
	for _, ws := range s.Workspaces {
		projects[ws] = map[string]any{"hasTrustDialogAccepted": true}
	}
	if s.Repo != "" {
		projects[s.Repo] = map[string]any{"hasTrustDialogAccepted": true}
	}
	if s.GitRoot != "" && s.Repo == "" {
		// Claude Code takes the folder holding the .git above a workspace
		// as the project, and the trust of its allow rules from there.
		projects[s.GitRoot] = map[string]any{"hasTrustDialogAccepted": true}
	}
	if err := writeJSON(filepath.Join(r.configDir, ".claude.json"), map[string]any{"projects": projects}); err != nil {
		return nil, fmt.Errorf("seed the agent's trust: %w", err)
	}
	scrub, scrubSet := config.ResolveEnv(s.Eval.Runner.Env, os.LookupEnv)[ScrubEnv]
	if r.weakerNesting() {
		if scrub == "1" || scrub == "true" {
			return nil, &runner.ConfigError{Err: fmt.Errorf("runner.env sets %s, and Claude Code then refuses the weaker nesting its sandbox needs inside the boundary of a run as root (its commands would fail to start); unset it, run agent-eval as a non-root user, or set permissions.sandbox: off", ScrubEnv)}
		}
		s.Warn("run as root: Claude Code's sandbox nests in the harness's boundary in its weaker mode (it shares the boundary's /proc, which shows the agent's processes alone, and its commands' credentials are withheld by the sandbox's credentials setting unless runner.env turns the scrub off, Claude Code allowing no subprocess scrub there); run agent-eval as a non-root user to have its full sandbox inside the boundary")
	}
	if s.Boundary.On {
		// Inside the harness's boundary the sandbox sends its commands'
		// traffic through the boundary's proxy, the only way out. Claude
		// Code may take this key from user settings only (a project's are
		// not trusted with it): its config folder's settings.json.
		nestedSandbox := map[string]any{"network": map[string]any{"httpProxyPort": boundary.ProxyPort}}
		if r.weakerNesting() {
			nestedSandbox["enableWeakerNestedSandbox"] = true
			// The scrub's stand-in, unless runner.env turned the scrub off.
			if !scrubSet {
				var vars []any
				for _, name := range r.credentialVars() {
					vars = append(vars, map[string]any{"name": name, "mode": "deny"})
				}
				nestedSandbox["credentials"] = map[string]any{"envVars": vars}
			}
		}
		nested := map[string]any{"sandbox": nestedSandbox}
		if err := writeJSON(filepath.Join(r.configDir, "settings.json"), nested); err != nil {
			return nil, fmt.Errorf("write the agent's user settings: %w", err)
		}
	}
	if s.Sandbox.On {
		if err := CheckSandbox(ctx, os.Getenv("PATH")); err != nil {
			return nil, &runner.ConfigError{Err: fmt.Errorf("%w (the sandbox is on because %s; to run the agent's commands unconfined instead, set permissions.sandbox: off)", err, s.Sandbox.Why)}
		}
	}
	if err := r.hookCredentials(); err != nil {
		return nil, err
	}
	r.version = Version(ctx, r.bin)
	return r, nil
}

func (r *started) Agent() (string, string) { return string(runner.TypeClaudeCode), r.version }

// Bin is the agent binary the run uses.
func (r *started) Bin() string { return r.bin }

func (r *started) Close() error {
	var errs []error
	for _, d := range []string{r.configDir, r.credDir} {
		if d != "" {
			errs = append(errs, os.RemoveAll(d))
		}
	}
	return errors.Join(errs...)
}

// agentBinary is --agent-bin, runner.settings.binary or claude, on PATH.
func agentBinary(ev *config.Eval, flag string) (string, error) {
	return runner.AgentBinary(ev, flag, "claude", "install @anthropic-ai/claude-code")
}

// hasCredentials tells whether the agent gets a way to the model: a key
// or token (the caller's, runner.env's or execution.env's), Vertex or
// Bedrock, or an apiKeyHelper in runner.settings. A run's own config
// folder means a claude login session is never one.
func hasCredentials(ev *config.Eval) bool {
	names := []string{"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_USE_VERTEX", "CLAUDE_CODE_USE_BEDROCK"}
	runnerEnv := config.ResolveEnv(ev.Runner.Env, os.LookupEnv)
	execEnv := config.ResolveEnv(ev.Execution.Env, os.LookupEnv)
	settingsEnv, _ := ev.Runner.Settings["env"].(map[string]any)
	for _, n := range names {
		if os.Getenv(n) != "" || runnerEnv[n] != "" || execEnv[n] != "" || settingsEnv[n] != nil {
			return true
		}
	}
	_, helper := ev.Runner.Settings["apiKeyHelper"]
	return helper
}

// hookCredentials hands the hook model its API key through a file outside
// every workspace when Claude Code scrubs the hook's environment (the
// sandbox): only then, and only when a handler answers questions.
func (r *started) hookCredentials() error {
	h := r.s.Handlers
	if h == nil || !slices.ContainsFunc(h.Handlers, intercept.AnswersQuestions) {
		return nil
	}
	extra := config.ResolveEnv(r.s.Eval.Runner.Env, os.LookupEnv)
	r.scrubDefault(extra)
	if extra[ScrubEnv] != "1" && extra[ScrubEnv] != "true" {
		return nil
	}
	fake := r.s.FakeModelURL != ""
	if !r.s.Sandbox.On {
		if !fake {
			r.s.Warn("runner.env sets " + ScrubEnv + " without the eval's sandbox, so Claude Code removes ANTHROPIC_API_KEY and ANTHROPIC_AUTH_TOKEN from the hook and the hook model cannot answer AskUserQuestion: questions without a case_overrides entry get the fallback (set permissions.sandbox: on instead; docs/interception.md)")
		}
		return nil
	}
	lookup := os.LookupEnv
	switch {
	case fake:
		lookup = func(name string) (string, bool) { return "fake-model", name == "ANTHROPIC_API_KEY" }
	case r.plan != nil:
		env := r.plan.Env()
		lookup = func(name string) (string, bool) { v, ok := env[name]; return v, ok }
	}
	content := hook.FormatCredentials(lookup)
	if content == "" {
		return nil // nothing to hand over: the hook model will say so per question
	}
	dir, err := os.MkdirTemp(r.s.Private, "agent-eval-cred-")
	if err != nil {
		return fmt.Errorf("make the hook's credentials folder: %w", err)
	}
	r.credDir, r.credFile = dir, filepath.Join(dir, "hook.env")
	if err := os.WriteFile(r.credFile, []byte(content), 0o600); err != nil {
		return fmt.Errorf("write the hook's credentials: %w", err)
	}
	return nil
}

// scrubDefault turns Claude Code's subprocess scrub on under the sandbox,
// unless runner.env says otherwise.
func (r *started) scrubDefault(extra map[string]string) {
	if _, set := extra[ScrubEnv]; set || !r.s.Sandbox.On || r.weakerNesting() {
		return
	}
	extra[ScrubEnv] = "1"
}

// CaseConfigDir is the name of the agent's own Claude Code config folder in
// its workspace's slot.
const CaseConfigDir = ".claude-config"

// caseConfig is the Claude Code config folder of the agent in ws: a copy of
// the run's (its trust and user settings) in the workspace's slot, so that
// nothing one case's agent writes there (settings, hooks, its sessions'
// transcripts) reaches another case. Without a slot, the run's own.
func (r *started) caseConfig(ws string) (string, error) {
	home := r.s.OwnHome(ws)
	if home == "" {
		return r.configDir, nil
	}
	dir := filepath.Join(home, CaseConfigDir)
	if err := os.MkdirAll(filepath.Join(dir, "projects"), 0o700); err != nil {
		return "", fmt.Errorf("make the agent's config folder: %w", err)
	}
	for _, name := range []string{".claude.json", "settings.json"} {
		b, err := os.ReadFile(filepath.Join(r.configDir, name))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, name), b, 0o600)
		}
		if err != nil {
			return "", fmt.Errorf("give the agent its config: %w", err)
		}
	}
	return dir, nil
}

// modelCredentials are the variables that carry the agent's way to the
// model: Claude Code needs them, its commands never do.
var modelCredentials = []string{"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_CUSTOM_HEADERS", "CLAUDE_CODE_OAUTH_TOKEN",
	"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_BEARER_TOKEN_BEDROCK"}

// credentialVars are the variables the sandbox takes from the agent's
// commands where Claude Code's own scrub cannot be on (weakerNesting): the
// model's credentials and every variable of the agent's environment whose
// name says it holds a secret, as the scrub would.
func (r *started) credentialVars() []string {
	out := slices.Clone(modelCredentials)
	for _, kv := range r.agentEnv("", "", nil) {
		if k, _, _ := strings.Cut(kv, "="); redact.SecretName(k) && !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}

// euid is the harness's effective user id (a variable for the tests).
var euid = os.Geteuid

// weakerNesting says whether Claude Code's sandbox must nest in the
// boundary in its weaker mode (enableWeakerNestedSandbox: the boundary's
// own /proc shared, no fresh one mounted). A boundary drawn by root has
// parts of its /proc covered (bubblewrap covers what the agent could
// otherwise write: /proc/sys, /proc/sysrq-trigger), and the kernel then
// lets no nested namespace mount a /proc of its own. Drawn by any other
// user nothing there is writable, nothing covered, and the full sandbox
// nests.
func (r *started) weakerNesting() bool {
	return r.s.Boundary.On && r.s.Sandbox.On && euid() == 0
}

// session is one prepared workspace.
type session struct {
	r        *started
	w        runner.Workspace
	permArgs []string
	plugins  []string
	cleanup  func() error
}

// Prepare writes the workspace's .claude/settings.json (hooks, permissions,
// sandbox, runner.settings) and the hook's tool_handlers.yaml, and stages
// the plugins.
func (r *started) Prepare(_ context.Context, w runner.Workspace) (runner.Session, error) {
	s := &session{r: r, w: w}
	var err error
	s.permArgs, s.cleanup, err = r.settings(w.Dir, w.Overrides)
	if err != nil {
		return s, err
	}
	s.plugins = r.stagedPlugins(w.Dir)
	if err := r.fillHome(r.s.OwnHome(w.Dir)); err != nil {
		return s, err
	}
	return s, nil
}

// TempDirName is the agent's temp folder ($TMPDIR) in its home.
const TempDirName = ".tmp"

// fillHome makes the agent's temp folder in its home and copies
// runner.home_files there from the user's home.
func (r *started) fillHome(home string) error {
	if home == "" {
		return nil
	}
	if err := os.MkdirAll(filepath.Join(home, TempDirName), 0o700); err != nil {
		return fmt.Errorf("make the agent's temp folder: %w", err)
	}
	files := r.s.Eval.Runner.HomeFiles
	if len(files) == 0 {
		return nil
	}
	user, err := os.UserHomeDir()
	if err != nil {
		return fmt.Errorf("runner.home_files: %w", err)
	}
	for _, f := range files {
		// The entry named is followed when it is a link (dotfiles often
		// are); links inside a folder are not copied (CopyTree).
		src, err := filepath.EvalSymlinks(filepath.Join(user, filepath.Clean(f)))
		if err != nil {
			return &runner.ConfigError{Err: fmt.Errorf("runner.home_files: %s is not in your home (%s): %w", f, user, err)}
		}
		if err := workspace.CopyTree(src, filepath.Join(home, filepath.Clean(f))); err != nil {
			return fmt.Errorf("runner.home_files: copy %s into the agent's home: %w", f, err)
		}
	}
	return nil
}

// Close removes the generated settings file; an error says the file is
// left in the workspace.
func (s *session) Close() error {
	if s.cleanup == nil {
		return nil
	}
	if err := s.cleanup(); err != nil {
		return fmt.Errorf("remove the generated settings file: %w", err)
	}
	return nil
}

// settings writes the workspace's settings and returns the permission
// flags for the agent and a cleanup for the generated settings file.
func (r *started) settings(ws string, overrides map[string]string) ([]string, func() error, error) {
	hidden, err := r.hidden(ws)
	if err != nil {
		return nil, nil, err
	}
	// The digest pins the file: an agent that rewrites it mid-run (a
	// script can, where the deny rules only stop Claude Code's own tools
	// and the shell commands it recognises) makes every call deny.
	command := func(path, digest, canary string) string {
		c := intercept.ShellQuote(r.s.HarnessBin) + " hook --handlers " + intercept.ShellQuote(path) + " --sha256 " + digest
		if canary != "" {
			return c + " --canary " + canary
		}
		if r.credFile != "" {
			c += " --credentials " + intercept.ShellQuote(r.credFile)
		}
		return c
	}
	l := layout{dir: ws, overrides: overrides, hidden: hidden, hookCommand: command, env: config.ResolveEnv(r.s.Eval.Execution.Env, os.LookupEnv)}
	l.extraDeny = r.protectedEditDenies(ws) // what scoring reads (protect.go)
	l.twinBases = []string{ws}
	if r.s.Repo != "" {
		l.extraDeny, l.extraAllow = r.answerKeyDenies(ws)
		l.extraDeny = append(r.protectedEditDenies(ws), l.extraDeny...)
		l.twinBases = []string{r.s.Repo} // twins are rooted where the agent runs
	}
	if r.s.Sandbox.On {
		spec := r.sandboxSpec(ws, hidden)
		l.sandbox = &spec
	}
	files, err := r.compose(l)
	if err != nil {
		return nil, nil, err
	}
	if files.Handlers != nil {
		if err := os.WriteFile(filepath.Join(ws, hook.HandlersFile), files.Handlers, 0o644); err != nil {
			return nil, nil, err
		}
	}
	settings := files.Settings
	if _, err := workspace.WriteSettings(ws, settings); err != nil {
		return nil, nil, err
	}
	_, wired := settings["hooks"]
	settingsDir, planEnv := filepath.Join(ws, ".claude"), map[string]string(nil)
	if r.plan != nil {
		// The overlay carries the plan's key: it goes into the run's own
		// folder, which no agent may read, not into the workspace.
		if settingsDir, err = os.MkdirTemp(r.configDir, "overlay-"); err != nil {
			return nil, nil, fmt.Errorf("make the OpenRouter overlay's folder: %w", err)
		}
		planEnv = r.planEnv()
	}
	plan := permissions.PlanClaude(files.perms, settings, settingsDir, planEnv)
	if (r.s.Repo != "" || wired) && plan.SettingsFile == "" {
		// The agent runs in the project, which does not load this folder's
		// settings by itself; and a wired hook must outrank the workspace's
		// settings.local.json.
		plan.Args = append(plan.Args, "--settings", filepath.Join(ws, ".claude", "settings.json"))
	}
	var cleanup func() error
	if plan.SettingsFile != "" {
		_, remove, err := permissions.WriteSettingsFile(settingsDir, plan.SettingsFile, plan.Settings)
		if err != nil {
			return nil, nil, err
		}
		cleanup = remove
	}
	return plan.Args, cleanup, nil
}

// layout is where one workspace's Claude Code files are compiled for:
// the workspace as its agent sees it, and what only the host adds.
type layout struct {
	dir       string // the workspace as the agent sees it
	overrides map[string]string
	hidden    hiddenPaths
	// hookCommand is the hook's command line, given its handlers file (as
	// the agent sees it) and that file's sha256; with canary set, the
	// canary's for that event (hook --canary).
	hookCommand func(handlers, digest, canary string) string
	// extraDeny and extraAllow are the host's own rules (protect.go, repo
	// mode's); twinBases the folders relative Bash rules are twinned
	// under (none: no twins).
	extraDeny, extraAllow, twinBases []string
	sandbox                          *permissions.SandboxSpec // nil: the sandbox is off
	env                              map[string]string        // the settings' env block
}

// WorkspaceFiles are a workspace's compiled Claude Code files.
type WorkspaceFiles struct {
	// Settings is .claude/settings.json.
	Settings map[string]any
	// Handlers is tool_handlers.yaml, nil when the hook has nothing to do
	// (and no hook is wired).
	Handlers []byte
	perms    permissions.Compiled
}

// compose compiles the workspace's settings (hooks, permissions, env,
// runner.settings, sandbox) and hook file for l: the one compiler of the
// local runner and of a Harbor task's workspace.
func (r *started) compose(l layout) (WorkspaceFiles, error) {
	var out WorkspaceFiles
	ev := r.s.Eval
	settings := map[string]any{}
	if hf := r.hookFile(l.dir, l.overrides, l.hidden); hf != nil {
		b, digest, err := workspace.MarshalHandlers(*hf)
		if err != nil {
			return out, err
		}
		out.Handlers = b
		handlers := path.Join(l.dir, hook.HandlersFile)
		command := l.hookCommand(handlers, digest, "")
		settings["hooks"] = map[string]any{"PreToolUse": HookEntries(*hf, command, HookTimeoutSeconds),
			// The canary proves the session ran its hooks: a case whose
			// ledger has none ran ungated (the engine says so).
			CanaryEvent: []any{map[string]any{"hooks": []any{map[string]any{"type": "command",
				"command": l.hookCommand(handlers, digest, CanaryEvent), "timeout": HookTimeoutSeconds}}}}}
	}
	c := r.s.Permissions
	c.Deny = append(slices.Clone(c.Deny), workspace.ProtectedDenies()...)
	c.Deny = append(c.Deny, l.extraDeny...)
	c.Allow = append(slices.Clone(c.Allow), l.extraAllow...)
	// What the sandbox hides from Bash is hidden from the file tools too,
	// which run outside it, whether the sandbox is on or not. The rules go
	// into the settings, not on the command line. The settings hold repo
	// mode's rules too: Claude Code's sandbox takes the Edit denies of its
	// settings (not of its command line) as its denyWrite, which is what
	// keeps Bash from writing the project and its git folders.
	withHidden := c
	withHidden.Deny = append(slices.Clone(c.Deny), l.hidden.rules...)
	if len(l.twinBases) > 0 {
		exists := func(rel string) bool { return fileExists(filepath.Join(l.twinBases[0], rel)) }
		var warn string
		settings, _, warn = permissions.WorkspaceSettings(settings, withHidden, l.twinBases, exists)
		if warn != "" {
			r.s.Warn(warn)
		}
	} else {
		settings = permissions.MergeRules(settings, withHidden.Allow, withHidden.Deny)
	}
	if len(l.env) > 0 {
		m := map[string]any{}
		for k, v := range l.env {
			m[k] = v
		}
		settings["env"] = m
	}
	if len(ev.Runner.Settings) > 0 {
		settings = workspace.DeepMerge(settings, runner.NativeSettings(ev))
		if _, wired := settings["hooks"]; wired && settings["disableAllHooks"] == true {
			r.s.Warn("runner.settings.disableAllHooks is ignored: the harness's PreToolUse hook enforces inputs.tools and the denied paths")
		}
	}
	if _, wired := settings["hooks"]; wired {
		// Claude Code would run no hook at all, so neither inputs.tools nor
		// the hook's path layer would gate a call, with disableAllHooks set
		// by runner.settings or by the workspace's own
		// .claude/settings.local.json (which outranks settings.json; the
		// --settings file below outranks it).
		settings["disableAllHooks"] = false
	}
	if l.sandbox != nil {
		settings = permissions.WithSandbox(settings, permissions.Sandbox(*l.sandbox))
	}
	out.Settings, out.perms = settings, c
	return out, nil
}

// ContainerWorkspace compiles the Claude Code files of a workspace that
// its agent sees at dir in a container (a Harbor trial), with the same
// compiler as a local run: s's handlers, permissions and sandbox decision
// (Repo, RunDir and the private roots unset: the container has none of the
// host's places to hide or protect). The rules are eval.yaml's own, not
// twinned; env is the settings' env block; hookCommand is the hook's
// command line given its handlers file and digest. s.Warn may be nil.
func ContainerWorkspace(s runner.RunSetup, dir string, overrides map[string]string, env map[string]string, hookCommand func(handlers, digest, canary string) string) (WorkspaceFiles, error) {
	if s.Warn == nil {
		s.Warn = func(string) {}
	}
	r := &started{s: s}
	l := layout{dir: dir, overrides: overrides, hookCommand: hookCommand, env: env}
	if s.Sandbox.On {
		spec := networkSpec(s.Eval) // the host's paths are not the container's
		l.sandbox = &spec
	}
	return r.compose(l)
}

// hookFile is the workspace's tool_handlers.yaml: the compiled handlers
// with the case's answers, and the denied paths when the sandbox is off
// (the hook's path layer then stands in for it); nil when the hook has
// nothing to do.
func (r *started) hookFile(ws string, overrides map[string]string, hidden hiddenPaths) *intercept.File {
	var f intercept.File
	if r.s.Handlers != nil {
		f = intercept.WithCaseOverrides(*r.s.Handlers, overrides)
	}
	deny, root := r.s.Permissions.Deny, ws
	if r.s.Repo != "" {
		keys, _ := r.answerKeyDenies(ws)
		deny, root = append(slices.Clone(deny), keys...), r.s.Repo
	}
	f.Root = root
	f.Git = gitPolicy(r.s.Permissions.Deny, r.s.Repo)
	f.DeniedPaths, f.DeniedPathReasons = nil, nil
	if !r.s.Sandbox.On {
		f.DeniedPaths = permissions.HookDeniedPaths(deny)
		f.DeniedPathReasons = redact.Map(permissions.HookDeniedPathReasons(r.s.Permissions, f.DeniedPaths))
	}
	if r.s.Handlers == nil && len(f.DeniedPaths) == 0 && f.Git == nil {
		return nil
	}
	if !r.s.Sandbox.On && !bashDenied(r.s.Permissions.Deny) {
		// Where the hook is wired anyway, its path layer stands in for the
		// sandbox over what the harness hides too.
		f.AddDeniedPaths(HiddenReason, hidden.hook...)
	}
	if f.Handlers == nil {
		f.Handlers = []intercept.Handler{}
	}
	return &f
}

// HiddenReason is the reason the hook's deny names for a path the harness
// hides (hidden.go).
const HiddenReason = "the harness keeps the dataset, the runs, eval.yaml, other workspaces and your credentials from the agent"

// bashDenied reports whether a deny rule forbids Bash outright.
func bashDenied(deny []string) bool {
	return slices.ContainsFunc(deny, func(r string) bool { return r == "Bash" || r == "Bash(*)" || r == "Bash(:*)" })
}

// answerKeyDenies keep an agent running in the project itself (repo mode)
// away from the eval's own files and from changing the project: it may read
// and write its output folder only.
func (r *started) answerKeyDenies(out string) (deny, allow []string) {
	ev, repo := r.s.Eval, r.s.Repo
	spell := func(p string, dir bool) string {
		abs, _ := filepath.Abs(p)
		rel, err := filepath.Rel(repo, abs)
		pat := "/" + abs // //abs: an absolute path
		if err == nil && !strings.HasPrefix(rel, "..") {
			pat = rel
		}
		if dir {
			pat += "/**"
		}
		return pat
	}
	protected := []string{spell(ev.Path(), false), spell(filepath.Join(ev.Dir(), hook.HandlersFile), false), spell(ev.DatasetDir(), true),
		spell(filepath.Dir(r.s.RunDir), true)}
	for _, p := range protected {
		deny = append(deny, "Read("+p+")", "Edit("+p+")")
	}
	deny = append(deny, "Edit(/"+repo+"/**)")
	// The repository's own state, also where a .git file or a linked
	// worktree keeps it outside the project: Claude Code's sandbox takes
	// Edit denies as its denyWrite, so not even a Bash command writes it.
	for _, d := range workspace.GitDirs(context.Background(), repo) {
		deny = append(deny, "Edit(/"+d+"/**)")
	}
	// Claude Code's own worktree tools run git outside Bash (and outside
	// the sandbox): a new worktree and branch in the user's repository.
	deny = append(deny, "EnterWorktree", "ExitWorktree")
	for _, v := range []string{"add", "commit", "push", "checkout", "reset", "restore", "stash", "clean", "apply", "rm", "mv"} {
		deny = append(deny, "Bash(git "+v+":*)")
	}
	return deny, []string{"Read(/" + out + "/**)", "Edit(/" + out + "/**)"}
}

// gitPolicy is what the hook's git layer judges: the eval's git deny rules
// (Bash(git add:*) misses `git -C . add`), and in repo mode read-only git;
// nil when there is nothing to judge.
func gitPolicy(deny []string, repo string) *intercept.GitPolicy {
	g := &intercept.GitPolicy{ReadOnly: repo != ""}
	if repo != "" {
		g.Folders = workspace.GitDirs(context.Background(), repo)
	}
	for _, rule := range deny {
		if words, ok := intercept.GitDenyRule(rule); ok {
			g.Deny = append(g.Deny, words)
		}
	}
	if !g.ReadOnly && len(g.Deny) == 0 {
		return nil
	}
	return g
}

// stagedPlugins copies runner.plugin_dirs into the workspace (once), so the
// agent works on a copy it cannot change at the source; in repo mode the
// plugins are used where they are.
func (r *started) stagedPlugins(ws string) []string {
	if r.s.Repo != "" || len(r.plugins) == 0 {
		return r.plugins
	}
	var out []string
	for _, p := range r.plugins {
		dst := filepath.Join(ws, ".staged-plugins", filepath.Base(p))
		if !fileExists(dst) {
			if err := workspace.CopyTree(p, dst); err != nil {
				r.s.Warn(fmt.Sprintf("staging plugin %s: %v; using it in place", p, err))
				out = append(out, p)
				continue
			}
		}
		out = append(out, dst)
	}
	return out
}

// agentEnv is the agent's environment: the allowlist, runner.env, the
// hooks' outputs and the harness's own variables.
func (r *started) agentEnv(name, ws string, extraEnv map[string]string) []string {
	ev := r.s.Eval
	extra := config.ResolveEnv(ev.Runner.Env, os.LookupEnv)
	for k, v := range extraEnv {
		extra[k] = v // the lifecycle hooks' outputs reach the agent
	}
	extra["CLAUDE_CONFIG_DIR"] = r.configDir
	if _, set := extra["HOME"]; !set {
		// A home of its own: none of the user's credential folders, and
		// nothing another case (or run) left or removes there.
		if home := r.s.OwnHome(ws); home != "" {
			extra["HOME"] = home
		}
	}
	if _, set := extra["TMPDIR"]; !set {
		// A temp folder of its own too, inside its home: the sandbox guards
		// the settings files of every folder from the temp folder up to the
		// home as well, with placeholders a shared one would race on.
		if home := r.s.OwnHome(ws); home != "" && fileExists(filepath.Join(home, TempDirName)) {
			extra["TMPDIR"] = filepath.Join(home, TempDirName)
		}
	}
	if r.s.Repo != "" {
		extra["AGENT_EVAL_OUTPUT_DIR"] = ws
	}
	extra["CLAUDE_CODE_SUBAGENT_MODEL"] = ev.Models.Subagent
	if strings.TrimSpace(ev.Models.Subagent) == "" {
		extra["CLAUDE_CODE_SUBAGENT_MODEL"] = r.s.Model
	}
	if r.plan != nil {
		extra["CLAUDE_CODE_SUBAGENT_MODEL"] = r.plan.Subagent
	}
	extra["DISABLE_AUTOUPDATER"] = "1"
	extra["DISABLE_TELEMETRY"] = "1"
	extra["DISABLE_ERROR_REPORTING"] = "1"
	for k, v := range TelemetryEnv(r.s.AgentOTLP, r.s.RunID, name) {
		extra[k] = v
	}
	r.scrubDefault(extra) // the agent's commands do not see the harness's credentials
	if ev.Runner.PermissionMode == "bypassPermissions" && IsRoot() {
		extra["IS_SANDBOX"] = "1"
	}
	if r.s.FakeModelURL != "" {
		// The script is named by the base URL as well as the header: the
		// sandbox's scrub takes ANTHROPIC_CUSTOM_HEADERS and the key from
		// the hook, whose tier-2 answers come from the script's side:.
		extra["ANTHROPIC_BASE_URL"] = fakeapi.ScriptURL(r.s.FakeModelURL, name)
		extra["ANTHROPIC_API_KEY"] = "fake-model"
		extra["ANTHROPIC_AUTH_TOKEN"] = ""
		extra["ANTHROPIC_CUSTOM_HEADERS"] = fakeapi.ScriptHeader + ": " + name
		extra[llm.FakeModelEnv] = "1"
		extra["CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"] = "1"
	}
	env := Env(os.LookupEnv, extra)
	if r.plan != nil && r.s.FakeModelURL == "" {
		// The overlay alone says where the agent's requests go and with
		// which credentials: none of the caller's reaches it.
		env = slices.DeleteFunc(env, func(kv string) bool {
			k, _, _ := strings.Cut(kv, "=")
			return slices.Contains(openrouter.ManagedKeys, k) && k != "CLAUDE_CODE_SUBAGENT_MODEL"
		})
	}
	return env
}

// planEnv is the OpenRouter plan's env block for the overlay. Under
// --fake-model the fake plays OpenRouter: the process environment points
// the agent at the case's script, and the block only fills the model
// slots.
func (r *started) planEnv() map[string]string {
	env := r.plan.Env()
	if r.s.FakeModelURL != "" {
		for _, k := range []string{"ANTHROPIC_BASE_URL", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_API_KEY", "ANTHROPIC_CUSTOM_HEADERS"} {
			delete(env, k)
		}
	}
	return env
}

// Invoke runs Claude Code once in the session's workspace.
func (s *session) Invoke(ctx context.Context, in runner.Invocation) runner.Result {
	r := s.r
	rc := r.s.Eval.Runner
	if in.Runner != nil {
		rc = *in.Runner
	}
	env := r.agentEnv(in.Name, s.w.Dir, in.Env)
	if in.Runner != nil {
		env = lifecycle.Environ(env, config.ResolveEnv(in.Runner.Env, os.LookupEnv))
	}
	cfg, err := r.caseConfig(s.w.Dir)
	if err != nil {
		return runner.Result{Err: err}
	}
	env = lifecycle.Environ(env, map[string]string{"CLAUDE_CONFIG_DIR": cfg})
	// The logs are redacted as they are written; the stream is parsed as the
	// agent printed it.
	secrets := env
	if r.plan != nil && r.plan.Key != "" {
		secrets = append(slices.Clone(env), "ANTHROPIC_AUTH_TOKEN="+r.plan.Key) // the overlay's, not the process's
	}
	red := redact.FromEnviron(secrets)
	if in.NewRedactor != nil {
		red = in.NewRedactor(secrets)
	}
	stdout, stderr := red.JSONWriter(orDiscard(in.Stdout)), red.Writer(orDiscard(in.Stderr))
	var onEvent func(transcript.Event)
	if in.Transcript != nil {
		onEvent = func(e transcript.Event) {
			e.Step = in.Step
			in.Transcript.Write(e)
		}
	}
	budget, model := in.MaxBudgetUSD, r.s.Model
	if r.plan != nil {
		budget, model = r.plan.Budget(budget), r.plan.Skill
	}
	dir := s.w.Dir
	if r.s.Repo != "" {
		dir = r.s.Repo
	}
	before := workspace.TopLevel(dir)
	var ro []string
	ro = append(ro, s.plugins...)
	ro = append(ro, r.plugins...)
	if r.credDir != "" {
		ro = append(ro, r.credDir)
	}
	// The OpenRouter plan's base URL is in the overlay's settings, not the
	// agent's environment: the boundary forwards (or lets through) it too.
	reach := env
	if r.plan != nil {
		for k, v := range r.plan.Env() {
			reach = append(reach[:len(reach):len(reach)], k+"="+v)
		}
	}
	for i, a := range s.permArgs {
		if a == "--settings" && i+1 < len(s.permArgs) && pathutil.Within(s.permArgs[i+1], r.configDir) {
			ro = append(ro, filepath.Dir(s.permArgs[i+1])) // the OpenRouter overlay, this session's alone
		}
	}
	world := r.s.World(s.w, r.bin, reach, []string{cfg}, ro)
	res := Run(ctx, Spec{World: world,
		Bin: r.bin, Dir: dir, Prompt: in.Prompt, Model: model, Effort: rc.Effort,
		PermissionMode: rc.PermissionMode, MaxBudgetUSD: &budget, SystemPrompt: rc.SystemPrompt,
		PluginDirs: s.plugins, PermissionArgs: s.permArgs, AskUserQuestion: r.s.Handlers != nil,
		Env: env, Timeout: in.Timeout, Stdout: stdout, Stderr: stderr,
		Guard: r.s.HarnessBin, Started: in.Started, OnEvent: onEvent,
	})
	var errs []error
	errs = append(errs, stdout.Close(), stderr.Close())
	// What the sandbox mounted over where the agent ran (its workspace, the
	// project in repo mode) is not its work.
	workspace.RemoveSandboxPlaceholders(dir, before)
	out := res.RunnerResult(red)
	if err := errors.Join(errs...); err != nil && out.Err == nil {
		out.Err = fmt.Errorf("write the agent's logs: %w", err)
	}
	return out
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func writeJSON(path string, v any) error {
	b, err := jsonIndent(v)
	if err != nil {
		return err
	}
	return atomicfile.Write(path, b, 0o644)
}

func jsonIndent(v any) ([]byte, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	return append(b, '\n'), err
}

func orDiscard(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	return w
}

// TelemetryEnv is the environment that switches on Claude Code's own
// OpenTelemetry export (metrics and log events over OTLP/HTTP protobuf) to
// base, the receiver's base URL, for case (or batch) id of run runID:
// --otlp-agent, the one exception to the runs' telemetry being off. Only
// OpenTelemetry is switched on: DISABLE_TELEMETRY (Anthropic's own usage
// telemetry) and the other opt-outs stay set. The exporter runs in Claude
// Code's own process, outside the OS sandbox (which confines the agent's
// commands), so the sandbox's network allowlist does not need the
// receiver. Nil when base is "".
func TelemetryEnv(base, runID, id string) map[string]string {
	if base == "" {
		return nil
	}
	return map[string]string{
		"CLAUDE_CODE_ENABLE_TELEMETRY": "1",
		"OTEL_METRICS_EXPORTER":        "otlp",
		"OTEL_LOGS_EXPORTER":           "otlp",
		"OTEL_EXPORTER_OTLP_PROTOCOL":  "http/protobuf",
		"OTEL_EXPORTER_OTLP_ENDPOINT":  base,
		// Short intervals: a case's process often lives less than the
		// defaults (60 s, 5 s), and what is not exported before it exits
		// is lost.
		"OTEL_METRIC_EXPORT_INTERVAL": "2000",
		"OTEL_LOGS_EXPORT_INTERVAL":   "1000",
		"OTEL_RESOURCE_ATTRIBUTES":    "agent_eval.run_id=" + url.PathEscape(runID) + ",agent_eval.case_id=" + url.PathEscape(id),
	}
}
