package engine

import (
	"context"
	"errors"
	"fmt"
	"github.com/agent-eval/agent-eval/internal/fakeapi"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	yaml "go.yaml.in/yaml/v3"

	"github.com/agent-eval/agent-eval/internal/agentproc"
	"github.com/agent-eval/agent-eval/internal/boundary"
	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/guard"
	"github.com/agent-eval/agent-eval/internal/intercept"
	"github.com/agent-eval/agent-eval/internal/lifecycle"
	"github.com/agent-eval/agent-eval/internal/permissions"
	"github.com/agent-eval/agent-eval/internal/redact"
	"github.com/agent-eval/agent-eval/internal/results"
	"github.com/agent-eval/agent-eval/internal/rundir"
	"github.com/agent-eval/agent-eval/internal/runner"
	"github.com/agent-eval/agent-eval/internal/transcript"
	"github.com/agent-eval/agent-eval/internal/version"
	"github.com/agent-eval/agent-eval/internal/workspace"
)

// state is one run being executed.
type state struct {
	p         Plan
	ev        *config.Eval
	obs       Observer
	dir       rundir.Dir
	runID     string
	wsRoot    string            // the private root: every run's workspaces (workspace.PrivateRoot)
	private   string            // the run's own slot in it: the harness's folders no agent may read
	baselines string            // the workspaces' git baselines, outside them (in private)
	slots     []string          // the slots this run made (removed at its end)
	ws        map[string]string // case id (or BatchID) → its workspace, made before the first agent starts
	agent     runner.Agent
	caps      runner.Capabilities
	fakeURL   string
	fake      *fakeapi.Server   // the fake model, when it serves
	recorder  *fakeapi.Recorder // run --record's proxy
	// noCassette: the cases --replay has no cassette for, and why.
	noCassette map[string]string
	hookEnv    map[string]string // before_all's outputs
	contain    agentproc.Containment
	boundary   runner.BoundaryDecision
	tamper     *tamperGuard            // what scoring reads, as it was at the start (tamper.go)
	selection  []byte                  // selection.json as the run wrote it, put back when an agent changes it
	pendMu     sync.Mutex              // a case's start against a check of the folders of the cases not started
	pending    map[string]*tamperGuard // the folders of the cases not started yet, as they were at the start
	sealed     map[string]*tamperGuard // finished cases' folders (tamper.go)
	redOnce    sync.Once
	red        *redact.Redactor // runRedactor
	started    time.Time        // this attempt's start
	rec        record           // what the run ran (record.go)

	mu       sync.Mutex
	rows     map[string]Row  // this attempt's finished cases, for the table
	writeErr []error         // case results that could not be written
	ran      map[string]bool // cases this attempt wrote a result for
}

