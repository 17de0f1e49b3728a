package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/engine"
	"github.com/agent-eval/agent-eval/internal/fakeapi"
	"github.com/agent-eval/agent-eval/internal/harbor"
	"github.com/agent-eval/agent-eval/internal/llm"
	"github.com/agent-eval/agent-eval/internal/redact"
	"github.com/agent-eval/agent-eval/internal/rundir"
	"github.com/agent-eval/agent-eval/internal/version"
)

// The run's backends: where the cases run.
const (
	backendLocal  = "local"
	backendHarbor = "harbor"
)

// harborRunOptions are run's flags for --backend harbor.
type harborRunOptions struct {
	env       string
	envKwargs []string
	attempts  int
	image     string
	harborBin string
	binary    string
}

// harborWorkDir is where a Harbor run keeps its tasks and Harbor's job
// folder, beside the run directory (a folder name no run id can take):
// <runs>/.harbor/<run id>/{tasks,jobs/<run id>}. run_result.json's
// harbor_job_dir names it.
func harborWorkDir(runsDir, runID string) string {
	return filepath.Join(runsDir, ".harbor", runID)
}

// harborOnlyFlags are run's flags that only --backend harbor takes.
var harborOnlyFlags = []string{"env", "env-kwarg", "attempts", "image", "harbor-bin", "binary"}

// checkBackend refuses what the chosen backend cannot do, before anything
// runs.
func checkBackend(opts runOptions, changed func(string) bool) error {
	switch opts.backend {
	case backendLocal:
		for _, f := range harborOnlyFlags {
			if changed(f) {
				return usageErrorf("--%s is for --backend harbor (the cases run on this machine by default)", f)
			}
		}
		return nil
	case backendHarbor:
	default:
		return usageErrorf("--backend must be %s or %s, got %q", backendLocal, backendHarbor, opts.backend)
	}
	switch {
	case opts.resume:
		return usageErrorf("--resume is not supported with --backend harbor: start a new run (a Harbor job resumes only with the identical job config)")
	case opts.record || opts.replay != "":
		return usageErrorf("--record and --replay run the cases on this machine: they do not go with --backend harbor")
	case opts.agentBin != "":
		return usageErrorf("--agent-bin names a Claude Code on this machine; with --backend harbor the agent is the image's (--image)")
	case opts.harbor.image == "":
		return usageErrorf("--image is required with --backend harbor: the container image the tasks run in (agent-eval harbor image writes its build context)")
	case opts.harbor.attempts < 0:
		return usageErrorf("--attempts must be 1 or more, got %d", opts.harbor.attempts)
	}
	return nil
}

// repeatsAsAttempts is a run's repeats as Harbor's attempts (harbor run
// -k): each trial of a task is one attempt of its case; 0 (Harbor's
// default) without repeats.
func repeatsAsAttempts(n int) int {
	if n <= 1 {
		return 0
	}
	return n
}

