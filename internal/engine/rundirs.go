package engine

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agent-eval/agent-eval/internal/rundir"
)

// missingDirs are dir and those of its parents that do not exist yet,
// deepest first.
func missingDirs(dir string) []string {
	var out []string
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil || d == filepath.Dir(d) {
			return out
		}
		out = append(out, d)
	}
}

// keepRunsOutOfGit makes git ignore the eval's runs when they are in a
// git work tree (a .gitignore in the runs root when this run made it, else
// in the eval's runs folder), or warns that the user tracks them. made are
// the folders this run created. A failure is a warning: it costs no run.
func (st *state) keepRunsOutOfGit(ctx context.Context, made []string) {
	root := filepath.Dir(st.p.RunsDir)
	ig, err := rundir.EnsureIgnored(ctx, root, st.p.RunsDir, slices.Contains(made, filepath.Clean(root)))
	switch {
	case err != nil:
		st.obs.Warn(err.Error())
	case ig.Tracked != "":
		st.obs.Warn(ig.Message(root))
	case ig.Wrote != "":
		st.obs.Note(ig.Message(root))
	}
}

// openRunDir creates the run directory and records its cases, or finds
// the one to resume: the latest run (or the one --run-id names), with the
// cases it was made with. A run that finished is a *NothingToResumeError.
func (st *state) openRunDir() error {
	p := st.p
	st.runID = p.RunID
	if !p.Resume {
		id, d, err := rundir.Create(p.RunsDir, st.runID, p.ExplicitID)
		if errors.Is(err, rundir.ErrExists) {
			return usageErrorf("%s already exists; choose another --run-id, or continue it with --resume", filepath.Join(p.RunsDir, st.runID))
		}
		if err != nil {
			return err
		}
		st.runID, st.dir = id, d
		return d.WriteSelection(p.Cases, p.Repeats)
	}
	if st.runID == "" {
		id, err := rundir.Latest(p.RunsDir)
		if err != nil {
			return err
		}
		if id == "" {
			return usageErrorf("--resume: no run of %s under %s; start one without --resume, or name a run with --run-id", st.ev.EvalName(), p.RunsDir)
		}
		st.runID = id
	}
	st.dir = rundir.Dir{Path: filepath.Join(p.RunsDir, st.runID)}
	if fi, err := os.Stat(st.dir.Path); err != nil || !fi.IsDir() {
		return usageErrorf("--resume: no run %s", st.dir.Path)
	}
	if st.dir.Running() {
		return usageErrorf("--resume: %s: %v", st.dir.Path, rundir.ErrRunning)
	}
	recorded, repeats, err := st.dir.Selection()
	switch {
	case errors.Is(err, fs.ErrNotExist):
		// A run from before the cases were recorded: finished as a whole,
		// or resumed only with the cases named.
		if st.dir.Finished(nil) {
			return &NothingToResumeError{RunID: st.runID, Dir: st.dir.Path, Latest: !p.ExplicitID}
		}
		if !p.Selected {
			return usageErrorf("--resume: %s does not record the cases it was made with (an older agent-eval made it); name the ones to run with --cases", st.dir.Path)
		}
		recorded, repeats = p.Cases, 1
	case err != nil:
		return fmt.Errorf("--resume: %w", err)
	}
	// A resume runs the attempts its run was made with.
	if p.RepeatsFlag && p.Repeats != repeats {
		return usageErrorf("--resume: run %s was made with %s of each case; --repeat %d cannot change that (start a new run)", st.runID, Plural(repeats, "attempt"), p.Repeats)
	}
	st.p.Repeats = repeats
	if st.dir.Finished(rundir.AttemptKeys(recorded, repeats)) && !(p.RetryErrored && st.anyErrored(rundir.AttemptKeys(recorded, repeats))) {
		return &NothingToResumeError{RunID: st.runID, Dir: st.dir.Path, Latest: !p.ExplicitID}
	}
	if p.Selected {
		for _, id := range p.Cases {
			if !slices.Contains(recorded, id) {
				return usageErrorf("--resume: --cases %s: run %s was made without it (its cases: %s)", id, st.runID, strings.Join(recorded, ", "))
			}
		}
		return nil
	}
	st.p.Cases = recorded
	return nil
}

// markForeignScored renames what only score and compare write into a run
// (summary.yaml, report.html, …), found when the run's cases are done, to
// <file>.foreign, and warns: a run has none of them until it is scored (a
// resume renamed them *.stale first), so whoever wrote them — an agent
// without a sandbox — was not agent-eval, and report, history and the
// report's previous-run line would take a verdict of its making.
func (st *state) markForeignScored() {
	moved, err := st.renameScored(".foreign")
	if err != nil {
		st.writeErr = append(st.writeErr, fmt.Errorf("set aside what the run did not write: %w", err))
	}
	if len(moved) > 0 {
		st.obs.Warn(fmt.Sprintf("%s appeared in run %s while it ran, written by someone other than agent-eval (an agent without a sandbox?): renamed to *.foreign; only score writes them",
			strings.Join(moved, ", "), st.runID))
	}
}

// markStale renames what scoring wrote into a resumed run, which no
// longer describes it once more cases run, to <file>.stale, and says so.
func (st *state) markStale() error {
	moved, err := st.renameScored(".stale")
	if err != nil {
		return fmt.Errorf("--resume: mark stale: %w", err)
	}
	if len(moved) > 0 {
		st.obs.Note(fmt.Sprintf("resume: %s described run %s before this resume; renamed to *.stale (score the run again, or resume with --score)",
			strings.Join(moved, ", "), st.runID))
	}
	return nil
}

// renameScored renames each of rundir.ScoredFiles the run has to its name
// with suffix, and says which it renamed.
func (st *state) renameScored(suffix string) (moved []string, err error) {
	for _, name := range rundir.ScoredFiles {
		p := filepath.Join(st.dir.Path, name)
		if _, err := os.Lstat(p); err != nil {
			continue
		}
		if err := os.Rename(p, p+suffix); err != nil {
			return moved, fmt.Errorf("rename %s: %w", name, err)
		}
		moved = append(moved, name)
	}
	return moved, nil
}

// NothingToResumeError: --resume found the run finished; nothing ran.
type NothingToResumeError struct {
	RunID, Dir string
	// Latest: the run is the latest one (no --run-id named it).
	Latest bool
}

func (e *NothingToResumeError) Error() string {
	if e.Latest {
		return fmt.Sprintf("nothing to resume: the latest run %s finished", e.RunID)
	}
	return fmt.Sprintf("nothing to resume: run %s finished", e.RunID)
}
