package engine

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/hook"
	"github.com/agent-eval/agent-eval/internal/results"
	"github.com/agent-eval/agent-eval/internal/rundir"
	"github.com/agent-eval/agent-eval/internal/runner"
	"github.com/agent-eval/agent-eval/internal/transcript"
	"github.com/agent-eval/agent-eval/internal/workspace"
)

// runBatch runs one agent over every case in one shared workspace holding
// batch.yaml (the cases' inputs, in order) and case_order.yaml.
func (st *state) runBatch(ctx context.Context, start time.Time) (*results.RunResult, error) {
	ids := st.p.Cases
	ws := st.ws[BatchID]
	if st.ev.Dataset.Workspace != nil && slices.ContainsFunc(st.ev.Dataset.Workspace.Files, func(f config.WorkspaceFile) bool { return f.Path != "" }) {
		st.obs.Warn("per-case dataset.workspace.files are ignored in batch mode")
	}
	var entries []any
	var order []map[string]any
	var entryCounts []orderEntry
	overrides := map[string]string{}
	for _, id := range ids {
		caseDir := filepath.Join(st.ev.DatasetDir(), id)
		input, err := workspace.ReadInput(caseDir)
		if err != nil || input == nil {
			st.obs.Warn(fmt.Sprintf("case %s has no readable input; left out of batch.yaml (%v)", id, err))
			order = append(order, map[string]any{"case_id": id, "entry_count": 0})
			entryCounts = append(entryCounts, orderEntry{ID: id})
			continue
		}
		entries = append(entries, workspace.MergeInput(input, st.p.InputOverrides))
		order = append(order, map[string]any{"case_id": id, "entry_count": 1})
		entryCounts = append(entryCounts, orderEntry{ID: id, Entries: 1})
		o, err := workspace.CaseOverrides(caseDir)
		if err != nil {
			return nil, err
		}
		for k, v := range o {
			overrides[k] = v
		}
	}
	for _, dir := range []string{ws, st.dir.Path} {
		if err := writeYAML(filepath.Join(dir, rundir.BatchFile), entries); err != nil {
			return nil, err
		}
		if err := writeYAML(filepath.Join(dir, rundir.CaseOrderFile), order); err != nil {
			return nil, err
		}
	}
	prompt := strings.TrimSpace(st.ev.Execution.Prompt)
	if skill := strings.TrimSpace(st.ev.Execution.Skill); skill != "" {
		prompt = strings.TrimSpace("/" + skill + " " + strings.TrimSpace(st.ev.Execution.Arguments))
	}
	c := newCase(BatchID)
	c.Prompt, c.Workspace = prompt, ws
	cr := &caseRun{c: c, ws: ws, out: st.dir.Path, coll: workspace.NewCollection(CollectLimits(st.ev))}
	err := st.fillWorkspace(ws, "")
	var sess runner.Session
	if err == nil {
		sess, err = st.agent.Prepare(ctx, runner.Workspace{ID: BatchID, Dir: ws, Overrides: overrides})
	}
	if sess != nil {
		defer func() {
			if err := sess.Close(); err != nil {
				st.obs.Warn(fmt.Sprintf("batch: clean up the runner's files: %v", err))
			}
		}()
	}
	if err != nil {
		c.ExitCode, c.Status, c.Error = -1, results.StatusError, "prepare the workspace: "+err.Error()
	} else {
		cr.sess = sess
		cr.wired = fileExists(filepath.Join(ws, hook.HandlersFile))
		trFile, err := os.Create(filepath.Join(st.dir.Path, rundir.TranscriptFile))
		if err != nil {
			return nil, fmt.Errorf("create the transcript: %w", err)
		}
		trRed := st.runRedactor().JSONWriter(trFile)
		cr.tr = transcript.NewWriter(trRed)
		st.invoke(ctx, cr, c, st.dir.Path, prompt, invocationSpec{}, true)
		MarkOverLimit(c, cr.coll)
		st.checkTamper(c, nil)
		if err := errors.Join(cr.tr.Flush(), trRed.Close(), trFile.Close()); err != nil {
			st.obs.Warn(fmt.Sprintf("batch: write the transcript: %v", err))
		}
		st.writeEvents("batch", st.dir.BatchFolder())
	}
	r := st.newRun()
	r.PerCase, r.Batch = nil, c
	r.NumCases, r.ExitCode, r.DurationS, r.CostUSD = len(ids), c.ExitCode, c.DurationS, c.CostUSD
	r.TokenUsage, r.NumTurns, r.PerModelUsage = c.TokenUsage, c.NumTurns, c.PerModelUsage
	denials := c.PermissionDenials
	r.PermissionDenials = &denials
	r.WallClockS = time.Since(start).Seconds()
	r.Interrupted = ctx.Err() != nil
	RedactCase(c, st.runRedactor())
	st.countViolations(c, st.dir.BatchFolder())
	r.Violations = &results.ViolationTotals{}
	r.Violations.AddCase(c.Violations)
	// A batch whose outputs could not be assigned keeps its result: its
	// cases are then missing or empty, and score fails the verdict.
	if err := st.collectBatch(c, entryCounts); err != nil {
		st.obs.Warn(fmt.Sprintf("batch: assign the outputs to the cases: %v", err))
		c.Error = strings.TrimSpace(c.Error + " the outputs could not be assigned to the cases: " + err.Error())
	}
	st.markSecrets(st.dir.Path)
	if err := results.WriteJSON(st.dir.RunResult(), r); err != nil {
		return nil, fmt.Errorf("write the run's result: %w", err)
	}
	st.obs.CaseFinished(c)
	st.obs.RunFinished(Summary{Run: r, Dir: st.dir.Path})
	return r, nil
}

