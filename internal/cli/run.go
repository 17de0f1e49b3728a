package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	yaml "go.yaml.in/yaml/v3"

	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/fakeapi"
	"github.com/agent-eval/agent-eval/internal/hook"
	"github.com/agent-eval/agent-eval/internal/intercept"
	"github.com/agent-eval/agent-eval/internal/lazyre"
	"github.com/agent-eval/agent-eval/internal/lifecycle"
	"github.com/agent-eval/agent-eval/internal/llm"
	"github.com/agent-eval/agent-eval/internal/permissions"
	tmpl "github.com/agent-eval/agent-eval/internal/prompt"
	"github.com/agent-eval/agent-eval/internal/redact"
	"github.com/agent-eval/agent-eval/internal/results"
	"github.com/agent-eval/agent-eval/internal/runner/claudecode"
	"github.com/agent-eval/agent-eval/internal/stream"
	"github.com/agent-eval/agent-eval/internal/version"
	"github.com/agent-eval/agent-eval/internal/workspace"
)

// FakeModelScript is the model script --fake-model serves: per case in case
// mode, at the dataset's root in batch mode.
const FakeModelScript = "fake_model.yaml"

// batchID names the batch workspace and its fake-model script.
const batchID = "batch"

type runOptions struct {
	config    string
	model     string
	cases     []string
	parallel  int
	runID     string
	runsDir   string
	timeout   time.Duration
	maxBudget float64
	agentBin  string
	fakeModel bool
	resume    bool
	json      bool
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
run_result.json, hook_decisions.jsonl, the collected outputs).

--fake-model serves each case's fake_model.yaml through the built-in fake of the
Messages API, so the wiring runs with the real CLI and no API key.

