package score

import (
	"strings"
	"testing"

	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/rundir"
)

func boolV(p bool) rundir.Verdict {
	v := b2f(p)
	return rundir.Verdict{Value: &v, Passed: &p}
}

func numV(x float64) rundir.Verdict { return rundir.Verdict{Value: &x} }

// TestReduceVerdicts: each reducer over a case's attempts, with errors and
// skips counting in none of the numbers.
func TestReduceVerdicts(t *testing.T) {
	pass, fail := boolV(true), boolV(false)
	errored := rundir.Verdict{Error: "judge crashed"}
	skipped := rundir.Verdict{Skipped: true}
	for _, tc := range []struct {
		reduce string
		vs     []rundir.Verdict
		value  float64 // -1: none
		passed string  // "", "true", "false"
		err    string
		flaky  bool
	}{
		{"", []rundir.Verdict{pass, pass, fail}, 0.6667, "true", "", true},
		{"mean", []rundir.Verdict{pass, fail, fail}, 0.3333, "false", "", true},
		{"majority", []rundir.Verdict{pass, pass, fail}, 1, "true", "", true},
		{"majority", []rundir.Verdict{pass, fail}, 0, "false", "", true}, // a tie fails
		{"any", []rundir.Verdict{fail, fail, pass}, 1, "true", "", true},
		{"all", []rundir.Verdict{pass, pass, fail}, 0, "false", "", true},
		{"all", []rundir.Verdict{pass, pass, pass}, 1, "true", "", false},
		{"pass@2", []rundir.Verdict{pass, fail, fail}, 0.6667, "true", "", true},
		{"pass^2", []rundir.Verdict{pass, pass, fail}, 0.3333, "false", "", true},
		{"pass@3", []rundir.Verdict{pass, fail}, -1, "", "needs 3 scored attempts", true},
		{"mean", []rundir.Verdict{pass, errored, fail}, 0.5, "false", "", true},
		{"mean", []rundir.Verdict{errored, errored}, -1, "", "no attempt was scored (2 errored): judge crashed", false},
		{"mean", []rundir.Verdict{skipped, pass}, 1, "true", "", false},
		{"median", []rundir.Verdict{numV(2), numV(5), numV(3), numV(4)}, 3.5, "", "", true},
		{"min", []rundir.Verdict{numV(2), numV(5)}, 2, "", "", true},
		{"max", []rundir.Verdict{numV(2), numV(5)}, 5, "", "", true},
		{"mean", []rundir.Verdict{numV(4), numV(4)}, 4, "", "", false},
		{"majority", []rundir.Verdict{numV(4), numV(2)}, -1, "", "counts passed attempts, but the judge scores", true},
	} {
		r, err := config.ParseReducer(tc.reduce)
		if err != nil {
			t.Fatal(err)
		}
		v := reduceVerdicts("j", r, tc.vs)
		name := tc.reduce + " " + strings.Repeat("·", len(tc.vs))
		switch {
		case tc.err != "":
			if !strings.Contains(v.Error, tc.err) || v.Value != nil {
				t.Errorf("%s: %+v, want the error %q", name, v, tc.err)
			}
		case v.Value == nil || *v.Value != tc.value:
			t.Errorf("%s: value %v, want %v (%+v)", name, v.Value, tc.value, v)
		case tc.passed == "" && v.Passed != nil, tc.passed != "" && (v.Passed == nil || map[bool]string{true: "true", false: "false"}[*v.Passed] != tc.passed):
			t.Errorf("%s: passed %v, want %s", name, v.Passed, tc.passed)
		}
		if v.Flaky != tc.flaky && tc.err == "" {
			t.Errorf("%s: flaky %v, want %v", name, v.Flaky, tc.flaky)
		}
	}
	if v := reduceVerdicts("j", config.Reducer{Kind: config.ReduceMean}, []rundir.Verdict{skipped, skipped}); !v.Skipped {
		t.Errorf("every attempt skipped: %+v", v)
	}
}

func TestParseReducer(t *testing.T) {
	for _, s := range []string{"pass@0", "pass@x", "pass^", "best", "pass@-1"} {
		if _, err := config.ParseReducer(s); err == nil {
			t.Errorf("ParseReducer(%q) accepted it", s)
		}
	}
	if r, err := config.ParseReducer("pass^3"); err != nil || r.Kind != config.ReducePassHatK || r.K != 3 || r.String() != "pass^3" {
		t.Errorf("pass^3 = %+v, %v", r, err)
	}
}

// TestPairedTest: the change of a judge against the baseline, paired by
// case: exact McNemar for pass/fail (8 of 10 lost: p = 2/2^8), Wilcoxon
// for scores, and no evidence of a change when the test cannot tell.
func TestPairedTest(t *testing.T) {
	var lost, one []pair
	for i := range 10 {
		lost = append(lost, pair{now: boolV(i >= 8), before: boolV(true)})
		one = append(one, pair{now: boolV(i != 0), before: boolV(true)})
	}
	var d rundir.JudgeDelta
	pairedTest(&d, lost)
	if d.Test != "mcnemar-exact" || d.PValue == nil || *d.PValue != 0.007813 || d.Change != "worse" || *d.Effect != -0.8 || d.Paired != 10 {
		t.Errorf("8 of 10 lost: %+v", d)
	}
	if iv := d.EffectInterval; iv == nil || !(iv.Low < -0.8 && iv.High > -0.8 && iv.High < 0) {
		t.Errorf("its interval %+v should hold -0.8 and lie below 0", iv)
	}
	d = rundir.JudgeDelta{}
	pairedTest(&d, one)
	if d.Change != "no evidence of a change" || *d.PValue != 1 {
		t.Errorf("1 of 10 lost: %+v", d)
	}
	// Scores that all rose by about 1: Wilcoxon's exact p for 8 positive
	// differences without ties is 2/2^8.
	var rose []pair
	for i := range 8 {
		rose = append(rose, pair{now: numV(3 + float64(i)/10), before: numV(2 - float64(i)/100)})
	}
	d = rundir.JudgeDelta{}
	pairedTest(&d, rose)
	if d.Test != "wilcoxon" || *d.PValue != 0.007813 || d.Change != "better" || d.CohenD == nil || *d.Effect <= 1 {
		t.Errorf("scores rose: %+v", d)
	}
}
