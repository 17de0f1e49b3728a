package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/engine"
	"github.com/agent-eval/agent-eval/internal/hook"
	"github.com/agent-eval/agent-eval/internal/intercept"
	"github.com/agent-eval/agent-eval/internal/redact"
	"github.com/agent-eval/agent-eval/internal/rundir"
	"github.com/agent-eval/agent-eval/internal/runner"
	"github.com/agent-eval/agent-eval/internal/runner/claudecode"
	"github.com/agent-eval/agent-eval/internal/runner/clirunner"
	"github.com/agent-eval/agent-eval/internal/runner/codex"
	"github.com/agent-eval/agent-eval/internal/runner/cursor"
	"github.com/agent-eval/agent-eval/internal/runner/gemini"
	"github.com/agent-eval/agent-eval/internal/score"
	"github.com/agent-eval/agent-eval/internal/ui"
	"github.com/agent-eval/agent-eval/internal/workspace"
)

// FakeModelScript is the model script --fake-model serves: per case in case
// mode, at the dataset's root in batch mode.
const FakeModelScript = engine.FakeModelScript

type runOptions struct {
	config    string
	model     string
	cases     []string
	parallel  int
	repeat    int
	retryN    int
	retryWait time.Duration
	retry     string
	runID     string
	runsDir   string
	timeout   time.Duration
	maxBudget float64
	agentBin  string
	fakeModel bool
	// record is --record; replay is --replay's run directory.
	record bool
	replay string
	resume bool
	json   bool
	score  bool
	// noLLMJudges is --no-llm-judges, for --score.
	noLLMJudges bool
	backend     string
	harbor      harborRunOptions
	// otlp is --otlp, the traces endpoint; otlpAgent is --otlp-agent.
	otlp      string
	otlpAgent bool
	// noBoundary is --no-boundary.
	noBoundary bool
}

