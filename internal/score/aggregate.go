package score

import (
	"math"

	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/rundir"
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
func aggregate(judges []built, cases []rundir.CaseSummary) []rundir.JudgeSummary {
	out := make([]rundir.JudgeSummary, 0, len(judges))
	for k, b := range judges {
		js := rundir.JudgeSummary{Name: b.name, Kind: b.judge.Kind(), Type: b.cfg.FeedbackType}
		var sum float64
		bools, nums := 0, 0
		for _, c := range cases {
			v := c.Verdicts[k]
			switch {
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
		if n := js.Scored + js.Errors; n > 0 {
			js.ErrorRate = round(float64(js.Errors) / float64(n))
		}
		out = append(out, js)
	}
	return out
}

// round keeps 4 decimals, so summary.yaml reads 0.6667, not 0.6666666666666666.
func round(f float64) float64 { return math.Round(f*1e4) / 1e4 }
