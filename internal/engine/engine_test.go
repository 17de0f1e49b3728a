package engine_test

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agent-eval/agent-eval/internal/agentproc"
	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/engine"
	"github.com/agent-eval/agent-eval/internal/results"
	"github.com/agent-eval/agent-eval/internal/rundir"
	"github.com/agent-eval/agent-eval/internal/runner"
	"github.com/agent-eval/agent-eval/internal/runner/fake"
	"github.com/agent-eval/agent-eval/internal/transcript"
)

// project writes an eval project (eval.yaml and cases/<id>/input.yaml for
// each id) into a temporary folder and returns it.
func project(t testing.TB, evalYAML string, ids ...string) string {
	t.Helper()
	return projectIn(t, t.TempDir(), evalYAML, ids...)
}

// projectIn writes the eval of project into dir.
func projectIn(t testing.TB, dir, evalYAML string, ids ...string) string {
	t.Helper()
	files := map[string]string{"eval.yaml": evalYAML}
	for _, id := range ids {
		files["cases/"+id+"/input.yaml"] = "name: " + id + "\n"
	}
	for p, body := range files {
		p = filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// recorder is an Observer that keeps what it heard.
type recorder struct {
	mu       sync.Mutex
	started  []string
	finished []*results.Case
	warnings []string
	notes    []string
	summary  *engine.Summary
	info     *engine.RunInfo
	onStart  func(name string)
}

func (r *recorder) RunStarted(i engine.RunInfo) { r.mu.Lock(); r.info = &i; r.mu.Unlock() }
func (r *recorder) AgentStarted(name string) {
	r.mu.Lock()
	r.started = append(r.started, name)
	f := r.onStart
	r.mu.Unlock()
	if f != nil {
		f(name)
	}
}
func (r *recorder) CaseFinished(c *results.Case) {
	r.mu.Lock()
	cp := *c
	r.finished = append(r.finished, &cp)
	r.mu.Unlock()
}
func (r *recorder) Warn(msg string)              { r.mu.Lock(); r.warnings = append(r.warnings, msg); r.mu.Unlock() }
func (r *recorder) Note(msg string)              { r.mu.Lock(); r.notes = append(r.notes, msg); r.mu.Unlock() }
func (r *recorder) RunFinished(s engine.Summary) { r.mu.Lock(); r.summary = &s; r.mu.Unlock() }

// run plans and runs the eval in dir with the fake runner.
type run struct {
	dir     string
	cwd     string // the working directory (the project in repo mode); dir when ""
	args    []string
	environ []string // Environment.Environ (nil: the process's)
	flags   engine.Flags
	fake    *fake.Runner
	obs     *recorder
}

func newRun(t testing.TB, dir string, scripts map[string]fake.Script) *run {
	t.Helper()
	return &run{dir: dir, flags: engine.Flags{RunID: "r1", MaxBudgetUSD: -1, Model: "m"}, fake: fake.New(scripts), obs: &recorder{}}
}

func (r *run) plan(t testing.TB) engine.Plan {
	t.Helper()
	ev, err := config.Load(filepath.Join(r.dir, "eval.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := engine.NewPlan(ev, filepath.Join(r.dir, "eval.yaml"), r.flags, engine.Environment{Dir: cmp.Or(r.cwd, r.dir), Now: time.Now(), Args: r.args, Environ: r.environ,
		Getenv: func(k string) string {
			if k == "AGENT_EVAL_RUNS_DIR" {
				return filepath.Join(r.dir, "runs")
			}
			return ""
		}})
	if err != nil {
		t.Fatal(err)
	}
	p.Runner = runner.TypeFake
	return p
}

func (r *run) exec(ctx context.Context, t testing.TB) (*results.RunResult, error) {
	t.Helper()
	reg := runner.NewRegistry()
	reg.Register(runner.TypeFake, r.fake.Factory())
	res, err := engine.Run(ctx, r.plan(t), reg, r.obs)
	if n := r.fake.OpenSessions(); n != 0 {
		t.Errorf("%d sessions left open", n)
	}
	return res, err
}

func (r *run) runDir() rundir.Dir {
	return rundir.Dir{Path: filepath.Join(r.dir, "runs", "demo", "r1")}
}

const caseEval = `name: demo
execution: {prompt: "Hello {name}."}
models: {skill: m}
dataset: {path: cases}
outputs: [{path: out}]
`

func TestCaseMode(t *testing.T) {
	t.Parallel()
	dir := project(t, caseEval, "a", "b", "c")
	r := newRun(t, dir, map[string]fake.Script{
		"a": {Text: "did a", CostUSD: 0.5, Turns: 2, Files: map[string]string{"out/x.txt": "from a", "notes.md": "scratch"},
			ToolCalls: []transcript.ToolCall{{ID: "t1", Name: "Bash", Input: []byte(`{"command":"ls"}`), Result: "x", Returned: true}}},
		"b": {ExitCode: 2, Text: "broke"},
		"c": {Denials: []transcript.Denial{{ToolName: "Bash", ToolUseID: "t9", ToolInput: []byte(`{"command":"rm -rf /"}`)}}},
	})
	res, err := r.exec(context.Background(), t)
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != 2 || res.NumCases != 3 || res.Interrupted || res.CostUSD != 0.5 {
		t.Errorf("run: exit %d, %d cases, interrupted %v, $%v", res.ExitCode, res.NumCases, res.Interrupted, res.CostUSD)
	}
	d := r.runDir()
	want := map[string]results.Status{"a": results.StatusCompleted, "b": results.StatusFailed, "c": results.StatusCompleted}
	for id, status := range want {
		c, err := d.ReadCase(id)
		if err != nil {
			t.Fatal(err)
		}
		if c.Status != status || res.PerCase[id].Status != status {
			t.Errorf("%s: status %s (aggregate %s), want %s", id, c.Status, res.PerCase[id].Status, status)
		}
	}
	if b, err := os.ReadFile(filepath.Join(d.Outputs("a"), "out", "x.txt")); err != nil || string(b) != "from a" {
		t.Errorf("a's output: %q, %v", b, err)
	}
	if c, _ := d.ReadCase("a"); !slices.Equal(c.ModifiedFiles, []string{"notes.md"}) {
		t.Errorf("a's modified files %v, want [notes.md] (outputs and input left out)", c.ModifiedFiles)
	}
	if c, _ := d.ReadCase("c"); len(c.PermissionDenials) != 1 {
		t.Errorf("c's denials %v", c.PermissionDenials)
	}
	// Each case counted its violations as it finished; the run sums them.
	if c, _ := d.ReadCase("c"); c.Violations == nil || c.Violations.Total != 1 || c.Violations.ByKind[results.ViolationDeniedCall] != 1 || c.Violations.List[0].Target != "rm -rf /" {
		t.Errorf("c's violations %+v", c.Violations)
	}
	if c, _ := d.ReadCase("a"); c.Violations == nil || c.Violations.Total != 0 {
		t.Errorf("a's violations %+v, want a count of none", c.Violations)
	}
	if v := res.Violations; v == nil || v.Total != 1 || v.Cases != 1 {
		t.Errorf("the run's violations %+v", v)
	}
	events, err := d.ReadTranscript("a")
	if err != nil {
		t.Fatal(err)
	}
	var kinds []transcript.Kind
	for _, e := range events {
		kinds = append(kinds, e.Kind)
	}
	if want := []transcript.Kind{transcript.KindPrompt, transcript.KindToolCall, transcript.KindToolResult, transcript.KindResult}; !slices.Equal(kinds, want) {
		t.Errorf("a's transcript kinds %v, want %v", kinds, want)
	}
	if events[0].Text != "Hello a." {
		t.Errorf("prompt event %q", events[0].Text)
	}
	if s := r.obs.summary; s == nil || len(s.Rows) != 3 || s.Rows[1].ID != "b" || s.Rows[1].ExitCode != 2 {
		t.Errorf("summary rows %+v", r.obs.summary)
	}
	if len(r.obs.finished) != 3 || r.obs.info == nil || r.obs.info.ToRun != 3 {
		t.Errorf("observer: %d finished, info %+v", len(r.obs.finished), r.obs.info)
	}
}

func TestBatchMode(t *testing.T) {
	t.Parallel()
	dir := project(t, `name: demo
execution: {mode: batch, prompt: "Do them all."}
models: {skill: m}
dataset: {path: cases}
`, "a", "b")
	r := newRun(t, dir, map[string]fake.Script{"batch": {Text: "done", CostUSD: 1}})
	res, err := r.exec(context.Background(), t)
	if err != nil {
		t.Fatal(err)
	}
	if res.Batch == nil || res.Batch.Status != results.StatusCompleted || res.NumCases != 2 || res.PerCase != nil || res.CostUSD != 1 {
		t.Fatalf("batch run %+v", res)
	}
	calls := r.fake.Calls()
	if len(calls) != 1 || calls[0].Name != engine.BatchID || calls[0].Prompt != "Do them all." {
		t.Errorf("calls %v", calls)
	}
	b, err := os.ReadFile(filepath.Join(r.runDir().Path, rundir.BatchFile))
	if err != nil || !strings.Contains(string(b), "name: a") || !strings.Contains(string(b), "name: b") {
		t.Errorf("batch.yaml %q, %v", b, err)
	}
	if rr, err := r.runDir().ReadRun(); err != nil || rr.Batch == nil {
		t.Errorf("run_result.json: %v", err)
	}
}

const stepsEval = `name: demo
execution:
  steps:
    - {id: one, prompt: "Plan for {name}.", on_failure: continue}
    - {id: two, prompt: "Build: {{ steps.one.output }} ({{ steps.one.exit_code }})."}
    - {id: three, prompt: "Report."}
models: {skill: m}
dataset: {path: cases}
`

func TestSteps(t *testing.T) {
	t.Parallel()
	dir := project(t, stepsEval, "ok", "bad")
	r := newRun(t, dir, map[string]fake.Script{
		"ok/one":  {Text: "alpha", CostUSD: 0.25},
		"ok":      {Text: "fine", CostUSD: 0.25},
		"bad/one": {ExitCode: 1, Text: "no plan"},
		"bad/two": {ExitCode: 3, Text: "no build"},
		"bad":     {Text: "never"},
	})
	res, err := r.exec(context.Background(), t)
	if err != nil {
		t.Fatal(err)
	}
	ok, bad := res.PerCase["ok"], res.PerCase["bad"]
	if ok.Status != results.StatusCompleted || len(ok.Steps) != 3 || ok.CostUSD != 0.75 || ok.Result != "fine" {
		t.Errorf("ok: %s, %d steps, $%v, result %q", ok.Status, len(ok.Steps), ok.CostUSD, ok.Result)
	}
	// one failed but continues; two failed and stops the pipeline.
	if bad.ExitCode != 1 || len(bad.Steps) != 2 || bad.AbortedAtStep != "two" || !strings.HasPrefix(bad.Error, "step one:") {
		t.Errorf("bad: exit %d, %d steps, aborted at %q, error %q", bad.ExitCode, len(bad.Steps), bad.AbortedAtStep, bad.Error)
	}
	var prompts []string
	for _, c := range r.fake.Calls() {
		if strings.HasPrefix(c.Name, "ok/") {
			prompts = append(prompts, c.Prompt)
		}
	}
	if want := []string{"Plan for ok.", "Build: alpha (0).", "Report."}; !slices.Equal(prompts, want) {
		t.Errorf("ok's step prompts %q, want %q", prompts, want)
	}
	for _, step := range []string{"one", "two", "three"} {
		if _, err := os.Stat(filepath.Join(r.runDir().Step("ok", step), rundir.StdoutFile)); err != nil {
			t.Errorf("step %s has no log: %v", step, err)
		}
	}
	events, _ := r.runDir().ReadTranscript("ok")
	steps := map[string]bool{}
	for _, e := range events {
		steps[e.Step] = true
	}
	if !steps["one"] || !steps["two"] || !steps["three"] {
		t.Errorf("the transcript's events name steps %v", steps)
	}
}

func TestRepoModeRunsOneAtATime(t *testing.T) {
	t.Parallel()
	dir := project(t, caseEval+"runner: {workspace_mode: repo}\n", "a", "b", "c")
	r := newRun(t, dir, map[string]fake.Script{"": {Delay: 20 * time.Millisecond}})
	r.flags.Parallel = 3
	p := r.plan(t)
	if p.Parallel != 1 || p.Repo != dir || len(p.Warnings) != 1 {
		t.Errorf("plan: parallel %d, repo %q, warnings %q", p.Parallel, p.Repo, p.Warnings)
	}
	res, err := r.exec(context.Background(), t)
	if err != nil {
		t.Fatal(err)
	}
	if res.NumCases != 3 || r.fake.MaxConcurrent() != 1 {
		t.Errorf("%d cases, %d at once", res.NumCases, r.fake.MaxConcurrent())
	}
}

func TestParallelismIsABound(t *testing.T) {
	t.Parallel()
	dir := project(t, caseEval, "a", "b", "c", "d")
	// Long enough that two cases overlap even when setting a workspace up
	// is slow (-race on a busy machine).
	r := newRun(t, dir, map[string]fake.Script{"": {Delay: 400 * time.Millisecond}})
	r.flags.Parallel = 2
	if _, err := r.exec(context.Background(), t); err != nil {
		t.Fatal(err)
	}
	if n := r.fake.MaxConcurrent(); n != 2 {
		t.Errorf("%d cases ran at once, want 2", n)
	}
}

func TestInterruptKeepsFinishedCasesAndResumeRunsTheRest(t *testing.T) {
	t.Parallel()
	dir := project(t, caseEval, "a", "b", "c")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r := newRun(t, dir, map[string]fake.Script{"a": {}, "b": {Hang: true}, "c": {}})
	r.flags.Parallel = 1
	r.obs.onStart = func(name string) {
		if name == "b" {
			go func() { time.Sleep(20 * time.Millisecond); cancel() }()
		}
	}
	res, err := r.exec(ctx, t)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Interrupted || res.PerCase["a"].Status != results.StatusCompleted || res.PerCase["b"].Status != results.StatusInterrupted {
		t.Fatalf("interrupted run: %+v", res)
	}
	if _, ok := res.PerCase["c"]; ok {
		t.Errorf("c ran after the interrupt")
	}
	d := r.runDir()
	if c, err := d.ReadCase("b"); err != nil || !c.Interrupted {
		t.Errorf("the interrupted case's result: %+v, %v", c, err)
	}
	if agg, err := d.ReadRun(); err != nil || !agg.Interrupted || agg.NumCases != 2 {
		t.Errorf("aggregate after the interrupt: %+v, %v", agg, err)
	}
	if s := r.obs.summary; s == nil || s.Rows[2].Ran {
		t.Errorf("summary should list c as not run: %+v", s)
	}

	// Resume: a is kept, b and c run.
	r2 := newRun(t, dir, map[string]fake.Script{"": {Text: "now quick"}})
	r2.flags.Resume = true
	r2.flags.RunID = ""
	res, err = r2.exec(context.Background(), t)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range r2.fake.Calls() {
		names = append(names, c.Name)
	}
	if slices.Sort(names); !slices.Equal(names, []string{"b", "c"}) {
		t.Errorf("resume ran %q, want b and c", names)
	}
	if res.Interrupted || res.NumCases != 3 || res.RunID != "r1" || res.PerCase["b"].Status != results.StatusCompleted {
		t.Errorf("resumed run: %+v", res)
	}
	if len(r2.obs.notes) == 0 || !strings.Contains(r2.obs.notes[0], "resuming r1: 1 of 3 cases already finished") {
		t.Errorf("notes %q", r2.obs.notes)
	}
	if !d.Finished([]string{"a", "b", "c"}) {
		t.Errorf("the resumed run is not finished")
	}
}

// TestTimeout: a case that hangs past --timeout is ended and recorded as
// timed out. The test has a deadline of its own: a run that ignores
// --timeout is interrupted after 10 s and fails here, instead of hanging
// until go test's -timeout.
func TestTimeout(t *testing.T) {
	t.Parallel()
	dir := project(t, caseEval, "slow", "quick")
	r := newRun(t, dir, map[string]fake.Script{"slow": {Hang: true}, "quick": {}})
	r.flags.Timeout = 50 * time.Millisecond
	const deadline = 10 * time.Second
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	res, err := r.exec(ctx, t)
	if ctx.Err() != nil {
		t.Fatalf("the run was still going after %s: --timeout %s did not end the hanging case", deadline, r.flags.Timeout)
	}
	if err != nil {
		t.Fatal(err)
	}
	slow := res.PerCase["slow"]
	if slow.Status != results.StatusTimeout || slow.ExitCode != -1 || !slow.TimedOut || slow.Error != "timed out after 50ms" {
		t.Errorf("slow: %s, exit %d, %q", slow.Status, slow.ExitCode, slow.Error)
	}
	if res.PerCase["quick"].Status != results.StatusCompleted || res.ExitCode != -1 {
		t.Errorf("quick %s, run exit %d", res.PerCase["quick"].Status, res.ExitCode)
	}
}

// TestTheRunReadsItsPlansEnvironment: the lifecycle hooks start from
// Environment.Environ and eval.yaml's $VAR references resolve against it,
// not against the process's own variables.
func TestTheRunReadsItsPlansEnvironment(t *testing.T) {
	t.Setenv("AE_TEST_MARK", "from-the-process")
	dir := project(t, caseEval+`hooks:
  before_all:
    - command: echo "$AE_TEST_MARK" > "$AGENT_EVAL_PROJECT_ROOT/mark.txt"
`, "a")
	r := newRun(t, dir, nil)
	r.environ = []string{"PATH=" + os.Getenv("PATH"), "AE_TEST_MARK=from-the-plan"}
	if _, err := r.exec(context.Background(), t); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "mark.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(string(b)); got != "from-the-plan" {
		t.Errorf("before_all saw AE_TEST_MARK=%q, want the plan's from-the-plan", got)
	}
}

func TestLifecycleHooksRunInOrderWithTheirEnvironment(t *testing.T) {
	t.Parallel()
	dir := project(t, caseEval+`hooks:
  before_all:
    - command: |
        echo "before_all $AGENT_EVAL_RUN_ID" >> "$AGENT_EVAL_PROJECT_ROOT/order.log"
        printf 'env:\n  MARKER: from-before-all\n' > .hook-outputs.yaml
  before_each:
    - command: echo "before_each $CASE_ID $MARKER" >> "$AGENT_EVAL_PROJECT_ROOT/order.log"
    - command: test "$CASE_ID" != bad
  after_each:
    - command: echo "after_each $CASE_ID" >> "$AGENT_EVAL_PROJECT_ROOT/order.log"
  after_all:
    - command: echo "after_all" >> order.log
`, "bad", "good")
	r := newRun(t, dir, map[string]fake.Script{"": {Files: map[string]string{"out/seen.txt": "$ENV{MARKER}"}}})
	r.flags.Parallel = 1
	res, err := r.exec(context.Background(), t)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "order.log"))
	if err != nil {
		t.Fatal(err)
	}
	want := "before_all r1\nbefore_each bad from-before-all\nafter_each bad\nbefore_each good from-before-all\nafter_each good\nafter_all\n"
	if string(b) != want {
		t.Errorf("hooks ran:\n%s\nwant:\n%s", b, want)
	}
	if bad := res.PerCase["bad"]; bad.Status != results.StatusError || !strings.Contains(bad.Error, "before_each") {
		t.Errorf("bad: %s %q", bad.Status, bad.Error)
	}
	if seen, err := os.ReadFile(filepath.Join(r.runDir().Outputs("good"), "out", "seen.txt")); err != nil || string(seen) != "from-before-all" {
		t.Errorf("the agent saw MARKER=%q (%v)", seen, err)
	}
}