func newRunCmd(e env) *cobra.Command {
	opts := runOptions{}
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Run the agent over the eval's cases and write a run directory",
		Long: `Run the agent headless over every case of the dataset (or --cases), each in its
own workspace, with the tool-interception hook and the permissions wired in,
and write <runs-dir>/<eval-name>/<run-id>/: run_result.json (with every
permission denial per case) and cases/<id>/ (stdout.log, stderr.log,
transcript.jsonl, run_result.json, hook_decisions.jsonl, the collected
outputs).

--fake-model serves each case's fake_model.yaml through the built-in fake of the
Messages API, so the wiring runs with the real CLI and no API key.

--score scores the run right after it (agent-eval score: summary.yaml,
report.html, junit.xml, the thresholds); with --fake-model the LLM judges
answer from the dataset's fake_judge.yaml; with --no-llm-judges the judges
that call a model are left out (see agent-eval score).

--resume continues the latest run, or the one --run-id names: it runs the
cases that run was made with (its --cases, or every case then) that have no
finished result, and never others. When that run finished it says "nothing
to resume" and exits 0. What score wrote into the run (summary.yaml,
report.html, junit.xml, compare.*) is renamed *.stale once more cases run;
--score scores it again.

--backend harbor runs the cases on Harbor instead (--image is required; --env
picks Harbor's environment: docker, daytona, modal, e2b, ...): they are
exported as Harbor task packages, run by harbor run, and its job folder is
imported into the same run directory (docs/harbor.md).

Exit status: 0 when every case exited 0 (and, with --score, every threshold
holds), 1 when one did not, 2 for a usage or configuration error, 3 for a
harness failure, 130 when interrupted (the finished cases are kept).`,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.maxBudget = -1
			if cmd.Flags().Changed("max-budget") {
				opts.maxBudget, _ = cmd.Flags().GetFloat64("max-budget")
			}
			if err := checkBackend(opts, cmd.Flags().Changed); err != nil {
				return err
			}
			return runRun(cmd.Context(), e, opts)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&opts.config, "config", "c", "eval.yaml", "the eval config `FILE`, or the folder holding eval.yaml")
	f.StringVar(&opts.model, "model", "", "the model under test (default: models.skill)")
	f.StringSliceVar(&opts.cases, "cases", nil, "run only these case `IDS` (comma-separated)")
	f.IntVarP(&opts.parallel, "parallel", "n", 0, "cases run at once (default: execution.parallelism; on Harbor, its concurrent trials)")
	f.IntVar(&opts.repeat, "repeat", 0, "attempts of each case, each in its own workspace and folder, which score reduces per case (default: execution.repeats; on Harbor, its attempts)")
	f.StringVar(&opts.runID, "run-id", "", "the run's `ID` (default: YYYYMMDD-HHMMSS.mmm-<model>)")
	f.StringVar(&opts.runsDir, "runs-dir", "", "where runs go (default: $AGENT_EVAL_RUNS_DIR or eval/runs)")
	f.Var((*durationValue)(&opts.timeout), "timeout", "per-case timeout, in seconds (600) or as a duration (10m) (default: execution.timeout)")
	f.Float64("max-budget", 0, "per-case budget in USD (default: execution.max_budget_usd)")
	f.StringVar(&opts.agentBin, "agent-bin", "", "the agent CLI at `PATH` (default: runner.settings.binary, else the runner's CLI on PATH: claude, codex, gemini or cursor-agent; not for runner.type cli)")
	f.BoolVar(&opts.fakeModel, "fake-model", false, "answer with each case's fake_model.yaml through the built-in fake Messages API")
	f.BoolVar(&opts.record, "record", false, "keep every model request and answer of each case as cases/<id>/cassette.yaml, a fake model script (runners claude-code, codex, gemini: the agent reaches the real API through a recording proxy; docs/record-replay.md#runners)")
	f.StringVar(&opts.replay, "replay", "", "answer each case offline with the cassette of the run directory `RUN` (run --record); a case that asks what its recording does not hold ends diverged")
	f.IntVar(&opts.retryN, "retry-errors", engine.DefaultRetryErrors, "times an agent run that failed for the infrastructure (the model API's 429 or 5xx past the CLI's own retries, an agent that could not start) and made no tool call is tried again; such a case that never got through has status infra_error, never a verdict")
	f.Var((*durationValue)(&opts.retryWait), "retry-backoff", "the first wait before such a retry, doubled each time (default 5s)")
	f.StringVar(&opts.retry, "retry", "", "with --resume: errored also runs again the finished cases (attempts) of status infra_error or error")
	f.BoolVar(&opts.resume, "resume", false, "continue the latest run (or the one --run-id names) with the cases it was made with: run only those without a finished result")
	f.BoolVar(&opts.json, "json", false, "print the run's run_result.json on stdout")
	f.BoolVar(&opts.score, "score", false, "score the run when it ends (see agent-eval score)")
	noLLMJudgesFlag(f, &opts.noLLMJudges)
	f.StringVar(&opts.otlp, "otlp", "", "export the run as OpenTelemetry traces to the OTLP/HTTP `ENDPOINT` when it ends (http://host:4318, or the full traces URL; default: $OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or $OTEL_EXPORTER_OTLP_ENDPOINT, if set; docs/mlflow-otel.md#opentelemetry)")
	f.BoolVar(&opts.noBoundary, "no-boundary", false, "run the agents without the harness's boundary (as permissions.boundary: off): each then sees this machine's files and network, but for its own CLI's sandbox")
	f.BoolVar(&opts.otlpAgent, "otlp-agent", false, "switch on the claude-code agent's own OpenTelemetry export (metrics and events) to the same endpoint")
	f.StringVar(&opts.backend, "backend", backendLocal, "where the cases run: local, or harbor (exported as Harbor tasks, run by harbor run, imported back)")
	f.StringVar(&opts.harbor.env, "env", "", "--backend harbor: Harbor's environment (docker, daytona, modal, e2b, …, or module:Class; default: Harbor's, docker)")
	f.StringArrayVar(&opts.harbor.envKwargs, "env-kwarg", nil, "--backend harbor: an option of Harbor's environment, `KEY=VALUE` (harbor run --ek; repeatable)")
	f.IntVarP(&opts.harbor.attempts, "attempts", "k", 0, "--backend harbor: attempts per case (harbor run -k; every attempt is kept)")
	f.StringVar(&opts.harbor.image, "image", "", "--backend harbor: the container `IMAGE` the tasks run in (see agent-eval harbor image)")
	f.StringVar(&opts.harbor.harborBin, "harbor-bin", "", "--backend harbor: the harbor command (default: $AGENT_EVAL_HARBOR, else harbor on PATH)")
	f.StringVar(&opts.harbor.binary, "binary", "", "--backend harbor: the static linux/amd64 agent-eval the tasks carry (default: this one, when it is)")
	return cmd
}