// Run runs the plan: it opens (or resumes) the run directory, starts the
// runner, runs the lifecycle phases and the cases, and writes the run's
// aggregate run_result.json once at the end — also after an interrupt,
// which is ctx's cancellation: the finished cases are kept and the run is
// marked interrupted. The error is the run's own failure (a *UsageError or
// a *runner.ConfigError for the user's to fix, else the harness's); the
// cases' failures are in the returned run.
func Run(ctx context.Context, p Plan, rs *runner.Registry, obs Observer) (_ *results.RunResult, err error) {
	if obs == nil {
		obs = Discard{}
	}
	rn, st, err := newState(p, rs, obs)
	if err != nil {
		return nil, err
	}
	started := false // the first case (or the batch) began
	made := missingDirs(p.RunsDir)
	if err := st.openRunDir(); err != nil {
		return nil, err
	}
	p.Cases = st.p.Cases // a resume runs the cases its run was made with
	if !p.Resume {
		// A run that fails before its first case leaves nothing behind:
		// not its folder, nor the folders above it that it made.
		defer func() {
			if !started {
				_ = os.RemoveAll(st.dir.Path)
				for _, d := range made {
					_ = os.Remove(d) // only if still empty
				}
			}
		}()
	}
	unlock, err := st.lockRunDir()
	if err != nil {
		return nil, err
	}
	defer unlock()
	todo, err := st.casesToRun()
	if err != nil {
		return nil, err
	}
	gitRoot, err := st.makeWorkspaces(todo)
	// Removing the workspaces one unlink at a time was a tenth of the
	// run's own CPU at the end of a large run: in parallel.
	defer func() {
		if err := workspace.RemoveAll(st.slots); err != nil {
			obs.Warn(fmt.Sprintf("remove the workspaces: %v", err))
		}
	}()
	if err != nil {
		return nil, err
	}
	sandbox, stop, err := st.startAgent(ctx, rn, gitRoot)
	defer stop()
	if err != nil {
		return nil, err
	}
	st.announceStart(todo, sandbox)

	start := time.Now()
	hooksLog, err := os.Create(st.dir.HooksLog())
	if err != nil {
		return nil, fmt.Errorf("create the hooks log: %w", err)
	}
	defer func() { _ = hooksLog.Close(); st.redactFile(hooksLog.Name()) }()
	if err := st.beforeAll(ctx, hooksLog); err != nil {
		return nil, err
	}
	defer st.afterAll(ctx, hooksLog)
	st.guardCases(todo)
	started = true
	st.keepRunsOutOfGit(ctx, made)
	if p.Mode == ModeBatch {
		return st.runBatch(ctx, start)
	}
	st.runCases(ctx, todo)
	return st.finishRun(ctx, start)
}

// newState checks the runner can do what the plan asks (refusing what it
// cannot, warning of what it will not enforce) and makes the run's state.
func newState(p Plan, rs *runner.Registry, obs Observer) (runner.Runner, *state, error) {
	if !rs.Has(p.Runner) {
		return nil, nil, usageErrorf("runner.type %s: this version of agent-eval does not implement it (it knows %v)", p.Runner, rs.Types())
	}
	rn, err := rs.New(p.Runner)
	if err != nil {
		return nil, nil, err
	}
	st := &state{p: p, ev: p.Eval, obs: obs, caps: rn.Capabilities(), rows: map[string]Row{}, ran: map[string]bool{}, started: time.Now()}
	if p.Mode == ModeBatch && !st.caps.Batch {
		return nil, nil, usageErrorf("execution.mode: batch: runner %s cannot run a batch", p.Runner)
	}
	if p.Steps && !st.caps.Steps {
		return nil, nil, usageErrorf("execution.steps: runner %s cannot run a pipeline", p.Runner)
	}
	if p.Repo != "" && !st.caps.RepoMode {
		return nil, nil, usageErrorf("runner.workspace_mode: repo: runner %s cannot run in the project", p.Runner)
	}
	if len(st.ev.Inputs.Tools) > 0 && !st.caps.Interception {
		obs.Warn(fmt.Sprintf("inputs.tools is not enforced: runner %s cannot intercept tool calls", p.Runner))
	}
	if len(st.ev.Permissions.Allow)+len(st.ev.Permissions.Deny) > 0 && !st.caps.NativePermissions {
		obs.Warn(fmt.Sprintf("permissions are not enforced: runner %s has no permission rules agent-eval can set", p.Runner))
	}
	return rn, st, nil
}

// lockRunDir locks the run directory against a second run of it and makes
// its cases folder. unlock releases the lock.
func (st *state) lockRunDir() (unlock func(), err error) {
	unlock, err = st.dir.Lock()
	if errors.Is(err, rundir.ErrRunning) {
		return nil, usageErrorf("--resume: %s: %v", st.dir.Path, err)
	}
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(st.dir.Path, rundir.CasesDir), 0o755); err != nil {
		unlock()
		return nil, fmt.Errorf("make the cases folder: %w", err)
	}
	return unlock, nil
}

