// Package codex is the runner of OpenAI's Codex CLI (runner.type codex):
// `codex exec --json` per invocation, with a CODEX_HOME of its own per
// workspace holding a generated config.toml (the model provider, the
// sandbox and its permission profile, the PreToolUse hook and its canary)
// and rules/eval.rules (eval.yaml's Bash denies as exec-policy
// prefix_rules). What --json leaves out (the calls a rule, the hook or the
// sandbox refused) is read back from the session's rollout file.
package codex

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/agent-eval/agent-eval/internal/agentproc"
	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/lifecycle"
	"github.com/agent-eval/agent-eval/internal/redact"
	"github.com/agent-eval/agent-eval/internal/runner"
	"github.com/agent-eval/agent-eval/internal/runner/claudecode"
	"github.com/agent-eval/agent-eval/internal/transcript"
)

// New returns the codex runner.
func New() runner.Runner { return codexRunner{} }

type codexRunner struct{}

// Capabilities: the hook gates Codex's shell and patch calls, eval.yaml's
// rules compile into its permission profile and exec policy, its own
// sandbox confines the commands. Codex's question tool (request_user_input)
// exists only in its Plan mode, never in exec: no AskUserQuestion.
func (codexRunner) Capabilities() runner.Capabilities {
	return runner.Capabilities{Interception: true, NativePermissions: true, Sandbox: true, Batch: true, Steps: true}
}

type started struct {
	s       runner.RunSetup
	bin     string
	version string
	// ignored warns once of the runner.settings the harness overrides.
	ignored sync.Once
}

// Start finds the Codex CLI.
func (codexRunner) Start(ctx context.Context, s runner.RunSetup) (runner.Agent, error) {
	if s.Eval == nil {
		return nil, errors.New("start the codex runner: no eval")
	}
	r := &started{s: s}
	if r.s.Warn == nil {
		r.s.Warn = func(string) {}
	}
	var err error
	if r.bin, err = agentBinary(s.Eval, s.AgentBin); err != nil {
		return nil, err
	}
	if s.FakeModelURL == "" && !hasCredentials(s.Eval) {
		r.s.Warn("neither OPENAI_API_KEY nor CODEX_API_KEY is set, so Codex has no credentials and every case will fail: a codex login is not used under agent-eval (its CODEX_HOME is the run's own); set one, or run offline with --fake-model")
	}
	if s.Private == "" {
		return nil, errors.New("start the codex runner: no private folder for its CODEX_HOME")
	}
	r.warnUnsupported()
	r.version = claudecode.Version(ctx, r.bin)
	return r, nil
}

// warnUnsupported says what of the eval Codex does not take.
func (r *started) warnUnsupported() {
	ev := r.s.Eval
	for _, rule := range r.s.Permissions.Deny {
		if tool, _, _ := strings.Cut(rule, "("); strings.Contains(rule, "(") && slices.Contains([]string{"Read", "Edit", "Write", "Grep", "Glob"}, tool) {
			if _, _, ok := pathRule(rule); !ok {
				r.s.Warn("permissions.deny " + rule + ": Codex's permission profile takes a folder or a file, not a glob; this rule is not enforced by the codex runner")
			}
		}
	}
	if len(ev.Runner.HomeFiles) > 0 || len(ev.Runner.PluginDirs) > 0 || ev.Runner.PermissionMode != "" {
		r.s.Warn("runner.home_files, runner.plugin_dirs and runner.permission_mode are Claude Code's: the codex runner ignores them")
	}
	if n := ev.Permissions.Network; n != nil && len(n.Allow) > 0 && !networkOn(ev) {
		r.s.Warn("permissions.network: Codex's sandbox has no host allowlist; the agent's commands reach no host")
	}
}

func (r *started) Agent() (string, string) { return string(runner.TypeCodex), r.version }

// Bin is the agent binary the run uses.
func (r *started) Bin() string { return r.bin }

func (r *started) Close() error { return nil }

// agentBinary is --agent-bin, runner.settings.binary or codex, on PATH.
func agentBinary(ev *config.Eval, flag string) (string, error) {
	return runner.AgentBinary(ev, flag, "codex", "install @openai/codex, e.g. with scripts/install-codex.sh")
}

