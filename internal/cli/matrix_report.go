package cli

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	yaml "go.yaml.in/yaml/v3"

	"github.com/agent-eval/agent-eval/internal/atomicfile"
	"github.com/agent-eval/agent-eval/internal/matrix"
	"github.com/agent-eval/agent-eval/internal/rundir"
)

type matrixReportOptions struct {
	config string
}

func newMatrixReportCmd(e env) *cobra.Command {
	opts := matrixReportOptions{}
	cmd := &cobra.Command{
		Use:   "report [MATRIX_DIR]",
		Short: "Write a matrix's ANOVA tables and cost-vs-score Pareto fronts (matrix.yaml, matrix.html)",
		Long: `Read the scored cells of the matrix in MATRIX_DIR (default: the latest matrix
of the eval -c names) and write into it matrix.yaml and matrix.html: for
each judge, the Type II ANOVA table (term, SS, DF, MS, F, P, η², partial η²)
of the cases' values in every cell, with the factors of two or more levels
and their interactions as its terms, and the cells' cost-versus-score Pareto
front (a cell's score is the judge's mean over its cases). matrix.html adds
a scatter of the cells with the front drawn; it loads nothing from outside.
Both hold, per factor and level, the cells' summed cost and each judge's
mean (the agents side by side, when the runner is a factor), and the
violations by level.

stdout gets the tables; cells not scored yet are left out and named on
stderr.

Exit status: 0, or 2 when there is no such matrix or no cell is scored.`,
		Args: maxArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			return runMatrixReport(e, opts, optionalArg(args))
		},
	}
	runConfigFlag(cmd.Flags(), &opts.config, "the eval config `FILE` whose latest matrix is reported when no MATRIX_DIR is given")
	return cmd
}

func runMatrixReport(e env, opts matrixReportOptions, dirArg string) error {
	d, ix, err := matrixArg(e, opts.config, dirArg)
	if err != nil {
		return err
	}
	sums := map[string]*rundir.Summary{}
	for _, c := range ix.Cells {
		if d.CellState(c.Name) != matrix.StateScored {
			continue
		}
		s, err := d.Cell(c.Name).ReadSummary()
		if err != nil {
			return fmt.Errorf("read cell %s: %w", c.Name, err)
		}
		sums[c.Name] = s
	}
	if len(sums) == 0 {
		return inputErrorf("no cell of %s is scored yet; run agent-eval matrix run --resume", d.Path)
	}
	r := matrix.Analyze(ix, sums)
	if len(r.Unscored) > 0 {
		fmt.Fprintf(e.Err, "agent-eval: %d cell(s) not scored, left out: %s\n", len(r.Unscored), strings.Join(r.Unscored, ", "))
	}
	b, err := yaml.Marshal(r)
	if err != nil {
		return fmt.Errorf("encode %s: %w", matrix.ReportYAML, err)
	}
	if err := atomicfile.Write(d.ReportYAML(), b, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", d.ReportYAML(), err)
	}
	page, err := matrix.HTML(r)
	if err != nil {
		return err
	}
	if err := atomicfile.Write(d.ReportHTML(), page, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", d.ReportHTML(), err)
	}
	if err := printMatrixReport(e.Out, r); err != nil {
		return err
	}
	fmt.Fprintf(e.Err, "agent-eval: wrote %s and %s\n", d.ReportYAML(), d.ReportHTML())
	return nil
}

// printMatrixReport writes each judge's ANOVA table and Pareto front, then
// the violations by each factor's level.
func printMatrixReport(w io.Writer, r matrix.Report) error {
	num := func(p *float64) string {
		if p == nil {
			return "-"
		}
		return strconv.FormatFloat(*p, 'g', 6, 64)
	}
	for i, j := range r.Judges {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "judge %s: %d observation(s)\n", j.Judge, j.Observations)
		if j.ANOVANote != "" {
			fmt.Fprintf(w, "  %s\n", j.ANOVANote)
		}
		if len(j.ANOVA) > 0 {
			tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "  TERM\tSS\tDF\tMS\tF\tP\tETA_SQ\tPARTIAL_ETA_SQ")
			for _, t := range j.ANOVA {
				ss, df := t.SS, t.DF
				fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", t.Term, num(&ss), num(&df), num(t.MS), num(t.F), num(t.P), num(t.EtaSq), num(t.PartialEtaSq))
			}
			if err := tw.Flush(); err != nil {
				return err
			}
		}
		fmt.Fprintf(w, "  pareto front (cost vs score): %s\n", strings.Join(j.Pareto, ", "))
	}
	if len(r.ByLevel) > 0 {
		if len(r.Judges) > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintln(w, "by level (cells, summed cost, each judge's mean over their cases):")
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		head := "  FACTOR\tLEVEL\tCELLS\tCOST_USD"
		for _, j := range r.Judges {
			head += "\t" + strings.ToUpper(j.Judge)
		}
		fmt.Fprintln(tw, head)
		for _, l := range r.ByLevel {
			row := fmt.Sprintf("  %s\t%s\t%d\t%.4f", l.Factor, l.Level, l.Cells, l.CostUSD)
			for _, j := range r.Judges {
				m, ok := l.Means[j.Judge]
				if !ok {
					row += "\t-"
					continue
				}
				row += "\t" + strconv.FormatFloat(m, 'g', 4, 64)
			}
			fmt.Fprintln(tw, row)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if len(r.Violations) > 0 {
		if len(r.Judges) > 0 || len(r.ByLevel) > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintln(w, "violations (what the agents tried that their world refused), by level:")
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "  FACTOR\tLEVEL\tCELLS\tCASES\tWITH_ANY\tVIOLATIONS\tBY_KIND")
		for _, v := range r.Violations {
			fmt.Fprintf(tw, "  %s\t%s\t%d\t%d\t%d\t%d\t%s\n", v.Factor, v.Level, v.Cells, v.Cases, v.CasesWith, v.Total, matrix.KindsText(v.ByKind))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return nil
}