// casesToRun is the plan's cases this attempt runs: on a resume, those not
// finished yet (and the run is marked stale while they run).
func (st *state) casesToRun() ([]string, error) {
	var todo []string
	for _, id := range st.units() {
		if c := st.dir.FinishedCase(id); st.p.Resume && c != nil && !(st.p.RetryErrored && errored(c)) {
			continue
		}
		todo = append(todo, id)
	}
	if st.p.Resume && len(todo) > 0 {
		if err := st.markStale(); err != nil {
			return nil, err
		}
	}
	return todo, nil
}

// startAgent loads the tool handlers, starts the fake model if asked,
// records the run's configuration, probes how the agents' processes are
// contained and starts the runner. It returns the sandbox the run has and
// stop, which undoes what it started; stop is to be called also when err
// is not nil.
func (st *state) startAgent(ctx context.Context, rn runner.Runner, gitRoot string) (sandbox config.SandboxDecision, stop func(), err error) {
	p, obs := st.p, st.obs
	stop = func() {}
	var handlers *intercept.File
	if len(st.ev.Inputs.Tools) > 0 && st.caps.Interception && p.LoadHandlers != nil {
		// Redacted with what is known now: before_all has not run yet.
		if handlers, err = p.LoadHandlers(ctx, func(msg string) { obs.Warn(st.runRedactor().String(msg)) }); err != nil {
			return sandbox, stop, err
		}
		if handlers != nil && !st.caps.AskUserQuestion && slices.ContainsFunc(handlers.Handlers, intercept.AnswersQuestions) {
			obs.Warn(fmt.Sprintf("runner %s has no question tool whose questions reach the hook: the handler that answers AskUserQuestion and the cases' answers.yaml answer nothing (the agent decides without asking)", p.Runner))
		}
	}
	if p.FakeModel || p.Record {
		start := st.startFakeModel
		if p.Record {
			start = st.startRecorder
		}
		stopFake, err := start()
		if err != nil {
			return sandbox, stop, err
		}
		stop = stopFake
	}
	sandbox = st.ev.Sandbox()
	if !st.caps.Sandbox && sandbox.On {
		sandbox = config.SandboxDecision{Why: "runner " + string(p.Runner) + " has no OS sandbox", Lost: st.ev.Permissions.LostWithoutSandbox(st.ev.Permissions.BashOpenPaths())}
	}
	st.boundary = runner.BoundaryOf(st.ev)
	switch {
	case p.NoBoundary:
		st.boundary = runner.BoundaryDecision{Why: "run --no-boundary"}
	case p.HarnessBin == "" && st.boundary.On:
		st.boundary = runner.BoundaryDecision{Why: "no agent-eval binary to run the agents under"}
	}
	if n := st.ev.Permissions.Network; n != nil && !st.boundary.On && !sandbox.On && p.Runner != runner.TypeFake {
		return sandbox, stop, &UsageError{Err: fmt.Errorf("permissions.network lists the hosts the agent may reach, and nothing would hold it to them: the harness's boundary is off (%s) and so is the sandbox (%s); run with the boundary, or drop permissions.network", st.boundary.Why, sandbox.Why)}
	}
	if st.boundary.On {
		// What the sandbox would have kept from the agent's commands the
		// boundary keeps too, but the scrub of their environment.
		sandbox.Lost = config.LostInBoundary(sandbox.Lost)
	}
	perms := permissions.Compile(st.ev.Permissions.Allow, st.ev.Permissions.Deny)
	if err := st.recordConfig(ctx, handlers, perms, sandbox); err != nil {
		return sandbox, stop, err
	}
	// How the agents' processes are kept from outliving their cases: said
	// at the start and in run_result.json, never silently weaker.
	if st.contain, err = agentproc.Probe(p.HarnessBin); err != nil {
		return sandbox, stop, &UsageError{Err: fmt.Errorf("contain the agents' processes: %w", err)}
	}
	if st.boundary.On {
		if err := boundary.Probe(); err != nil {
			return sandbox, stop, &UsageError{Err: fmt.Errorf("draw the agents' boundary: %w; to run the agents in the machine's own world instead (each agent CLI's own sandbox, where it has one, is then all that stands), set permissions.boundary: off or pass --no-boundary", err)}
		}
		st.contain = agentproc.Containment{Mode: agentproc.Boundary}
	}
	st.agent, err = rn.Start(ctx, runner.RunSetup{Boundary: st.boundary, Eval: st.ev, Model: p.Model, AgentBin: p.AgentBin, HarnessBin: p.HarnessBin,
		RunDir: st.dir.Path, WorkspaceRoot: st.wsRoot, Private: st.private, Baselines: st.baselines, Workspaces: st.workspaceList(),
		GitRoot: gitRoot, Repo: p.Repo, Handlers: handlers, Permissions: perms,
		Sandbox: sandbox, FakeModelURL: st.fakeURL, AgentOTLP: p.AgentOTLP, RunID: st.runID, Warn: obs.Warn})
	if err != nil {
		return sandbox, stop, err
	}
	stopFake := stop
	return sandbox, func() {
		if cerr := st.agent.Close(); cerr != nil {
			obs.Warn(fmt.Sprintf("clean up the runner: %v", cerr))
		}
		stopFake()
	}, nil
}

