package score

import (
	"github.com/agent-eval/agent-eval/internal/rundir"
)

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
		c.Judges = append(c.Judges, d)
	}
	if all.n > 0 {
		wr := round((all.wins + all.ties/2) / all.n)
		c.WinRate = &wr
	}
	return c
}

func less(a, b *float64) bool { return a != nil && b != nil && *a < *b }