// orderEntry is one line of case_order.yaml: a case and how many entries
// of batch.yaml are its.
type orderEntry struct {
	ID      string
	Entries int
}

// assignBatch assigns a batch run's collected output files to its cases.
// files maps each outputs[].path to the names found under it, relative to
// the outputs folder ("reports/case-001.md"). An output whose
// batch_pattern is "*" (or that has none, beside outputs that have one) is
// shared with every case; one with {n} gives a file to the case whose
// counter (1-based, advancing by each case's entry count) expands to a
// prefix of its name below the output path. Without any pattern the batch
// is one case, unitID, with every file.
func assignBatch(outputs []config.Output, order []orderEntry, files map[string][]string, unitID string) (*rundir.BatchAssignment, error) {
	a := &rundir.BatchAssignment{Cases: map[string][]string{}}
	unit := true
	for _, o := range outputs {
		if o.Path != "" {
			a.Outputs = append(a.Outputs, rundir.BatchOutput{Path: o.Path, Pattern: o.BatchPattern})
			unit = unit && o.BatchPattern == ""
		}
	}
	if unit {
		a.Unit, a.UnitID, a.Order = true, unitID, []string{unitID}
		a.Cases[unitID] = []string{}
	} else {
		for _, e := range order {
			a.Order = append(a.Order, e.ID)
			a.Cases[e.ID] = []string{}
		}
	}
	give := func(id, f string) { a.Cases[id] = append(a.Cases[id], f) }
	for _, o := range a.Outputs {
		var pat config.BatchPattern
		if o.Pattern != "" {
			p, err := config.ParseBatchPattern(o.Pattern)
			if err != nil {
				return nil, fmt.Errorf("outputs %s: batch_pattern %w", o.Path, err)
			}
			pat = p
		}
		names := slices.Clone(files[o.Path])
		slices.Sort(names)
		for _, f := range names {
			rel, ok := strings.CutPrefix(f, o.Path+"/")
			switch {
			case !filepath.IsLocal(filepath.FromSlash(f)) || strings.Contains(f, "\\"):
				a.Refused = append(a.Refused, f)
				continue
			case !ok:
				rel = path.Base(f) // the output path is the file itself
			}
			switch {
			case unit:
				give(unitID, f)
			case o.Pattern == "" || pat.Shared:
				a.Shared = append(a.Shared, f)
				for _, e := range order {
					give(e.ID, f)
				}
			default:
				owner := ""
				n := 1
				for _, e := range order {
					for k := range e.Entries {
						if owner == "" && pat.Matches(rel, n+k) {
							owner = e.ID
						}
					}
					n += e.Entries
				}
				if owner == "" {
					a.Unassigned = append(a.Unassigned, f)
				} else {
					give(owner, f)
				}
			}
		}
	}
	return a, nil
}

