package clirunner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/fakeapi"
	"github.com/agent-eval/agent-eval/internal/llm"
	"github.com/agent-eval/agent-eval/internal/redact"
	"github.com/agent-eval/agent-eval/internal/runner"
	"github.com/agent-eval/agent-eval/internal/workspace"
)

// OutputDirName is the workspace folder {output_dir} names.
const OutputDirName = "output"

// New returns the cli runner (runner.type cli).
func New() runner.Runner { return cliRunner{} }

// NewOver returns the cli runner for an eval whose command runs Claude
// Code in the workspace (runner.agent: claude-code): claude prepares each
// workspace (its .claude/settings.json with the hook and the permission
// rules, which the Claude Code the command starts there reads), so the
// runner declares claude's interception and permissions. What reaches
// Claude Code only as command-line flags or environment in the claude-code
// runner (--settings, trust in its own config folder, AskUserQuestion over
// stdio) cannot reach a command the user wrote.
func NewOver(claude runner.Runner) runner.Runner { return cliRunner{inner: claude} }

type cliRunner struct{ inner runner.Runner }

// Capabilities: a command is not hooked: no interception, no permissions,
// no sandbox; it runs in a workspace, per case, per step or over the batch.
func (c cliRunner) Capabilities() runner.Capabilities {
	caps := runner.Capabilities{Batch: true, Steps: true}
	if c.inner != nil {
		in := c.inner.Capabilities()
		caps.Interception, caps.NativePermissions, caps.Sandbox = in.Interception, in.NativePermissions, in.Sandbox
	}
	return caps
}

type started struct {
	s       runner.RunSetup
	inner   runner.Agent
	program string // the command's program, for Agent
}

// Start checks the eval has a command whose program exists and starts the
// runner underneath, if any.
func (c cliRunner) Start(ctx context.Context, s runner.RunSetup) (runner.Agent, error) {
	if s.Eval == nil {
		return nil, errors.New("start the cli runner: no eval")
	}
	cmd := s.Eval.Runner.Command
	if len(cmd) == 0 {
		return nil, &runner.ConfigError{Err: errors.New("runner.command: runner type cli needs a command")}
	}
	r := &started{s: s, program: filepath.Base(cmd[0])}
	if !strings.Contains(cmd[0], "{") {
		if _, err := findProgram(cmd[0], s.Eval.Dir()); err != nil {
			return nil, &runner.ConfigError{Err: fmt.Errorf("runner.command: %w", err)}
		}
	}
	if c.inner != nil {
		inner, err := c.inner.Start(ctx, s)
		if err != nil {
			return nil, err
		}
		r.inner = inner
	}
	return r, nil
}

// FindProgram finds a command's program as the runner does: on PATH when
// it has no slash, else relative to dir (eval.yaml's folder) when not
// absolute.
func FindProgram(p, dir string) (string, error) { return findProgram(p, dir) }

func findProgram(p, dir string) (string, error) {
	switch {
	case !strings.Contains(p, "/"):
		return exec.LookPath(p)
	case !filepath.IsAbs(p):
		p = filepath.Join(dir, p)
	}
	if _, err := os.Stat(p); err != nil {
		return "", err
	}
	return p, nil
}

func (r *started) Agent() (string, string) { return string(runner.TypeCLI) + ":" + r.program, "" }

func (r *started) Close() error {
	if r.inner != nil {
		return r.inner.Close()
	}
	return nil
}

type session struct {
	r     *started
	w     runner.Workspace
	input map[string]any
	inner runner.Session
}

