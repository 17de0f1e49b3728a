// Package engine runs an eval: a Plan (config + flags + environment → what
// will run) and Run, which schedules the cases in case, batch, steps and
// repo modes, runs the lifecycle phases, resumes and survives interrupts,
// writes the run directory (internal/rundir) and reports through an
// Observer. It drives agents only through internal/runner and never writes
// to a terminal.
package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/intercept"
	"github.com/agent-eval/agent-eval/internal/rundir"
	"github.com/agent-eval/agent-eval/internal/runner"
)

// Mode is how the cases are run.
type Mode string

// The execution modes.
const (
	ModeCase  Mode = "case"  // one agent per case, each in its own workspace
	ModeBatch Mode = "batch" // one agent over every case in one workspace
)

// BatchID names the batch workspace and its fake-model script.
const BatchID = "batch"

// FakeModelScript is the model script --fake-model serves: per case in case
// mode, at the dataset's root in batch mode.
const FakeModelScript = "fake_model.yaml"

// Flags are the run's command-line choices; zero values defer to eval.yaml.
type Flags struct {
	Model    string
	Cases    []string
	Parallel int
	// Repeats > 0 overrides execution.repeats.
	Repeats int
	// RetryErrors is how often an invocation that failed for the
	// infrastructure is tried again (< 0: not set, DefaultRetryErrors);
	// RetryBackoff the first wait (0: DefaultRetryBackoff).
	RetryErrors  int
	RetryBackoff time.Duration
	// RetryErrored: a resume runs again the finished cases (attempts) of
	// status infra_error or error, besides the unfinished ones.
	RetryErrored bool
	RunID        string
	RunsDir      string
	Timeout      time.Duration
	// MaxBudgetUSD < 0: not set.
	MaxBudgetUSD float64
	AgentBin     string
	FakeModel    bool
	// Record keeps each case's model conversation as cases/<id>/
	// cassette.yaml (run --record); Replay is a run directory whose
	// cassettes answer the cases instead of a model (run --replay).
	Record bool
	Replay string
	Resume bool
	// AgentOTLP is the OTLP/HTTP base URL the agent's own OpenTelemetry
	// export goes to (--otlp-agent), or "" for none.
	AgentOTLP string
	// NoBoundary runs the agents without the harness's boundary
	// (--no-boundary), as permissions.boundary: off does.
	NoBoundary bool
	// InputOverrides are set in every case's input (a matrix cell's
	// non-model factors, upstream's --input-override).
	InputOverrides map[string]any
}

// Environment is what a plan reads from the process: its working
// directory, its variables and the harness binary.
type Environment struct {
	Getenv func(string) string
	// Dir is the working directory (the project root).
	Dir string
	// HarnessBin is the agent-eval binary the hook and guard run as.
	HarnessBin string
	// Now is the run's start (it names a new run).
	Now time.Time
	// Args is the command line (program name first), which the run records
	// with secret-looking values redacted.
	Args []string
	// Environ is the variables the run's lifecycle hooks start from and
	// eval.yaml's $VAR references resolve against (nil: the process's own,
	// read once by NewPlan, as exec.Cmd reads a nil Env).
	Environ []string
}

// DefaultRetryErrors is how often run tries an invocation again that
// failed for the infrastructure, unless --retry-errors says otherwise.
const DefaultRetryErrors = 2

// Plan is what a run will do. NewPlan computes it without side effects.
type Plan struct {
	Eval *config.Eval
	// ConfigPath is eval.yaml's path, as the user named it.
	ConfigPath string
	Runner     runner.Type
	Mode       Mode
	// Steps: a multi-step pipeline per case (execution.steps).
	Steps bool
	Model string
	// Cases are the cases to run, in order; Selected that --cases named
	// them.
	Cases        []string
	Selected     bool
	Timeout      time.Duration
	MaxBudgetUSD float64
	Parallel     int
	// Repeats is how many attempts each case has (1: a run without
	// repeats); a resume takes its run's. RepeatsFlag: --repeat set it.
	Repeats     int
	RepeatsFlag bool
	// RetryErrors, RetryBackoff and RetryErrored: see Flags.
	RetryErrors  int
	RetryBackoff time.Duration
	RetryErrored bool
	// ProjectRoot is the working directory; Repo is the same in
	// workspace_mode: repo, else "".
	ProjectRoot, Repo string
	// RunsDir is where this eval's runs go; RunID the run's id ("" with
	// Resume: the latest unfinished run); ExplicitID that the user named
	// it.
	RunsDir    string
	RunID      string
	ExplicitID bool
	Resume     bool
	FakeModel  bool
	// Record: see Flags. Replay: the replayed run (FakeModel is set too:
	// its cassettes are the fake's scripts).
	Record bool
	Replay rundir.Dir
	// AgentOTLP: see Flags.
	AgentOTLP string
	// NoBoundary: see Flags.
	NoBoundary bool
	// InputOverrides: see Flags.
	InputOverrides map[string]any
	AgentBin       string
	HarnessBin     string
	// Warnings are the plan's own remarks, as lines to show (a parallelism
	// repo mode overrides); eval.yaml's warnings are the loader's.
	Warnings []string
	// LoadHandlers loads the compiled inputs.tools for a runner that
	// intercepts (nil: none). It may call the hook model, so it runs
	// inside Run with the run's context, not in NewPlan.
	LoadHandlers func(ctx context.Context, warn func(string)) (*intercept.File, error)
	// Getenv is the environment the run reads (runs dir, colours).
	Getenv func(string) string
	// CommandLine is Environment.Args (recorded redacted).
	CommandLine []string
	// Environ is Environment.Environ: the only environment the run reads
	// besides Getenv.
	Environ []string
}

