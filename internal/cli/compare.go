package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/report"
	"github.com/agent-eval/agent-eval/internal/rundir"
	"github.com/agent-eval/agent-eval/internal/score"
)

type compareOptions struct {
	config     string
	judgeModel string
	noPairwise bool
	noCache    bool
	json       bool
	configSet  bool // -c was given (compareEval)
}

func newCompareCmd(e env) *cobra.Command {
	opts := compareOptions{}
	cmd := &cobra.Command{
		Use:   "compare RUN_A RUN_B",
		Short: "Compare two scored runs: per-judge deltas and a pairwise LLM judge",
		Long: `Compare two scored runs (score both first): per judge, the mean and pass rate
of each and what got better or worse per case; then, when a judge model is
known (--judge-model, the pairwise judge's model, models.judge or
$EVAL_JUDGE_MODEL), a pairwise LLM judge reads both runs' outputs of each case
twice, with the positions swapped: a run wins a case only when it wins both
orders. Win rates count ties as half. compare.yaml is written into RUN_A.

Exit status: 0 when compared, 2 for a usage or configuration error, 3 when the
comparison failed.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 2 {
				return usageErrorf("compare takes two run directories, RUN_A and RUN_B; got %d argument(s)", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.configSet = cmd.Flags().Changed("config")
			return runCompare(cmd.Context(), e, opts, args[0], args[1])
		},
	}
	f := cmd.Flags()
	f.StringVarP(&opts.config, "config", "c", "eval.yaml", "the eval config `FILE` (for the pairwise judge's prompt and model; default: the run's own copy)")
	f.StringVar(&opts.judgeModel, "judge-model", "", "the pairwise judge's `MODEL`")
	f.BoolVar(&opts.noPairwise, "no-pairwise", false, "compare the summaries only; call no model")
	f.BoolVar(&opts.noCache, "no-cache", false, "call the model for every comparison, ignoring RUN_A's judge_cache/")
	f.BoolVar(&opts.json, "json", false, "print compare.yaml as JSON on stdout")
	return cmd
}

func runCompare(ctx context.Context, e env, opts compareOptions, a, b string) error {
	da, err := openRun(a)
	if err != nil {
		return err
	}
	db, err := openRun(b)
	if err != nil {
		return err
	}
	ev, err := compareEval(e, opts, da)
	if err != nil {
		return err
	}
	sa, err := da.ReadSummary()
	if err != nil {
		return usageErrorf("%s is not scored (run agent-eval score %s first): %v", a, a, err)
	}
	sb, err := db.ReadSummary()
	if err != nil {
		return usageErrorf("%s is not scored (run agent-eval score %s first): %v", b, b, err)
	}
	c := &rundir.CompareSummary{SchemaVersion: rundir.SummaryVersion, ComparedAt: time.Now().UTC().Format(time.RFC3339), RunA: filepath.Base(da.Path), RunB: filepath.Base(db.Path),
		Comparison: *score.Compare(sa, sb, db.Path)}
	model := opts.judgeModel
	var pj *config.Judge
	if ev != nil {
		for i := range ev.Judges {
			if ev.Judges[i].Name == score.Pairwise {
				pj = &ev.Judges[i]
			}
		}
		if model == "" && pj != nil {
			model = pj.Model
		}
		if model == "" {
			model = score.JudgeModel(ev, e.Getenv)
		}
	} else if model == "" {
		model = e.Getenv("EVAL_JUDGE_MODEL")
	}
	switch {
	case opts.noPairwise:
	case model == "":
		fmt.Fprintln(e.Err, "agent-eval: no judge model (--judge-model, models.judge or $EVAL_JUDGE_MODEL): comparing the summaries only")
	default:
		fmt.Fprintf(e.Err, "agent-eval: pairwise comparison of %s and %s with %s\n", c.RunA, c.RunB, model)
		p, err := score.RunPairwise(ctx, score.PairwiseOptions{Run: da, Baseline: db, Eval: ev, Judge: pj, Model: model, LLM: score.NewLLMRunner(da, 4, opts.noCache)})
		if err != nil {
			return fmt.Errorf("compare: %w", err)
		}
		c.Comparison.Pairwise = p
	}
	if err := da.WriteCompare(c); err != nil {
		return err
	}
	if err := report.WriteCompare(filepath.Join(da.Path, report.CompareFile), db, da, &c.Comparison); err != nil {
		return fmt.Errorf("write the comparison page: %w", err)
	}
	printCompare(e.Err, c)
	fmt.Fprintf(e.Err, "agent-eval: wrote %s\n", da.Compare())
	if opts.json {
		return writeSummaryJSON(e.Out, c)
	}
	return nil
}

func openRun(p string) (rundir.Dir, error) {
	if _, err := os.Stat(p); err != nil {
		return rundir.Dir{}, usageErrorf("no run directory %s", p)
	}
	d, err := rundir.Open(p)
	if err != nil {
		return rundir.Dir{}, &UsageError{Err: err}
	}
	return d, nil
}

func printCompare(w io.Writer, c *rundir.CompareSummary) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "JUDGE\t%s\t%s\tWIN RATE\t\n", c.RunA, c.RunB)
	for _, d := range c.Comparison.Judges {
		now, before := mean(d.MeanNow), mean(d.MeanBefore)
		if d.PassNow != nil || d.PassBefore != nil {
			now, before = pct(d.PassNow), pct(d.PassBefore)
		}
		flag := ""
		if d.Regression {
			flag = "worse"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", d.Judge, now, before, mean(d.WinRate), flag)
	}
	_ = tw.Flush()
	fmt.Fprintf(w, "%d (case, judge) pair(s) better, %d worse", len(c.Comparison.Better), len(c.Comparison.Worse))
	if c.Comparison.WinRate != nil {
		fmt.Fprintf(w, ", win rate %.2f", *c.Comparison.WinRate)
	}
	fmt.Fprintln(w)
	if p := c.Comparison.Pairwise; p != nil {
		fmt.Fprintf(w, "pairwise (%s): %s wins %d | %s wins %d | ties %d | errors %d", p.Model, c.RunA, p.WinsA, c.RunB, p.WinsB, p.Ties, p.Errors)
		if p.WinRate != nil {
			fmt.Fprintf(w, " | win rate %.2f", *p.WinRate)
		}
		fmt.Fprintln(w)
	}
}
