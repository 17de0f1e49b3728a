package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/results"
	"github.com/agent-eval/agent-eval/internal/rundir"
	"github.com/agent-eval/agent-eval/internal/runner"
	"github.com/agent-eval/agent-eval/internal/transcript"
	"github.com/agent-eval/agent-eval/internal/workspace"
)

// runBatch runs one agent over every case in one shared workspace holding
// batch.yaml (the cases' inputs, in order) and case_order.yaml.
func (st *state) runBatch(ctx context.Context, start time.Time) (*results.Run, error) {
	ids := st.p.Cases
	ws := st.ws[BatchID]
	if st.ev.Dataset.Workspace != nil && slices.ContainsFunc(st.ev.Dataset.Workspace.Files, func(f config.WorkspaceFile) bool { return f.Path != "" }) {
		st.obs.Warn("per-case dataset.workspace.files are ignored in batch mode")
	}
	var entries []any
	var order []map[string]any
	overrides := map[string]string{}
	for _, id := range ids {
		caseDir := filepath.Join(st.ev.DatasetDir(), id)
		input, err := workspace.ReadInput(caseDir)
		if err != nil || input == nil {
			st.obs.Warn(fmt.Sprintf("case %s has no readable input; left out of batch.yaml (%v)", id, err))
			order = append(order, map[string]any{"case_id": id, "entry_count": 0})
			continue
		}
		entries = append(entries, input)
		order = append(order, map[string]any{"case_id": id, "entry_count": 1})
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
	cr := &caseRun{c: c, ws: ws, out: st.dir.Path}
	err := st.fillWorkspace(ws, "")
	var sess runner.Session
	if err == nil {
		sess, err = st.rr.Prepare(ctx, runner.Workspace{ID: BatchID, Dir: ws, Overrides: overrides})
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
		trFile, err := os.Create(filepath.Join(st.dir.Path, rundir.TranscriptFile))
		if err != nil {
			return nil, fmt.Errorf("create the transcript: %w", err)
		}
		trRed := st.runRedactor().JSONWriter(trFile)
		cr.tr = transcript.NewWriter(trRed)
		st.invoke(ctx, cr, c, st.dir.Path, prompt, invocationSpec{}, true)
		st.checkTamper(c, nil)
		if err := errors.Join(cr.tr.Flush(), trRed.Close(), trFile.Close()); err != nil {
			st.obs.Warn(fmt.Sprintf("batch: write the transcript: %v", err))
		}
	}
	r := st.newRun()
	r.PerCase, r.Batch = nil, c
	r.NumCases, r.ExitCode, r.DurationS, r.CostUSD = len(ids), c.ExitCode, c.DurationS, c.CostUSD
	r.TokenUsage, r.NumTurns, r.PerModelUsage = c.TokenUsage, c.NumTurns, c.PerModelUsage
	denials := c.PermissionDenials
	r.PermissionDenials = &denials
	r.WallClockS = time.Since(start).Seconds()
	r.Interrupted = ctx.Err() != nil
	redactCase(c, st.runRedactor())
	st.markSecrets(st.dir.Path)
	if err := results.WriteJSON(st.dir.RunResult(), r); err != nil {
		return nil, fmt.Errorf("write the run's result: %w", err)
	}
	st.obs.CaseFinished(c)
	st.obs.RunFinished(Summary{Run: r, Dir: st.dir.Path})
	return r, nil
}
