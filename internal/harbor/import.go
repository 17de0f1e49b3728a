package harbor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/agent-eval/agent-eval/internal/pathutil"
	"github.com/agent-eval/agent-eval/internal/redact"
	"github.com/agent-eval/agent-eval/internal/results"
	"github.com/agent-eval/agent-eval/internal/rundir"
	"github.com/agent-eval/agent-eval/internal/transcript"
	"github.com/agent-eval/agent-eval/internal/version"
)

// ImportOptions says which job to read and where its run directory goes.
type ImportOptions struct {
	// JobDir is the Harbor job folder: exactly this one, never "the newest".
	JobDir string
	// RunsRoot is the runs directory's root: the run goes to
	// RunsRoot/<eval name>/<RunID>, as a local run's does.
	RunsRoot string
	// EvalRunsDir, when set, is the eval's runs directory itself (a run's
	// --runs-dir joined with the eval's name, as run computes it): the run
	// goes to EvalRunsDir/<RunID>.
	EvalRunsDir string
	// RunID is the run's id; "" is the job folder's name.
	RunID string
	// EvalFile is the eval.yaml the run records as its config (-c); ""
	// takes the tasks' own tests/eval.yaml.
	EvalFile string
	// TasksDir, when set, is where the job's tasks are now: a trial's task
	// is TasksDir/<the base name of its config.json task.path>.
	TasksDir string
	// Repeats > 1 says the job's attempts are the run's repeats (run
	// --backend harbor --repeat N): the run records them, and score judges
	// and reduces every attempt. Otherwise score judges attempt 1.
	Repeats int
}

// Imported is the run directory an import wrote.
type Imported struct {
	Dir rundir.Dir
	Run *results.RunResult
	// Warnings say what import refused or could not read (a link in a
	// trial's outputs, a ledger that is not a file) and went on without.
	Warnings []string
}

// JobError is a problem with the job folder given (not a job, a trial
// that does not read, a task that is gone): the user's to fix; nothing was
// written.
type JobError struct{ Err error }

func (e *JobError) Error() string { return e.Err.Error() }
func (e *JobError) Unwrap() error { return e.Err }

// trial is one trial folder, read.
type trial struct {
	name   string
	dir    string
	cfg    trialConfig
	res    *trialResult // nil: Harbor wrote no result.json
	task   string       // the task folder
	info   CaseInfo
	steps  []string // the task's [[steps]] in order (from step_results)
	start  time.Time
	folder rundir.CaseFolder
	// red hides, in the logs, transcript and ledger written, the secrets
	// of the importing process's environment (those it gave Harbor).
	red *redact.Redactor
}

// Import maps the Harbor job folder opts.JobDir onto a new run directory in
// the shape a local run writes, so that score, report and compare read it
// unchanged. Each trial's case id comes from its task's tests/case.json
// (never from the trial's name, which Harbor truncates, nor from anything
// the trial itself holds); the first attempt of a case is its case folder,
// the others cases/<id>/attempts/<n>/.
func Import(ctx context.Context, o ImportOptions) (imp *Imported, err error) {
	trials, job, jr, err := readJob(o)
	if err != nil {
		return nil, &JobError{err}
	}
	evalName, err := oneEvalName(trials)
	if err != nil {
		return nil, &JobError{fmt.Errorf("import %s: %w", o.JobDir, err)}
	}
	runID := o.RunID
	if runID == "" {
		runID = filepath.Base(job)
	}
	if !rundir.SafeSegment(runID) {
		return nil, &JobError{fmt.Errorf("import %s: %q cannot name a run: give --run-id", o.JobDir, runID)}
	}
	evalSrc, evalPath, err := evalCopy(o.EvalFile, trials)
	if err != nil {
		return nil, &JobError{fmt.Errorf("import %s: %w", o.JobDir, err)}
	}
	byCase, order := groupAttempts(trials)
	runs := filepath.Join(o.RunsRoot, evalName)
	if o.EvalRunsDir != "" {
		runs = o.EvalRunsDir
	}
	_, dir, err := rundir.Create(runs, runID, true)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			_ = os.RemoveAll(dir.Path) // half a run directory is none
		}
	}()
	imp = &Imported{Dir: dir}
	run := newImportedRun(runID, evalName, job, jr, trials)
	run.Config = results.NewConfigSource(evalPath, filepath.Dir(evalPath), evalSrc)
	if err := writeConfig(dir, evalSrc); err != nil {
		return nil, err
	}
	if err := dir.WriteSelection(order, o.Repeats); err != nil {
		return nil, err
	}
	red := redact.FromEnviron(os.Environ())
	for _, id := range order {
		for i, t := range byCase[id] {
			t.red = red
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			t.folder = dir.CaseFolder(id)
			if i > 0 {
				t.folder = dir.Attempt(id, i+1)
			}
			c, warns, err := importTrial(t, i+1, len(byCase[id]))
			for _, w := range warns {
				imp.Warnings = append(imp.Warnings, fmt.Sprintf("%s (trial %s): %s", id, t.name, w))
			}
			if err != nil {
				return nil, fmt.Errorf("import trial %s (case %s): %w", t.name, id, err)
			}
			if ve := c.Harbor.VerifierError; ve != "" {
				imp.Warnings = append(imp.Warnings, fmt.Sprintf("%s (trial %s): the verifier in the trial left no reward (%s); the agent had that container, so this is no infrastructure error: score judges the case from what was collected", id, t.name, ve))
			}
			run.InfraErrors = append(run.InfraErrors, infraErrors(c, i+1)...)
			if i == 0 {
				run.Add(c)
			} else {
				run.AddAttempt(c)
			}
		}
	}
	if o.Repeats > 1 {
		run.Repeats = o.Repeats
	}
	if err := results.WriteJSON(dir.RunResult(), run); err != nil {
		return nil, fmt.Errorf("write the run's result: %w", err)
	}
	imp.Run = run
	return imp, nil
}

