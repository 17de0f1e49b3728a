// Package gemini runs Google's Gemini CLI (runner.type gemini) headless:
// `gemini -p PROMPT -o stream-json --skip-trust -y` in the workspace, with a
// home of its own per case (its .gemini/settings.json: API-key auth, no
// usage statistics, the harness's BeforeTool hook and SessionStart canary),
// the eval's permissions compiled into a policy file of Gemini's policy
// engine, and its stream-json parsed into the runner-neutral transcript.
//
// Gemini CLI has no OS sandbox here (its -s needs docker or podman): the
// hook and the policy engine gate its tool calls, and nothing holds what a
// command it runs does once allowed.
package gemini

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agent-eval/agent-eval/internal/agentproc"
	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/fakeapi"
	"github.com/agent-eval/agent-eval/internal/lifecycle"
	"github.com/agent-eval/agent-eval/internal/llm"
	"github.com/agent-eval/agent-eval/internal/redact"
	"github.com/agent-eval/agent-eval/internal/runner"
	"github.com/agent-eval/agent-eval/internal/transcript"
	"github.com/agent-eval/agent-eval/internal/workspace"
)

// DefaultBinary is the CLI's name on PATH.
const DefaultBinary = "gemini"

// FakeModel is the model a run under --fake-model asks for when the eval
// names none (without -m the CLI first makes a routing call).
const FakeModel = "gemini-2.5-flash"

// New returns the gemini runner.
func New() runner.Runner { return geminiRunner{} }

type geminiRunner struct{}

// Capabilities: the hook gates every call (BeforeTool) and the policy
// engine takes the permission rules; Gemini CLI asks no questions in -p
// mode, runs in no OS sandbox here and not in the project itself.
func (geminiRunner) Capabilities() runner.Capabilities {
	return runner.Capabilities{Interception: true, NativePermissions: true, Batch: true, Steps: true}
}

type started struct {
	s       runner.RunSetup
	bin     string
	version string
	policy  policy
}

// Start finds the CLI and compiles the eval's permissions.
func (geminiRunner) Start(ctx context.Context, s runner.RunSetup) (runner.Agent, error) {
	if s.Eval == nil {
		return nil, errors.New("start the gemini runner: no eval")
	}
	if s.Repo != "" {
		return nil, &runner.ConfigError{Err: errors.New("runner.type gemini: workspace_mode repo is not supported (the agent runs in a workspace of its own)")}
	}
	r := &started{s: s}
	if r.s.Warn == nil {
		r.s.Warn = func(string) {}
	}
	var err error
	if r.bin, err = binary(s.Eval, s.AgentBin); err != nil {
		return nil, err
	}
	if s.FakeModelURL == "" && !hasKey(s.Eval) {
		r.s.Warn("GEMINI_API_KEY is not set (nor GOOGLE_API_KEY, nor Vertex AI), so Gemini CLI has no credentials and every case will fail: set one, or run offline with --fake-model")
	}
	if s.Eval.Runner.Effort != "" {
		r.s.Warn("runner.effort is not passed to Gemini CLI (it has no such flag); set its thinking budget in runner.settings instead")
	}
	r.policy = compilePolicy(s.Permissions, r.s.Warn)
	r.version = version(ctx, r.bin)
	return r, nil
}

func (r *started) Agent() (string, string) { return string(runner.TypeGemini), r.version }

// Bin is the agent binary the run uses.
func (r *started) Bin() string { return r.bin }

func (r *started) Close() error { return nil }

// binary is --agent-bin, runner.settings.binary or gemini, on PATH.
func binary(ev *config.Eval, flag string) (string, error) {
	return runner.AgentBinary(ev, flag, DefaultBinary, "install @google/gemini-cli with scripts/install-gemini.sh")
}

// keyNames are the variables that give Gemini CLI a way to the model.
var keyNames = []string{"GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI", "GOOGLE_APPLICATION_CREDENTIALS"}

func hasKey(ev *config.Eval) bool {
	runnerEnv := config.ResolveEnv(ev.Runner.Env, os.LookupEnv)
	execEnv := config.ResolveEnv(ev.Execution.Env, os.LookupEnv)
	return slices.ContainsFunc(keyNames, func(n string) bool { return os.Getenv(n) != "" || runnerEnv[n] != "" || execEnv[n] != "" })
}

// version is the first line of `gemini --version`, run with a throwaway
// home, or "".
func version(ctx context.Context, bin string) string {
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	home, err := os.MkdirTemp("", "agent-eval-gemini-version-")
	if err != nil {
		return ""
	}
	defer os.RemoveAll(home)
	cmd := exec.CommandContext(ctx, bin, "--version")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "GEMINI_CLI_NO_RELAUNCH=true"}
	out, err := cmd.Output()
	if err != nil {
		return ""
	}
	first, _, _ := strings.Cut(string(out), "\n")
	return strings.TrimSpace(first)
}

type session struct {
	r    *started
	w    runner.Workspace
	home string // the agent's own home: HOME, with .gemini/ and TMPDIR
	// excluded are the native tools the policy removed (tools.exclude): a
	// call of one is a denial.
	excluded []string
}

// Prepare writes the case's hook file into the workspace and the agent's
// settings, policy and context file into its home.
func (r *started) Prepare(_ context.Context, w runner.Workspace) (runner.Session, error) {
	s := &session{r: r, w: w, home: workspace.HomeDir(w.Dir), excluded: r.policy.exclude}
	if r.s.WorkspaceRoot == "" || filepath.Dir(s.home) != filepath.Clean(r.s.WorkspaceRoot) {
		// A workspace outside the private root has no slot of its own: its
		// agent gets a home beside it that nothing else shares.
		s.home = filepath.Join(filepath.Dir(w.Dir), "."+filepath.Base(w.Dir)+".gemini-home")
	}
	if err := r.writeHome(s.home, w); err != nil {
		return s, err
	}
	return s, nil
}