// lookupEnv looks name up in the plan's environment (the last value wins,
// as in a process's).
func (p Plan) lookupEnv(name string) (string, bool) {
	for i := len(p.Environ) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(p.Environ[i], "="); ok && k == name {
			return v, true
		}
	}
	return "", false
}

// UsageError is a problem with the flags or the eval that the user must
// fix: exit status 2.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

func usageErrorf(format string, args ...any) error {
	return &UsageError{Err: fmt.Errorf(format, args...)}
}

// NewPlan decides what a run of ev with flags f will do. It reads the
// dataset's case list and nothing else.
func NewPlan(ev *config.Eval, configPath string, f Flags, env Environment) (Plan, error) {
	replay, err := replayPlan(ev, &f)
	if err != nil {
		return Plan{}, err
	}
	p := Plan{Eval: ev, ConfigPath: configPath, Runner: runner.Type(ev.RunnerType()), Mode: Mode(ev.Mode()),
		Steps: len(ev.Execution.Steps) > 0, Resume: f.Resume, FakeModel: f.FakeModel, AgentBin: f.AgentBin, InputOverrides: f.InputOverrides, AgentOTLP: f.AgentOTLP, NoBoundary: f.NoBoundary,
		HarnessBin: env.HarnessBin, ProjectRoot: env.Dir, Getenv: env.Getenv, CommandLine: env.Args, Environ: env.Environ}
	p.Record, p.Replay = f.Record, replay
	if p.Environ == nil {
		p.Environ = os.Environ()
	}
	if p.Getenv == nil {
		p.Getenv = func(string) string { return "" }
	}
	p.Model = firstNonBlank(f.Model, ev.Models.Skill)
	if p.Model == "" {
		switch {
		case f.FakeModel:
			p.Model = "claude-fake-1"
		case p.Runner == runner.TypeCLI && !CommandsNameModel(ev):
			// The command names no model: the agent picks its own.
		default:
			return Plan{}, usageErrorf("no model: set --model or models.skill in %s", configPath)
		}
	}
	ids, err := ev.CaseIDs()
	if err != nil {
		return Plan{}, fmt.Errorf("list the cases: %w", err)
	}
	if links := symlinkedCases(ev.DatasetDir()); len(links) > 0 {
		// A case is read from the dataset, never through a link out of it.
		return Plan{}, usageErrorf("%s: case folder %s is a symlink; copy the case in instead (validate reports it too)", ev.DatasetDir(), strings.Join(links, ", "))
	}
	if len(f.Cases) > 0 {
		for _, c := range f.Cases {
			if !slices.Contains(ids, c) {
				return Plan{}, usageErrorf("--cases: no case %q under %s", c, ev.DatasetDir())
			}
		}
		ids, p.Selected = f.Cases, true
	}
	if len(ids) == 0 {
		return Plan{}, usageErrorf("no cases: %s has no case folders", firstNonBlank(ev.DatasetDir(), "dataset.path"))
	}
	for _, id := range ids {
		if !rundir.SafeSegment(id) {
			return Plan{}, usageErrorf("case id %q is not a safe folder name", id)
		}
	}
	p.Cases = ids
	p.Timeout, p.MaxBudgetUSD, p.Parallel = ev.Timeout(), ev.MaxBudgetUSD(), ev.Parallelism()
	if f.Timeout > 0 {
		p.Timeout = f.Timeout
	}
	if f.MaxBudgetUSD >= 0 {
		p.MaxBudgetUSD = f.MaxBudgetUSD
	}
	if f.Parallel > 0 {
		p.Parallel = f.Parallel
	}
	p.RetryErrors, p.RetryBackoff, p.RetryErrored = DefaultRetryErrors, f.RetryBackoff, f.RetryErrored
	if f.RetryErrored && !f.Resume {
		return Plan{}, usageErrorf("--retry errored runs the errored cases of an existing run again: it needs --resume")
	}
	if f.RetryErrors >= 0 {
		p.RetryErrors = f.RetryErrors
	}
	p.Repeats = ev.Repeats()
	if f.Repeats > 0 {
		p.Repeats, p.RepeatsFlag = f.Repeats, true
	}
	switch {
	case f.Repeats < 0:
		return Plan{}, usageErrorf("--repeat must be 1 or more, got %d", f.Repeats)
	case p.Repeats > config.MaxRepeats:
		return Plan{}, usageErrorf("--repeat %d: at most %d attempts a case", p.Repeats, config.MaxRepeats)
	case p.Repeats > 1 && p.Mode == ModeBatch:
		return Plan{}, usageErrorf("--repeat needs case mode: a batch is one agent over every case")
	}
	if ev.Runner.WorkspaceMode == "repo" {
		p.Repo = env.Dir
		if p.Parallel > 1 {
			p.Warnings = append(p.Warnings, "agent-eval: warning: workspace_mode: repo runs one case at a time (they share the project)")
		}
		p.Parallel = 1
	}
	p.RunsDir = ev.RunsDir(p.Getenv)
	if f.RunsDir != "" {
		p.RunsDir = filepath.Join(f.RunsDir, ev.EvalName())
	}
	p.RunID, p.ExplicitID = f.RunID, f.RunID != ""
	if p.RunID != "" && !rundir.SafeSegment(p.RunID) {
		return Plan{}, usageErrorf("run id %q is not a safe folder name", p.RunID)
	}
	if p.RunID == "" && !f.Resume {
		p.RunID = rundir.NewID(env.Now, firstNonBlank(p.Model, string(p.Runner)))
	}
	return p, nil
}