// readJob reads the job's result.json and its trials.
func readJob(o ImportOptions) ([]*trial, string, jobResult, error) {
	var jr jobResult
	job, err := filepath.Abs(o.JobDir)
	if err != nil {
		return nil, "", jr, fmt.Errorf("import %s: %w", o.JobDir, err)
	}
	if fi, err := os.Lstat(job); err != nil || !fi.IsDir() {
		return nil, "", jr, fmt.Errorf("import %s: not a Harbor job folder (%v)", o.JobDir, orNotFolder(err))
	}
	if err := readMeta(job, jobResultFile, &jr); err != nil {
		return nil, "", jr, fmt.Errorf("import %s: not a finished Harbor job: %w", o.JobDir, err)
	}
	names, err := trialDirs(job)
	if err != nil {
		return nil, "", jr, err
	}
	if len(names) == 0 {
		return nil, "", jr, fmt.Errorf("import %s: the job has no trial folder", o.JobDir)
	}
	trials := make([]*trial, 0, len(names))
	for _, n := range names {
		t, err := readTrial(job, n, o.TasksDir)
		if err != nil {
			return nil, "", jr, err
		}
		trials = append(trials, t)
	}
	return trials, job, jr, nil
}

func orNotFolder(err error) error {
	if err != nil {
		return err
	}
	return errors.New("not a folder")
}

// readTrial reads a trial folder's config.json and result.json and its
// task's tests/case.json.
func readTrial(job, name, tasksDir string) (*trial, error) {
	t := &trial{name: name, dir: filepath.Join(job, name)}
	if err := readMeta(t.dir, jobConfigFile, &t.cfg); err != nil {
		return nil, fmt.Errorf("import trial %s: %w", name, err)
	}
	var r trialResult
	switch err := readMeta(t.dir, jobResultFile, &r); {
	case err == nil:
		t.res = &r
		if r.StartedAt != nil {
			t.start = r.StartedAt.Time
		}
	case errors.Is(err, fs.ErrNotExist):
	default:
		return nil, fmt.Errorf("import trial %s: %w", name, err)
	}
	if t.cfg.Task.Path == "" {
		return nil, fmt.Errorf("import trial %s: its config.json names no task path (task.path); only local tasks (harbor run -p) can be imported", name)
	}
	t.task = t.cfg.Task.Path
	if tasksDir != "" {
		t.task = filepath.Join(tasksDir, filepath.Base(filepath.Clean(t.task)))
	}
	info, err := readCaseInfo(t.task)
	if err != nil {
		return nil, fmt.Errorf("import trial %s: %w", name, err)
	}
	t.info = info
	if t.res != nil {
		for _, s := range t.res.StepResults {
			t.steps = append(t.steps, s.StepName)
		}
	}
	return t, nil
}

// readCaseInfo reads the task's tests/case.json, or for a multi-step task
// its first step's.
func readCaseInfo(task string) (CaseInfo, error) {
	paths := []string{filepath.Join(task, TestsDirName, CaseFile)}
	steps, _ := filepath.Glob(filepath.Join(task, StepsDirName, "*", TestsDirName, CaseFile))
	sort.Strings(steps)
	paths = append(paths, steps...)
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return CaseInfo{}, fmt.Errorf("read the task's case: %w", err)
		}
		var ci CaseInfo
		if err := json.Unmarshal(b, &ci); err != nil {
			return CaseInfo{}, fmt.Errorf("read %s: %w", p, err)
		}
		if !rundir.SafeSegment(ci.CaseID) {
			return CaseInfo{}, fmt.Errorf("%s: case_id %q cannot name a case folder", p, ci.CaseID)
		}
		return ci, nil
	}
	return CaseInfo{}, fmt.Errorf("the task %s has no %s/%s: it was not exported by agent-eval harbor export (is the task folder still there? --tasks names where it is now)", task, TestsDirName, CaseFile)
}