// listOutputs lists the regular files collected under each output path of
// the batch, relative to the outputs folder; links were never collected.
func listOutputs(root string, outputs []config.Output) (map[string][]string, error) {
	out := map[string][]string{}
	for _, o := range outputs {
		if o.Path == "" {
			continue
		}
		top := filepath.Join(root, filepath.FromSlash(o.Path))
		err := filepath.WalkDir(top, func(p string, e fs.DirEntry, err error) error {
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) && p == top {
					return nil
				}
				return err
			}
			if e.Type().IsRegular() {
				rel, err := filepath.Rel(root, p)
				if err != nil {
					return err
				}
				out[o.Path] = append(out[o.Path], filepath.ToSlash(rel))
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("list the batch's outputs under %s: %w", o.Path, err)
		}
	}
	return out, nil
}

// collectBatch gives each case of the batch its folder: its share of the
// outputs, and the batch's result under its id (the transcript and ledger
// stay the batch's, at the run's root). batch_outputs.json records which
// file went where.
func (st *state) collectBatch(c *results.Case, order []orderEntry) error {
	dir := rundir.Dir{Path: st.dir.Path}
	// One the agent wrote there would name the cases score judges when
	// collection fails before writing the run's own.
	if err := os.RemoveAll(dir.BatchOutputs()); err != nil {
		return fmt.Errorf("remove a %s the run did not write: %w", rundir.BatchOutputsFile, err)
	}
	files, err := listOutputs(dir.RootOutputs(), st.ev.Outputs)
	if err != nil {
		return err
	}
	a, err := assignBatch(st.ev.Outputs, order, files, BatchID)
	if err != nil {
		return err
	}
	for _, id := range a.Order {
		if err := freshDir(dir.Case(id)); err != nil {
			return fmt.Errorf("batch: make the folder of %s: %w", id, err)
		}
		for _, f := range a.Cases[id] {
			if err := workspace.CopyOut(dir.RootOutputs(), filepath.FromSlash(f), filepath.Join(dir.Outputs(id), filepath.FromSlash(f))); err != nil {
				return fmt.Errorf("batch: copy %s to %s: %w", f, id, err)
			}
		}
		cc := *c
		cc.CaseID = id
		if err := results.WriteJSON(dir.CaseResult(id), &cc); err != nil {
			return fmt.Errorf("batch: write the result of %s: %w", id, err)
		}
	}
	if n := len(a.Unassigned); n > 0 {
		st.obs.Warn(fmt.Sprintf("batch: %d output file(s) matched no case's batch_pattern and are not judged: %s (see %s)", n, strings.Join(a.Unassigned, ", "), rundir.BatchOutputsFile))
	}
	if n := len(a.Refused); n > 0 {
		st.obs.Warn(fmt.Sprintf("batch: %d output name(s) would leave the case's folder and were refused: %s", n, strings.Join(a.Refused, ", ")))
	}
	return dir.WriteBatchAssignment(a)
}

// freshDir makes dir an empty folder, removing whatever was there.
func freshDir(dir string) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	return os.MkdirAll(dir, 0o755)
}
