package score

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/agent-eval/agent-eval/internal/results"
)

// TestNothingJudgedFails: a verdict that judged no case fails, with no
// threshold to breach: no cases, every judge skipped on every case, every
// verdict an error, every case's agent run an error, no judges.
func TestNothingJudgedFails(t *testing.T) {
	t.Parallel()
	const head = "name: vacuous\nexecution: {prompt: hi}\ndataset: {path: cases}\n"
	two := []fixtureCase{{id: "a"}, {id: "b"}}
	tests := []struct {
		name   string
		judges string
		cases  []fixtureCase
		status results.Status // every case's, when set
		why    string         // "" when the verdict passes
	}{
		{name: "judged", judges: "judges:\n  - {name: ok, expr: 'true'}\n", cases: two},
		{name: "one skipped, one judged", judges: "judges:\n  - {name: ok, expr: 'true', if: case_id == 'a'}\n", cases: two},
		{name: "no cases", judges: "judges:\n  - {name: ok, expr: 'true'}\n", why: "the run has no cases"},
		{name: "every judge skipped", judges: "judges:\n  - {name: ok, expr: 'true', if: 'false'}\n  - {name: also, expr: 'true', if: case_id == 'z'}\n", cases: two,
			why: "every judge skipped every case (4 skipped verdict(s)"},
		{name: "every verdict an error", judges: "judges:\n  - {name: broken, exec: ['sh', '-c', 'exit 4']}\n", cases: two,
			why: "every verdict was an error (2 error sample(s))"},
		{name: "skipped and errors", judges: "judges:\n  - {name: broken, exec: ['sh', '-c', 'exit 4']}\n  - {name: ok, expr: 'true', if: 'false'}\n", cases: two,
			why: "no verdict had a value: 2 skipped, 2 error sample(s)"},
		{name: "every agent run errored", judges: "judges:\n  - {name: ok, expr: 'true'}\n", cases: two, status: results.StatusError,
			why: "the agent could not be run on any of the 2 case(s)"},
		{name: "no judges", cases: two, why: "the eval has no judges"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ev, dir := writeProject(t, head+tt.judges, tt.cases...)
			if tt.status != "" {
				for _, c := range tt.cases {
					rc, err := dir.ReadCase(c.id)
					must(t, err)
					rc.Status, rc.ExitCode = tt.status, -1
					must(t, results.WriteJSON(dir.CaseResult(c.id), rc))
				}
			}
			s, err := Score(context.Background(), Options{Dir: dir, Eval: ev, Getenv: os.Getenv})
			must(t, err)
			regs := strings.Join(Regressions(s), "\n")
			if tt.why == "" {
				if !s.Passed || s.NotJudged != "" || s.JudgedCases == 0 {
					t.Errorf("passed=%v judged=%d not_judged=%q; want a pass", s.Passed, s.JudgedCases, s.NotJudged)
				}
				return
			}
			if s.Passed || !strings.Contains(s.NotJudged, tt.why) || !strings.Contains(regs, "no case was judged ("+tt.why) {
				t.Errorf("passed=%v not_judged=%q regressions=%q; want a failure saying %q", s.Passed, s.NotJudged, regs, tt.why)
			}
		})
	}
}

// TestRegressionsNameEveryFailure: whatever fails the verdict is a
// regression line (the CLI prints PASS and exits 0 when there is none),
// a tampered case too when no threshold is set.
func TestRegressionsNameEveryFailure(t *testing.T) {
	t.Parallel()
	ev, dir := writeProject(t, "name: t\nexecution: {prompt: x}\ndataset: {path: cases}\njudges:\n  - {name: always, expr: 'true'}\n",
		fixtureCase{id: "ok"}, fixtureCase{id: "bad", tampered: []string{"/e/json.py: added"}})
	s, err := Score(context.Background(), Options{Dir: dir, Eval: ev, Getenv: os.Getenv})
	must(t, err)
	regs := Regressions(s)
	if s.Passed || len(regs) == 0 || !strings.Contains(strings.Join(regs, "\n"), "bad") {
		t.Errorf("passed %v, regressions %q; want a failure naming the tampered case", s.Passed, regs)
	}
}

// TestAGateOnAJudgeThatJudgedNothingFails: a threshold holds only over
// cases its judge judged. A judge whose if: skipped every case (its
// condition reads what the agent left, so the agent chooses) meets no
// gate, whichever metric, while another judge's values keep the run from
// "nothing judged".
func TestAGateOnAJudgeThatJudgedNothingFails(t *testing.T) {
	t.Parallel()
	const head = "name: vacuous\nexecution: {prompt: hi}\ndataset: {path: cases}\n" +
		"judges:\n  - {name: ok, expr: 'true'}\n  - {name: gated, expr: 'false', if: case_id == 'z'}\n"
	for _, gate := range []string{"max_error_rate: 0", "min_pass_rate: 1", "min_mean: 1"} {
		t.Run(gate, func(t *testing.T) {
			t.Parallel()
			ev, dir := writeProject(t, head+"thresholds:\n  gated: {"+gate+"}\n", fixtureCase{id: "a"}, fixtureCase{id: "b"})
			s, err := Score(context.Background(), Options{Dir: dir, Eval: ev, Getenv: os.Getenv})
			must(t, err)
			if regs := strings.Join(Regressions(s), "\n"); s.Passed || !strings.Contains(regs, "[gated]") {
				t.Errorf("passed=%v regressions=%q; want the gate on gated failed", s.Passed, regs)
			}
		})
	}
}