func TestACrashingCaseStillGetsItsResult(t *testing.T) {
	t.Parallel()
	dir := project(t, caseEval, "boom", "fine")
	r := newRun(t, dir, map[string]fake.Script{"boom": {Panic: true}, "fine": {}})
	res, err := r.exec(context.Background(), t)
	if err != nil {
		t.Fatal(err)
	}
	c, err := r.runDir().ReadCase("boom")
	if err != nil || c.Status != results.StatusError || !strings.Contains(c.Error, "scripted panic") {
		t.Errorf("boom: %+v, %v", c, err)
	}
	if res.PerCase["fine"].Status != results.StatusCompleted {
		t.Errorf("fine: %s", res.PerCase["fine"].Status)
	}
}

func TestAFailingStartLeavesNothing(t *testing.T) {
	t.Parallel()
	dir := project(t, caseEval, "a")
	r := newRun(t, dir, nil)
	r.fake.FailStart(&runner.ConfigError{Err: errors.New("no agent here")})
	_, err := r.exec(context.Background(), t)
	var cfg *runner.ConfigError
	if !errors.As(err, &cfg) {
		t.Fatalf("err %v, want the runner's ConfigError", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "runs")); !os.IsNotExist(err) { // the folders it made, too
		t.Errorf("the failed run left its folder: %v", err)
	}
}