// runOnHarbor is `agent-eval run --backend harbor`: the plan's cases
// exported as Harbor tasks, run by `harbor run` (its orchestrator, its
// environment: Docker, a cloud sandbox), and its job folder imported into a
// run directory of the same shape a local run writes, so score, report and
// compare read it unchanged.
func runOnHarbor(ctx context.Context, e env, opts runOptions, ev *config.Eval, plan engine.Plan) error {
	bin, err := harbor.FindHarbor(opts.harbor.harborBin, e.Getenv)
	if err != nil {
		return inputErrorf("%v", err)
	}
	if plan.Repeats > 1 && opts.harbor.attempts > 0 && opts.harbor.attempts != plan.Repeats {
		return usageErrorf("--attempts %d and %d repeats (--repeat, execution.repeats) disagree: on Harbor each attempt is one repeat; give one of them", opts.harbor.attempts, plan.Repeats)
	}
	work := harborWorkDir(plan.RunsDir, plan.RunID)
	if _, err := os.Stat(work); err == nil {
		return usageErrorf("%s already exists; choose another --run-id", work)
	}
	if _, err := os.Stat(filepath.Join(plan.RunsDir, plan.RunID)); err == nil {
		return usageErrorf("%s already exists; choose another --run-id", filepath.Join(plan.RunsDir, plan.RunID))
	}
	if err := os.MkdirAll(work, 0o755); err != nil {
		return fmt.Errorf("make the Harbor run's folder: %w", err)
	}
	warn := func(msg string) { fmt.Fprintln(e.Err, "warning: "+msg) }
	handlers, err := exportHandlers(ctx, ev, e.Getenv, warn)
	if err != nil {
		return err
	}
	environ := os.Environ()
	var caseEnv func(string) map[string]string
	if opts.fakeModel {
		stop, url, err := harborFakeModel(ev, plan, work, warn)
		if err != nil {
			return err
		}
		defer stop()
		caseEnv = func(id string) map[string]string {
			// Literal, per task: which script answers this trial (and the
			// hook's tier-2 questions, which read the same variables).
			return map[string]string{"ANTHROPIC_BASE_URL": fakeapi.ScriptURL(url, id), llm.FakeModelEnv: "1",
				"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1"}
		}
		// Harbor's claude-code agent puts the caller's ANTHROPIC_BASE_URL
		// over the task's: the fake's must win.
		environ = append(withoutEnv(environ, "ANTHROPIC_BASE_URL", "ANTHROPIC_AUTH_TOKEN"), "ANTHROPIC_API_KEY=fake-model")
	}
	fmt.Fprintf(e.Err, "agent-eval: exporting %d case(s) as Harbor tasks into %s\n", len(plan.Cases), filepath.Join(work, "tasks"))
	x, err := harbor.Export(ctx, harbor.Options{Eval: ev, Cases: plan.Cases, Out: filepath.Join(work, "tasks"), Image: opts.harbor.image,
		Binary: opts.harbor.binary, AgentTimeout: plan.Timeout, Handlers: handlers, ProjectRoot: plan.ProjectRoot,
		Environ: environ, Version: version.Get().Version, CaseEnv: caseEnv})
	var refusal *harbor.RefusalError
	switch {
	case errors.As(err, &refusal):
		return &codedError{ExitUsage, err}
	case err != nil:
		return err
	}
	job := harbor.Job{Bin: bin, Tasks: x.Dir, JobsDir: filepath.Join(work, "jobs"), Name: plan.RunID,
		AgentArgs: harbor.AgentArgs(ev, plan.Model), Env: opts.harbor.env, EnvKwargs: opts.harbor.envKwargs,
		Concurrency: plan.Parallel, Attempts: cmp.Or(opts.harbor.attempts, repeatsAsAttempts(plan.Repeats)), Environ: environ}
	logPath := filepath.Join(work, "harbor.log")
	fmt.Fprintf(e.Err, "agent-eval: %s (its output: %s)\n", job.CommandLine(), logPath)
	err = runLogged(ctx, job, logPath)
	if err != nil {
		if ctx.Err() != nil {
			fmt.Fprintf(e.Err, "interrupted: Harbor's job folder so far is %s\n", job.Dir())
			return interrupted(e, opts)
		}
		return fmt.Errorf("%w; the end of its output:\n%s", err, tail(logPath, 20))
	}
	imp, err := harbor.Import(ctx, harbor.ImportOptions{JobDir: job.Dir(), EvalRunsDir: plan.RunsDir, RunID: plan.RunID,
		EvalFile: ev.Path(), Repeats: plan.Repeats})
	var jobErr *harbor.JobError
	switch {
	case errors.As(err, &jobErr):
		return fmt.Errorf("import Harbor's job %s: %w; harbor's output is in %s", job.Dir(), err, logPath)
	case err != nil:
		return err
	}
	reportImport(e, job.Dir(), imp)
	r := imp.Run
	fmt.Fprintf(e.Err, "agent-eval: run directory %s\n", imp.Dir.Path)
	if opts.json {
		if err := printJSON(e.Out, r); err != nil {
			return err
		}
	}
	if opts.score {
		if err := scoreRun(ctx, e, ev, scoreOptions{config: opts.config, concurrency: 4, fakeModel: opts.fakeModel, noLLMJudges: opts.noLLMJudges}, imp.Dir, nil); err != nil {
			return err
		}
	}
	if r.ExitCode != 0 {
		return errReported{ExitGate}
	}
	return nil
}

// runLogged runs the job with its output in the file at logPath. What
// Harbor prints (a trial's output in a traceback) may hold the credentials
// it passes on: the log is redacted as it is written.
func runLogged(ctx context.Context, job harbor.Job, logPath string) error {
	logFile, err := os.Create(logPath)
	if err != nil {
		return fmt.Errorf("make harbor's log: %w", err)
	}
	defer logFile.Close()
	logW := redact.FromEnviron(job.Environ).Writer(logFile)
	job.Stdout, job.Stderr = logW, logW
	err = job.Run(ctx)
	if cerr := logW.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("write harbor's log: %w", cerr)
	}
	return err
}

// harborFakeModel serves the cases' fake_model.yaml scripts to the trials
// on 127.0.0.1 (a trial on this machine reaches it; one in a cloud sandbox
// does not), logging what it was sent beside Harbor's job folder.
func harborFakeModel(ev *config.Eval, plan engine.Plan, work string, warn func(string)) (stop func(), url string, err error) {
	logFile, err := os.Create(filepath.Join(work, rundir.FakeModelLog))
	if err != nil {
		return nil, "", fmt.Errorf("--fake-model: %w", err)
	}
	for _, id := range plan.Cases {
		for _, step := range ev.StepIDs() {
			if _, err := os.Stat(filepath.Join(ev.DatasetDir(), id, "fake_model."+step+".yaml")); err == nil {
				warn(fmt.Sprintf("--fake-model: case %s has fake_model.%s.yaml, which a run on Harbor does not use: Harbor gives every step of a task one environment, so each trial's steps are answered from the case's %s (match: rules on the step prompts tell them apart)", id, step, engine.FakeModelScript))
			}
		}
	}
	srv, err := engine.FakeModel(ev, plan.Mode, plan.Cases, "runner "+string(plan.Runner), fakeapi.Options{Log: logFile}, warn)
	if err == nil {
		url, err = srv.Start("")
	}
	if err != nil {
		_ = logFile.Close()
		return nil, "", err
	}
	return func() {
		srv.Close()
		if err := logFile.Close(); err != nil {
			warn(fmt.Sprintf("--fake-model: write %s: %v", rundir.FakeModelLog, err))
		}
	}, url, nil
}

// withoutEnv is environ without the variables named.
func withoutEnv(environ []string, names ...string) []string {
	out := make([]string, 0, len(environ))
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		drop := false
		for _, n := range names {
			drop = drop || name == n
		}
		if !drop {
			out = append(out, kv)
		}
	}
	return out
}

// tail is the last n lines of the file at path.
func tail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
