package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"syscall"
	"time"

	"github.com/agent-eval/agent-eval/internal/lazyre"
	"github.com/agent-eval/agent-eval/internal/results"
)

// runIDTime is the time part of a generated run id: to the millisecond, so
// ids sort by start time and two runs started in the same second differ.
const runIDTime = "20060102-150405.000"

var modelSegmentRE = lazyre.New(`[^A-Za-z0-9._-]+`)

// newRunID is the generated id of a run of model started at t.
func newRunID(t time.Time, model string) string {
	return t.Format(runIDTime) + "-" + modelSegmentRE().ReplaceAllString(model, "-")
}

// createRunDir creates the run's directory under runsDir exclusively and
// returns its id and path. A generated id (explicit == false) that is
// already taken — another run started in the same millisecond — gets a
// -2, -3, … suffix; an explicit one is an error.
func createRunDir(runsDir, id string, explicit bool) (string, string, error) {
	if err := os.MkdirAll(runsDir, 0o755); err != nil {
		return "", "", fmt.Errorf("create the runs directory: %w", err)
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
			return try, dir, nil
		case !errors.Is(err, fs.ErrExist):
			return "", "", fmt.Errorf("create the run directory: %w", err)
		case explicit:
			return "", "", usageErrorf("%s already exists; choose another --run-id, or continue it with --resume", dir)
		}
	}
	return "", "", fmt.Errorf("create the run directory: %s and 998 suffixes are all taken", filepath.Join(runsDir, id))
}

// latestUnfinished is the id of the most recently started run under runsDir
// that did not finish: no run_result.json, an interrupted one, or one of
// ids without a finished case result. Runs another process is running are
// skipped. It is "" when every run finished.
func latestUnfinished(runsDir string, ids []string) (string, error) {
	entries, err := os.ReadDir(runsDir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("list the runs: %w", err)
	}
	type run struct {
		id      string
		started time.Time
	}
	var runs []run
	for _, e := range entries {
		if !e.IsDir() || !safeSegmentRE().MatchString(e.Name()) {
			continue
		}
		fi, err := e.Info()
		if err != nil {
			continue
		}
		started := fi.ModTime()
		// hooks.log is created when the run starts its cases and never
		// rewritten; the directory's own time moves as results land.
		if hi, err := os.Stat(filepath.Join(runsDir, e.Name(), "hooks.log")); err == nil {
			started = hi.ModTime()
		}
		runs = append(runs, run{e.Name(), started})
	}
	sort.Slice(runs, func(i, j int) bool {
		if !runs[i].started.Equal(runs[j].started) {
			return runs[i].started.After(runs[j].started)
		}
		return runs[i].id > runs[j].id
	})
	for _, r := range runs {
		dir := filepath.Join(runsDir, r.id)
		if !runFinished(dir, ids) && !running(dir) {
			return r.id, nil
		}
	}
	return "", nil
}

// runFinished reports whether the run in dir has its run_result.json, was
// not interrupted, and has a finished result for every case of ids.
func runFinished(dir string, ids []string) bool {
	b, err := os.ReadFile(filepath.Join(dir, "run_result.json"))
	if err != nil {
		return false
	}
	var r results.Run
	if json.Unmarshal(b, &r) != nil || r.Interrupted {
		return false
	}
	if r.Batch != nil {
		return true
	}
	for _, id := range ids {
		if finishedCase(dir, id) == nil {
			return false
		}
	}
	return true
}

// runLockFile, in the run directory, is locked (flock) by the process
// running the run, so --resume never picks or joins a run that is running.
const runLockFile = "run.lock"

// errRunning is returned by lockRun when another process runs the run.
var errRunning = errors.New("the run is running in another agent-eval process")

// lockRun takes the run's lock for as long as the process runs it; unlock
// releases it.
func lockRun(dir string) (unlock func(), err error) {
	f, err := os.OpenFile(filepath.Join(dir, runLockFile), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock the run: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		_ = f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, errRunning
		}
		return nil, fmt.Errorf("lock the run: %w", err)
	}
	return func() { _ = f.Close() }, nil
}

// running reports whether another process holds the run's lock.
func running(dir string) bool {
	unlock, err := lockRun(dir)
	if err != nil {
		return errors.Is(err, errRunning)
	}
	unlock()
	return false
}
