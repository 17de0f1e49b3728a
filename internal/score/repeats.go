package score

import (
	"fmt"
	"slices"
	"strings"

	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/rundir"
	"github.com/agent-eval/agent-eval/internal/stats"
)

// reduceAttempts folds a run with repeats into one summary per case:
// scored holds every attempt's, attempt-major (rundir.AttemptKeys of ids).
// A case's verdict per judge is its attempts' reduced by the judge's
// reduce; its cost, duration and turns are their sums; its status is
// attempt 1's. The attempts stay in the case's Attempts.
func reduceAttempts(ev *config.Eval, judges []built, ids []string, scored []rundir.CaseSummary) []rundir.CaseSummary {
	out := make([]rundir.CaseSummary, len(ids))
	repeats := len(scored) / max(len(ids), 1)
	for i, id := range ids {
		cs := rundir.CaseSummary{ID: id}
		for n := 1; n <= repeats; n++ {
			a := scored[(n-1)*len(ids)+i]
			a.ID, a.Attempt = id, n
			if n == 1 {
				cs.Status, cs.Answers = a.Status, a.Answers
			}
			cs.CostUSD += a.CostUSD
			cs.DurationS += a.DurationS
			cs.Turns += a.Turns
			cs.Denials += a.Denials
			if a.Violations != nil {
				if cs.Violations == nil {
					cs.Violations = &rundir.ViolationCounts{}
				}
				cs.Violations.Add(a.Violations, false)
			}
			cs.Attempts = append(cs.Attempts, a)
		}
		for k, b := range judges {
			vs := make([]rundir.Verdict, 0, repeats)
			for _, a := range cs.Attempts {
				if k < len(a.Verdicts) {
					vs = append(vs, a.Verdicts[k])
				}
			}
			r, _ := config.ParseReducer(b.cfg.Reduce) // validated when eval.yaml loaded
			cs.Verdicts = append(cs.Verdicts, reduceVerdicts(b.name, r, vs))
		}
		out[i] = cs
	}
	return out
}

// reduceVerdicts is one judge's verdict on a case from its attempts'. An
// attempt the judge skipped or errored on counts in none of the numbers
// (an error is never a 0); the case is skipped when every attempt was, an
// error when none was scored and one errored.
func reduceVerdicts(judge string, r config.Reducer, vs []rundir.Verdict) rundir.Verdict {
	v := rundir.Verdict{Judge: judge}
	var xs []float64
	passed, bools := 0, 0
	var firstErr string
	skipped, lost := 0, 0
	for _, a := range vs {
		switch {
		case a.Lost:
			lost++
		case a.Skipped:
			skipped++
		case a.Error != "":
			if firstErr == "" {
				firstErr = a.Error
			}
		case a.Value != nil:
			xs = append(xs, *a.Value)
			if a.Passed != nil {
				bools++
				if *a.Passed {
					passed++
				}
			}
		}
	}
	switch {
	case len(xs) == 0 && firstErr != "":
		v.Error = fmt.Sprintf("no attempt was scored (%d errored): %s", len(vs)-skipped-lost, firstErr)
		return v
	case len(xs) == 0 && lost > 0:
		v.Lost, v.Rationale = true, fmt.Sprintf("not judged: every scored attempt was lost to the infrastructure (%d)", lost)
		return v
	case len(xs) == 0:
		v.Skipped = true
		return v
	}
	v.AttemptsScored = len(xs)
	boolean := bools == len(xs)
	if boolean {
		p := passed
		v.AttemptsPassed = &p
		v.Flaky = passed > 0 && passed < len(xs)
	} else {
		v.Flaky = slices.Min(xs) != slices.Max(xs)
	}
	if r.PassFail() && !boolean {
		v.Error = fmt.Sprintf("reduce %s counts passed attempts, but the judge scores (%s): use mean, median, min or max", r, nums(xs))
		return v
	}
	n := len(xs)
	var value float64
	switch r.Kind {
	case config.ReduceMedian:
		value = stats.Median(xs)
	case config.ReduceMin:
		value = slices.Min(xs)
	case config.ReduceMax:
		value = slices.Max(xs)
	case config.ReduceMajority:
		value = b2f(passed*2 > n)
	case config.ReduceAny:
		value = b2f(passed > 0)
	case config.ReduceAll:
		value = b2f(passed == n)
	case config.ReducePassAtK, config.ReducePassHatK:
		if n < r.K {
			v.Error = fmt.Sprintf("reduce %s needs %d scored attempts, and the case has %d", r, r.K, n)
			return v
		}
		if r.Kind == config.ReducePassAtK {
			value = stats.PassAtK(n, passed, r.K)
		} else {
			value = stats.PassHatK(n, passed, r.K)
		}
	default:
		value = stats.Mean(xs)
	}
	value = round(value)
	v.Value = &value
	if boolean {
		ok := value > 0.5
		v.Passed = &ok
		v.Rationale = fmt.Sprintf("%d of %d attempts passed; %s %s", passed, n, r, num(value))
	} else {
		v.Rationale = fmt.Sprintf("%s of %d attempts (%s): %s", r, n, nums(xs), num(value))
	}
	return v
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func nums(xs []float64) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = num(x)
	}
	return strings.Join(s, ", ")
}