// runners are the runner types this build runs.
// runners is the registry of the runners an eval can name. A cli runner
// whose command runs Claude Code (runner.agent: claude-code) gets Claude
// Code's workspace preparation, so the hook and the deny rules reach it.
func runners(ev *config.Eval) *runner.Registry {
	r := runner.NewRegistry()
	r.Register(runner.TypeClaudeCode, claudecode.New)
	r.Register(runner.TypeCursor, cursor.New)
	r.Register(runner.TypeGemini, gemini.New)
	r.Register(runner.TypeCodex, codex.New)
	if ev.Runner.Agent == string(runner.TypeClaudeCode) {
		r.Register(runner.TypeCLI, func() runner.Runner { return clirunner.NewOver(claudecode.New()) })
	} else {
		r.Register(runner.TypeCLI, clirunner.New)
	}
	return r
}

// preflight refuses, before any agent starts, what would fail the run
// (or, with opts.score, its scoring) and prints eval.yaml's warnings.
func preflight(e env, ev *config.Eval, opts runOptions) error {
	var problems config.Errors
	for _, p := range permissionProblems(ev) {
		if !p.Warning {
			problems = append(problems, p)
		}
	}
	problems = append(problems, programProblems(ev, opts.agentBin)...)
	problems = append(problems, sharedFileProblems(ev, mustGetwd())...)
	scored := ev
	if opts.score && opts.noLLMJudges {
		// The judges left out need no model, key or script.
		kept, _, err := score.NoModelJudges(ev)
		if err != nil {
			return err
		}
		scored = kept
	}
	problems = append(problems, openRouterProblems(ev, opts.model, opts.score && (!opts.noLLMJudges || score.ModelJudge(scored, false) != ""), opts.fakeModel, lookupOf(e.Getenv))...)
	if opts.score {
		// What score would refuse after the agents ran is refused now.
		problems = append(problems, score.Check(scored, e.Getenv)...)
	}
	if opts.score && opts.fakeModel {
		if judge := score.ModelJudge(scored, false); judge != "" {
			if _, err := os.Stat(filepath.Join(ev.DatasetDir(), FakeJudgeScript)); err != nil {
				return missingFakeJudge(ev, judge)
			}
		}
	}
	for _, w := range ev.Warnings {
		fmt.Fprintln(e.Err, w.Error())
	}
	if len(problems) > 0 {
		return problems
	}
	return nil
}

// harnessBin is the agent-eval binary the hook and the guard run as.
func harnessBin(e env) (string, error) {
	if bin := e.Getenv(BinEnv); bin != "" {
		return bin, nil
	}
	bin, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find the agent-eval binary: %w", err)
	}
	return bin, nil
}

