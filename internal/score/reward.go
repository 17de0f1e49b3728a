package score

import (
	"math"
	"slices"

	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/expr"
	"github.com/agent-eval/agent-eval/internal/results"
	"github.com/agent-eval/agent-eval/internal/rundir"
)

// applyReward sets each case's reward in [0, 1] and the run's mean of
// them, as upstream composes it (upstream-score-spec §3.3).
func applyReward(s *rundir.Summary, ev *config.Eval, judges []built) {
	formula := rewardFormula(ev)
	var sum float64
	n := 0
	for i := range s.Cases {
		if s.Cases[i].Status == string(results.StatusInfraError) {
			// Not judged (its infrastructure failed): no reward, and no
			// part of the run's, which a 1 for "no judge said no" or a 0
			// would move.
			continue
		}
		r := caseReward(&s.Cases[i], ev, judges, formula)
		r = round(r)
		s.Cases[i].Reward = &r
		sum += r
		n++
	}
	if n > 0 {
		m := round(sum / float64(n))
		s.Reward = &m
	}
}

// rewardFormula is reward.formula compiled, nil when the reward is no
// formula (a judge, weighted, or none).
func rewardFormula(ev *config.Eval) *expr.Program {
	if r := ev.Reward; r != nil && r.Judge == "" && r.Formula != "" && r.Formula != "weighted" {
		formula, _ := expr.Compile(r.Formula, true) // validated at load; a failure below is a 0.0 reward
		return formula
	}
	return nil
}

// norm maps a judge's value to [0, 1].
func norm(v rundir.Verdict, j config.Judge, rw *config.Reward) float64 {
	if v.Passed != nil {
		return *v.Value
	}
	f := *v.Value
	if rw != nil && (slices.Contains(rw.Raw, j.Name) || (rw.Judge == j.Name && (rw.Normalize == nil || !*rw.Normalize))) {
		return clamp01(f)
	}
	lo, hi := 1.0, 5.0
	switch {
	case j.ScoreRange != nil:
		lo, hi = j.ScoreRange.Min, j.ScoreRange.Max
	case rw != nil && rw.ScoreRange != nil:
		lo, hi = rw.ScoreRange.Min, rw.ScoreRange.Max
	}
	if hi == lo {
		return clamp01(f)
	}
	return clamp01((f - lo) / (hi - lo))
}

func clamp01(f float64) float64 {
	if math.IsNaN(f) {
		return 0
	}
	return math.Max(0, math.Min(1, f))
}

func caseReward(c *rundir.CaseSummary, ev *config.Eval, judges []built, formula *expr.Program) float64 {
	rw := ev.Reward
	vals := map[string]float64{}
	anyFalse, anyErr := false, false
	var numeric []float64
	for k, b := range judges {
		v := c.Verdicts[k]
		if v.Error != "" {
			anyErr = true
		}
		if v.Value == nil {
			continue
		}
		if v.Passed != nil && !*v.Passed {
			anyFalse = true
		}
		x := norm(v, b.cfg, rw)
		vals[b.name] = x
		if v.Passed == nil {
			numeric = append(numeric, x)
		}
	}
	if rw == nil {
		switch {
		case anyFalse:
			return 0
		case len(numeric) > 0:
			var s float64
			for _, x := range numeric {
				s += x
			}
			return s / float64(len(numeric))
		case anyErr:
			return 0
		}
		return 1
	}
	gate := rw.Judge == ""
	if rw.Gate != nil {
		gate = *rw.Gate
	}
	if gate && anyFalse {
		return 0
	}
	if rw.Judge != "" {
		return vals[rw.Judge]
	}
	if formula == nil {
		var num, den float64
		for name, w := range rw.Weights {
			if x, ok := vals[name]; ok {
				num += w * x
				den += w
			}
		}
		if den == 0 {
			return 0
		}
		return clamp01(num / den)
	}
	env := map[string]any{}
	for k, v := range vals {
		env[k] = v
	}
	out, err := formula.Run(env)
	if err != nil {
		return 0
	}
	if b, ok := out.(bool); ok {
		if b {
			return 1
		}
		return 0
	}
	f, ok := number(out)
	if !ok {
		return 0
	}
	return clamp01(f)
}
