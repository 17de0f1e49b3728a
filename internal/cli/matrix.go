package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/matrix"
)

func newMatrixCmd(e env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "matrix",
		Short: "Run an experiment matrix (eval.yaml's matrix: block): every cell, its status, the ANOVA report",
		Long: `An experiment matrix runs the eval once per cell: every combination of the
levels of matrix.factors ("model" sets the model, "runner" the agent and its
model (docs/agent-matrix.md), any other factor a field of every case's
input), each matrix.replications times. The cells live in
<runs-dir>/<eval-name>/matrix-<id>/cells/<cell>/, each a normal run directory
that score and report read as they read any run, and matrix.json indexes them.

'matrix run' runs and scores every cell, 'matrix status' lists the cells and
how far each has got, 'matrix report' writes matrix.yaml and matrix.html:
per judge, the Type II ANOVA of the per-case values over the factors and the
cells' cost-versus-score Pareto front.`,
	}
	cmd.AddCommand(newMatrixRunCmd(e), newMatrixStatusCmd(e), newMatrixReportCmd(e))
	return cmd
}

// matrixArg finds the matrix folder: dirArg when given, else the latest
// matrix under the runs directory of the eval at config.
func matrixArg(e env, cfgPath, dirArg string) (matrix.Dir, matrix.Index, error) {
	if dirArg == "" {
		ev, err := config.Load(cfgPath)
		if err != nil {
			return matrix.Dir{}, matrix.Index{}, err
		}
		if dirArg, err = latestMatrix(ev.RunsDir(e.Getenv)); err != nil {
			return matrix.Dir{}, matrix.Index{}, err
		}
	}
	d := matrix.Dir{Path: dirArg}
	ix, err := d.ReadIndex()
	if err != nil {
		return d, ix, inputErrorf("%v", err)
	}
	return d, ix, nil
}

// latestMatrix is the matrix folder under runsDir whose matrix.json was
// written last.
func latestMatrix(runsDir string) (string, error) {
	entries, _ := os.ReadDir(runsDir)
	best, bestTime := "", int64(0)
	for _, en := range entries {
		if !en.IsDir() || !strings.HasPrefix(en.Name(), matrix.FolderPrefix) {
			continue
		}
		p := filepath.Join(runsDir, en.Name())
		fi, err := os.Stat(filepath.Join(p, matrix.IndexFile))
		if err != nil {
			continue
		}
		if t := fi.ModTime().UnixNano(); best == "" || t > bestTime || (t == bestTime && p > best) {
			best, bestTime = p, t
		}
	}
	if best == "" {
		return "", inputErrorf("no matrix under %s; run agent-eval matrix run, or give the MATRIX_DIR", runsDir)
	}
	return best, nil
}

// printCells writes the cells' table: name, levels, replication, state.
func printCells(w io.Writer, d matrix.Dir, ix matrix.Index) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	head := []string{"CELL"}
	for _, f := range ix.Factors {
		head = append(head, strings.ToUpper(f.Name))
	}
	fmt.Fprintln(tw, strings.Join(append(head, "REP", "STATE", "RUN_DIR"), "\t"))
	for _, c := range ix.Cells {
		row := []string{c.Name}
		levels := c.Cell().LevelTexts()
		for _, f := range ix.Factors {
			row = append(row, levels[f.Name])
		}
		row = append(row, fmt.Sprint(c.Replication), string(d.CellState(c.Name)), filepath.Join(d.Path, filepath.FromSlash(c.RunDir)))
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	return tw.Flush()
}