// announceStart tells the observer the run starts: what it resumes (and
// sweeps what the earlier attempt left), the agent, how many cases, and
// how the agents' processes are contained.
func (st *state) announceStart(todo []string, sandbox config.SandboxDecision) {
	p, obs := st.p, st.obs
	if p.Resume {
		total, unit := len(st.units()), "case"
		if p.Repeats > 1 {
			unit = "attempt"
		}
		obs.Note(fmt.Sprintf("resuming %s: %d of %s already finished", st.runID, total-len(todo), Plural(total, unit)))
		st.sweepLeftovers()
	}
	agent, agentVersion := st.agent.Agent()
	if b, ok := st.agent.(interface{ Bin() string }); ok {
		agent = b.Bin()
	}
	toRun := len(todo)
	if p.Mode == ModeBatch {
		toRun = len(p.Cases)
	}
	obs.RunStarted(RunInfo{RunID: st.runID, Dir: st.dir.Path, Mode: p.Mode, Model: p.Model, Agent: agent, AgentVersion: agentVersion,
		ToRun: toRun, Total: len(st.units()), Repeats: p.Repeats, Resume: p.Resume, Containment: st.contain.String(), Unprotected: sandbox.Lost, SandboxOff: sandbox.Why})
	if !st.boundary.On && p.Runner != runner.TypeFake {
		obs.Warn("the agents run without the harness's boundary (" + st.boundary.Why + "): each sees this machine's files and network as you do, but for what its own CLI's sandbox keeps from it; see docs/security.md#what-the-agent-can-see-and-reach")
	}
	if c := st.contain; c.Weaker() {
		obs.Warn("the agents' processes are contained by a " + c.String() + "; see docs/auth.md#containment-of-the-agents-processes")
	}
}

// beforeAll runs the before_all hooks, if any, and keeps their outputs for
// the cases. On failure it shows the hooks log (the run directory, with
// it, goes: no case began).
func (st *state) beforeAll(ctx context.Context, hooksLog *os.File) error {
	if len(st.ev.Hooks.BeforeAll) == 0 {
		return nil
	}
	out, err := lifecycle.Phase(ctx, "before_all", st.ev.Hooks.BeforeAll, st.p.ProjectRoot, st.hookEnviron(nil), hooksLog, true)
	if err != nil {
		_ = hooksLog.Close()
		st.redactFile(hooksLog.Name())
		if b, rerr := os.ReadFile(hooksLog.Name()); rerr == nil && len(b) > 0 {
			st.obs.Note("hooks.log:\n" + strings.TrimSuffix(indent(string(b)), "\n"))
		}
		return err
	}
	st.hookEnv = out.Env
	st.runRedactor().Learn(out.Env)
	if len(out.Data) > 0 {
		if err := st.writeHookOutputs(filepath.Join(st.dir.Path, rundir.HookOutputs), out.Data); err != nil {
			return fmt.Errorf("before_all: %w", err)
		}
	}
	return nil
}

