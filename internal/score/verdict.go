package score

import (
	"cmp"
	"fmt"
	"sort"
	"strings"

	"github.com/agent-eval/agent-eval/internal/clip"
	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/results"
	"github.com/agent-eval/agent-eval/internal/rundir"
)

// checkThresholds checks every configured gate (min_pass_rate, min_mean,
// min_win_rate, max_error_rate), judges sorted by name. A metric the run
// cannot provide (no scored case, no baseline for a win rate) is a breach:
// a gate that cannot be checked never passes silently. A metric exactly at
// its threshold passes.
func checkThresholds(ev *config.Eval, s *rundir.Summary) []rundir.ThresholdResult {
	names := make([]string, 0, len(ev.Thresholds))
	for n := range ev.Thresholds {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []rundir.ThresholdResult
	for _, name := range names {
		t := ev.Thresholds[name]
		js := findJudge(s, name)
		na := func(metric string, want float64, why string) {
			out = append(out, rundir.ThresholdResult{Judge: name, Metric: metric, Want: want, Detail: "n/a: " + why})
		}
		unavailable := func(what string) string {
			if js != nil && js.Errors > 0 {
				return fmt.Sprintf("%s unavailable: the judge errored on %d case(s)", what, js.Errors)
			}
			if js == nil {
				return fmt.Sprintf("%s unavailable: the judge did not score", what)
			}
			return fmt.Sprintf("%s unavailable: no case was scored, or the judge is not of that type", what)
		}
		// A case the judge errored on counts against the gate: the agent
		// can often make its judge error (leave out the file it reads,
		// overfill its folder), and the rate over the other cases alone
		// would pass.
		if t.MinPassRate != nil {
			if js == nil || js.PassRate == nil {
				na("min_pass_rate", *t.MinPassRate, unavailable("pass rate"))
			} else {
				got := *js.PassRate
				if js.Errors > 0 {
					got = round(got * float64(js.Scored) / float64(js.Scored+js.Errors))
				}
				r := atLeast(name, "min_pass_rate", *t.MinPassRate, got)
				if t.Confidence != nil {
					iv := interval(judgeValues(s, name), true, js.Errors, *t.Confidence)
					if k := judgeIndex(s, name); k >= 0 && js.Reduce == config.ReduceMean && js.AttemptPassRate != nil {
						iv = attemptsInterval(s.Cases, k, js.Errors, *t.Confidence)
					}
					r = atLeastBound(r, iv, "pass rate")
				}
				out = append(out, erroredAsFailed(r, js, "not passed"))
			}
		}
		if t.MinMean != nil {
			var sr *config.ScoreRange
			if j := judgeByName(ev, name); j != nil {
				sr = j.ScoreRange
			}
			switch {
			case js == nil || js.Mean == nil:
				na("min_mean", *t.MinMean, unavailable("mean"))
			case js.Errors > 0 && sr == nil:
				na("min_mean", *t.MinMean, fmt.Sprintf("the judge errored on %d case(s), and the mean of the others is no bound (declare its score_range: an error then counts as its minimum)", js.Errors))
			default:
				got := *js.Mean
				if js.Errors > 0 {
					got = round((got*float64(js.Scored) + sr.Min*float64(js.Errors)) / float64(js.Scored+js.Errors))
				}
				r := atLeast(name, "min_mean", *t.MinMean, got)
				if t.Confidence != nil {
					vals := judgeValues(s, name)
					for range js.Errors {
						vals = append(vals, sr.Min)
					}
					r = atLeastBound(r, interval(vals, false, 0, *t.Confidence), "mean")
				}
				out = append(out, erroredAsFailed(r, js, fmt.Sprintf("scored %s", num(sr0(sr)))))
			}
		}
		if t.MinWinRate != nil {
			if wr := winRate(s, name); wr == nil {
				na("min_win_rate", *t.MinWinRate, "the win rate needs --baseline (and, for pairwise, a judge model)")
			} else {
				out = append(out, atLeast(name, "min_win_rate", *t.MinWinRate, *wr))
			}
		}
		if t.MaxRegression != nil {
			out = append(out, regressionGate(s, name, *t.MaxRegression, t.Significance))
		}
		if t.MaxViolations != nil {
			out = append(out, violationsGate(s, *t.MaxViolations))
		}
		if t.MaxErrorRate != nil {
			if js == nil {
				na("max_error_rate", *t.MaxErrorRate, unavailable("error rate"))
				continue
			}
			// No error over no case judged is no bound either: the judge's
			// if: (which may read what the agent left) skipped every case.
			if js.Scored+js.Errors == 0 {
				na("max_error_rate", *t.MaxErrorRate, fmt.Sprintf("error rate unavailable: the judge judged no case (%d skipped)", js.Skipped))
				continue
			}
			r := rundir.ThresholdResult{Judge: name, Metric: "max_error_rate", Want: *t.MaxErrorRate, Got: js.ErrorRate, OK: js.ErrorRate <= *t.MaxErrorRate}
			if !r.OK {
				r.Detail = fmt.Sprintf("%s > %s: %d of %d cases errored", num(js.ErrorRate), num(*t.MaxErrorRate), js.Errors, js.Errors+js.Scored)
			}
			out = append(out, r)
		}
	}
	return out
}

// erroredAsFailed says in r's detail that the cases js errored on were
// counted as how.
func erroredAsFailed(r rundir.ThresholdResult, js *rundir.JudgeSummary, how string) rundir.ThresholdResult {
	if js.Errors == 0 {
		return r
	}
	note := fmt.Sprintf("%d of %d cases errored, counted as %s", js.Errors, js.Errors+js.Scored, how)
	if r.Detail == "" {
		r.Detail = note
	} else {
		r.Detail += " (" + note + ")"
	}
	return r
}

func sr0(sr *config.ScoreRange) float64 {
	if sr == nil {
		return 0
	}
	return sr.Min
}

// regressionGate checks max_regression: the judge's pass rate (else mean)
// may fall against the baseline's by at most limit; with significance, a
// fall counts only when the paired test finds it at that level, and the
// gate otherwise says there is no evidence of a change. Without a baseline
// it cannot be checked and fails.
func regressionGate(s *rundir.Summary, name string, limit float64, significance *float64) rundir.ThresholdResult {
	r := rundir.ThresholdResult{Judge: name, Metric: "max_regression", Want: limit}
	var d *rundir.JudgeDelta
	if s.Baseline != nil {
		for i := range s.Baseline.Judges {
			if s.Baseline.Judges[i].Judge == name {
				d = &s.Baseline.Judges[i]
			}
		}
	}
	before, now, what := (*float64)(nil), (*float64)(nil), "pass rate"
	if d != nil {
		before, now = d.PassBefore, d.PassNow
		if before == nil || now == nil {
			before, now, what = d.MeanBefore, d.MeanNow, "mean"
		}
	}
	if d == nil || before == nil || now == nil {
		r.Detail = "n/a: max_regression needs --baseline, with the judge scored in both runs"
		return r
	}
	drop := round(*before - *now)
	r.Got, r.OK = drop, drop <= limit
	test := ""
	if d.PValue != nil {
		test = fmt.Sprintf("%s p = %s over %d pairs", d.Test, num(*d.PValue), d.Paired)
	}
	switch {
	case r.OK:
		r.Detail = fmt.Sprintf("the %s fell by %s ≤ %s (%s)", what, num(drop), num(limit), test)
	case significance != nil && (d.PValue == nil || *d.PValue >= *significance):
		r.OK = true
		r.Detail = fmt.Sprintf("no evidence of a change: the %s fell by %s > %s, but %s ≥ %s, so the fall may be chance", what, num(drop), num(limit), cmp.Or(test, "no paired test"), num(*significance))
	default:
		r.Detail = fmt.Sprintf("the %s fell by %s > %s against %s (%s)", what, num(drop), num(limit), s.Baseline.RunID, cmp.Or(test, "no paired test"))
		if significance != nil {
			r.Detail += fmt.Sprintf(", significant at %s", num(*significance))
		}
	}
	return r
}

// atLeastBound gates r on the lower bound of iv instead of its point
// estimate; without an interval the gate cannot be checked and fails.
func atLeastBound(r rundir.ThresholdResult, iv *rundir.Interval, what string) rundir.ThresholdResult {
	est := r.Got
	r.Estimate, r.Interval = &est, iv
	if iv == nil {
		r.OK, r.Detail = false, fmt.Sprintf("n/a: no %s interval (no case was scored)", what)
		return r
	}
	r.Got, r.OK = iv.Low, iv.Low >= r.Want
	bounds := fmt.Sprintf("%s %s, %g%% %s interval [%s, %s]", what, num(est), iv.Level*100, iv.Method, num(iv.Low), num(iv.High))
	if r.OK {
		r.Detail = "lower bound " + num(iv.Low) + " ≥ " + num(r.Want) + " (" + bounds + ")"
	} else {
		r.Detail = fmt.Sprintf("lower bound %s < %s (%s): the cases do not show the %s is at least %s", num(iv.Low), num(r.Want), bounds, what, num(r.Want))
	}
	return r
}

// judgeValues are the named judge's values over the cases it scored.
func judgeValues(s *rundir.Summary, name string) []float64 {
	if k := judgeIndex(s, name); k >= 0 {
		return caseValues(s.Cases, k)
	}
	return nil
}

// judgeIndex is the named judge's index in the summary's judges (and the
// cases' verdicts), -1 when it has none.
func judgeIndex(s *rundir.Summary, name string) int {
	for k, js := range s.Judges {
		if js.Name == name {
			return k
		}
	}
	return -1
}

func atLeast(judge, metric string, want, got float64) rundir.ThresholdResult {
	r := rundir.ThresholdResult{Judge: judge, Metric: metric, Want: want, Got: got, OK: got >= want}
	if !r.OK {
		r.Detail = fmt.Sprintf("%s < %s", num(got), num(want))
	}
	return r
}

func findJudge(s *rundir.Summary, name string) *rundir.JudgeSummary {
	for i := range s.Judges {
		if s.Judges[i].Name == name {
			return &s.Judges[i]
		}
	}
	return nil
}

// winRate is a judge's win rate against the baseline: the pairwise
// judge's A/B result, else the judge's own per-case comparison.
func winRate(s *rundir.Summary, name string) *float64 {
	b := s.Baseline
	if b == nil {
		return nil
	}
	if name == Pairwise {
		if b.Pairwise == nil {
			return nil
		}
		return b.Pairwise.WinRate
	}
	for _, d := range b.Judges {
		if d.Judge == name {
			return d.WinRate
		}
	}
	return nil
}

// Regressions are the breached gates, one line each, as the CLI prints
// them: "[judge] metric: want -> got (detail)".
func Regressions(s *rundir.Summary) []string {
	var out []string
	for _, t := range s.Thresholds {
		if !t.Breached() {
			continue
		}
		op := ">="
		if strings.HasPrefix(t.Metric, "max_") {
			op = "<="
		}
		out = append(out, fmt.Sprintf("[%s] %s: %s %s -> %s", t.Judge, t.Metric, op, num(t.Want), t.Detail))
	}
	if s.NotJudged != "" {
		out = append(out, "no case was judged ("+s.NotJudged+")")
	}
	for _, id := range s.Tampered {
		out = append(out, fmt.Sprintf("[%s] tampered: what scoring reads changed by the case's end (by an agent, or by something else on this machine), so every verdict on it is a failure (see summary.yaml)", id))
	}
	for _, id := range s.Foreign {
		out = append(out, fmt.Sprintf("[%s] not one of the run's cases: cases/%s was written by someone other than the run (an agent without a sandbox?); not judged, and it fails the verdict", id, id))
	}
	for _, name := range s.BrokenJudges {
		out = append(out, fmt.Sprintf("[%s] judged no case: every case it did not skip was an error (see summary.yaml)", name))
	}
	// One line each, whatever a name holds: a folder the agent made under
	// cases/ must not start a line of score's output (a CI's workflow
	// command).
	for i := range out {
		out[i] = clip.Line(out[i])
	}
	return out
}

// judgedCases counts the cases judged: the harness ran their agent (status
// not error or missing) and some judge gave them a value. When none was,
// why says why, and the verdict fails: a run that judged nothing says
// nothing about the agent.
func judgedCases(judges []built, cases []rundir.CaseSummary, batch bool) (n int, why string) {
	skipped, errored, notRun := 0, 0, 0
	for _, c := range cases {
		if c.Status == string(results.StatusError) || c.Status == string(results.StatusInfraError) || c.Status == string(results.StatusDiverged) || c.Status == "missing" {
			notRun++
			continue
		}
		valued := false
		for _, v := range c.Verdicts {
			switch {
			case v.Skipped:
				skipped++
			case v.Error != "":
				errored++
			case v.Value != nil:
				valued = true
			}
		}
		if valued {
			n++
		}
	}
	switch {
	case n > 0:
		return n, ""
	case len(cases) == 0 && batch:
		return 0, "the batch run left no case to judge"
	case len(cases) == 0:
		return 0, "the run has no cases"
	case notRun == len(cases):
		return 0, fmt.Sprintf("the agent could not be run on any of the %d case(s): every one has status error or infra_error", len(cases))
	case len(judges) == 0:
		return 0, "the eval has no judges"
	case errored == 0:
		return 0, fmt.Sprintf("every judge skipped every case (%d skipped verdict(s): their if: was false)", skipped)
	case skipped == 0:
		return 0, fmt.Sprintf("every verdict was an error (%d error sample(s))", errored)
	}
	return 0, fmt.Sprintf("no verdict had a value: %d skipped, %d error sample(s)", skipped, errored)
}

// violationsGate checks the run's violations (over every case and
// attempt) against max_violations: a run-wide gate, named violations
// (no judge's).
func violationsGate(s *rundir.Summary, limit int) rundir.ThresholdResult {
	v := s.Violations
	r := rundir.ThresholdResult{Judge: config.ViolationsGate, Metric: "max_violations", Want: float64(limit), Got: float64(v.Total), OK: v.Total <= limit}
	if !r.OK {
		kinds := make([]string, 0, len(v.ByKind))
		for _, k := range results.ViolationKinds() {
			if n := v.ByKind[string(k)]; n > 0 {
				kinds = append(kinds, fmt.Sprintf("%d %s", n, k))
			}
		}
		r.Detail = fmt.Sprintf("%d > %d: %s in %d case(s)", v.Total, limit, strings.Join(kinds, ", "), v.Cases)
	}
	return r
}
