package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/engine"
	"github.com/agent-eval/agent-eval/internal/intercept"
	"github.com/agent-eval/agent-eval/internal/matrix"
	"github.com/agent-eval/agent-eval/internal/results"
	"github.com/agent-eval/agent-eval/internal/rundir"
)

type matrixRunOptions struct {
	config    string
	id        string
	parallel  int
	fakeModel bool
	resume    bool
	// noLLMJudges is --no-llm-judges for each cell's scoring.
	noLLMJudges bool
}

func newMatrixRunCmd(e env) *cobra.Command {
	opts := matrixRunOptions{}
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Run and score every cell of the eval's matrix",
		Long: `Run every cell of eval.yaml's matrix: block, each an ordinary run (the cell's
agent and model, its other factors set in every case's input, as input.yaml
and {name} placeholders see them) into <runs-dir>/<eval-name>/matrix-<id>/cells/<cell>/,
indexed by matrix.json; then score each cell (summary.yaml in its run
directory). --resume continues the matrix --id names (default: the latest):
cells that finished are skipped, unfinished ones resumed, the rest run.

--fake-model serves each case's fake_model.yaml (and the LLM judges the
dataset's fake_judge.yaml) through the built-in fake of the Messages API.

stdout gets the cells' table when they have run, stderr the progress.
'agent-eval matrix report' then writes the ANOVA and the Pareto front.

Exit status: 0 when every cell ran and was scored (failing cases and breached
thresholds are the matrix's data, not its failure), 2 for a usage or
configuration error, 3 for a harness failure, 130 when interrupted.`,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runMatrixRun(cmd.Context(), e, opts)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&opts.config, "config", "c", "eval.yaml", "the eval config `FILE`, or the folder holding eval.yaml")
	f.StringVar(&opts.id, "id", "", "the matrix's `ID`: its folder is matrix-ID (default: YYYYMMDD-HHMMSS; with --resume, the latest matrix)")
	f.IntVar(&opts.parallel, "parallel-cells", 1, "cells run at once (each runs its cases with execution.parallelism)")
	f.BoolVar(&opts.fakeModel, "fake-model", false, "answer with each case's fake_model.yaml through the built-in fake Messages API")
	f.BoolVar(&opts.resume, "resume", false, "continue the matrix --id names (default: the latest): skip the finished cells, resume the unfinished ones")
	noLLMJudgesFlag(f, &opts.noLLMJudges)
	return cmd
}

// matrixCell is a cell with its plan, ready to run.
type matrixCell struct {
	cell  matrix.Cell
	state matrix.State
	plan  engine.Plan
	// ev is the eval the cell runs: eval.yaml, or its runner level's.
	ev *config.Eval
}

// levelEvals runs the checks run makes before any agent starts, and
// prints eval.yaml's warnings once. With a runner factor each level's eval
// (config.ForRunner) is checked, its problems placed in eval.yaml; they
// are returned by level name (nil without a runner factor).
func levelEvals(e env, ev *config.Eval, opts runOptions) (map[string]*config.Eval, error) {
	levels := ev.Matrix.RunnerLevels()
	if len(levels) == 0 {
		return nil, preflight(e, ev, opts)
	}
	for _, w := range ev.Warnings {
		fmt.Fprintln(e.Err, w.Error())
	}
	out := map[string]*config.Eval{}
	for _, l := range levels {
		cev, err := ev.ForRunner(l)
		if err != nil {
			return nil, ev.LevelErrors(l, err)
		}
		cev.Warnings = nil // eval.yaml's, printed above with its own lines
		if err := preflight(e, cev, opts); err != nil {
			return nil, ev.LevelErrors(l, err)
		}
		out[l.Name] = cev
	}
	return out, nil
}

