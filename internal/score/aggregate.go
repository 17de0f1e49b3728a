package score

import (
	"math"
	"slices"

	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/rundir"
	"github.com/agent-eval/agent-eval/internal/stats"
)

// judgeByName finds a judge of ev by name.
func judgeByName(ev *config.Eval, name string) *config.Judge {
	for i := range ev.Judges {
		if ev.Judges[i].Name == name {
			return &ev.Judges[i]
		}
	}
	return nil
}

// aggregate sums each judge's verdicts over the cases (upstream §1.9):
// all bools → pass_rate = mean = share passed; all numbers → mean; a mix
// → neither (the judge's type says "mixed"). Skipped cases count nowhere;
// errors count in the error rate only.
//
// Each judge's pass rate (else mean) gets a confidence interval at
// levels[judge] (DefaultConfidence when unset).
func aggregate(judges []built, cases []rundir.CaseSummary, levels map[string]float64) []rundir.JudgeSummary {
	out := make([]rundir.JudgeSummary, 0, len(judges))
	for k, b := range judges {
		js := rundir.JudgeSummary{Name: b.name, Kind: b.judge.Kind(), Type: b.cfg.FeedbackType}
		var sum float64
		bools, nums := 0, 0
		for _, c := range cases {
			v := c.Verdicts[k]
			switch {
			case v.Lost:
				js.Lost++
			case v.Skipped:
				js.Skipped++
			case v.Error != "":
				js.Errors++
			case v.Value != nil:
				js.Scored++
				sum += *v.Value
				if v.Passed != nil {
					bools++
				} else {
					nums++
				}
			}
		}
		if l, ok := b.judge.(*llmJudge); ok && js.Type == "" {
			switch {
			case l.scale.boolean:
				js.Type = "bool"
			case l.scale.integer:
				js.Type = "int"
			default:
				js.Type = "float"
			}
		}
		if js.Type == "" {
			switch {
			case bools > 0 && nums == 0:
				js.Type = "bool"
			case nums > 0 && bools == 0:
				js.Type = "float"
			case nums > 0 && bools > 0:
				js.Type = "mixed"
			}
		}
		if js.Scored > 0 && (bools == 0 || nums == 0) {
			m := round(sum / float64(js.Scored))
			js.Mean = &m
			if nums == 0 {
				pr := m
				js.PassRate = &pr
			}
		}
		if n := js.Scored + js.Errors + js.Lost; n > 0 {
			js.ErrorRate = round(float64(js.Errors+js.Lost) / float64(n))
		}
		vals := caseValues(cases, k)
		r, _ := config.ParseReducer(b.cfg.Reduce)
		if js.PassRate != nil && r.Kind == config.ReduceMean && repeated(cases) {
			js.Interval = attemptsInterval(cases, k, 0, levels[b.name])
		} else {
			js.Interval = interval(vals, js.PassRate != nil, 0, levels[b.name])
		}
		if repeated(cases) {
			js.Reduce = r.String()
			passed, scored := 0, 0
			for _, c := range cases {
				v := c.Verdicts[k]
				if v.AttemptsPassed != nil {
					passed += *v.AttemptsPassed
					scored += v.AttemptsScored
				}
				if v.Flaky {
					js.Flaky++
				}
			}
			if scored > 0 && js.PassRate != nil {
				apr := round(float64(passed) / float64(scored))
				js.AttemptPassRate = &apr
			}
		}
		out = append(out, js)
	}
	return out
}

// DefaultConfidence is the level of the intervals summary.yaml reports
// for a judge whose threshold names none.
const DefaultConfidence = 0.95

// caseValues are judge k's values over the cases it scored.
func caseValues(cases []rundir.CaseSummary, k int) []float64 {
	var out []float64
	for _, c := range cases {
		if v := c.Verdicts[k]; v.Value != nil && !v.Skipped && v.Error == "" {
			out = append(out, *v.Value)
		}
	}
	return out
}

// attemptsInterval is the interval of a pass/fail judge's share of
// attempts passed over cases of repeated attempts (each case's verdict
// their mean): Wilson's over the attempts, shrunk by the design effect of
// their clustering in cases (stats.WilsonClustered). failed more cases
// count as failed throughout (the errored ones, for a gate).
func attemptsInterval(cases []rundir.CaseSummary, k, failed int, level float64) *rundir.Interval {
	if level <= 0 || level >= 1 {
		level = DefaultConfidence
	}
	var passed, trials []int
	for _, c := range cases {
		if v := c.Verdicts[k]; v.AttemptsPassed != nil && v.Value != nil {
			passed, trials = append(passed, *v.AttemptsPassed), append(trials, v.AttemptsScored)
		}
	}
	for range failed {
		passed, trials = append(passed, 0), append(trials, rundir.AttemptsOf(cases))
	}
	if len(trials) == 0 {
		return nil
	}
	iv := stats.WilsonClustered(passed, trials, level)
	return &rundir.Interval{Low: round(iv.Low), High: round(iv.High), Level: level, Method: iv.Method}
}

// interval is the confidence interval of a pass rate (rate: Wilson's when
// every value is a pass or a fail, else Student's t over the cases'
// shares, kept within [0, 1]) or of a mean score (Student's t), over vals
// plus failed more values that count as 0 (the errored cases, for a
// gate); nil without values.
func interval(vals []float64, rate bool, failed int, level float64) *rundir.Interval {
	if level <= 0 || level >= 1 {
		level = DefaultConfidence
	}
	if len(vals)+failed == 0 {
		return nil
	}
	var iv stats.Interval
	switch {
	case rate && onlyZeroOne(vals):
		passed := 0
		for _, v := range vals {
			if v == 1 {
				passed++
			}
		}
		iv = stats.Wilson(passed, len(vals)+failed, level)
	case rate:
		xs := append(slices.Clone(vals), make([]float64, failed)...)
		_, iv = stats.MeanT(xs, level)
		iv.Low, iv.High = math.Max(0, iv.Low), math.Min(1, iv.High)
	default:
		_, iv = stats.MeanT(vals, level)
	}
	if math.IsNaN(iv.Low) || math.IsNaN(iv.High) {
		return nil
	}
	return &rundir.Interval{Low: round(iv.Low), High: round(iv.High), Level: level, Method: iv.Method}
}

func onlyZeroOne(vals []float64) bool {
	for _, v := range vals {
		if v != 0 && v != 1 {
			return false
		}
	}
	return true
}

// repeated reports whether the cases were reduced from attempts.
func repeated(cases []rundir.CaseSummary) bool {
	for _, c := range cases {
		if len(c.Attempts) > 0 {
			return true
		}
	}
	return false
}

// round keeps 4 decimals, so summary.yaml reads 0.6667, not 0.6666666666666666.
func round(f float64) float64 { return math.Round(f*1e4) / 1e4 }