func oneEvalName(trials []*trial) (string, error) {
	name := trials[0].info.EvalName
	for _, t := range trials[1:] {
		if t.info.EvalName != name {
			return "", fmt.Errorf("the job mixes evals: trial %s is of %q, trial %s of %q", trials[0].name, name, t.name, t.info.EvalName)
		}
	}
	if !rundir.SafeSegment(name) {
		return "", fmt.Errorf("eval name %q (the tasks' case.json) cannot name a folder", name)
	}
	return name, nil
}

// evalCopy is the eval.yaml the run records: file (-c), else the first
// task's (by trial name) tests/eval.yaml (a multi-step task's root tests/
// holds none: with only those, give -c).
func evalCopy(file string, trials []*trial) ([]byte, string, error) {
	for _, t := range trials {
		if file != "" {
			break
		}
		if p := filepath.Join(t.task, TestsDirName, EvalFile); exists(p) {
			file = p
		}
	}
	if file == "" {
		return nil, "", fmt.Errorf("no task of the job has a %s/%s to record as the run's eval.yaml: give -c eval.yaml", TestsDirName, EvalFile)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, "", fmt.Errorf("read the eval the run records (give -c eval.yaml): %w", err)
	}
	return b, pathutil.Abs(file), nil
}

func writeConfig(dir rundir.Dir, src []byte) error {
	if err := os.MkdirAll(dir.ConfigDir(), 0o755); err != nil {
		return fmt.Errorf("record the run's config: %w", err)
	}
	if err := os.WriteFile(dir.EvalCopy(), src, 0o644); err != nil {
		return fmt.Errorf("record the run's config: %w", err)
	}
	return nil
}

// groupAttempts groups the trials by case, each case's in the order they
// started (then by name), and lists the cases sorted.
func groupAttempts(trials []*trial) (map[string][]*trial, []string) {
	by := map[string][]*trial{}
	for _, t := range trials {
		by[t.info.CaseID] = append(by[t.info.CaseID], t)
	}
	order := make([]string, 0, len(by))
	for id, ts := range by {
		slices.SortStableFunc(ts, func(a, b *trial) int {
			if c := a.start.Compare(b.start); c != 0 {
				return c
			}
			return strings.Compare(a.name, b.name)
		})
		order = append(order, id)
	}
	sort.Strings(order)
	return by, order
}

// newImportedRun is the run's aggregate, without cases.
func newImportedRun(id, evalName, job string, jr jobResult, trials []*trial) *results.RunResult {
	vi := version.Get()
	r := &results.RunResult{SchemaVersion: results.SchemaVersion, LayoutVersion: rundir.LayoutVersion, RunID: id, EvalName: evalName,
		HarnessVer: vi.Version, HarnessRevision: vi.Revision, ExecutionMode: "harbor", HarborJobDir: job,
		PerCase: map[string]*results.Case{}, PerModelUsage: map[string]transcript.ModelUsage{}, EvalParams: map[string]any{}}
	if jr.StartedAt != nil {
		r.StartedAt = jr.StartedAt.UTC().Format(time.RFC3339)
	}
	if jr.FinishedAt != nil {
		r.EndedAt = jr.FinishedAt.UTC().Format(time.RFC3339)
	}
	if jr.StartedAt != nil && jr.FinishedAt != nil {
		r.WallClockS = jr.FinishedAt.Sub(jr.StartedAt.Time).Seconds()
	}
	for _, t := range trials {
		if r.Model == "" {
			r.Model = t.cfg.Agent.ModelName
		}
		if t.res == nil {
			continue
		}
		if r.Agent == "" && t.res.AgentInfo.Name != "" {
			r.Agent, r.AgentVersion = "harbor:"+t.res.AgentInfo.Name, t.res.AgentInfo.Version
		}
		if r.Model == "" && t.res.AgentInfo.ModelInfo != nil {
			r.Model = t.res.AgentInfo.ModelInfo.Name
		}
	}
	if r.Agent == "" {
		r.Agent = "harbor:" + trials[0].cfg.Agent.Name
	}
	r.Models = &results.Models{Agent: r.Model}
	r.EvalParams["harbor_job"] = filepath.Base(job)
	r.EvalParams["trials"] = len(trials)
	return r
}

// infraErrors lists the case's (and its steps') infrastructure errors.
func infraErrors(c *results.Case, attempt int) []results.InfraError {
	var out []results.InfraError
	if c.Harbor != nil && c.Harbor.InfraError != "" {
		out = append(out, results.InfraError{Case: c.CaseID, Attempt: attempt, Reason: c.Harbor.InfraError})
	}
	for _, s := range c.Steps {
		if s.Harbor != nil && s.Harbor.InfraError != "" {
			step := strings.TrimPrefix(s.CaseID, c.CaseID+"/")
			out = append(out, results.InfraError{Case: c.CaseID, Attempt: attempt, Step: step, Reason: s.Harbor.InfraError})
		}
	}
	return out
}