func runMatrixRun(ctx context.Context, e env, opts matrixRunOptions) error {
	if opts.parallel < 1 {
		return usageErrorf("--parallel-cells must be at least 1, got %d", opts.parallel)
	}
	ev, err := config.Load(opts.config)
	if err != nil {
		return err
	}
	if ev.Matrix == nil || len(ev.Matrix.Factors) == 0 {
		return inputErrorf("%s declares no matrix: block (matrix.factors); run it with agent-eval run", ev.Path())
	}
	// The notice that run runs only the base configuration is not this
	// command's.
	ev.Warnings = slices.DeleteFunc(slices.Clone(ev.Warnings), func(w config.Error) bool { return w.Field == "matrix" })
	levels, err := levelEvals(e, ev, runOptions{score: true, fakeModel: opts.fakeModel, noLLMJudges: opts.noLLMJudges})
	if err != nil {
		return err
	}
	d, ix, err := openMatrix(e, ev, opts)
	if err != nil {
		return err
	}
	harness, err := harnessBin(e)
	if err != nil {
		return err
	}
	var cells []matrixCell
	for _, c := range matrix.Expand(ev.Matrix) {
		mc := matrixCell{cell: c, state: d.CellState(c.Name), ev: ev}
		if mc.state == matrix.StateRunning {
			return inputErrorf("cell %s is still running (%s); wait for it, or for the other matrix run to end", c.Name, d.Cell(c.Name).Path)
		}
		if l, ok := c.Runner(); ok {
			mc.ev = levels[l.Name]
		}
		cev := mc.ev
		p, err := engine.NewPlan(cev, opts.config, engine.Flags{Model: c.Model(), RunID: c.Name, MaxBudgetUSD: -1, RetryErrors: -1,
			FakeModel: opts.fakeModel, Resume: mc.state == matrix.StateUnfinish, InputOverrides: c.InputOverrides()},
			engine.Environment{Getenv: e.Getenv, Dir: mustGetwd(), HarnessBin: harness, Now: time.Now(), Args: append([]string{"agent-eval"}, e.Args...)})
		if err != nil {
			return runError(fmt.Errorf("cell %s: %w", c.Name, err))
		}
		p.RunsDir = d.Cells()
		p.LoadHandlers = func(ctx context.Context, warn func(string)) (*intercept.File, error) {
			return loadHandlers(ctx, cev, e.Getenv, warn)
		}
		if p.Mode == engine.ModeCase {
			if err := commandProblems(cev, p.Cases, c.InputOverrides()); err != nil {
				if l, ok := c.Runner(); ok {
					err = ev.LevelErrors(l, err)
				}
				return err
			}
		}
		cells = append(cells, mc)
		cells[len(cells)-1].plan = p
	}
	fmt.Fprintf(e.Err, "agent-eval: matrix %s: %d cell(s) in %s\n", ix.ID, len(cells), d.Path)
	if err := runCells(ctx, e, cells, opts.parallel); err != nil {
		return err
	}
	for _, mc := range cells {
		if st := d.CellState(mc.cell.Name); st != matrix.StateFinished {
			continue
		}
		// A cell's run id is its name, the same in every matrix: MLflow
		// would take it for the last matrix's cell and update that.
		err := scoreRun(ctx, e, mc.ev, scoreOptions{config: opts.config, concurrency: 4, fakeModel: opts.fakeModel, noMLflow: true, noLLMJudges: opts.noLLMJudges}, d.Cell(mc.cell.Name), nil)
		var gate errReported
		if errors.As(err, &gate) && gate.code == ExitGate {
			err = nil // a breached threshold is the cell's result
		}
		if err != nil {
			return fmt.Errorf("score cell %s: %w", mc.cell.Name, err)
		}
	}
	fmt.Fprintf(e.Err, "agent-eval: matrix %s done; agent-eval matrix report %s writes the ANOVA and the Pareto front\n", ix.ID, d.Path)
	return printCells(e.Out, d, ix)
}