func TestUnknownRunnerIsAUsageError(t *testing.T) {
	t.Parallel()
	dir := project(t, caseEval, "a")
	r := newRun(t, dir, nil)
	p := r.plan(t)
	p.Runner = "codex"
	_, err := engine.Run(context.Background(), p, runner.NewRegistry(), nil)
	var usage *engine.UsageError
	if !errors.As(err, &usage) {
		t.Errorf("err %v, want a UsageError", err)
	}
}

func TestPlan(t *testing.T) {
	t.Parallel()
	eval := strings.Replace(caseEval, `execution: {prompt: "Hello {name}."}`, "execution: {prompt: hi, timeout: 30, parallelism: 3, max_budget_usd: 2}", 1)
	dir := project(t, eval, "a", "b")
	ev, err := config.Load(filepath.Join(dir, "eval.yaml"))
	if err != nil {
		t.Fatalf("the fixture does not load: %v", err)
	}
	env := engine.Environment{Dir: dir, Now: time.Date(2026, 12, 1, 2, 3, 4, 0, time.UTC), Getenv: func(string) string { return "" }}
	for _, tc := range []struct {
		name  string
		flags engine.Flags
		check func(engine.Plan) bool
		err   string
	}{
		{"defaults", engine.Flags{MaxBudgetUSD: -1}, func(p engine.Plan) bool {
			return p.Model == "m" && p.Parallel == 3 && p.Timeout == 30*time.Second && p.MaxBudgetUSD == 2 &&
				slices.Equal(p.Cases, []string{"a", "b"}) && p.RunID == "20261201-020304.000-m" && p.Mode == engine.ModeCase
		}, ""},
		{"flags win", engine.Flags{Model: "x", Parallel: 1, Timeout: time.Second, MaxBudgetUSD: 0, Cases: []string{"b"}, RunID: "mine"}, func(p engine.Plan) bool {
			return p.Model == "x" && p.Parallel == 1 && p.Timeout == time.Second && p.MaxBudgetUSD == 0 && slices.Equal(p.Cases, []string{"b"}) && p.RunID == "mine" && p.ExplicitID
		}, ""},
		{"unknown case", engine.Flags{Cases: []string{"zz"}}, nil, `--cases: no case "zz"`},
		{"unsafe run id", engine.Flags{RunID: "../x"}, nil, "not a safe folder name"},
		{"resume without id", engine.Flags{Resume: true, MaxBudgetUSD: -1}, func(p engine.Plan) bool { return p.RunID == "" && p.Resume }, ""},
	} {
		p, err := engine.NewPlan(ev, "eval.yaml", tc.flags, env)
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s: err %v, want %q", tc.name, err, tc.err)
		case tc.err == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.check != nil && err == nil && !tc.check(p):
			t.Errorf("%s: plan %+v", tc.name, p)
		}
	}
}