// credentialEnv are the variables that give Codex a way to the model.
var credentialEnv = []string{"OPENAI_API_KEY", "CODEX_API_KEY"}

func hasCredentials(ev *config.Eval) bool {
	runnerEnv := config.ResolveEnv(ev.Runner.Env, os.LookupEnv)
	for _, n := range credentialEnv {
		if os.Getenv(n) != "" || runnerEnv[n] != "" {
			return true
		}
	}
	// A provider of runner.settings may name its own variable.
	return ev.Runner.Settings["model_provider"] != nil
}

// session is one prepared workspace: its CODEX_HOME.
type session struct {
	r    *started
	w    runner.Workspace
	home string // CODEX_HOME
	// hooked: the PreToolUse hook (and the canary) is wired.
	hooked bool
	// denied are the profile's denied paths, absolute.
	denied []string
	// compiled is what Prepare wrote, written again before every
	// invocation: a step that ran without the sandbox may have changed
	// config.toml, the rules or tool_handlers.yaml for the next.
	compiled compiled
}

// absentDenied are the denied paths that do not exist: Codex's sandbox
// mounts an empty file over each while the agent runs.
func (s *session) absentDenied() []string {
	var out []string
	for _, p := range s.denied {
		if _, err := os.Lstat(p); err != nil {
			out = append(out, p)
		}
	}
	return out
}

// removePlaceholders removes the empty files Codex's sandbox left where
// the denied paths absent were: not the agent's work.
func removePlaceholders(absent []string) {
	for _, p := range absent {
		if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() && fi.Size() == 0 {
			_ = os.Remove(p)
		}
	}
}

// Prepare makes the workspace's CODEX_HOME (in the run's private folder:
// never the user's, never under $TMPDIR, which Codex's sandbox refuses)
// with its config.toml and rules, and the hook's tool_handlers.yaml in the
// workspace.
func (r *started) Prepare(_ context.Context, w runner.Workspace) (runner.Session, error) {
	s := &session{r: r, w: w}
	home, err := os.MkdirTemp(r.s.Private, "codex-home-")
	if err != nil {
		return s, fmt.Errorf("make the agent's CODEX_HOME: %w", err)
	}
	s.home = home
	if own := r.s.OwnHome(w.Dir); own != "" {
		if err := os.MkdirAll(filepath.Join(own, claudecode.TempDirName), 0o700); err != nil {
			return s, fmt.Errorf("make the agent's temp folder: %w", err)
		}
	}
	c, err := r.compile(w, home)
	if err != nil {
		return s, err
	}
	s.hooked, s.denied, s.compiled = c.hooked, c.denied, c
	return s, c.write(w.Dir, home)
}

// Close removes the session's CODEX_HOME.
func (s *session) Close() error {
	if s.home == "" {
		return nil
	}
	if err := os.RemoveAll(s.home); err != nil {
		return fmt.Errorf("remove the agent's CODEX_HOME: %w", err)
	}
	return nil
}

// envAllowlist are the only variables taken from the caller's environment.
var envAllowlist = []string{"PATH", "HOME", "USER", "SHELL", "LANG", "LC_ALL", "TERM", "TMPDIR",
	"OPENAI_API_KEY", "CODEX_API_KEY", "OPENAI_ORGANIZATION", "OPENAI_PROJECT", "AGENT_EVAL_RUNS_DIR"}

// FakeKeyEnv is the variable the fake model's provider reads its key from.
const FakeKeyEnv = "AGENT_EVAL_FAKE_OPENAI_KEY"