// afterAll runs the after_all hooks, if any, also after an interrupt; a
// failure is a warning.
func (st *state) afterAll(ctx context.Context, hooksLog *os.File) {
	if len(st.ev.Hooks.AfterAll) == 0 {
		return
	}
	if _, err := lifecycle.Phase(context.WithoutCancel(ctx), "after_all", st.ev.Hooks.AfterAll, st.p.ProjectRoot, st.hookEnviron(nil), hooksLog, false); err != nil {
		st.obs.Warn(err.Error())
	}
}

// guardCases takes the tamper check's snapshot of what scoring reads and,
// per case, of the folders of the cases not started; the earlier
// attempts' finished cases are sealed as this attempt's are once they end.
func (st *state) guardCases(todo []string) {
	st.startTamperGuard()
	if st.p.Mode == ModeBatch {
		return
	}
	st.guardPending(todo)
	for _, id := range st.units() {
		if !slices.Contains(todo, id) {
			st.sealCase(id)
		}
	}
}

// runCases runs the cases, p.Parallel at a time, until they are done or
// ctx is cancelled (the cases not started then are not run).
func (st *state) runCases(ctx context.Context, todo []string) {
	sem := make(chan struct{}, max(st.p.Parallel, 1))
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
			st.finish(st.safeRunCase(ctx, id))
		}()
	}
	wg.Wait()
}

// finishRun writes run_result.json and tells the observer the run
// finished, with a row per case (this attempt's, else the earlier one's).
func (st *state) finishRun(ctx context.Context, start time.Time) (*results.RunResult, error) {
	st.markForeignScored()
	r, err := st.aggregate(time.Since(start), ctx.Err() != nil)
	if err != nil {
		return nil, err
	}
	units := st.units()
	rows := make([]Row, 0, len(units))
	for _, id := range units {
		row, ok := st.rows[id]
		if !ok {
			if c := st.dir.FinishedCase(id); c != nil {
				row = RowOf(c)
				row.ID = id
			} else {
				row = Row{ID: id}
			}
		}
		rows = append(rows, row)
	}
	st.obs.RunFinished(Summary{Run: r, Dir: st.dir.Path, Rows: rows})
	return r, errors.Join(st.writeErr...)
}

// makeWorkspaces makes, before any agent starts, the run's own slot and
// the workspace of every case to run (or the batch's), each in a slot of
// its own in the user's private root, which is the agent's home too: a
// runner can then show each agent its own slot only, and nothing it denies
// is made while another case runs (Claude Code's sandbox leaves a file
// where a denied path did not exist, which a later mkdir tripped over). It
// returns the folder holding a .git above the root, if any.
func (st *state) makeWorkspaces(ids []string) (gitRoot string, err error) {
	if st.wsRoot, gitRoot, err = workspace.PrivateRoot(); err != nil {
		return "", err
	}
	slot := func() (string, error) {
		d, err := workspace.NewSlot(st.wsRoot)
		if err == nil {
			st.slots = append(st.slots, d)
		}
		return d, err
	}
	if st.private, err = slot(); err != nil {
		return "", err
	}
	st.baselines = filepath.Join(st.private, "baselines")
	if err := os.Mkdir(st.baselines, 0o700); err != nil {
		return "", fmt.Errorf("make the baselines folder: %w", err)
	}
	if st.p.Mode == ModeBatch {
		ids = []string{BatchID}
	}
	st.ws = make(map[string]string, len(ids))
	for _, id := range ids {
		d, err := slot()
		if err != nil {
			return "", err
		}
		ws := filepath.Join(d, id)
		if err := os.Mkdir(ws, 0o755); err != nil {
			return "", fmt.Errorf("make the workspace of %s: %w", id, err)
		}
		st.ws[id] = ws
	}
	return gitRoot, nil
}