// Close leaves the home to the engine (it is the workspace's slot).
func (s *session) Close() error { return nil }

// env is the agent's environment: the allowlist, execution.env and
// runner.env, the invocation's, and the harness's own variables.
func (s *session) env(in runner.Invocation) []string {
	ev := s.r.s.Eval
	base := map[string]string{}
	for _, k := range envAllowlist {
		if v, ok := os.LookupEnv(k); ok {
			base[k] = v
		}
	}
	layers := []map[string]string{base, config.ResolveEnv(ev.Execution.Env, os.LookupEnv), config.ResolveEnv(ev.Runner.Env, os.LookupEnv)}
	if in.Runner != nil {
		layers = append(layers, config.ResolveEnv(in.Runner.Env, os.LookupEnv))
	}
	layers = append(layers, in.Env)
	own := map[string]string{
		"HOME":                   s.home,
		"TMPDIR":                 filepath.Join(s.home, tempDirName),
		"GEMINI_CLI_NO_RELAUNCH": "true",
		"NO_BROWSER":             "true",
		"GEMINI_SANDBOX":         "false",
	}
	if s.r.s.FakeModelURL != "" {
		own["GOOGLE_GEMINI_BASE_URL"] = fakeapi.ScriptURL(s.r.s.FakeModelURL, in.Name)
		own["GEMINI_API_KEY"] = "fake-model"
		own["GOOGLE_API_KEY"] = ""
		own["GOOGLE_GENAI_USE_VERTEXAI"] = ""
		own["GEMINI_CLI_CUSTOM_HEADERS"] = fakeapi.ScriptHeader + ": " + in.Name
		own[llm.FakeModelEnv] = "1"
	}
	layers = append(layers, own)
	var env []string
	for _, m := range layers {
		env = lifecycle.Environ(env, m)
	}
	return env
}

// envAllowlist are the only variables taken from the caller's
// environment.
var envAllowlist = append([]string{"PATH", "USER", "SHELL", "LANG", "LC_ALL", "TERM", "GOOGLE_CLOUD_PROJECT",
	"GOOGLE_CLOUD_LOCATION", "GOOGLE_GEMINI_BASE_URL", "AGENT_EVAL_RUNS_DIR"}, keyNames...)

// Args is the command line after the binary.
func Args(prompt, model string, policyFile string) []string {
	a := []string{"-p", prompt, "-o", "stream-json", "--skip-trust", "-y"}
	if model != "" {
		a = append(a, "-m", model)
	}
	if policyFile != "" {
		a = append(a, "--policy", policyFile)
	}
	return a
}

// Invoke runs Gemini CLI once in the session's workspace.
func (s *session) Invoke(ctx context.Context, in runner.Invocation) runner.Result {
	// What an earlier step's agent may have changed in its home (the hooks,
	// the policy) is written again.
	if err := s.r.writeHome(s.home, s.w); err != nil {
		return runner.Result{ExitCode: -1, Err: err}
	}
	env := s.env(in)
	red := redact.FromEnviron(env)
	if in.NewRedactor != nil {
		red = in.NewRedactor(env)
	}
	stdout, stderr := red.JSONWriter(orDiscard(in.Stdout)), red.Writer(orDiscard(in.Stderr))
	emit := func(e transcript.Event) {
		if in.Transcript != nil {
			e.Step = in.Step
			in.Transcript.Write(e)
		}
	}
	model := s.r.s.Model
	if model == "" && s.r.s.FakeModelURL != "" {
		model = FakeModel
	}
	p := newParser(emit, s.excluded)
	pr := agentproc.Run(ctx, agentproc.Spec{Path: s.r.bin, Args: Args(in.Prompt, model, s.policyFile()), Dir: s.w.Dir, Env: env,
		Timeout: in.Timeout, Stdout: stdout, Stderr: stderr, Line: p.line, Guard: s.r.s.HarnessBin, Started: in.Started,
		Boundary: s.r.s.World(s.w, s.r.bin, env, []string{s.home}, nil)})
	sum := p.finish()
	res := runner.Result{ExitCode: pr.ExitCode, TimedOut: pr.TimedOut, Interrupted: pr.Interrupted, Duration: pr.Duration, Err: pr.Err,
		Model: sum.model, Text: sum.text, IsError: sum.isError, Usage: sum.usage, PerModel: sum.perModel, NumTurns: sum.turns,
		Denials: sum.denials, ToolCalls: sum.calls, Redactor: red, Refused: runner.Refusals(pr.Refused, runner.CLIHosts(string(runner.TypeGemini)))}
	if res.Model == "" {
		res.Model = model
	}
	if res.Err == nil && !pr.TimedOut && !pr.Interrupted && (pr.ExitCode != 0 || sum.isError) {
		res.IsError = true
		res.Err = exitError(pr.ExitCode, sum.errMessage)
		res.APIErrorStatus = apiStatus(pr.ExitCode)
		if res.ExitCode == 0 {
			res.ExitCode = 1
		}
	}
	if res.Err != nil && !pr.TimedOut && !pr.Interrupted {
		emit(transcript.Event{Kind: transcript.KindError, Text: red.String(res.Err.Error())})
	}
	if err := errors.Join(stdout.Close(), stderr.Close()); err != nil && res.Err == nil {
		res.Err = fmt.Errorf("write the agent's logs: %w", err)
	}
	return res
}

func orDiscard(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	return w
}
