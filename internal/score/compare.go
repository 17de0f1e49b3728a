package score

import (
	"math"

	"github.com/agent-eval/agent-eval/internal/rundir"
	"github.com/agent-eval/agent-eval/internal/stats"
)

// Alpha is the level at which a change against the baseline is called
// better or worse; above it there is no evidence of a change.
const Alpha = 0.05

// Compare compares a scored run with an earlier one: per judge the mean
// and pass rate before and now and the judge's win rate; per case what
// got better or worse; and the overall win rate over every (case, judge)
// pair scored in both, ties counting half.
func Compare(now, before *rundir.Summary, beforeDir string) *rundir.Comparison {
	c := &rundir.Comparison{RunID: before.RunID, Dir: beforeDir}
	prev := map[string]map[string]rundir.Verdict{}
	for _, cs := range before.Cases {
		m := map[string]rundir.Verdict{}
		for _, v := range cs.Verdicts {
			m[v.Judge] = v
		}
		prev[cs.ID] = m
	}
	type tally struct{ wins, ties, n float64 }
	per := map[string]*tally{}
	var all tally
	for _, cs := range now.Cases {
		for _, v := range cs.Verdicts {
			b, ok := prev[cs.ID][v.Judge]
			if !ok || v.Value == nil || b.Value == nil {
				continue
			}
			t := per[v.Judge]
			if t == nil {
				t = &tally{}
				per[v.Judge] = t
			}
			t.n++
			all.n++
			d := rundir.CaseDelta{Case: cs.ID, Judge: v.Judge, Before: b.Value, Now: v.Value}
			switch {
			case *v.Value > *b.Value:
				t.wins++
				all.wins++
				c.Better = append(c.Better, d)
			case *v.Value < *b.Value:
				c.Worse = append(c.Worse, d)
			default:
				t.ties++
				all.ties++
			}
		}
	}
	for _, js := range now.Judges {
		d := rundir.JudgeDelta{Judge: js.Name, MeanNow: js.Mean, PassNow: js.PassRate}
		if bj := findJudge(before, js.Name); bj != nil {
			d.MeanBefore, d.PassBefore = bj.Mean, bj.PassRate
		}
		d.Regression = less(d.PassNow, d.PassBefore) || less(d.MeanNow, d.MeanBefore)
		if t := per[js.Name]; t != nil && t.n > 0 {
			wr := round((t.wins + t.ties/2) / t.n)
			d.WinRate = &wr
		}
		pairedTest(&d, pairs(now, before, js.Name))
		c.Judges = append(c.Judges, d)
	}
	if all.n > 0 {
		wr := round((all.wins + all.ties/2) / all.n)
		c.WinRate = &wr
	}
	return c
}

// pair is one (case, attempt) a judge scored in both runs.
type pair struct {
	now, before rundir.Verdict
}

// pairs are the judge's verdicts on the (case, attempt)s both runs scored:
// attempt by attempt when both ran the case's attempts, else case by case.
func pairs(now, before *rundir.Summary, judge string) []pair {
	prev := map[string]rundir.CaseSummary{}
	for _, c := range before.Cases {
		prev[c.ID] = c
	}
	var out []pair
	for _, c := range now.Cases {
		b, ok := prev[c.ID]
		if !ok {
			continue
		}
		if len(c.Attempts) > 0 && len(b.Attempts) > 0 {
			for i := range min(len(c.Attempts), len(b.Attempts)) {
				out = appendPair(out, c.Attempts[i].Verdicts, b.Attempts[i].Verdicts, judge)
			}
			continue
		}
		out = appendPair(out, c.Verdicts, b.Verdicts, judge)
	}
	return out
}

func appendPair(out []pair, now, before []rundir.Verdict, judge string) []pair {
	n, b := verdictOf(now, judge), verdictOf(before, judge)
	if n == nil || b == nil || n.Value == nil || b.Value == nil || n.Error != "" || b.Error != "" {
		return out
	}
	return append(out, pair{*n, *b})
}

func verdictOf(vs []rundir.Verdict, judge string) *rundir.Verdict {
	for i := range vs {
		if vs[i].Judge == judge {
			return &vs[i]
		}
	}
	return nil
}

// pairedTest fills d with the paired test of the judge's change over ps:
// for pass/fail verdicts the exact McNemar test and Newcombe's paired
// interval of the difference of pass rates; for scores the Wilcoxon
// signed-rank test, a seeded paired bootstrap of the mean difference and
// Cohen's d.
func pairedTest(d *rundir.JudgeDelta, ps []pair) {
	d.Paired = len(ps)
	if len(ps) == 0 {
		return
	}
	boolean := true
	for _, p := range ps {
		if p.now.Passed == nil || p.before.Passed == nil {
			boolean = false
		}
	}
	var p, effect float64
	var iv stats.Interval
	if boolean {
		a, b := make([]bool, len(ps)), make([]bool, len(ps))
		gained, lost := 0, 0
		for i, x := range ps {
			a[i], b[i] = *x.now.Passed, *x.before.Passed
			switch {
			case a[i] && !b[i]:
				gained++
			case b[i] && !a[i]:
				lost++
			}
		}
		d.Test = "mcnemar-exact"
		p = stats.McNemarExact(gained, lost)
		effect, iv = stats.PairedProportionDiff(a, b, 1-Alpha)
	} else {
		now, before, diffs := make([]float64, len(ps)), make([]float64, len(ps)), make([]float64, len(ps))
		for i, x := range ps {
			now[i], before[i] = *x.now.Value, *x.before.Value
			diffs[i] = now[i] - before[i]
		}
		d.Test = "wilcoxon"
		_, p = stats.Wilcoxon(diffs)
		effect, iv = stats.PairedBootstrapMeanDiff(now, before, 1-Alpha, 0, uint64(len(ps)))
		if cd := stats.CohenDPaired(diffs); !math.IsNaN(cd) {
			cd = round(cd)
			d.CohenD = &cd
		}
	}
	if !math.IsNaN(p) {
		p = math.Round(p*1e6) / 1e6
		d.PValue = &p
	}
	if !math.IsNaN(effect) {
		effect = round(effect)
		d.Effect = &effect
	}
	if !math.IsNaN(iv.Low) && !math.IsNaN(iv.High) {
		d.EffectInterval = &rundir.Interval{Low: round(iv.Low), High: round(iv.High), Level: iv.Level, Method: iv.Method}
	}
	switch {
	case d.PValue == nil || *d.PValue >= Alpha || d.Effect == nil || *d.Effect == 0:
		d.Change = "no evidence of a change"
	case *d.Effect > 0:
		d.Change = "better"
	default:
		d.Change = "worse"
	}
}

func less(a, b *float64) bool { return a != nil && b != nil && *a < *b }