// workspaceList is every workspace of the run, in the plan's order.
func (st *state) workspaceList() []string {
	out := make([]string, 0, len(st.ws))
	if ws, ok := st.ws[BatchID]; ok {
		return append(out, ws)
	}
	for _, id := range st.units() {
		if ws, ok := st.ws[id]; ok {
			out = append(out, ws)
		}
	}
	return out
}

func caseLabel(name string) string {
	if name == BatchID {
		return "the batch"
	}
	return "case " + name
}

func rel(base, p string) string {
	if r, err := filepath.Rel(base, p); err == nil {
		return filepath.Join(filepath.Base(base), r)
	}
	return p
}

// safeRunCase runs a case; a panic in it is the case's error, not the
// run's end.
func (st *state) safeRunCase(ctx context.Context, id string) (c *results.Case) {
	defer func() {
		if v := recover(); v != nil {
			c = newCase(id)
			c.ExitCode, c.Status, c.Error = -1, results.StatusError, fmt.Sprintf("the harness crashed running the case: %v\n%s", v, debug.Stack())
		}
	}()
	return st.runCase(ctx, id)
}

// finish writes a finished case's result and tells the observer. The run
// keeps only its table row: the aggregate is built from the files at the
// end, so a case costs O(1) here whatever the run's size.
func (st *state) finish(c *results.Case) {
	RedactCase(c, st.runRedactor())
	st.markSecrets(st.dir.Case(c.CaseID))
	st.countViolations(c, st.dir.CaseFolder(c.CaseID))
	c.ToolCalls = nil // the run's bookkeeping only; transcript.jsonl has them
	// The run keys an attempt by its AttemptKey; its result names the
	// case and the attempt.
	w := *c
	if id, n := rundir.SplitAttempt(c.CaseID); st.p.Repeats > 1 {
		w.CaseID, w.Attempt = id, n
	}
	err := results.WriteJSON(st.dir.CaseResult(c.CaseID), &w)
	st.mu.Lock()
	if err != nil {
		st.writeErr = append(st.writeErr, fmt.Errorf("write the result of case %s: %w", c.CaseID, err))
	} else {
		st.ran[c.CaseID] = true
	}
	st.rows[c.CaseID] = RowOf(c)
	st.mu.Unlock()
	if err != nil {
		st.obs.Warn(fmt.Sprintf("%s: its result could not be written: %v", c.CaseID, err))
	} else {
		st.sealCase(c.CaseID)
	}
	st.obs.CaseFinished(c)
}

// countViolations records in c what its agent tried that its world
// refused, read from its folder f as written (the ledger's and the
// transcript's redacted copies).
func (st *state) countViolations(c *results.Case, f rundir.CaseFolder) {
	v, err := f.Violations(c, st.dir.DeniedPaths())
	if err != nil {
		st.obs.Warn(fmt.Sprintf("%s: count its violations: %v", c.CaseID, err))
		return
	}
	c.Violations = v
}