// openMatrix makes the matrix folder and its index, or with --resume
// opens the one --id (else the latest) names and checks eval.yaml still
// declares its cells.
func openMatrix(e env, ev *config.Eval, opts matrixRunOptions) (matrix.Dir, matrix.Index, error) {
	runsDir := ev.RunsDir(e.Getenv)
	if opts.id != "" && !rundir.SafeSegment(opts.id) {
		return matrix.Dir{}, matrix.Index{}, usageErrorf("--id %q is not a safe folder name", opts.id)
	}
	if opts.resume {
		var d matrix.Dir
		if opts.id != "" {
			d = matrix.Folder(runsDir, opts.id)
		} else {
			p, err := latestMatrix(runsDir)
			if err != nil {
				return d, matrix.Index{}, err
			}
			d = matrix.Dir{Path: p}
		}
		ix, err := d.ReadIndex()
		if err != nil {
			return d, ix, inputErrorf("--resume: %v", err)
		}
		want := matrix.NewIndex(ix.ID, ev.EvalName(), ev.Matrix, time.Now())
		if !slices.EqualFunc(ix.Cells, want.Cells, sameCell) {
			return d, ix, inputErrorf("--resume: %s's matrix: block no longer declares the cells of %s; start a new matrix without --resume", ev.Path(), d.Index())
		}
		return d, ix, nil
	}
	id := opts.id
	if id == "" {
		id = time.Now().Format("20060102-150405")
	}
	d := matrix.Folder(runsDir, id)
	if _, err := os.Stat(d.Path); err == nil {
		return d, matrix.Index{}, inputErrorf("matrix %s exists (%s); continue it with --resume --id %s, or give another --id", id, d.Path, id)
	}
	ix := matrix.NewIndex(id, ev.EvalName(), ev.Matrix, time.Now())
	if err := d.WriteIndex(ix); err != nil {
		return d, ix, err
	}
	return d, ix, nil
}

// sameCell reports whether two index cells are one: the same name and
// levels (a runner level keeps its name when its model changes).
func sameCell(a, b matrix.IndexCell) bool {
	ja, errA := json.Marshal(a.Levels)
	jb, errB := json.Marshal(b.Levels)
	return a.Name == b.Name && errA == nil && errB == nil && string(ja) == string(jb)
}

// runCells runs the cells that have not finished, parallel at once. An
// interrupt stops the matrix; a cell's harness failure is the matrix's.
func runCells(ctx context.Context, e env, cells []matrixCell, parallel int) error {
	var mu sync.Mutex
	var errs []error
	sem := make(chan struct{}, parallel)
	var wg sync.WaitGroup
	for _, mc := range cells {
		if mc.state == matrix.StateFinished || mc.state == matrix.StateScored {
			fmt.Fprintf(e.Err, "agent-eval: cell %s has finished; skipped\n", mc.cell.Name)
			continue
		}
		if ctx.Err() != nil {
			break
		}
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			obs := &cellObserver{w: e.Err, mu: &mu, cell: mc.cell.Name}
			r, err := engine.Run(ctx, mc.plan, runners(mc.ev), obs)
			var done *engine.NothingToResumeError
			switch {
			case errors.As(err, &done):
				err = nil
			case err == nil && r != nil && r.Interrupted:
				err = context.Canceled
			case err != nil:
				err = runError(fmt.Errorf("run cell %s: %w", mc.cell.Name, err))
			}
			if err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if ctx.Err() != nil {
		fmt.Fprintln(e.Err, "interrupted: continue the matrix with agent-eval matrix run --resume")
		return context.Canceled
	}
	return errors.Join(errs...)
}

// cellObserver reports a cell's run as lines on stderr, each naming the
// cell (cells may run at once).
type cellObserver struct {
	w    io.Writer
	mu   *sync.Mutex
	cell string
}

func (o *cellObserver) line(format string, args ...any) {
	o.mu.Lock()
	defer o.mu.Unlock()
	fmt.Fprintf(o.w, "agent-eval: cell %s: %s\n", o.cell, fmt.Sprintf(format, args...))
}

func (o *cellObserver) RunStarted(i engine.RunInfo) {
	verb := "running"
	if i.Resume {
		verb = "resuming:"
	}
	o.line("%s %d of %d case(s) with %s, model %s", verb, i.ToRun, i.Total, filepath.Base(i.Agent), i.Model)
}
func (o *cellObserver) AgentStarted(string) {}
func (o *cellObserver) CaseFinished(c *results.Case) {
	o.line("case %s %s (exit %d)", c.CaseID, c.Status, c.ExitCode)
}
func (o *cellObserver) Warn(msg string) { o.line("warning: %s", msg) }
func (o *cellObserver) Note(msg string) { o.line("%s", msg) }
func (o *cellObserver) RunFinished(s engine.Summary) {
	if s.Run != nil {
		o.line("done: %d case(s), $%.4f", s.Run.NumCases, s.Run.CostUSD)
	}
}
