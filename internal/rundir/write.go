package rundir

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/agent-eval/agent-eval/internal/lazyre"
	"github.com/agent-eval/agent-eval/internal/results"
)

// The writer's side of the run directory: naming, creating, locking and
// finding runs, and the files the engine writes besides the results.
const (
	LockFile       = "run.lock"            // held by the process running the run
	HooksLogFile   = "hooks.log"           // the lifecycle hooks' output
	HookOutputs    = "hook_outputs.yaml"   // the data a lifecycle phase returned
	AgentProcsFile = "agent_processes.txt" // the agents' process groups, for resume's sweep
	FakeModelLog   = "fake_model_requests.jsonl"
	FakeJudgeLog   = "fake_judge_requests.jsonl" // what the LLM judges sent the fake (score --fake-model)
	BatchFile      = "batch.yaml"
	CaseOrderFile  = "case_order.yaml"
	RepoModsFile   = "repo_modifications.txt"
	RepoChangesDir = "repo_changes"
	// SelectionFile lists the cases a run was made with (its --cases, else
	// every case of the dataset), written as it starts: a resume runs
	// these cases and no others.
	SelectionFile = "selection.json"
	// CompareHTMLFile is compare's page, beside compare.yaml.
	CompareHTMLFile = "compare.html"
)

// ScoredFiles are the files score, compare and analyze write into a run: a
// resume that runs more cases makes them stale.
var ScoredFiles = []string{SummaryFile, ReportFile, JUnitFile, CompareFile, CompareHTMLFile, AnalysisFile}

// FakeJudgeLog is what score --fake-model's judges sent the fake model.
func (d Dir) FakeJudgeLog() string { return filepath.Join(d.Path, FakeJudgeLog) }

// HooksLog is the run's lifecycle hooks log.
func (d Dir) HooksLog() string { return filepath.Join(d.Path, HooksLogFile) }

// ErrExists is returned by Create for an explicit id that is taken.
var ErrExists = errors.New("the run directory already exists")

// ErrRunning is returned by Lock for a run another process holds.
var ErrRunning = errors.New("the run is running in another agent-eval process")

const idTime = "20060102-150405.000"

var (
	modelSegmentRE = lazyre.New(`[^A-Za-z0-9._-]+`)
	safeSegmentRE  = lazyre.New(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)
)

// SafeSegment reports whether s can name a run or a case folder.
func SafeSegment(s string) bool { return safeSegmentRE().MatchString(s) }

// NewID is a run id: the start time to the millisecond and the model.
func NewID(t time.Time, model string) string {
	return t.Format(idTime) + "-" + modelSegmentRE().ReplaceAllString(model, "-")
}

// IDTime is the start time a generated run id (NewID) begins with, read
// in the local time zone as NewID wrote it; false for an id that does not
// begin with one (an explicit --run-id).
func IDTime(id string) (time.Time, bool) { return IDTimeIn(id, time.Local) }

// IDTimeIn is IDTime for an id written in the time zone loc.
func IDTimeIn(id string, loc *time.Location) (time.Time, bool) {
	if len(id) < len(idTime) {
		return time.Time{}, false
	}
	t, err := time.ParseInLocation(idTime, id[:len(idTime)], loc)
	return t, err == nil
}

// Create makes runsDir/id. A generated id that is taken gets a -2, -3, …
// suffix; an explicit one is ErrExists. It returns the id used.
func Create(runsDir, id string, explicit bool) (string, Dir, error) {
	if err := os.MkdirAll(runsDir, 0o755); err != nil {
		return "", Dir{}, fmt.Errorf("create the runs directory: %w", err)
	}
	for n := 1; n < 1000; n++ {
		try := id
		if n > 1 {
			try = fmt.Sprintf("%s-%d", id, n)
		}
		dir := filepath.Join(runsDir, try)
		err := os.Mkdir(dir, 0o755)
		switch {
		case err == nil:
			return try, Dir{Path: dir}, nil
		case !errors.Is(err, fs.ErrExist):
			return "", Dir{}, fmt.Errorf("create the run directory: %w", err)
		case explicit:
			return "", Dir{}, fmt.Errorf("%s: %w", dir, ErrExists)
		}
	}
	return "", Dir{}, fmt.Errorf("create the run directory: %s and 998 suffixes are all taken", filepath.Join(runsDir, id))
}