Exit status: 0 when every case exited 0, 1 when one did not, 2 for a usage or
configuration error, 3 for a harness failure, 130 when interrupted (the
finished cases are kept).`,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.maxBudget = -1
			if cmd.Flags().Changed("max-budget") {
				opts.maxBudget, _ = cmd.Flags().GetFloat64("max-budget")
			}
			return runRun(cmd.Context(), e, opts)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&opts.config, "config", "c", "eval.yaml", "the eval config `FILE`, or the folder holding eval.yaml")
	f.StringVar(&opts.model, "model", "", "the model under test (default: models.skill)")
	f.StringSliceVar(&opts.cases, "cases", nil, "run only these case `IDS` (comma-separated)")
	f.IntVar(&opts.parallel, "parallel", 0, "cases run at once (default: execution.parallelism)")
	f.StringVar(&opts.runID, "run-id", "", "the run's `ID` (default: YYYYMMDD-HHMMSS.mmm-<model>)")
	f.StringVar(&opts.runsDir, "runs-dir", "", "where runs go (default: $AGENT_EVAL_RUNS_DIR or eval/runs)")
	f.Var((*durationValue)(&opts.timeout), "timeout", "per-case timeout, in seconds (600) or as a duration (10m) (default: execution.timeout)")
	f.Float64("max-budget", 0, "per-case budget in USD (default: execution.max_budget_usd)")
	f.StringVar(&opts.agentBin, "agent-bin", "", "the agent `PATH` (default: runner.settings.binary, else claude on PATH)")
	f.BoolVar(&opts.fakeModel, "fake-model", false, "answer with each case's fake_model.yaml through the built-in fake Messages API")
	f.BoolVar(&opts.resume, "resume", false, "continue the latest unfinished run (or the one --run-id names): run only the cases without a finished result")
	f.BoolVar(&opts.json, "json", false, "print the run's run_result.json on stdout")
	return cmd
}

var (
	safeSegmentRE = lazyre.New(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)
	// outputDirRE is the case's output folder in a prompt: {{ output_dir }}
	// or {output_dir}.
	outputDirRE = lazyre.New(`\{\{\s*output_dir\s*\}\}|\{output_dir\}`)
)

// runState is one run being executed.
type runState struct {
	e         env
	ev        *config.Eval
	opts      runOptions
	dir       string // the run directory
	wsRoot    string // where the workspaces are
	configDir string // the agent's own config dir for this run
	agentBin  string
	hookBin   string
	model     string
	handlers  *intercept.File
	compiled  permissions.Compiled
	sandbox   config.SandboxDecision // Claude Code's OS sandbox for Bash
	credDir   string                 // the hook's credentials folder (hookCredentials), or ""
	credFile  string
	baselines string // the workspaces' git baselines, outside them
	caseIDs   []string
	fakeURL   string
	hookEnv   map[string]string // before_all's outputs
	plugins   []string          // runner.plugin_dirs, resolved
	repo      string            // the project root the agent runs in (workspace_mode: repo), else ""
	progress  *progress         // stderr, with the live status line on a terminal
	mu        sync.Mutex
	run       *results.Run
	redOnce   sync.Once
	red       *redact.Redactor // runRedactor
}

func runRun(ctx context.Context, e env, opts runOptions) (err error) {
	started := false // the first case (or the batch) began
	prog := newProgress(e.Err, e.Getenv)
	defer prog.stop()
	e.Err = prog
	ev, err := config.Load(opts.config)
	if err != nil {
		return err
	}
	var problems config.Errors
	for _, p := range permissionProblems(ev) {
		if !p.Warning {
			problems = append(problems, p)
		}
	}
	for _, w := range ev.Warnings {
		fmt.Fprintln(e.Err, w.Error())
	}
	if len(problems) > 0 {
		return problems
	}
	if ev.RunnerType() != "claude-code" {
		return usageErrorf("this version of agent-eval runs the claude-code runner only; %s is not implemented yet", ev.RunnerType())
	}
	st := &runState{e: e, ev: ev, opts: opts, progress: prog}
	st.model = firstNonEmpty(opts.model, ev.Models.Skill)
	if st.model == "" {
		if !opts.fakeModel {
			return usageErrorf("no model: set --model or models.skill in %s", opts.config)
		}
		st.model = "claude-fake-1"
	}
	ids, err := ev.CaseIDs()
	if err != nil {
		return fmt.Errorf("list the cases: %w", err)
	}
	if links := symlinkedCases(ev.DatasetDir()); len(links) > 0 {
		// A case is read from the dataset, never through a link out of it.
		return usageErrorf("%s: case folder %s is a symlink; copy the case in instead (validate reports it too)", ev.DatasetDir(), strings.Join(links, ", "))
	}
	if len(opts.cases) > 0 {
		for _, c := range opts.cases {
			if !slices.Contains(ids, c) {
				return usageErrorf("--cases: no case %q under %s", c, ev.DatasetDir())
			}
		}
		ids = opts.cases
	}
	if len(ids) == 0 {
		return usageErrorf("no cases: %s has no case folders", firstNonEmpty(ev.DatasetDir(), "dataset.path"))
	}
	for _, id := range ids {
		if !safeSegmentRE().MatchString(id) {
			return usageErrorf("case id %q is not a safe folder name", id)
		}
	}
	if ev.Runner.WorkspaceMode == "repo" {
		st.repo = mustGetwd()
		if st.parallel() > 1 {
			fmt.Fprintln(e.Err, "agent-eval: warning: workspace_mode: repo runs one case at a time (they share the project)")
		}
		st.opts.parallel = 1
	}
	for _, d := range ev.Runner.PluginDirs {
		abs, err := filepath.Abs(d)
		if err != nil {
			return err
		}
		if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
			return usageErrorf("runner.plugin_dirs: %s is not a directory", d)
		}
		st.plugins = append(st.plugins, abs)
	}
	if st.agentBin, err = agentBinary(ev, opts.agentBin); err != nil {
		return err
	}
	if st.hookBin = e.Getenv(BinEnv); st.hookBin == "" {
		if st.hookBin, err = os.Executable(); err != nil {
			return err
		}
	}
	runsDir := ev.RunsDir(e.Getenv)
	if opts.runsDir != "" {
		runsDir = filepath.Join(opts.runsDir, ev.EvalName())
	}
	runID := opts.runID
	if opts.resume && runID == "" {
		if runID, err = latestUnfinished(runsDir, ids); err != nil {
			return err
		}
		if runID == "" {
			return usageErrorf("--resume: no unfinished run of %s under %s; start one without --resume, or name a run with --run-id", ev.EvalName(), runsDir)
		}
	}
	if runID != "" && !safeSegmentRE().MatchString(runID) {
		return usageErrorf("run id %q is not a safe folder name", runID)
	}
	if opts.resume {
		st.dir = filepath.Join(runsDir, runID)
		if fi, err := os.Stat(st.dir); err != nil || !fi.IsDir() {
			return usageErrorf("--resume: no run %s", st.dir)
		}
	} else {
		_, runsDirErr := os.Stat(runsDir)
		explicit := runID != ""
		if !explicit {
			runID = newRunID(time.Now(), st.model)
		}
		if runID, st.dir, err = createRunDir(runsDir, runID, explicit); err != nil {
			return err
		}
		// A run that fails before its first case leaves nothing behind.
		defer func() {
			if !started {
				_ = os.RemoveAll(st.dir)
				if runsDirErr != nil {
					_ = os.Remove(runsDir) // the eval's folder, if this run made it and it is empty
				}
			}
		}()
	}
	unlock, err := lockRun(st.dir)
	if errors.Is(err, errRunning) {
		return usageErrorf("--resume: %s: %v", st.dir, err)
	}
	if err != nil {
		return err
	}
	defer unlock()
	if err := os.MkdirAll(filepath.Join(st.dir, "cases"), 0o755); err != nil {
		return err
	}
	if st.wsRoot, err = os.MkdirTemp("", "agent-eval-ws-"); err != nil {
		return err
	}
	defer os.RemoveAll(st.wsRoot)
	if st.configDir, err = os.MkdirTemp("", "agent-eval-config-"); err != nil {
		return err
	}
	defer os.RemoveAll(st.configDir)
	if err := st.seedTrust(ids); err != nil {
		return err
	}
	if len(ev.Inputs.Tools) > 0 {
		if st.handlers, err = st.loadHandlers(); err != nil {
			return err
		}
	}
	st.compiled = permissions.Compile(ev.Permissions.Allow, ev.Permissions.Deny)
	if err := st.checkSandbox(ctx, ids); err != nil {
		return err
	}
	err = st.hookCredentials(opts.fakeModel)
	if st.credDir != "" {
		defer os.RemoveAll(st.credDir)
	}
	if err != nil {
		return err
	}
	if st.baselines, err = os.MkdirTemp("", "agent-eval-baselines-"); err != nil {
		return err
	}
	defer os.RemoveAll(st.baselines)
	if opts.fakeModel {
		// What the model was sent is kept beside the results, for debugging
		// an eval's wiring.
		logFile, err := os.Create(filepath.Join(st.dir, "fake_model_requests.jsonl"))
		if err != nil {
			return err
		}
		defer logFile.Close()
		srv := fakeapi.New(fakeapi.Options{Log: logFile})
		scripts := map[string]string{batchID: filepath.Join(ev.DatasetDir(), FakeModelScript)}
		if ev.Mode() == "case" {
			scripts = map[string]string{}
			for _, id := range ids {
				scripts[id] = filepath.Join(ev.DatasetDir(), id, FakeModelScript)
				// A pipeline's steps are separate conversations: each may have
				// its own fake_model.<step>.yaml.
				for _, step := range ev.StepIDs() {
					p := filepath.Join(ev.DatasetDir(), id, "fake_model."+step+".yaml")
					if !fileExists(p) {
						p = scripts[id]
					}
					scripts[id+"/"+step] = p
				}
			}
		}
		for name, p := range scripts {
			script, err := fakeapi.LoadScript(p)
			if err != nil {
				return usageErrorf("--fake-model: %v", err)
			}
			srv.SetScript(name, script)
		}
		if st.fakeURL, err = srv.Start(""); err != nil {
			return err
		}
		defer srv.Close()
	}

	st.run = &results.Run{SchemaVersion: results.SchemaVersion, RunID: runID, EvalName: ev.EvalName(), Model: st.model,
		Agent: "claude-code", AgentVersion: claudecode.Version(st.agentBin), HarnessVer: version.Get().Version,
		ExecutionMode: ev.Mode(), PerCase: map[string]*results.Case{}, PerModelUsage: map[string]stream.ModelUsage{},
		EvalParams: map[string]any{"timeout_s": st.timeout().Seconds(), "max_budget_usd": st.budget(), "parallelism": st.parallel(), "fake_model": opts.fakeModel}}
	var todo []string
	for _, id := range ids {
		if c := finishedCase(st.dir, id); opts.resume && c != nil {
			st.run.Add(c)
			continue
		}
		todo = append(todo, id)
	}
	if opts.resume {
		fmt.Fprintf(e.Err, "resuming %s: %d of %s already finished\n", runID, len(ids)-len(todo), plural(len(ids), "case"))
		sweepLeftovers(e.Err, st.dir)
	}
	fmt.Fprintf(e.Err, "run %s: %s with %s (%s %s) → %s\n", runID, plural(len(todo), "case"), st.model, st.agentBin, st.run.AgentVersion, st.dir)

	start := time.Now()
	hooksLog, err := os.Create(filepath.Join(st.dir, "hooks.log"))
	if err != nil {
		return err
	}
	defer func() { _ = hooksLog.Close(); st.redactFile(hooksLog.Name()) }()
	if len(ev.Hooks.BeforeAll) > 0 {
		out, err := lifecycle.Phase(ctx, "before_all", ev.Hooks.BeforeAll, mustGetwd(), st.hookEnviron(nil), hooksLog, true)
		if err != nil {
			// The run directory goes (no case began): its log is shown here.
			_ = hooksLog.Close()
			st.redactFile(hooksLog.Name())
			if b, rerr := os.ReadFile(hooksLog.Name()); rerr == nil && len(b) > 0 {
				fmt.Fprintf(e.Err, "hooks.log:\n%s", indent(string(b)))
			}
			return err
		}
		st.hookEnv = out.Env
		if len(out.Data) > 0 {
			_ = writeYAML(filepath.Join(st.dir, "hook_outputs.yaml"), out.Data)
		}
	}
	if len(ev.Hooks.AfterAll) > 0 {
		defer func() {
			_, _ = lifecycle.Phase(context.WithoutCancel(ctx), "after_all", ev.Hooks.AfterAll, mustGetwd(), st.hookEnviron(nil), hooksLog, false)
		}()
	}
	started = true
	if ev.Mode() == "batch" {
		prog.begin(1)
		return st.runBatch(ctx, ids, start)
	}
	prog.begin(len(todo))
	sem := make(chan struct{}, st.parallel())
	var wg sync.WaitGroup
	for _, id := range todo {
		if ctx.Err() != nil {
			break
		}
		sem <- struct{}{}
		if ctx.Err() != nil {
			<-sem
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			c := st.runCase(ctx, id)
			st.finish(c, time.Since(start))
		}()
	}
	wg.Wait()
	st.mu.Lock()
	st.run.WallClockS = time.Since(start).Seconds()
	st.run.Interrupted = ctx.Err() != nil
	if err := results.WriteJSON(filepath.Join(st.dir, "run_result.json"), st.run); err != nil {
		st.mu.Unlock()
		return err
	}
	st.mu.Unlock()
	prog.stop()
	st.printSummary(ids)
	if opts.json {
		enc := json.NewEncoder(e.Out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(st.run); err != nil {
			return err
		}
	}
	switch {
	case ctx.Err() != nil:
		fmt.Fprintf(e.Err, "interrupted: the finished cases are in %s; continue with --resume --run-id %s\n", st.dir, runID)
		return st.interrupted()
	case st.run.ExitCode != 0:
		return errReported{ExitGate}
	}
	return nil
}

// interrupted is the error of an interrupted run. With --json the run's
// result is already on stdout, so no JSON error document follows it.
func (st *runState) interrupted() error {
	if st.opts.json {
		fmt.Fprintln(st.e.Err, "agent-eval: interrupted")
		return errReported{ExitInterrupted}
	}
	return context.Canceled
}

// finishedCase is a case's result from an earlier attempt of the run, or
// nil when it has none or was interrupted.
func finishedCase(dir, id string) *results.Case {
	b, err := os.ReadFile(filepath.Join(dir, "cases", id, "run_result.json"))
	if err != nil {
		return nil
	}
	var c results.Case
	if json.Unmarshal(b, &c) != nil || c.CaseID != id || c.Interrupted {
		return nil
	}
	return &c
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if strings.TrimSpace(s) != "" {
			return s
		}
	}
	return ""
}

func agentBinary(ev *config.Eval, flag string) (string, error) {
	bin := flag
	if bin == "" {
		if b, ok := ev.Runner.Settings["binary"].(string); ok {
			bin = b
		}
	}
	if bin == "" {
		bin = "claude"
	}
	p, err := exec.LookPath(bin)
	if err != nil {
		return "", usageErrorf("the agent CLI %q is not installed or not executable (install @anthropic-ai/claude-code, or pass --agent-bin)", bin)
	}
	return filepath.Abs(p)
}

func (st *runState) timeout() time.Duration {
	if st.opts.timeout > 0 {
		return st.opts.timeout
	}
	return st.ev.Timeout()
}

func (st *runState) budget() float64 {
	if st.opts.maxBudget >= 0 {
		return st.opts.maxBudget
	}
	return st.ev.MaxBudgetUSD()
}

func (st *runState) parallel() int {
	if st.opts.parallel > 0 {
		return st.opts.parallel
	}
	return st.ev.Parallelism()
}

// seedTrust writes the run's own agent config: every workspace is trusted,
// so the allow rules of its .claude/settings.json take effect. The user's
// ~/.claude.json is never touched.
func (st *runState) seedTrust(ids []string) error {
	projects := map[string]any{}
	for _, id := range append(slices.Clone(ids), batchID) {
		projects[filepath.Join(st.wsRoot, id)] = map[string]any{"hasTrustDialogAccepted": true}
	}
	if st.repo != "" {
		projects[st.repo] = map[string]any{"hasTrustDialogAccepted": true}
	}
	return results.WriteJSON(filepath.Join(st.configDir, ".claude.json"), map[string]any{"projects": projects})
}

// loadHandlers is the pre-resolved tool_handlers.yaml beside eval.yaml, or a
// compile of inputs.tools.
func (st *runState) loadHandlers() (*intercept.File, error) {
	path := filepath.Join(st.ev.Dir(), hook.HandlersFile)
	if _, err := os.Stat(path); err == nil {
		warns, errs := handlerProblems(st.ev)
		if len(errs) > 0 {
			return nil, errors.New(strings.Join(errs, "; "))
		}
		for _, w := range warns {
			fmt.Fprintln(st.e.Err, "agent-eval: warning:", st.runRedactor().String(w))
		}
		f, err := hook.ReadHandlers(path)
		return &f, err
	}
	c, err := compileHandlersWith(context.Background(), st.ev, "auto", st.e.Getenv, func(msg string) { fmt.Fprintln(st.e.Err, "agent-eval: warning:", msg) })
	return &c.file, err
}

// runCase prepares the case's workspace, runs the agent and collects what
// it left. Every failure is the case's, never the run's.
func (st *runState) runCase(ctx context.Context, id string) *results.Case {
	c := &results.Case{CaseID: id, PermissionDenials: []stream.Denial{}, PerModelUsage: map[string]stream.ModelUsage{}}
	caseOut := filepath.Join(st.dir, "cases", id)
	fail := func(err error) *results.Case {
		c.ExitCode, c.Status, c.Error = -1, "error", err.Error()
		return c
	}
	if err := os.MkdirAll(caseOut, 0o755); err != nil {
		return fail(err)
	}
	caseDir := filepath.Join(st.ev.DatasetDir(), id)
	ws := filepath.Join(st.wsRoot, id)
	c.Workspace = ws
	if err := os.MkdirAll(ws, 0o755); err != nil {
		return fail(err)
	}
	input, err := workspace.ReadInput(caseDir)
	if err != nil {
		return fail(err)
	}
	if in := workspace.InputFile(caseDir); in != "" {
		_ = workspace.CopyTree(in, filepath.Join(caseOut, filepath.Base(in)))
	}
	prompt := ""
	if len(st.ev.Execution.Steps) == 0 {
		if prompt, err = st.prompt(input, ws); err != nil {
			return fail(err)
		}
	}
	c.Prompt = prompt
	overrides, err := workspace.CaseOverrides(caseDir)
	if err != nil {
		return fail(err)
	}
	permArgs, cleanup, err := st.prepareWorkspace(ws, caseDir, overrides)
	if cleanup != nil {
		defer cleanup()
	}
	if err != nil {
		return fail(fmt.Errorf("prepare the workspace: %w", err))
	}
	h := st.ev.Hooks
	caseVars := map[string]string{"CASE_ID": id, "CASE_WORKSPACE": ws, "CASE_SOURCE_DIR": caseDir, "CASE_INPUT": filepath.Join(ws, "input.yaml")}
	var hooksLog *os.File
	if len(h.BeforeEach) > 0 || len(h.AfterEach) > 0 {
		if hooksLog, err = os.Create(filepath.Join(caseOut, "hooks.log")); err != nil {
			return fail(err)
		}
		defer func() { _ = hooksLog.Close(); st.redactFile(hooksLog.Name()) }()
	}
	if len(h.AfterEach) > 0 {
		defer func() {
			_, _ = lifecycle.Phase(context.WithoutCancel(ctx), "after_each", h.AfterEach, ws, st.hookEnviron(caseVars), hooksLog, false)
		}()
	}
	caseEnv := map[string]string{}
	if len(h.BeforeEach) > 0 {
		out, err := lifecycle.Phase(ctx, "before_each", h.BeforeEach, ws, st.hookEnviron(caseVars), hooksLog, true)
		if err != nil {
			return fail(err)
		}
		caseEnv = out.Env
		if len(out.Data) > 0 {
			_ = writeYAML(filepath.Join(caseOut, "hook_outputs.yaml"), out.Data)
		}
	}
	// The baseline is taken after before_each, so what the hooks prepared is
	// not counted as the agent's work.
	if st.repo == "" {
		if err := workspace.Baseline(ws, st.baselineDir(id)); err != nil {
			fmt.Fprintf(st.e.Err, "agent-eval: warning: %s: no baseline of the workspace, so no _modified/ (%v)\n", id, err)
		} else {
			defer st.collectModified(c, ws, caseOut)
		}
	}
	if len(st.ev.Execution.Steps) > 0 {
		return st.runSteps(ctx, c, ws, caseOut, input, permArgs, caseEnv, caseVars)
	}
	if st.repo == "" {
		return st.invoke(ctx, c, ws, caseOut, prompt, permArgs, caseEnv)
	}
	before, isGit := workspace.GitStatus(st.repo)
	c = st.invoke(ctx, c, ws, caseOut, prompt, permArgs, caseEnv)
	if after, _ := workspace.GitStatus(st.repo); isGit && after != before {
		c.RepoModified = true
		c.Status = "failed"
		c.Error = strings.TrimSpace(c.Error + " the case modified the project (git status changed; see repo_modifications.txt)")
		if c.ExitCode == 0 {
			c.ExitCode = 1
		}
		_ = os.WriteFile(filepath.Join(caseOut, "repo_modifications.txt"), []byte("BEFORE:\n"+before+"AFTER:\n"+after), 0o644)
	}
	return c
}

// stagedPlugins copies runner.plugin_dirs into the workspace (once), so the
// agent works on a copy it cannot change at the source; in repo mode the
// plugins are used where they are.
func (st *runState) stagedPlugins(ws string) []string {
	if st.repo != "" || len(st.plugins) == 0 {
		return st.plugins
	}
	var out []string
	for _, p := range st.plugins {
		dst := filepath.Join(ws, ".staged-plugins", filepath.Base(p))
		if !fileExists(dst) {
			if err := workspace.CopyTree(p, dst); err != nil {
				fmt.Fprintf(st.e.Err, "agent-eval: warning: staging plugin %s: %v; using it in place\n", p, err)
				out = append(out, p)
				continue
			}
		}
		out = append(out, dst)
	}
	return out
}

// collectModified copies what the agent changed in its workspace (besides
// its outputs) into _modified/.
func (st *runState) collectModified(c *results.Case, ws, caseOut string) {
	var skip []string
	for _, o := range st.ev.Outputs {
		if o.Path != "" {
			skip = append(skip, o.Path)
		}
	}
	files, err := workspace.Modified(ws, st.baselineDir(c.CaseID), skip)
	if err != nil {
		return
	}
	for _, f := range files {
		if err := workspace.CopyTree(filepath.Join(ws, f), filepath.Join(caseOut, "_modified", f)); err == nil {
			c.ModifiedFiles = append(c.ModifiedFiles, f)
		}
	}
}

// answerKeyDenies keep an agent running in the project itself (repo mode)
// away from the eval's own files and from changing the project: it may read
// and write its output folder only.
func (st *runState) answerKeyDenies(out string) (deny, allow []string) {
	spell := func(p string, dir bool) string {
		abs, _ := filepath.Abs(p)
		rel, err := filepath.Rel(st.repo, abs)
		pat := "/" + abs // //abs: an absolute path
		if err == nil && !strings.HasPrefix(rel, "..") {
			pat = rel
		}
		if dir {
			pat += "/**"
		}
		return pat
	}
	protected := []string{spell(st.ev.Path(), false), spell(filepath.Join(st.ev.Dir(), hook.HandlersFile), false), spell(st.ev.DatasetDir(), true),
		spell(filepath.Dir(st.dir), true)}
	for _, p := range protected {
		deny = append(deny, "Read("+p+")", "Edit("+p+")")
	}
	deny = append(deny, "Edit(/"+st.repo+"/**)")
	for _, v := range []string{"add", "commit", "push", "checkout", "reset", "restore", "stash", "clean", "apply", "rm", "mv"} {
		deny = append(deny, "Bash(git "+v+":*)")
	}
	return deny, []string{"Read(/" + out + "/**)", "Edit(/" + out + "/**)"}
}

// hookEnviron is a lifecycle hook's environment: the caller's, the run's
// AGENT_EVAL_* variables, before_all's outputs and the case's variables.
func (st *runState) hookEnviron(caseVars map[string]string) []string {
	abs, _ := filepath.Abs(st.opts.config)
	runDir, _ := filepath.Abs(st.dir)
	vars := map[string]string{"AGENT_EVAL_WORKSPACE": st.wsRoot, "AGENT_EVAL_RUN_ID": st.run.RunID, "AGENT_EVAL_CONFIG": abs,
		"AGENT_EVAL_PROJECT_ROOT": mustGetwd(), "AGENT_EVAL_MODEL": st.model, "AGENT_EVAL_RUN_DIR": runDir}
	for k, v := range st.hookEnv {
		vars[k] = v
	}
	for k, v := range caseVars {
		vars[k] = v
	}
	return lifecycle.Environ(os.Environ(), vars)
}

func mustGetwd() string {
	wd, err := os.Getwd()
	if err != nil {
		return "."
	}
	return wd
}

// invoke runs the agent in ws, writes its streams into out and fills c.
func (st *runState) invoke(ctx context.Context, c *results.Case, ws, out, prompt string, permArgs []string, extraEnv map[string]string) *results.Case {
	return st.invokeWith(ctx, c, ws, out, prompt, permArgs, extraEnv, stepSpec{}, true)
}

// stepSpec overrides the run's settings for one step of a pipeline.
type stepSpec struct {
	timeout time.Duration
	budget  *float64
	runner  *config.Runner
}

// invokeWith runs the agent; collect copies the ledger and the outputs into
// out afterwards (a pipeline collects once, after its last step).
func (st *runState) invokeWith(ctx context.Context, c *results.Case, ws, out, prompt string, permArgs []string, extraEnv map[string]string, step stepSpec, collect bool) *results.Case {
	fail := func(err error) *results.Case {
		c.ExitCode, c.Status, c.Error = -1, "error", err.Error()
		return c
	}
	stdout, err := os.Create(filepath.Join(out, "stdout.log"))
	if err != nil {
		return fail(err)
	}
	defer stdout.Close()
	stderr, err := os.Create(filepath.Join(out, "stderr.log"))
	if err != nil {
		return fail(err)
	}
	defer stderr.Close()
	st.progress.started(c.CaseID)
	fmt.Fprintf(st.e.Err, "  %s: started\n", c.CaseID)
	budget, timeout, runner := st.budget(), st.timeout(), st.ev.Runner
	if step.budget != nil {
		budget = *step.budget
	}
	if step.timeout > 0 {
		timeout = step.timeout
	}
	if step.runner != nil {
		runner = *step.runner
	}
	env := st.agentEnv(c.CaseID, extraEnv)
	if step.runner != nil {
		env = lifecycle.Environ(env, config.ResolveEnv(step.runner.Env, os.LookupEnv))
	}
	// The logs are redacted as they are written; the stream is parsed as the
	// agent printed it.
	red := st.agentRedactor(env)
	redOut, redErr := red.JSONWriter(stdout), red.Writer(stderr)
	defer redErr.Close()
	defer redOut.Close()
	defer redactCase(c, red)
	before := workspace.TopLevel(ws)
	res := claudecode.Run(ctx, claudecode.Spec{
		Bin: st.agentBin, Dir: firstNonEmpty(st.repo, ws), Prompt: prompt, Model: st.model, Effort: runner.Effort,
		PermissionMode: runner.PermissionMode, MaxBudgetUSD: &budget, SystemPrompt: runner.SystemPrompt,
		PluginDirs: st.stagedPlugins(ws), PermissionArgs: permArgs, AskUserQuestion: st.handlers != nil,
		Env: env, Timeout: timeout, Stdout: redOut, Stderr: redErr,
		Guard: st.hookBin, Started: func(pgid int) { st.recordAgent(pgid, c.CaseID) },
	})
	// What the sandbox mounted over the agent's workspace is not its work.
	workspace.RemoveSandboxPlaceholders(ws, before)
	s := res.Summary
	c.ExitCode, c.DurationS = res.ExitCode, res.Duration.Seconds()
	c.CostUSD, c.TokenUsage, c.NumTurns, c.PerModelUsage = s.CostUSD, s.Usage, s.NumTurns, s.PerModel
	c.Model, c.Result, c.IsError, c.PermissionDenials = s.Model, s.Result, s.IsError, s.Denials
	c.TimedOut, c.Interrupted = res.TimedOut, res.Interrupted
	switch {
	case res.Interrupted:
		c.Status, c.Error = "interrupted", "interrupted"
	case res.TimedOut:
		c.Status, c.Error = "timeout", fmt.Sprintf("timed out after %s", timeout)
	case res.Err != nil:
		c.Status, c.Error = "error", res.Err.Error()
	case c.ExitCode != 0:
		c.Status = "failed"
		if s.IsError {
			c.Error = "the agent ended with an error: " + clipText(s.Result, 200)
		}
	default:
		c.Status = "passed"
	}
	c.ToolCalls = s.ToolCalls
	if collect {
		st.collect(ws, out, c)
	}
	return c
}

func (st *runState) prompt(input map[string]any, outputDir string) (string, error) {
	x := st.ev.Execution
	x.Prompt = outputDirRE().ReplaceAllString(x.Prompt, outputDir)
	x.Arguments = outputDirRE().ReplaceAllString(x.Arguments, outputDir)
	if skill := strings.TrimSpace(x.Skill); skill != "" {
		args, err := tmpl.Render(x.Arguments, input)
		if err != nil {
			return "", err
		}
		return strings.TrimSpace("/" + skill + " " + args), nil
	}
	return tmpl.Render(x.Prompt, input)
}

// prepareWorkspace fills ws and returns the permission flags for the agent
// and a cleanup for the generated settings file.
// caseDir is "" for the batch workspace, which gets no per-case files.
func (st *runState) prepareWorkspace(ws, caseDir string, overrides map[string]string) ([]string, func(), error) {
	projectRoot, _ := os.Getwd()
	if st.ev.Dataset.Workspace != nil {
		for _, f := range st.ev.Dataset.Workspace.Files {
			var src, dst string
			if f.Path != "" && caseDir == "" {
				continue // a per-case file; batch mode has no case folder
			}
			if f.Path != "" {
				src, dst = filepath.Join(caseDir, f.Path), filepath.Join(ws, f.Path)
				if _, err := os.Stat(src); err != nil {
					return nil, nil, fmt.Errorf("dataset.workspace.files: the case has no %s: %w", f.Path, err)
				}
			} else {
				src, dst = f.Source, filepath.Join(ws, f.Dest)
				if !filepath.IsAbs(src) {
					src = filepath.Join(projectRoot, src)
				}
			}
			if err := workspace.CopyTree(src, dst); err != nil && !errors.Is(err, os.ErrNotExist) {
				return nil, nil, err
			}
		}
	}
	for _, name := range append(slices.Clone(workspace.InputNames), workspace.AnswersFile) {
		if p := filepath.Join(caseDir, name); caseDir != "" && fileExists(p) {
			if err := workspace.CopyTree(p, filepath.Join(ws, name)); err != nil {
				return nil, nil, err
			}
		}
	}
	settings := map[string]any{}
	if hf := st.hookFile(ws, overrides); hf != nil {
		path, digest, err := workspace.WriteHandlers(ws, *hf)
		if err != nil {
			return nil, nil, err
		}
		// The digest pins the file: an agent that rewrites it mid-run (a
		// script can, where the deny rules only stop Claude Code's own
		// tools and the shell commands it recognises) makes every call deny.
		command := intercept.ShellQuote(st.hookBin) + " hook --handlers " + intercept.ShellQuote(path) + " --sha256 " + digest
		if st.credFile != "" {
			command += " --credentials " + intercept.ShellQuote(st.credFile)
		}
		settings["hooks"] = map[string]any{"PreToolUse": hookEntries(*hf, command)}
	}
	c := st.compiled
	c.Deny = append(slices.Clone(c.Deny), workspace.ProtectedDenies...)
	if st.credDir != "" {
		pat := permissions.PathPattern(st.credDir + "/")
		c.Deny = append(c.Deny, "Read("+pat+")", "Edit("+pat+")")
	}
	base := ws
	if st.repo != "" {
		deny, allow := st.answerKeyDenies(ws)
		c.Deny, c.Allow = append(c.Deny, deny...), append(slices.Clone(c.Allow), allow...)
		base = st.repo // twins are rooted where the agent runs
	}
	exists := func(rel string) bool { return fileExists(filepath.Join(base, rel)) }
	settings, _, warn := permissions.WorkspaceSettings(settings, c, []string{base}, exists)
	if warn != "" {
		fmt.Fprintln(st.e.Err, "agent-eval: warning:", warn)
	}
	if env := config.ResolveEnv(st.ev.Execution.Env, os.LookupEnv); len(env) > 0 {
		m := map[string]any{}
		for k, v := range env {
			m[k] = v
		}
		settings["env"] = m
	}
	if len(st.ev.Runner.Settings) > 0 {
		extra := map[string]any{}
		for k, v := range st.ev.Runner.Settings {
			if k != "binary" {
				extra[k] = v
			}
		}
		settings = workspace.DeepMerge(settings, extra)
		if _, wired := settings["hooks"]; wired && settings["disableAllHooks"] == true {
			fmt.Fprintln(st.e.Err, "agent-eval: warning: runner.settings.disableAllHooks is ignored: the harness's PreToolUse hook enforces inputs.tools and the denied paths")
		}
	}
	_, wired := settings["hooks"]
	if wired {
		// Claude Code would run no hook at all, so neither inputs.tools nor
		// the hook's path layer would gate a call, with disableAllHooks set
		// by runner.settings or by the workspace's own
		// .claude/settings.local.json (which outranks settings.json; the
		// --settings file below outranks it).
		settings["disableAllHooks"] = false
	}
	if st.sandbox.On {
		settings = permissions.WithSandbox(settings, permissions.Sandbox(st.sandboxSpec(ws)))
	}
	if _, err := workspace.WriteSettings(ws, settings); err != nil {
		return nil, nil, err
	}
	plan := permissions.PlanClaude(st.compiled, settings, filepath.Join(ws, ".claude"), nil)
	if (st.repo != "" || wired) && plan.SettingsFile == "" {
		// The agent runs in the project, which does not load this folder's
		// settings by itself; and a wired hook must outrank the workspace's
		// settings.local.json.
		plan.Args = append(plan.Args, "--settings", filepath.Join(ws, ".claude", "settings.json"))
	}
	var cleanup func()
	if plan.SettingsFile != "" {
		_, remove, err := permissions.WriteSettingsFile(filepath.Join(ws, ".claude"), plan.SettingsFile, plan.Settings)
		if err != nil {
			return nil, nil, err
		}
		cleanup = func() { _ = remove() }
	}
	return plan.Args, cleanup, nil
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// agentEnv is the agent's environment: the allowlist, runner.env, and the
// harness's own variables.
func (st *runState) agentEnv(caseID string, hookEnv map[string]string) []string {
	extra := config.ResolveEnv(st.ev.Runner.Env, os.LookupEnv)
	for _, env := range []map[string]string{st.hookEnv, hookEnv} {
		for k, v := range env {
			extra[k] = v // hook outputs reach the agent
		}
	}
	extra["CLAUDE_CONFIG_DIR"] = st.configDir
	if st.repo != "" {
		extra["AGENT_EVAL_OUTPUT_DIR"] = filepath.Join(st.wsRoot, caseID)
	}
	extra["CLAUDE_CODE_SUBAGENT_MODEL"] = firstNonEmpty(st.ev.Models.Subagent, st.model)
	extra["DISABLE_AUTOUPDATER"] = "1"
	extra["DISABLE_TELEMETRY"] = "1"
	extra["DISABLE_ERROR_REPORTING"] = "1"
	st.scrubDefault(extra) // the agent's commands do not see the harness's credentials
	if st.ev.Runner.PermissionMode == "bypassPermissions" && claudecode.IsRoot() {
		extra["IS_SANDBOX"] = "1"
	}
	if st.fakeURL != "" {
		// The script is named by the base URL as well as the header: the
		// sandbox's scrub takes ANTHROPIC_CUSTOM_HEADERS and the key from
		// the hook, whose tier-2 answers come from the script's side:.
		extra["ANTHROPIC_BASE_URL"] = fakeapi.ScriptURL(st.fakeURL, caseID)
		extra["ANTHROPIC_API_KEY"] = "fake-model"
		extra["ANTHROPIC_AUTH_TOKEN"] = ""
		extra["ANTHROPIC_CUSTOM_HEADERS"] = fakeapi.ScriptHeader + ": " + caseID
		extra[llm.FakeModelEnv] = "1"
		extra["CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"] = "1"
	}
	return claudecode.Env(os.LookupEnv, extra)
}

// collect copies the ledger and the outputs into the case's folder and
// records the answered questions Claude Code delivered (deliveredAnswers).
func (st *runState) collect(ws, caseOut string, c *results.Case) {
	ledger := filepath.Join(ws, hook.LedgerFile)
	if f, err := os.Open(ledger); err == nil {
		answered, lost, err := deliveredAnswers(f, c.ToolCalls)
		if err != nil {
			fmt.Fprintf(st.e.Err, "agent-eval: warning: %s: %v\n", c.CaseID, err)
		}
		c.Answers, c.AnswerLog, c.AnswersNotDelivered = len(answered), answered, lost
		c.AnswersByTier = results.TierCounts(answered)
		_ = f.Close()
		_ = workspace.CopyTree(ledger, filepath.Join(caseOut, hook.LedgerFile))
	}
	for _, o := range st.ev.Outputs {
		if o.Path == "" {
			continue
		}
		src := filepath.Join(ws, o.Path)
		if fileExists(src) {
			_ = workspace.CopyTree(src, filepath.Join(caseOut, "outputs", o.Path))
		}
	}
}

// finish records a finished case: its own result file at once, then the
// run's aggregate, rewritten atomically.
func (st *runState) finish(c *results.Case, elapsed time.Duration) {
	st.mu.Lock()
	defer st.mu.Unlock()
	redactCase(c, st.runRedactor())
	_ = results.WriteJSON(filepath.Join(st.dir, "cases", c.CaseID, "run_result.json"), c)
	st.run.Add(c)
	st.run.WallClockS = elapsed.Seconds()
	_ = results.WriteJSON(filepath.Join(st.dir, "run_result.json"), st.run)
	line := fmt.Sprintf("  %s: %s in %.1fs, $%.4f, %s, %s, %s", c.CaseID, st.progress.paint(c.Status), c.DurationS, c.CostUSD,
		plural(c.NumTurns, "turn"), plural(len(c.PermissionDenials), "denial"), answeredByTier(c))
	if c.Error != "" {
		line += " — " + c.Error
	}
	done, total := st.progress.finished(c.CaseID, c.CostUSD, len(c.PermissionDenials))
	fmt.Fprintf(st.e.Err, "%s [%d/%d]\n", line, done, total)
	for _, w := range fallbackWarnings(c) {
		fmt.Fprintln(st.e.Err, "agent-eval: warning:", st.runRedactor().String(w))
	}
}

func (st *runState) printSummary(ids []string) {
	passed := 0
	var table strings.Builder
	tw := tabwriter.NewWriter(&table, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "case\tstatus\tseconds\tcost $\tturns\tdenials\tanswered")
	// Every status cell is padded to one width, so that once the table is
	// laid out each can be coloured in place (tabwriter would count the
	// colour codes as width and shift the columns).
	width := len("not run")
	for _, c := range st.run.PerCase {
		width = max(width, len(c.Status))
	}
	for _, id := range ids {
		c, ok := st.run.PerCase[id]
		if !ok {
			fmt.Fprintf(tw, "%s\t%-*s\n", id, width, "not run")
			continue
		}
		if c.ExitCode == 0 {
			passed++
		}
		fmt.Fprintf(tw, "%s\t%-*s\t%.1f\t%.4f\t%d\t%d\t%s\n", id, width, c.Status, c.DurationS, c.CostUSD, c.NumTurns, len(c.PermissionDenials), tierCells(c))
	}
	_ = tw.Flush()
	lines := strings.SplitAfter(table.String(), "\n")
	col := strings.Index(lines[0], "status")
	for i, l := range lines {
		if i > 0 && col > 0 && len(l) >= col+width {
			l = l[:col] + st.progress.paint(l[col:col+width]) + l[col+width:]
		}
		fmt.Fprint(st.e.Err, l)
	}
	status := "ok"
	if st.run.Interrupted {
		status = "interrupted"
	} else if passed < len(ids) {
		status = "FAILED"
	}
	fmt.Fprintf(st.e.Err, "run %s: %s — %d/%s exited 0, $%.4f, %.1fs; results in %s\n",
		st.run.RunID, st.progress.paint(status), passed, plural(len(ids), "case"), st.run.CostUSD, st.run.WallClockS, st.dir)
}

// runBatch runs one agent over every case in one shared workspace holding
// batch.yaml (the cases' inputs, in order) and case_order.yaml.
func (st *runState) runBatch(ctx context.Context, ids []string, start time.Time) error {
	ws := filepath.Join(st.wsRoot, batchID)
	if err := os.MkdirAll(ws, 0o755); err != nil {
		return err
	}
	if st.ev.Dataset.Workspace != nil && slices.ContainsFunc(st.ev.Dataset.Workspace.Files, func(f config.WorkspaceFile) bool { return f.Path != "" }) {
		fmt.Fprintln(st.e.Err, "agent-eval: warning: per-case dataset.workspace.files are ignored in batch mode")
	}
	var entries []any
	var order []map[string]any
	overrides := map[string]string{}
	for _, id := range ids {
		caseDir := filepath.Join(st.ev.DatasetDir(), id)
		input, err := workspace.ReadInput(caseDir)
		if err != nil || input == nil {
			fmt.Fprintf(st.e.Err, "agent-eval: warning: case %s has no readable input; left out of batch.yaml (%v)\n", id, err)
			order = append(order, map[string]any{"case_id": id, "entry_count": 0})
			continue
		}
		entries = append(entries, input)
		order = append(order, map[string]any{"case_id": id, "entry_count": 1})
		o, err := workspace.CaseOverrides(caseDir)
		if err != nil {
			return err
		}
		for k, v := range o {
			overrides[k] = v
		}
	}
	for _, dir := range []string{ws, st.dir} {
		if err := writeYAML(filepath.Join(dir, "batch.yaml"), entries); err != nil {
			return err
		}
		if err := writeYAML(filepath.Join(dir, "case_order.yaml"), order); err != nil {
			return err
		}
	}
	prompt := strings.TrimSpace(st.ev.Execution.Prompt)
	if skill := strings.TrimSpace(st.ev.Execution.Skill); skill != "" {
		prompt = strings.TrimSpace("/" + skill + " " + strings.TrimSpace(st.ev.Execution.Arguments))
	}
	c := &results.Case{CaseID: batchID, Prompt: prompt, Workspace: ws, PermissionDenials: []stream.Denial{}, PerModelUsage: map[string]stream.ModelUsage{}}
	permArgs, cleanup, err := st.prepareWorkspace(ws, "", overrides)
	if cleanup != nil {
		defer cleanup()
	}
	if err != nil {
		c.ExitCode, c.Status, c.Error = -1, "error", "prepare the workspace: "+err.Error()
	} else {
		c = st.invoke(ctx, c, ws, st.dir, prompt, permArgs, nil)
	}
	r := st.run
	r.PerCase, r.Batch = nil, c
	r.NumCases, r.ExitCode, r.DurationS, r.CostUSD = len(ids), c.ExitCode, c.DurationS, c.CostUSD
	r.TokenUsage, r.NumTurns, r.PerModelUsage = c.TokenUsage, c.NumTurns, c.PerModelUsage
	denials := c.PermissionDenials
	r.PermissionDenials = &denials
	r.WallClockS = time.Since(start).Seconds()
	r.Interrupted = ctx.Err() != nil
	if err := results.WriteJSON(filepath.Join(st.dir, "run_result.json"), r); err != nil {
		return err
	}
	st.progress.finished(c.CaseID, c.CostUSD, len(denials))
	st.progress.stop()
	fmt.Fprintf(st.e.Err, "batch run %s: %s — %s in one agent run, exit %d, $%.4f, %s, %.1fs; results in %s\n",
		r.RunID, st.progress.paint(c.Status), plural(len(ids), "case"), c.ExitCode, c.CostUSD, plural(len(denials), "denial"), r.WallClockS, st.dir)
	if st.opts.json {
		enc := json.NewEncoder(st.e.Out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(r); err != nil {
			return err
		}
	}
	switch {
	case ctx.Err() != nil:
		return st.interrupted()
	case r.ExitCode != 0:
		return errReported{ExitGate}
	}
	return nil
}

func writeYAML(path string, v any) error {
	b, err := yaml.Marshal(v)
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

// runSteps runs a multi-step pipeline in the case's workspace: each step's
// prompt may use the earlier steps' results ({{ steps.<id>.output }},
// {{ steps.<id>.exit_code }}); a failing step stops the pipeline unless its
// on_failure is continue. The case adds up its steps.
func (st *runState) runSteps(ctx context.Context, c *results.Case, ws, caseOut string, input map[string]any,
	permArgs []string, caseEnv, caseVars map[string]string) *results.Case {
	stepsCtx := map[string]any{}
	c.Status, c.PerModelUsage = "passed", map[string]stream.ModelUsage{}
	seen := map[string]bool{}
	for i, s := range st.ev.Execution.Steps {
		out := filepath.Join(caseOut, "steps", s.ID)
		sc := &results.Case{CaseID: c.CaseID + "/" + s.ID, PermissionDenials: []stream.Denial{}, PerModelUsage: map[string]stream.ModelUsage{}}
		c.Steps = append(c.Steps, sc)
		if err := os.MkdirAll(out, 0o755); err != nil {
			sc.ExitCode, sc.Status, sc.Error = -1, "error", err.Error()
		} else {
			tpl := s.Prompt
			if strings.TrimSpace(s.Skill) != "" {
				tpl = "/" + strings.TrimSpace(s.Skill) + " " + s.Arguments
			}
			tpl = outputDirRE().ReplaceAllString(tpl, ws)
			prompt, err := tmpl.RenderStep(tpl, input, stepsCtx)
			if err != nil {
				sc.ExitCode, sc.Status, sc.Error = -1, "error", err.Error()
			} else {
				sc.Prompt = prompt
				vars := map[string]string{"STEP_ID": s.ID, "STEP_INDEX": fmt.Sprint(i + 1)}
				for k, v := range caseVars {
					vars[k] = v
				}
				stepEnv := merged(caseEnv, config.ResolveEnv(s.Env, os.LookupEnv))
				hooksLog := io.Discard
				if len(st.ev.Hooks.BeforeStep)+len(st.ev.Hooks.AfterStep) > 0 {
					if f, err := os.Create(filepath.Join(out, "hooks.log")); err == nil {
						defer func() { _ = f.Close(); st.redactFile(f.Name()) }()
						hooksLog = f
					}
				}
				failed := false
				if len(st.ev.Hooks.BeforeStep) > 0 {
					o, err := lifecycle.Phase(ctx, "before_step", st.ev.Hooks.BeforeStep, ws, st.hookEnviron(merged(vars, stepEnv)), hooksLog, true)
					if err != nil {
						sc.ExitCode, sc.Status, sc.Error, failed = -1, "error", err.Error(), true
					}
					for k, v := range o.Env {
						stepEnv[k] = v
					}
				}
				if !failed {
					spec := stepSpec{runner: s.Runner, budget: s.MaxBudgetUSD}
					if s.Timeout != nil {
						spec.timeout = time.Duration(*s.Timeout) * time.Second
					}
					sc = st.invokeWith(ctx, sc, ws, out, prompt, permArgs, stepEnv, spec, false)
					c.Steps[len(c.Steps)-1] = sc
				}
				if len(st.ev.Hooks.AfterStep) > 0 {
					vars["STEP_EXIT_CODE"] = fmt.Sprint(sc.ExitCode)
					_, _ = lifecycle.Phase(context.WithoutCancel(ctx), "after_step", st.ev.Hooks.AfterStep, ws, st.hookEnviron(vars), hooksLog, false)
				}
			}
		}
		stepsCtx[s.ID] = map[string]any{"output": sc.Result, "exit_code": sc.ExitCode}
		c.DurationS += sc.DurationS
		c.CostUSD += sc.CostUSD
		c.NumTurns += sc.NumTurns
		c.TokenUsage.Add(sc.TokenUsage)
		stream.AddPerModel(c.PerModelUsage, sc.PerModelUsage)
		for _, d := range sc.PermissionDenials {
			if !seen[d.ToolUseID+"\x00"+sc.CaseID] {
				seen[d.ToolUseID+"\x00"+sc.CaseID] = true
				c.PermissionDenials = append(c.PermissionDenials, d)
			}
		}
		c.Model, c.Result, c.IsError = firstNonEmpty(sc.Model, c.Model), sc.Result, sc.IsError
		c.ToolCalls = append(c.ToolCalls, sc.ToolCalls...)
		c.TimedOut, c.Interrupted = c.TimedOut || sc.TimedOut, c.Interrupted || sc.Interrupted
		if sc.ExitCode != 0 && c.ExitCode == 0 {
			c.ExitCode, c.Status, c.Error = sc.ExitCode, sc.Status, "step "+s.ID+": "+firstNonEmpty(sc.Error, sc.Status)
		}
		if sc.ExitCode != 0 && (s.OnFailure != "continue" || sc.Interrupted) {
			c.AbortedAtStep = s.ID
			break
		}
	}
	if c.Interrupted {
		c.Status = "interrupted"
	}
	st.collect(ws, caseOut, c)
	return c
}

// merged returns the maps' entries, later maps winning.
func merged(maps ...map[string]string) map[string]string {
	out := map[string]string{}
	for _, m := range maps {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}

// indent prefixes every line of s with two spaces and ends it with a newline.
func indent(s string) string {
	s = strings.TrimRight(s, "\n")
	return "  " + strings.ReplaceAll(s, "\n", "\n  ") + "\n"
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