// aggregate builds the run's run_result.json from the cases' own files
// (this attempt's and, on resume, the earlier attempts' finished ones) and
// writes it.
func (st *state) aggregate(wall time.Duration, interrupted bool) (*results.RunResult, error) {
	r := st.newRun()
	for _, id := range st.units() {
		st.mu.Lock()
		ran := st.ran[id]
		st.mu.Unlock()
		var c *results.Case
		if ran {
			if err := st.checkSealed(id); err != nil {
				return nil, err
			}
			var err error
			if c, err = st.dir.ReadCase(id); err != nil {
				return nil, fmt.Errorf("build the run's result: %w", err)
			}
		} else if st.p.Resume {
			if err := st.checkSealed(id); err != nil {
				return nil, err
			}
			c = st.dir.FinishedCase(id)
		}
		switch _, n := rundir.SplitAttempt(id); {
		case c == nil:
		case n > 1:
			r.AddAttempt(c)
			// A local run's failed attempt fails the run, as a case does.
			if r.ExitCode == 0 && c.ExitCode != 0 {
				r.ExitCode = c.ExitCode
			}
		default:
			r.Add(c)
		}
	}
	r.WallClockS = wall.Seconds()
	r.Interrupted = interrupted
	if err := results.WriteJSON(st.dir.RunResult(), r); err != nil {
		return nil, fmt.Errorf("write the run's result: %w", err)
	}
	return r, nil
}

// errored reports whether a finished case was lost to an error that
// --retry errored runs again: the infrastructure's, or the harness's.
func errored(c *results.Case) bool {
	return c.Status == results.StatusInfraError || c.Status == results.StatusError && !c.Ungated && len(c.Tampered) == 0 && c.OverLimit == nil
}

// anyErrored reports whether one of keys finished errored.
func (st *state) anyErrored(keys []string) bool {
	for _, k := range keys {
		if c := st.dir.FinishedCase(k); c != nil && errored(c) {
			return true
		}
	}
	return false
}

// units are the run's work, in order: its cases, or with repeats every
// attempt of them (rundir.AttemptKeys), keyed as the engine keys them.
func (st *state) units() []string {
	return rundir.AttemptKeys(st.p.Cases, st.p.Repeats)
}

// repeatsField is run_result.json's repeats: absent for a run without.
func repeatsField(n int) int {
	if n <= 1 {
		return 0
	}
	return n
}

// newRun is the run's aggregate without cases.
func (st *state) newRun() *results.RunResult {
	agent, v := st.agent.Agent()
	bin := ""
	if b, ok := st.agent.(interface{ Bin() string }); ok {
		bin = b.Bin()
	}
	vi := version.Get()
	return &results.RunResult{SchemaVersion: results.SchemaVersion, LayoutVersion: rundir.LayoutVersion, RunID: st.runID, EvalName: st.ev.EvalName(), Model: st.p.Model,
		Agent: agent, AgentVersion: v, AgentBin: bin, HarnessVer: vi.Version, HarnessRevision: vi.Revision,
		StartedAt: st.started.UTC().Format(time.RFC3339), EndedAt: time.Now().UTC().Format(time.RFC3339),
		Models: &results.Models{Agent: st.p.Model, Hook: st.ev.HookModel(), Judge: st.ev.Models.Judge},
		Config: st.rec.config, Project: st.rec.project, CommandLine: st.rec.argv,
		ExecutionMode: string(st.p.Mode), Repeats: repeatsField(st.p.Repeats), PerCase: map[string]*results.Case{}, PerModelUsage: map[string]transcript.ModelUsage{},
		EvalParams:  map[string]any{"timeout_s": st.p.Timeout.Seconds(), "max_budget_usd": st.p.MaxBudgetUSD, "parallelism": st.p.Parallel, "fake_model": st.p.FakeModel},
		Containment: string(st.contain.Mode), ContainmentDetail: st.contain.Detail, Boundary: st.boundaryRecord()}
}

// recordAgent notes an agent's process group, so that a resumed run can
// kill what a dead attempt left behind.
func (st *state) recordAgent(pgid int, name string) {
	if err := guard.Record(filepath.Join(st.dir.Path, rundir.AgentProcsFile), pgid, name); err != nil {
		st.obs.Warn(fmt.Sprintf("%s: record the agent's process: %v", name, err))
	}
}