// Lock takes the run's lock (run.lock, flock) for this process; unlock
// releases it. ErrRunning: another process holds it.
func (d Dir) Lock() (unlock func(), err error) {
	f, err := os.OpenFile(filepath.Join(d.Path, LockFile), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock the run: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		_ = f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, ErrRunning
		}
		return nil, fmt.Errorf("lock the run: %w", err)
	}
	// Unlock explicitly before closing: a child this process forks at that
	// moment holds a copy of the descriptor until it execs (close-on-exec),
	// and the lock belongs to the open file, so a bare Close would leave
	// the run locked for that while and a resume straight after would find
	// it "running in another process".
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		_ = f.Close()
	}, nil
}

// Running reports whether another process holds the run's lock.
func (d Dir) Running() bool {
	unlock, err := d.Lock()
	if err != nil {
		return errors.Is(err, ErrRunning)
	}
	unlock()
	return false
}

// FinishedCase is a case's result from an earlier attempt of the run, or
// nil when it has none or was interrupted. key is a case id or an
// AttemptKey.
func (d Dir) FinishedCase(key string) *results.Case {
	b, err := os.ReadFile(d.CaseResult(key))
	if err != nil {
		return nil
	}
	var c results.Case
	id, n := SplitAttempt(key)
	if json.Unmarshal(b, &c) != nil || c.CaseID != id || max(c.Attempt, 1) != n || c.Interrupted {
		return nil
	}
	return &c
}

// Finished reports whether the run ended: its aggregate says it was not
// interrupted and every case of ids has a finished result.
func (d Dir) Finished(ids []string) bool {
	b, err := os.ReadFile(d.RunResult())
	if err != nil {
		return false
	}
	var r results.RunResult
	if json.Unmarshal(b, &r) != nil || r.Interrupted {
		return false
	}
	if r.Batch != nil {
		return true
	}
	for _, id := range ids {
		if d.FinishedCase(id) == nil {
			return false
		}
	}
	return true
}

// Latest is the id of the most recently started run under runsDir, or ""
// when there is none.
func Latest(runsDir string) (string, error) {
	entries, err := os.ReadDir(runsDir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("list the runs: %w", err)
	}
	best, bestStarted := "", time.Time{}
	for _, e := range entries {
		if !e.IsDir() || !SafeSegment(e.Name()) {
			continue
		}
		fi, err := e.Info()
		if err != nil {
			continue
		}
		// hooks.log is created when the run starts and not touched after
		// (the folder's own time changes with every file added).
		started := fi.ModTime()
		if hi, err := os.Stat(filepath.Join(runsDir, e.Name(), HooksLogFile)); err == nil {
			started = hi.ModTime()
		}
		// Ties (a coarse clock) go to the later name: generated ids sort
		// by start time.
		if best == "" || started.After(bestStarted) || (started.Equal(bestStarted) && e.Name() > best) {
			best, bestStarted = e.Name(), started
		}
	}
	return best, nil
}

// selection is selection.json.
type selection struct {
	Cases []string `json:"cases"`
	// Repeats is how many attempts each case has (execution.repeats,
	// --repeat); absent: 1.
	Repeats int `json:"repeats,omitempty"`
}

// SelectionPath is the run's selection.json.
func (d Dir) SelectionPath() string { return filepath.Join(d.Path, SelectionFile) }

// WriteSelection records ids as the cases the run was made with, each to
// run repeats times.
func (d Dir) WriteSelection(ids []string, repeats int) error {
	if repeats <= 1 {
		repeats = 0
	}
	if err := results.WriteJSON(d.SelectionPath(), selection{Cases: ids, Repeats: repeats}); err != nil {
		return fmt.Errorf("record the run's cases: %w", err)
	}
	return nil
}

// Selection is the cases the run was made with and how many attempts each
// has (1 and up); an error wrapping fs.ErrNotExist for a run made before
// they were recorded.
func (d Dir) Selection() ([]string, int, error) {
	var s selection
	if err := readJSON(d.SelectionPath(), &s); err != nil {
		return nil, 0, err
	}
	return s.Cases, max(s.Repeats, 1), nil
}