// A cli runner whose command names no model needs none; one that does, or
// claude-code, does.
func TestPlanModel(t *testing.T) {
	t.Parallel()
	env := engine.Environment{Now: time.Date(2026, 12, 1, 2, 3, 4, 0, time.UTC), Getenv: func(string) string { return "" }}
	for _, tc := range []struct{ name, yaml, err, id string }{
		{"cli without {model}", "runner: {type: cli, command: [sh, -c, 'true', '{args}']}\n", "", "20261201-020304.000-cli"},
		{"cli with {model}", "runner: {type: cli, command: [my-agent, --model, '{model}']}\n", "no model", ""},
		{"claude-code", "runner: {type: claude-code}\n", "no model", ""},
	} {
		dir := project(t, "name: demo\nexecution: {prompt: hi}\ndataset: {path: cases}\n"+tc.yaml, "a")
		ev, err := config.Load(filepath.Join(dir, "eval.yaml"))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		env.Dir = dir
		p, err := engine.NewPlan(ev, "eval.yaml", engine.Flags{MaxBudgetUSD: -1}, env)
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s: err %v, want %q", tc.name, err, tc.err)
		case tc.err == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.err == "" && (p.Model != "" || p.RunID != tc.id):
			t.Errorf("%s: model %q, run id %q; want none, %q", tc.name, p.Model, p.RunID, tc.id)
		}
	}
}