func runRun(ctx context.Context, e env, opts runOptions) error {
	term := ui.NewTerminal(e.Err, e.Getenv)
	term.Hide(redact.FromEnviron(os.Environ()).HideKnown)
	defer term.Stop()
	e.Err = term.Writer()
	ev, err := config.Load(opts.config)
	if err != nil {
		return err
	}
	if opts.agentBin != "" && ev.RunnerType() == string(runner.TypeCLI) {
		return usageErrorf("--agent-bin names the agent CLI of the claude-code, codex, gemini and cursor runners; runner.type cli runs runner.command, so name the agent's program there")
	}
	if err := preflight(e, ev, opts); err != nil {
		return err
	}
	harness, err := harnessBin(e)
	if err != nil {
		return err
	}
	otlpOpts, err := otlpOptions(e, opts.otlp, true)
	if err != nil {
		return err
	}
	agentOTLP := ""
	if opts.otlpAgent {
		if otlpOpts == nil {
			return usageErrorf("--otlp-agent sends the agent's telemetry to the run's OTLP endpoint: give --otlp ENDPOINT or set OTEL_EXPORTER_OTLP_ENDPOINT")
		}
		var dropped bool
		agentOTLP, dropped = agentOTLPBase(otlpOpts)
		if dropped {
			fmt.Fprintf(e.Err, "agent-eval: warning: --otlp-agent: the agent's own export goes to %s without the endpoint's user information or query, which the agent could read in its environment; give the receiver its credentials another way\n", agentOTLP)
		}
	}
	if opts.noLLMJudges && !opts.score {
		return usageErrorf("--no-llm-judges leaves judges out of the scoring: give --score too")
	}
	if opts.retry != "" && opts.retry != "errored" {
		return usageErrorf("--retry takes errored (the cases of status infra_error or error), got %q", opts.retry)
	}
	plan, err := engine.NewPlan(ev, opts.config, engine.Flags{Model: opts.model, Cases: opts.cases, Parallel: opts.parallel, Repeats: opts.repeat,
		RunID: opts.runID, RunsDir: opts.runsDir, Timeout: opts.timeout, MaxBudgetUSD: opts.maxBudget, AgentBin: opts.agentBin,
		FakeModel: opts.fakeModel, Record: opts.record, Replay: opts.replay, Resume: opts.resume, AgentOTLP: agentOTLP, NoBoundary: opts.noBoundary, RetryErrors: opts.retryN, RetryBackoff: opts.retryWait, RetryErrored: opts.retry == "errored"},
		engine.Environment{Getenv: e.Getenv, Dir: mustGetwd(), HarnessBin: harness, Now: time.Now(),
			Args: append([]string{"agent-eval"}, e.Args...)})
	if err != nil {
		return runError(err)
	}
	for _, w := range plan.Warnings {
		fmt.Fprintln(e.Err, w)
	}
	if plan.Mode == engine.ModeCase {
		if err := commandProblems(ev, plan.Cases, nil); err != nil {
			return err
		}
	}
	if opts.backend == backendHarbor {
		return runOnHarbor(ctx, e, opts, ev, plan)
	}
	plan.LoadHandlers = func(ctx context.Context, warn func(string)) (*intercept.File, error) {
		return loadHandlers(ctx, ev, e.Getenv, warn)
	}
	r, err := engine.Run(ctx, plan, runners(ev), term)
	var done *engine.NothingToResumeError
	if errors.As(err, &done) {
		return nothingToResume(e, opts, done)
	}
	if r == nil {
		return runError(err)
	}
	// Exported on every way out from here (a failed case, an interrupt,
	// after --score), once the run directory is final.
	defer exportRun(ctx, e, rundir.Dir{Path: filepath.Join(plan.RunsDir, r.RunID)}, otlpOpts)
	if opts.json {
		if jerr := printJSON(e.Out, r); jerr != nil {
			return errors.Join(err, jerr)
		}
	}
	switch {
	case err != nil:
		return err // a case's result could not be written: the harness failed
	case r.Interrupted && r.Batch == nil:
		fmt.Fprintf(e.Err, "interrupted: the finished cases are in %s; continue with --resume --run-id %s\n", filepath.Join(plan.RunsDir, r.RunID), r.RunID)
		return interrupted(e, opts)
	case r.Interrupted:
		return interrupted(e, opts)
	}
	if opts.score {
		// Cases that failed are scored too: the judges say how badly. A
		// scoring error or a breached threshold decides the exit status.
		dir := rundir.Dir{Path: filepath.Join(plan.RunsDir, r.RunID)}
		if err := scoreRun(ctx, e, ev, scoreOptions{config: opts.config, concurrency: 4, fakeModel: opts.fakeModel, noLLMJudges: opts.noLLMJudges, agentBin: opts.agentBin}, dir, nil); err != nil {
			return err
		}
	}
	if r.ExitCode != 0 {
		return errReported{ExitGate}
	}
	return nil
}