// agentEnv is the agent's environment: the allowlist, execution.env,
// runner.env, the invocation's own and the harness's variables.
func (s *session) agentEnv(in runner.Invocation) []string {
	r := s.r
	ev := r.s.Eval
	extra := config.ResolveEnv(ev.Execution.Env, os.LookupEnv)
	for k, v := range config.ResolveEnv(ev.Runner.Env, os.LookupEnv) {
		extra[k] = v
	}
	for k, v := range in.Env {
		extra[k] = v
	}
	extra["CODEX_HOME"] = s.home
	if own := r.s.OwnHome(s.w.Dir); own != "" {
		if _, set := extra["HOME"]; !set {
			extra["HOME"] = own
		}
		if _, set := extra["TMPDIR"]; !set {
			extra["TMPDIR"] = filepath.Join(own, claudecode.TempDirName)
		}
	}
	fake := r.s.FakeModelURL != ""
	if fake {
		extra[FakeKeyEnv] = "fake-model"
	}
	return claudecode.Env(func(k string) (string, bool) {
		if !slices.Contains(envAllowlist, k) || fake && slices.Contains(credentialEnv, k) {
			return "", false // offline, the user's keys stay home
		}
		return os.LookupEnv(k)
	}, extra)
}

// Args is codex's command line after the binary: exec with JSON events,
// no git check, the hooks trusted when wired (Codex skips untrusted hooks
// without a word), flags (-c overrides), the prompt last.
func Args(prompt string, trustHooks bool, flags ...string) []string {
	a := []string{"exec", "--json", "--skip-git-repo-check"}
	if trustHooks {
		a = append(a, "--dangerously-bypass-hook-trust")
	}
	a = append(a, flags...)
	return append(a, "--", prompt)
}

// Invoke runs codex exec once in the session's workspace.
func (s *session) Invoke(ctx context.Context, in runner.Invocation) runner.Result {
	if err := s.compiled.write(s.w.Dir, s.home); err != nil {
		return runner.Result{ExitCode: -1, Err: fmt.Errorf("write the agent's configuration again: %w", err)}
	}
	env := s.agentEnv(in)
	if in.Runner != nil {
		env = lifecycle.Environ(env, config.ResolveEnv(in.Runner.Env, os.LookupEnv))
	}
	red := redact.FromEnviron(env)
	if in.NewRedactor != nil {
		red = in.NewRedactor(env)
	}
	stdout, stderr := red.JSONWriter(cmp.Or[io.Writer](in.Stdout, io.Discard)), red.Writer(cmp.Or[io.Writer](in.Stderr, io.Discard))
	p := newParser(func(e transcript.Event) {
		if in.Transcript != nil {
			e.Step = in.Step
			in.Transcript.Write(e)
		}
	})
	var flags []string
	if s.r.s.FakeModelURL != "" {
		flags = scriptOverride(in.Name) // the invocation's script
	}
	if in.Runner != nil && in.Runner.Effort != "" {
		flags = append(flags, "-c", "model_reasoning_effort="+tomlString(in.Runner.Effort)) // the step's own
	}
	sessions := filepath.Join(s.home, "sessions")
	before := rollouts(sessions)
	absent := s.absentDenied()
	// No stdin (exec.Cmd's is the null device): codex exec reads a prompt
	// from a stdin that is not a terminal.
	pr := agentproc.Run(ctx, agentproc.Spec{Path: s.r.bin, Args: Args(in.Prompt, s.hooked, flags...), Dir: s.w.Dir, Env: env,
		Timeout: in.Timeout, Stdout: stdout, Stderr: stderr, Line: p.line, Guard: s.r.s.HarnessBin, Started: in.Started,
		Boundary: s.r.s.World(s.w, s.r.bin, env, []string{s.home}, nil)})
	var errs []error
	errs = append(errs, stdout.Close(), stderr.Close())
	removePlaceholders(absent)
	out := runner.Result{ExitCode: pr.ExitCode, TimedOut: pr.TimedOut, Interrupted: pr.Interrupted, Duration: pr.Duration,
		Err: pr.Err, Redactor: red, Refused: runner.Refusals(pr.Refused, runner.CLIHosts(string(runner.TypeCodex)))}
	roll, err := readRollouts(sessions, before)
	if err != nil {
		errs = append(errs, err)
	}
	p.finish(&out, roll, s.r.s.Model, s.denied)
	if err := errors.Join(errs...); err != nil && out.Err == nil {
		out.Err = fmt.Errorf("read the agent's output: %w", err)
	}
	return out
}