// BenchmarkRun runs b.N cases with the fake runner at --parallel 8: the
// engine's own cost per case (workspace, baseline, result), which must not
// grow with the run's size.
func BenchmarkRun(b *testing.B) {
	ids := make([]string, b.N)
	for i := range ids {
		ids[i] = fmt.Sprintf("c%05d", i)
	}
	dir := project(b, caseEval, ids...)
	r := newRun(b, dir, map[string]fake.Script{"": {Text: "ok", Files: map[string]string{"out/o.txt": "x"}}})
	r.flags.Parallel = 8
	b.ResetTimer()
	res, err := r.exec(context.Background(), b)
	if err != nil || res.NumCases != b.N {
		b.Fatalf("%v, %+v", err, res)
	}
}

// TestAResultThatCannotBeWrittenIsTheRunsError: the case still counts in
// the table, the others are written, and Run says which one failed.
func TestAResultThatCannotBeWrittenIsTheRunsError(t *testing.T) {
	t.Parallel()
	dir := project(t, caseEval, "a", "b")
	var r *run
	// Case a's agent makes a folder where its result would go (one there
	// before the case is emptied with the case's folder).
	r = newRun(t, dir, map[string]fake.Script{"": {}, "a": {Do: func(string) error {
		return os.MkdirAll(filepath.Join(r.runDir().CaseResult("a"), "x"), 0o755)
	}}})
	if err := os.MkdirAll(r.runDir().Path, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := r.runDir().WriteSelection([]string{"a", "b"}, 1); err != nil {
		t.Fatal(err)
	}
	r.flags.Resume = true
	res, err := r.exec(context.Background(), t)
	if err == nil || !strings.Contains(err.Error(), "write the result of case a") {
		t.Fatalf("err %v, want case a's write named", err)
	}
	if res == nil || res.PerCase["b"] == nil || len(r.obs.finished) != 2 {
		t.Errorf("the run's result %+v, %d finished", res, len(r.obs.finished))
	}
}

// TestARunnerWithoutInterceptionIsWarnedAbout: inputs.tools and permissions
// an eval sets for a runner that cannot enforce them are said, not silently
// dropped.
func TestARunnerWithoutInterceptionIsWarnedAbout(t *testing.T) {
	t.Parallel()
	dir := project(t, caseEval+"permissions: {deny: [\"Bash(rm:*)\"], sandbox: off}\ninputs: {tools: [{match: Any Jira call via Bash.}]}\n", "a")
	r := newRun(t, dir, map[string]fake.Script{"": {}})
	if _, err := r.exec(context.Background(), t); err != nil {
		t.Fatal(err)
	}
	got := strings.Join(r.obs.warnings, "\n")
	for _, want := range []string{"inputs.tools is not enforced", "permissions are not enforced"} {
		if !strings.Contains(got, want) {
			t.Errorf("warnings lack %q:\n%s", want, got)
		}
	}
}

// TestRepoModeUndoesChanges: in repo mode a case that changes the
// repository (a tag, core.hooksPath, the work tree) fails with
// repo_modified and what changed, its work-tree change is kept in
// repo_changes/, and the repository is put back, the user's uncommitted
// work included; runner.repo_changes: report spares a work-tree-only
// change, never a change of the git state, nor one of what scoring reads
// (a Python source beside eval.yaml, which a judge could import, in the
// project here): that case is tampered though the restore undid the change.
func TestRepoModeUndoesChanges(t *testing.T) {
	t.Parallel()
	gitIn := func(dir string, args ...string) error {
		cmd := exec.Command("git", append([]string{"-c", "user.email=t@t", "-c", "user.name=t"}, args...)...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull)
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("git %v: %v: %s", args, err, out)
		}
		return nil
	}
	for _, tc := range []struct {
		name, knob string
		gitState   bool
		inEval     bool // the agent's file is a Python source beside eval.yaml
		wantStatus results.Status
	}{
		{"git state", "", true, false, results.StatusFailed},
		{"work tree", "", false, false, results.StatusFailed},
		{"work tree, report", "  repo_changes: report\n", false, false, results.StatusCompleted},
		{"git state, report", "  repo_changes: report\n", true, false, results.StatusFailed},
		{"eval's folder", "", false, true, results.StatusTampered},
		{"eval's folder, report", "  repo_changes: report\n", false, true, results.StatusTampered},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			top := t.TempDir()
			dir := projectIn(t, filepath.Join(top, "evals"), caseEval+"runner:\n  workspace_mode: repo\n"+tc.knob, "a")
			if err := os.WriteFile(filepath.Join(top, ".gitignore"), []byte("runs/\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-q", "-m", "init"}} {
				if err := gitIn(top, args...); err != nil {
					t.Fatal(err)
				}
			}
			user := filepath.Join(dir, "cases", "a", "input.yaml")
			if err := os.WriteFile(user, []byte("name: a\n# the user's edit\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			agentFile, agentRel := filepath.Join(top, "agent.txt"), "agent.txt"
			if tc.inEval {
				agentFile, agentRel = filepath.Join(dir, "agent.py"), "evals/agent.py"
			}
			r := newRun(t, dir, map[string]fake.Script{"a": {During: func() error {
				if err := os.WriteFile(agentFile, []byte("agent-line\n"), 0o644); err != nil {
					return err
				}
				if !tc.gitState {
					return nil
				}
				if err := gitIn(top, "-C", ".", "tag", "evil"); err != nil {
					return err
				}
				return gitIn(top, "config", "core.hooksPath", ".evil")
			}}})
			r.cwd = top
			res, err := r.exec(context.Background(), t)
			if err != nil {
				t.Fatal(err)
			}
			c := res.PerCase["a"]
			if c.Status != tc.wantStatus || !c.RepoModified {
				t.Fatalf("status %s, repo_modified %v (%s); want %s, true", c.Status, c.RepoModified, c.Error, tc.wantStatus)
			}
			if (c.ExitCode == 0) != (tc.wantStatus == results.StatusCompleted) {
				t.Errorf("exit code %d with status %s: a case failed for changing the project exits non-zero", c.ExitCode, c.Status)
			}
			if tampered := strings.Join(c.Tampered, "\n"); tc.inEval != (tampered == agentFile+": added") || tc.inEval != strings.Contains(c.Error, agentFile+": added") {
				t.Errorf("tampered %q, error %q; want the agent's file named %v", c.Tampered, c.Error, tc.inEval)
			}
			all := strings.Join(c.RepoChanges, "\n")
			want := []string{agentRel + ": added"}
			if tc.gitState {
				want = append(want, ".git/refs/tags/evil: added", ".git/config: changed")
			}
			for _, w := range want {
				if !strings.Contains(all, w) {
					t.Errorf("repo_changes %q lack %q", c.RepoChanges, w)
				}
			}
			caseDir := filepath.Join(dir, "runs", "demo", "r1", "cases", "a")
			if b, err := os.ReadFile(filepath.Join(caseDir, "repo_changes", "files", filepath.FromSlash(agentRel))); err != nil || string(b) != "agent-line\n" {
				t.Errorf("the agent's file in repo_changes/: %q, %v", b, err)
			}
			if _, err := os.Stat(filepath.Join(caseDir, "repo_modifications.txt")); err != nil {
				t.Error(err)
			}
			if _, err := os.Stat(agentFile); err == nil {
				t.Error("the agent's file is still in the project")
			}
			if b, _ := os.ReadFile(user); string(b) != "name: a\n# the user's edit\n" {
				t.Errorf("the user's uncommitted edit = %q", b)
			}
			if err := gitIn(top, "rev-parse", "-q", "--verify", "refs/tags/evil"); err == nil {
				t.Error("the tag is still there")
			}
			if err := gitIn(top, "config", "--get", "core.hooksPath"); err == nil {
				t.Error("core.hooksPath is still set")
			}
		})
	}
}