// nothingToResume says that --resume found its run finished, which is not
// an error (exit 0): nothing ran, and with --json that run's result is
// printed.
func nothingToResume(e env, opts runOptions, done *engine.NothingToResumeError) error {
	fmt.Fprintf(e.Err, "%v (%s); start a new run without --resume\n", done, done.Dir)
	if !opts.json {
		return nil
	}
	r, err := rundir.Dir{Path: done.Dir}.ReadRun()
	if err != nil {
		return err
	}
	return printJSON(e.Out, r)
}

// runError maps the engine's and the runners' error kinds to the CLI's.
func runError(err error) error {
	var usage *engine.UsageError
	var cfg *runner.ConfigError
	switch {
	case errors.As(err, &usage):
		return &codedError{ExitUsage, usage.Err}
	case errors.As(err, &cfg):
		return &codedError{ExitUsage, err}
	}
	return err
}

// interrupted is the error of an interrupted run. With --json the run's
// result is already on stdout, so no JSON error document follows it.
func interrupted(e env, opts runOptions) error {
	if opts.json {
		fmt.Fprintln(e.Err, "agent-eval: interrupted")
		return errReported{ExitInterrupted}
	}
	return context.Canceled
}

// loadHandlers is the pre-resolved tool_handlers.yaml beside eval.yaml, or a
// compile of inputs.tools.
func loadHandlers(ctx context.Context, ev *config.Eval, getenv func(string) string, warn func(string)) (*intercept.File, error) {
	path := filepath.Join(ev.Dir(), hook.HandlersFile)
	if _, err := os.Stat(path); err == nil {
		warns, errs := handlerProblems(ev)
		if len(errs) > 0 {
			return nil, errors.New(strings.Join(errs, "; "))
		}
		for _, w := range warns {
			warn(w)
		}
		f, err := hook.ReadHandlers(path)
		return &f, err
	}
	c, err := compileHandlersWith(ctx, ev, "auto", getenv, warn)
	return &c.file, err
}

func mustGetwd() string {
	wd, err := os.Getwd()
	if err != nil {
		return "."
	}
	return wd
}

// commandProblems checks, before any case starts, every case's prompts and
// cli commands: each prompt renders (engine.PromptProblems, as validate
// asks) and not to nothing, and each placeholder of a cli runner's command
// is a built-in or a field of the case's input. A case that fails one is a
// config error now (exit 2, nothing run), not a failure mid-run or an
// agent started with nothing to do. A case whose input cannot be read is
// left to fail on its own. overrides are set over every case's input (a
// matrix cell's factors).
func commandProblems(ev *config.Eval, ids []string, overrides map[string]any) error {
	byMsg := map[[2]string][]string{}
	var order [][2]string
	add := func(field, msg, id string) {
		k := [2]string{field, msg}
		if byMsg[k] == nil {
			order = append(order, k)
		}
		byMsg[k] = append(byMsg[k], id)
	}
	for _, id := range ids {
		input, err := workspace.ReadInput(filepath.Join(ev.DatasetDir(), id))
		if err != nil {
			continue
		}
		input = workspace.MergeInput(input, overrides)
		for _, p := range engine.PromptProblems(ev, input) {
			add(p.Field, p.Err.Error(), id)
		}
		for _, c := range ev.CLICommands() {
			if err := config.CheckPlaceholders(c.Command, input); err != nil {
				add(c.Field, err.Error(), id)
			}
		}
	}
	var errs config.Errors
	for _, k := range order {
		noun := "case"
		if len(byMsg[k]) > 1 {
			noun = "cases"
		}
		line, col := ev.Position(k[0])
		errs = append(errs, config.Error{File: ev.Path(), Line: line, Col: col, Field: k[0], Code: config.CodeSemantic,
			Msg: fmt.Sprintf("%s %s: %s", noun, strings.Join(byMsg[k], ", "), k[1])})
	}
	if len(errs) > 0 {
		return errs
	}
	return nil
}
