package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
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
	force      bool
	configSet  bool // -c was given (compareEval)
}

func newCompareCmd(e env) *cobra.Command {
	opts := compareOptions{}
	cmd := &cobra.Command{
		Use:   "compare BASE NEW",
		Short: "Compare two scored runs, base first: per-judge deltas and a pairwise LLM judge",
		Long: `Compare two scored runs of one eval (score both first), the base first and the
new run second, as diff does: per judge, the mean and pass rate of each and
what got better or worse per case in NEW; then, when a judge model is
known (--judge-model, the pairwise judge's model, models.judge or
$EVAL_JUDGE_MODEL), a pairwise LLM judge reads both runs' outputs of each case
twice, with the positions swapped: a run wins a case only when it wins both
orders. Win rates are NEW's, ties counting half. compare.yaml and
compare.html are written into NEW. Runs of different evals (their
run_result.json's eval_name) are refused unless --force.

Exit status: 0 when compared, 2 for a usage or configuration error, 3 when the
comparison failed.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 2 {
				return usageErrorf("compare takes two run directories, BASE then NEW; got %d argument(s)", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.configSet = cmd.Flags().Changed("config")
			return runCompare(cmd.Context(), e, opts, args[0], args[1])
		},
	}
	f := cmd.Flags()
	runConfigFlag(f, &opts.config, "the eval config `FILE`, for the pairwise judge's prompt and model (default: NEW's own copy, NEW/config/eval.yaml)")
	f.StringVar(&opts.judgeModel, "judge-model", "", "the pairwise judge's `MODEL`")
	f.BoolVar(&opts.noPairwise, "no-pairwise", false, "compare the summaries only; call no model")
	f.BoolVar(&opts.noCache, "no-cache", false, "call the model for every comparison, ignoring NEW's judge_cache/")
	f.BoolVar(&opts.json, "json", false, "print compare.yaml as JSON on stdout")
	f.BoolVar(&opts.force, "force", false, "compare runs of different evals all the same")
	return cmd
}

// runCompare compares the run in directory a (the base) with the one in b
// (the new run), into b.
func runCompare(ctx context.Context, e env, opts compareOptions, base, next string) error {
	db, err := openRun(base)
	if err != nil {
		return err
	}
	dn, err := openRun(next)
	if err != nil {
		return err
	}
	if err := sameEval(db, dn, opts.force, e.Err); err != nil {
		return err
	}
	warnOrder(e.Err, db, dn)
	ev, err := compareEval(e, opts, dn)
	if err != nil {
		return err
	}
	sb, err := db.ReadSummary()
	if err != nil {
		return inputErrorf("base %s is not scored (run agent-eval score %s first): %v", base, base, err)
	}
	sn, err := dn.ReadSummary()
	if err != nil {
		return inputErrorf("new %s is not scored (run agent-eval score %s first): %v", next, next, err)
	}
	warnCaseOverlap(e.Err, filepath.Base(db.Path), filepath.Base(dn.Path), sb, sn)
	c := &rundir.CompareSummary{SchemaVersion: rundir.SummaryVersion, ComparedAt: time.Now().UTC().Format(time.RFC3339), Base: filepath.Base(db.Path), New: filepath.Base(dn.Path),
		Comparison: *score.Compare(sn, sb, db.Path)}
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
		fmt.Fprintf(e.Err, "agent-eval: pairwise comparison of base %s and new %s with %s\n", c.Base, c.New, model)
		p, err := score.RunPairwise(ctx, score.PairwiseOptions{Run: dn, Baseline: db, Eval: ev, Judge: pj, Model: model, LLM: score.NewLLMRunner(dn, 4, opts.noCache)})
		if err != nil {
			return fmt.Errorf("compare: %w", err)
		}
		c.Comparison.Pairwise = p
	}
	if err := dn.WriteCompare(c); err != nil {
		return err
	}
	page := filepath.Join(dn.Path, report.CompareFile)
	if err := report.WriteCompare(page, db, dn, &c.Comparison); err != nil {
		return fmt.Errorf("write the comparison page: %w", err)
	}
	printCompare(e.Err, c)
	fmt.Fprintf(e.Err, "agent-eval: wrote %s and %s\n", dn.Compare(), page)
	if opts.json {
		return writeSummaryJSON(e.Out, c)
	}
	return nil
}

func openRun(p string) (rundir.Dir, error) {
	if _, err := os.Stat(p); err != nil {
		return rundir.Dir{}, inputErrorf("no run directory %s", p)
	}
	d, err := rundir.Open(p)
	if err != nil {
		return rundir.Dir{}, &codedError{ExitUsage, err}
	}
	return d, nil
}

// sameEval refuses (or, with force, warns about) runs of different evals:
// their cases and judges need not match. A run that names no eval passes.
func sameEval(base, next rundir.Dir, force bool, stderr io.Writer) error {
	rb, errB := base.ReadRun()
	rn, errN := next.ReadRun()
	if errB != nil || errN != nil || rb.EvalName == "" || rn.EvalName == "" || rb.EvalName == rn.EvalName {
		return nil
	}
	msg := fmt.Sprintf("base %s is a run of eval %q, new %s of eval %q", filepath.Base(base.Path), rb.EvalName, filepath.Base(next.Path), rn.EvalName)
	if !force {
		return inputErrorf("%s: their cases and judges need not match; --force compares them all the same", msg)
	}
	fmt.Fprintf(stderr, "agent-eval: warning: %s (compared anyway: --force)\n", msg)
	return nil
}

// warnOrder says when BASE started after NEW (by their started_at): given
// the other way round, compare's "better" and "worse" read backwards. A run
// without the time is not judged.
func warnOrder(w io.Writer, base, next rundir.Dir) {
	rb, errB := base.ReadRun()
	rn, errN := next.ReadRun()
	if errB != nil || errN != nil {
		return
	}
	tb, errB := time.Parse(time.RFC3339, rb.StartedAt)
	tn, errN := time.Parse(time.RFC3339, rn.StartedAt)
	if errB != nil || errN != nil || !tb.After(tn) {
		return
	}
	b, n := filepath.Base(base.Path), filepath.Base(next.Path)
	fmt.Fprintf(w, "agent-eval: warning: base %s started after new %s (%s, %s): compare takes the base first, then the new run; give them the other way round to see what changed since %s\n",
		b, n, rb.StartedAt, rn.StartedAt, n)
}

// changeCell says what the paired test found of a judge's change: the
// effect with its interval, the test's p and the verdict ("no evidence of
// a change" when that is the truth).
func changeCell(d rundir.JudgeDelta) string {
	if d.Change == "" {
		if d.Regression {
			return "worse (no paired cases to test)"
		}
		return "-"
	}
	s := d.Change
	if d.Effect != nil {
		s += fmt.Sprintf(": %+.2f", *d.Effect)
		if iv := d.EffectInterval; iv != nil {
			s += fmt.Sprintf(" [%+.2f, %+.2f]", iv.Low, iv.High)
		}
	}
	if d.PValue != nil {
		s += fmt.Sprintf(", %s p=%s over %d pairs", d.Test, strconv.FormatFloat(*d.PValue, 'g', 3, 64), d.Paired)
	}
	return s
}

// printCompare is compare's table: per judge, the base's and the new run's
// pass rate (or mean), and the new run's win rate.
func printCompare(w io.Writer, c *rundir.CompareSummary) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "JUDGE\tbase %s\tnew %s\tWIN RATE\tCHANGE (paired test)\n", c.Base, c.New)
	for _, d := range c.Comparison.Judges {
		now, before := mean(d.MeanNow), mean(d.MeanBefore)
		if d.PassNow != nil || d.PassBefore != nil {
			now, before = pct(d.PassNow), pct(d.PassBefore)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", d.Judge, before, now, mean(d.WinRate), changeCell(d))
	}
	_ = tw.Flush()
	fmt.Fprintf(w, "new %s: %d (case, judge) pair(s) better, %d worse", c.New, len(c.Comparison.Better), len(c.Comparison.Worse))
	if c.Comparison.WinRate != nil {
		fmt.Fprintf(w, ", win rate %.2f", *c.Comparison.WinRate)
	}
	fmt.Fprintln(w)
	if p := c.Comparison.Pairwise; p != nil {
		fmt.Fprintf(w, "pairwise (%s): new %s wins %d | base %s wins %d | ties %d | errors %d", p.Model, c.New, p.WinsA, c.Base, p.WinsB, p.Ties, p.Errors)
		if p.WinRate != nil {
			fmt.Fprintf(w, " | win rate %.2f", *p.WinRate)
		}
		fmt.Fprintln(w)
	}
}

// warnCaseOverlap says which cases only one of the runs has: compare pairs
// verdicts by case, so those are not compared, and runs that share none
// (a batch judged as one unit against a run scored per case) compare
// nothing per case, which "0 better, 0 worse" must not pass off as no change.
func warnCaseOverlap(w io.Writer, base, next string, sb, sn *rundir.Summary) {
	onlyBase, onlyNew := caseDiff(sb, sn), caseDiff(sn, sb)
	switch {
	case len(onlyBase) == 0 && len(onlyNew) == 0:
	case len(onlyBase) > 0 && len(onlyBase) == len(sb.Cases) && len(onlyNew) > 0 && len(onlyNew) == len(sn.Cases):
		fmt.Fprintf(w, "agent-eval: warning: base %s and new %s have no case in common, so no case's verdicts are compared (only in base: %s; only in new: %s)\n",
			base, next, caseList(onlyBase), caseList(onlyNew))
	default:
		if len(onlyBase) > 0 {
			fmt.Fprintf(w, "agent-eval: warning: %d case(s) of base %s are not in new %s, so their verdicts are not compared: %s\n", len(onlyBase), base, next, caseList(onlyBase))
		}
		if len(onlyNew) > 0 {
			fmt.Fprintf(w, "agent-eval: warning: %d case(s) of new %s are not in base %s, so their verdicts are not compared: %s\n", len(onlyNew), next, base, caseList(onlyNew))
		}
	}
}

// caseDiff is the ids of a's cases that b does not have, in a's order.
func caseDiff(a, b *rundir.Summary) []string {
	in := map[string]bool{}
	for _, c := range b.Cases {
		in[c.ID] = true
	}
	var out []string
	for _, c := range a.Cases {
		if !in[c.ID] {
			out = append(out, c.ID)
		}
	}
	return out
}

// caseList is ids joined by commas, the first ten of them.
func caseList(ids []string) string {
	const most = 10
	if len(ids) > most {
		return strings.Join(ids[:most], ", ") + fmt.Sprintf(", … (%d more)", len(ids)-most)
	}
	return strings.Join(ids, ", ")
}