// TestRepeats: --repeat 3 runs every case three times, attempt-major, each
// attempt in its own workspace and folder (attempt 1 in cases/<id>/, the
// others in cases/<id>/attempts/<n>/), with its own result naming the case
// and the attempt; per_case is attempt 1's and the totals count every
// attempt. An interrupted attempt is run again by a resume, which keeps the
// finished ones and the run's repeats.
func TestRepeats(t *testing.T) {
	t.Parallel()
	dir := project(t, caseEval, "a", "b")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r := newRun(t, dir, map[string]fake.Script{
		"a": {Text: "a1", CostUSD: 1, Files: map[string]string{"out/x.txt": "first"}}, "a@2": {Text: "a2", CostUSD: 1, ExitCode: 3},
		"b": {CostUSD: 1}, "a@3": {Hang: true}})
	r.flags.Parallel, r.flags.Repeats = 1, 3
	r.obs.onStart = func(name string) {
		if name == "a@3" {
			go func() { time.Sleep(20 * time.Millisecond); cancel() }()
		}
	}
	res, err := r.exec(ctx, t)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range r.fake.Calls() {
		names = append(names, c.Name)
	}
	if want := []string{"a", "b", "a@2", "b@2", "a@3"}; !slices.Equal(names, want) {
		t.Errorf("ran %q, want %q (attempt-major, stopped at the interrupt)", names, want)
	}
	if res.Repeats != 3 || res.NumCases != 2 || res.PerCase["a"].Result != "a1" || res.CostUSD != 4 || res.ExitCode != 3 {
		t.Errorf("run: repeats %d, %d cases, a's result %q, $%v, exit %d", res.Repeats, res.NumCases, res.PerCase["a"].Result, res.CostUSD, res.ExitCode)
	}
	d := r.runDir()
	a2, err := d.ReadCase(rundir.AttemptKey("a", 2))
	if err != nil || a2.CaseID != "a" || a2.Attempt != 2 || a2.Result != "a2" || a2.Status != results.StatusFailed {
		t.Fatalf("a's attempt 2: %+v, %v", a2, err)
	}
	if _, err := os.Stat(filepath.Join(d.Case("a"), rundir.AttemptsDir, "2", rundir.RunResultFile)); err != nil {
		t.Errorf("attempt 2 is not in cases/a/attempts/2: %v", err)
	}
	if a1, _ := d.ReadCase("a"); a1.Attempt != 1 {
		t.Errorf("attempt 1 does not say so: %+v", a1)
	}
	if b, err := os.ReadFile(filepath.Join(d.Outputs("a"), "out", "x.txt")); err != nil || string(b) != "first" {
		t.Errorf("a's attempt-1 output after the other attempts: %q, %v", b, err)
	}
	var dirs []string
	for _, c := range r.fake.Calls() {
		dirs = append(dirs, c.Dir)
	}
	slices.Sort(dirs)
	if len(slices.Compact(dirs)) != 5 {
		t.Errorf("the attempts shared workspaces: %q", dirs)
	}

	// Resume: only a@3 and b@3 run; the run's 3 repeats are kept without
	// --repeat, and nothing an earlier attempt wrote is lost or tampered.
	r2 := newRun(t, dir, map[string]fake.Script{"": {Text: "late", CostUSD: 1}})
	r2.flags.Resume, r2.flags.RunID = true, ""
	res, err = r2.exec(context.Background(), t)
	if err != nil {
		t.Fatal(err)
	}
	names = nil
	for _, c := range r2.fake.Calls() {
		names = append(names, c.Name)
	}
	if slices.Sort(names); !slices.Equal(names, []string{"a@3", "b@3"}) {
		t.Errorf("resume ran %q, want a@3 and b@3", names)
	}
	if len(r2.obs.notes) == 0 || !strings.Contains(r2.obs.notes[0], "4 of 6 attempts already finished") {
		t.Errorf("notes %q", r2.obs.notes)
	}
	if res.Interrupted || res.CostUSD != 6 || res.PerCase["a"].Status != results.StatusFailed && res.PerCase["a"].Status != results.StatusCompleted {
		t.Errorf("resumed run: %+v", res)
	}
	for _, key := range rundir.AttemptKeys([]string{"a", "b"}, 3) {
		c, err := d.ReadCase(key)
		if err != nil || c.Status == results.StatusTampered || c.Interrupted {
			t.Errorf("%s after the resume: %+v, %v", key, c, err)
		}
	}
	if !d.Finished(rundir.AttemptKeys([]string{"a", "b"}, 3)) {
		t.Errorf("the resumed run is not finished")
	}
}

// An agent the boundary stopped for its files records how (over_quota),
// which counts as a quota violation; another error records none.
func TestRecordOverQuota(t *testing.T) {
	t.Parallel()
	why := "the agent's files passed execution.limits.disk_bytes (100 bytes) while it ran"
	var c results.Case
	engine.RecordInvocation(&c, runner.Result{ExitCode: -1, Err: fmt.Errorf("%s: %w", why, agentproc.ErrOverQuota)}, 0)
	if c.OverQuota != why || c.Status != results.StatusError {
		t.Errorf("over_quota %q, status %s", c.OverQuota, c.Status)
	}
	if v := rundir.CountViolations(&c, nil, nil, nil); v.ByKind[results.ViolationQuota] != 1 || v.List[0].Reason != why {
		t.Errorf("violations %+v", v)
	}
	var other results.Case
	engine.RecordInvocation(&other, runner.Result{ExitCode: -1, Err: errors.New("wait for claude: boom")}, 0)
	if other.OverQuota != "" {
		t.Errorf("another error recorded over_quota %q", other.OverQuota)
	}
}