// Prepare reads the case's input (for its placeholders, checked here so a
// case that lacks a field fails before its agent starts) and, over Claude
// Code, lets claude write its settings into the workspace.
func (r *started) Prepare(ctx context.Context, w runner.Workspace) (runner.Session, error) {
	s := &session{r: r, w: w}
	if w.CaseDir != "" {
		in, err := workspace.ReadInput(w.CaseDir)
		if err != nil {
			return s, fmt.Errorf("read case %s's input: %w", w.ID, err)
		}
		s.input = in
	}
	s.input = workspace.MergeInput(s.input, w.InputOverrides)
	for _, c := range r.s.Eval.CLICommands() {
		if err := config.CheckPlaceholders(c.Command, s.input); err != nil {
			return s, &runner.ConfigError{Err: fmt.Errorf("case %s: %s: %w", w.ID, c.Field, err)}
		}
	}
	if r.inner != nil {
		inner, err := r.inner.Prepare(ctx, w)
		s.inner = inner
		if err != nil {
			return s, err
		}
	}
	return s, nil
}

func (s *session) Close() error {
	if s.inner != nil {
		return s.inner.Close()
	}
	return nil
}

// Invoke fills the command's placeholders for this invocation and runs it.
func (s *session) Invoke(ctx context.Context, in runner.Invocation) runner.Result {
	ev := s.r.s.Eval
	rc := ev.Runner
	if in.Runner != nil {
		rc = *in.Runner
	}
	ws, err := filepath.Abs(s.w.Dir)
	if err != nil {
		return runner.Result{ExitCode: -1, Err: fmt.Errorf("run the cli agent: %w", err)}
	}
	configDir, err := filepath.Abs(ev.Dir())
	if err != nil {
		return runner.Result{ExitCode: -1, Err: fmt.Errorf("run the cli agent: %w", err)}
	}
	vars := InvocationVars(ev, in.Step, in.Prompt)
	vars.Workspace, vars.OutputDir, vars.ConfigDir = ws, filepath.Join(ws, OutputDirName), configDir
	vars.Model, vars.Effort, vars.SystemPrompt = s.r.s.Model, rc.Effort, rc.SystemPrompt
	vars.SubagentModel = ev.Models.Subagent
	if strings.TrimSpace(vars.SubagentModel) == "" {
		vars.SubagentModel = s.r.s.Model
	}
	vars.Timeout = in.Timeout
	budget := in.MaxBudgetUSD
	vars.MaxBudgetUSD = &budget
	cmd := rc.Command
	if len(cmd) == 0 {
		cmd = ev.Runner.Command
	}
	argv, err := Expand(cmd, vars, s.input)
	if oe := (*OptionError)(nil); errors.As(err, &oe) {
		return runner.Result{ExitCode: -1, Err: &runner.CaseError{Case: s.w.ID, Field: caseField(oe.Placeholder, vars.Agent, in.Step), Err: err}}
	}
	if err != nil {
		return runner.Result{ExitCode: -1, Err: fmt.Errorf("case %s: %w", s.w.ID, err)}
	}
	if p, err := findProgram(argv[0], configDir); err == nil && strings.Contains(argv[0], "/") {
		argv[0] = p // relative to eval.yaml's folder, not the workspace
	}
	env := s.r.env(in, rc, s.w.Dir)
	red := redact.FromEnviron(env)
	if in.NewRedactor != nil {
		red = in.NewRedactor(env)
	}
	stdout, stderr := red.Writer(orDiscard(in.Stdout)), red.Writer(orDiscard(in.Stderr))
	if err := os.MkdirAll(vars.OutputDir, 0o755); err != nil {
		return runner.Result{ExitCode: -1, Err: fmt.Errorf("make the output folder: %w", err)}
	}
	var rw []string
	if vars.OutputDir != "" {
		rw = append(rw, vars.OutputDir)
	}
	res := Run(ctx, Spec{World: s.r.s.World(s.w, argv[0], env, rw, nil), Argv: argv, Dir: ws, Env: env, OutputDir: vars.OutputDir, Timeout: in.Timeout,
		Stdout: stdout, Stderr: stderr, Transcript: in.Transcript, Step: in.Step, Guard: s.r.s.HarnessBin, Started: in.Started})
	if err := errors.Join(stdout.Close(), stderr.Close()); err != nil && res.Err == nil {
		res.Err = fmt.Errorf("write the agent's logs: %w", err)
	}
	sum := res.Summary
	return runner.Result{Refused: res.Refused, ExitCode: res.ExitCode, TimedOut: res.TimedOut, Interrupted: res.Interrupted, Duration: res.Duration,
		Err: res.Err, Model: sum.Model, Text: sum.Text, IsError: sum.IsError, CostUSD: sum.CostUSD, Usage: sum.Usage,
		PerModel: sum.PerModel, NumTurns: sum.NumTurns, Denials: sum.Denials, ToolCalls: sum.ToolCalls, Redactor: red}
}