// sweepLeftovers kills the agents an earlier attempt of the run left
// behind (recorded by recordAgent), unless their agent-eval still runs.
func (st *state) sweepLeftovers() {
	killed, err := guard.Sweep(filepath.Join(st.dir.Path, rundir.AgentProcsFile))
	for _, k := range killed {
		if k.Live != 0 {
			st.obs.Warn(fmt.Sprintf("case %s of this run is still running under agent-eval process %d (process group %d): left alone", k.Label, k.Live, k.PID))
			continue
		}
		st.obs.Note(fmt.Sprintf("resume: killed a leftover agent of the earlier attempt (case %s, process group %d, %s)", k.Label, k.PID, Plural(k.Procs, "process")))
	}
	if err != nil {
		st.obs.Warn(fmt.Sprintf("sweep the earlier attempt's agents: %v", err))
	}
}

// hookEnviron is a lifecycle hook's environment: the caller's, the run's
// AGENT_EVAL_* variables, before_all's outputs and the case's variables.
func (st *state) hookEnviron(caseVars map[string]string) []string {
	abs, _ := filepath.Abs(st.p.ConfigPath)
	runDir, _ := filepath.Abs(st.dir.Path)
	vars := map[string]string{"AGENT_EVAL_WORKSPACE": st.private, "AGENT_EVAL_RUN_ID": st.runID, "AGENT_EVAL_CONFIG": abs,
		"AGENT_EVAL_PROJECT_ROOT": st.p.ProjectRoot, "AGENT_EVAL_MODEL": st.p.Model, "AGENT_EVAL_RUN_DIR": runDir}
	for k, v := range st.hookEnv {
		vars[k] = v
	}
	for k, v := range caseVars {
		vars[k] = v
	}
	return lifecycle.Environ(st.p.Environ, vars)
}

// writeHookOutputs writes a lifecycle phase's data, redacted: a hook that
// creates a test account returns its credentials, which the run directory
// must not keep in clear.
func (st *state) writeHookOutputs(path string, data any) error {
	b, err := yaml.Marshal(data)
	if err != nil {
		return fmt.Errorf("encode %s: %w", filepath.Base(path), err)
	}
	if err := os.WriteFile(path, []byte(st.runRedactor().String(string(b))), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", filepath.Base(path), err)
	}
	return nil
}

func writeYAML(path string, v any) error {
	b, err := yaml.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode %s: %w", filepath.Base(path), err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", filepath.Base(path), err)
	}
	return nil
}

// indent prefixes every line of s with two spaces and ends it with a newline.
func indent(s string) string {
	s = strings.TrimRight(s, "\n")
	return "  " + strings.ReplaceAll(s, "\n", "\n  ") + "\n"
}

// Plural is "1 case", "2 cases", "3 processes".
func Plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	if strings.HasSuffix(noun, "s") {
		return fmt.Sprintf("%d %ses", n, noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func newCase(id string) *results.Case {
	return &results.Case{CaseID: id, PermissionDenials: []transcript.Denial{}, PerModelUsage: map[string]transcript.ModelUsage{}}
}

// boundaryRecord is what run_result.json says of the agents' boundary.
func (st *state) boundaryRecord() *results.Boundary {
	if !st.boundary.On {
		return &results.Boundary{Why: st.boundary.Why}
	}
	b := &results.Boundary{On: true, Files: "the workspace and the agent's own HOME and TMPDIR read-write; the system folders (" +
		strings.Join(boundary.SystemRO, " ") + "), the agent CLI's install and agent-eval read-only; the eval's read-denied paths shown empty and its write-denied ones read-only; a fresh /tmp; nothing else",
		Network:   "the model endpoint and the loopback addresses the agent is pointed at; permissions.network's hosts through the harness's proxy; nothing else",
		Processes: "a pid namespace of its own: no other process is visible", Limits: fmt.Sprintf("/tmp %d MiB; no file over %d GiB; its own folders within %d MiB and %d files and folders while it runs (execution.limits.disk_bytes, disk_files)", boundary.TmpBytes>>20, boundary.FileBytes>>30, st.ev.DiskBytes()>>20, st.ev.DiskFiles())}
	return b
}