// symlinkedCases lists the entries of the dataset folder that are symbolic
// links to folders: cases run would otherwise skip without a word.
func symlinkedCases(dir string) []string {
	entries, err := os.ReadDir(dir)
	if dir == "" || err != nil {
		return nil
	}
	var out []string
	for _, en := range entries {
		if en.Type()&os.ModeSymlink == 0 || strings.HasPrefix(en.Name(), ".") {
			continue
		}
		if fi, err := os.Stat(filepath.Join(dir, en.Name())); err == nil && fi.IsDir() {
			out = append(out, en.Name())
		}
	}
	return out
}

// firstNonBlank is the first of ss that is not empty or only white space
// (a flag or field given as "  " counts as unset); for plain emptiness the
// standard library's cmp.Or does.
func firstNonBlank(ss ...string) string {
	for _, s := range ss {
		if strings.TrimSpace(s) != "" {
			return s
		}
	}
	return ""
}

// CommandsNameModel reports whether a cli runner's command (the run's or a
// step's) uses {model} or {subagent_model}.
func CommandsNameModel(ev *config.Eval) bool {
	for _, fc := range ev.CLICommands() {
		for _, n := range config.Placeholders(fc.Command) {
			if n == "model" || n == "subagent_model" {
				return true
			}
		}
	}
	return false
}

// recorded says whether run --record records runner rt's model API.
func recorded(rt runner.Type) bool {
	return rt == runner.TypeClaudeCode || rt == runner.TypeCodex || rt == runner.TypeGemini
}

// replayPlan checks --record and --replay and opens the replayed run: a
// replay is a fake model run whose scripts are the run's cassettes.
func replayPlan(ev *config.Eval, f *Flags) (rundir.Dir, error) {
	switch {
	case f.Record && (f.FakeModel || f.Replay != ""):
		return rundir.Dir{}, usageErrorf("--record records a real model's answers: it goes with neither --fake-model nor --replay")
	case f.Record && !recorded(runner.Type(ev.RunnerType())):
		return rundir.Dir{}, usageErrorf("--record records the model APIs the fake speaks (runners claude-code, codex and gemini); runner %s is not recorded yet", ev.RunnerType())
	case f.Record && runner.Type(ev.RunnerType()) == runner.TypeCodex && ev.Runner.Settings["model_provider"] != nil && ev.Runner.Settings["model_provider"] != "openai":
		return rundir.Dir{}, usageErrorf("--record forwards Codex's requests to OpenAI's API (OPENAI_BASE_URL); runner.settings.model_provider names a provider of its own, which is not recorded")
	case f.Replay == "":
		return rundir.Dir{}, nil
	case f.FakeModel:
		return rundir.Dir{}, usageErrorf("--replay answers with a recorded run's cassettes: it goes without --fake-model")
	}
	d, err := rundir.Open(f.Replay)
	if err != nil {
		return rundir.Dir{}, usageErrorf("--replay: %v", err)
	}
	f.FakeModel = true
	return d, nil
}