// caseField names what of a case a placeholder carries, for an error:
// {args} the prompt (or the skill's arguments) of the case or of its step,
// any other name a field of the case's input.
func caseField(placeholder, skill, step string) string {
	if placeholder != "args" {
		return fmt.Sprintf("input field %s in {%s}", placeholder, placeholder)
	}
	what := "the prompt (execution.prompt)"
	switch {
	case step != "" && skill != "":
		what = "step " + step + "'s arguments"
	case step != "":
		what = "step " + step + "'s prompt"
	case skill != "":
		what = "the skill's arguments (execution.arguments)"
	}
	return what + " in {args}"
}

// InvocationVars are the placeholders an invocation's eval and step decide:
// {agent} the skill (the step's, else execution.skill) and {args} what the
// skill is given (the prompt "/<skill> <args>" without its "/<skill> "), or
// the whole prompt in prompt mode.
func InvocationVars(ev *config.Eval, step, prompt string) Vars {
	skill := ev.Execution.Skill
	for _, st := range ev.Execution.Steps {
		if st.ID == step {
			skill = st.Skill
		}
	}
	v := Vars{Agent: skill, Args: prompt}
	if skill != "" {
		if rest, ok := strings.CutPrefix(prompt, "/"+skill); ok && (rest == "" || rest[0] == ' ') {
			v.Args = strings.TrimPrefix(rest, " ")
		}
	}
	return v
}

// env is the agent's environment: the caller's (without the variables
// agent-eval reports through: runner.WithoutHarnessChannels), execution.env, runner.env
// (the step's runner's when it has one), the invocation's (lifecycle
// hooks' outputs, the step's env) and, under --fake-model, the fake
// standing in for the Anthropic API with the invocation's script.
func (r *started) env(in runner.Invocation, rc config.Runner, ws string) []string {
	ev := r.s.Eval
	layers := []map[string]string{
		config.ResolveEnv(ev.Execution.Env, os.LookupEnv),
		config.ResolveEnv(ev.Runner.Env, os.LookupEnv),
	}
	if in.Runner != nil {
		layers = append(layers, config.ResolveEnv(rc.Env, os.LookupEnv))
	}
	layers = append(layers, in.Env)
	if r.s.FakeModelURL != "" {
		layers = append(layers, map[string]string{
			"ANTHROPIC_BASE_URL":       fakeapi.ScriptURL(r.s.FakeModelURL, in.Name),
			"ANTHROPIC_API_KEY":        "fake-model",
			"ANTHROPIC_AUTH_TOKEN":     "",
			"ANTHROPIC_CUSTOM_HEADERS": fakeapi.ScriptHeader + ": " + in.Name,
			llm.FakeModelEnv:           "1",
		})
	}
	// An environment of its own, by allowlist, with a home and a temp
	// folder of its own in its slot: none of the caller's tokens, cloud
	// credentials or CI files; the eval gives what the agent needs.
	own := map[string]string{}
	if home := r.s.OwnHome(ws); home != "" && os.MkdirAll(filepath.Join(home, tempDirName), 0o700) == nil {
		own["HOME"], own["TMPDIR"] = home, filepath.Join(home, tempDirName)
	}
	return Env(runner.Base(os.Environ()), append([]map[string]string{own}, layers...)...)
}

func orDiscard(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	return w
}

// tempDirName is the agent's temp folder ($TMPDIR) in its home.
const tempDirName = ".tmp"
