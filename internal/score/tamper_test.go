package score

import (
	"context"
	"os"
	"strings"
	"testing"
)

// A tampered case is never judged and never passes: each judge's verdict
// is a failure at the bottom of its scale, and the run's verdict fails
// even with thresholds the other cases meet.
func TestTamperedCaseFails(t *testing.T) {
	const evalYAML = `name: t
execution: {prompt: x}
dataset: {path: cases}
judges:
  - {name: always, expr: "true"}
  - {name: score, expr: "5", feedback_type: int, score_range: [1, 5]}
thresholds:
  always: {min_pass_rate: 0.5}
`
	ev, dir := writeProject(t, evalYAML,
		fixtureCase{id: "ok"},
		fixtureCase{id: "bad", exitCode: 1, tampered: []string{"/e/json.py: added"}})
	s, err := Score(context.Background(), Options{Dir: dir, Eval: ev, Getenv: os.Getenv})
	must(t, err)
	if s.Passed || len(s.Tampered) != 1 || s.Tampered[0] != "bad" {
		t.Errorf("passed %v, tampered %q; want a failed verdict naming bad", s.Passed, s.Tampered)
	}
	for _, c := range s.Cases {
		for _, v := range c.Verdicts {
			switch c.ID {
			case "bad":
				if v.Value == nil || (v.Judge == "always" && (v.Passed == nil || *v.Passed)) || !strings.Contains(v.Rationale, "json.py: added") {
					t.Errorf("bad/%s: %+v; want a failure naming the change", v.Judge, v)
				}
				if v.Judge == "score" && *v.Value != 1 {
					t.Errorf("bad/score = %v; want the bottom of the scale, 1", *v.Value)
				}
			case "ok":
				if v.Value == nil || v.Judge == "always" && (v.Passed == nil || !*v.Passed) {
					t.Errorf("ok/%s: %+v; want it judged and passed", v.Judge, v)
				}
			}
		}
	}
}
