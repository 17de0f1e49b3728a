package score

import (
	"testing"

	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/results"
	"github.com/agent-eval/agent-eval/internal/rundir"
)

// TestCheckThresholdsBoundary pins each gate at its threshold: a metric
// exactly at the threshold passes, one step past it fails.
func TestCheckThresholdsBoundary(t *testing.T) {
	t.Parallel()
	f := func(v float64) *float64 { return &v }
	tests := []struct {
		name string
		gate config.Threshold
		js   rundir.JudgeSummary
		want bool
	}{
		{"error rate at max", config.Threshold{MaxErrorRate: f(0.25)}, rundir.JudgeSummary{Scored: 3, Errors: 1, ErrorRate: 0.25}, true},
		{"error rate over max", config.Threshold{MaxErrorRate: f(0.25)}, rundir.JudgeSummary{Scored: 2, Errors: 1, ErrorRate: 0.3333}, false},
		{"error rate zero, max zero", config.Threshold{MaxErrorRate: f(0)}, rundir.JudgeSummary{Scored: 4}, true},
		{"one error, max zero", config.Threshold{MaxErrorRate: f(0)}, rundir.JudgeSummary{Scored: 3, Errors: 1, ErrorRate: 0.25}, false},
		{"pass rate at min", config.Threshold{MinPassRate: f(0.5)}, rundir.JudgeSummary{Scored: 4, PassRate: f(0.5)}, true},
		{"pass rate under min", config.Threshold{MinPassRate: f(0.5)}, rundir.JudgeSummary{Scored: 4, PassRate: f(0.25)}, false},
		{"mean at min", config.Threshold{MinMean: f(3)}, rundir.JudgeSummary{Scored: 2, Mean: f(3)}, true},
		{"mean under min", config.Threshold{MinMean: f(3)}, rundir.JudgeSummary{Scored: 2, Mean: f(2.9999)}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.js.Name = "j"
			ev := &config.Eval{Thresholds: map[string]config.Threshold{"j": tt.gate}}
			got := checkThresholds(ev, &rundir.Summary{Judges: []rundir.JudgeSummary{tt.js}})
			if len(got) != 1 {
				t.Fatalf("checkThresholds = %+v; want one result", got)
			}
			if got[0].OK != tt.want {
				t.Errorf("checkThresholds(%+v, %+v).OK = %v, want %v (%s)", tt.gate, tt.js, got[0].OK, tt.want, got[0].Detail)
			}
		})
	}
}

// TestRewardLeavesInfraErrorsOut: a case whose infrastructure failed (a
// Harbor trial without a reward; every verdict skipped) has no reward and
// is no part of the run's. Before, "no judge said no" gave it 1 and moved
// the run's reward from 0.5 to 0.75 over two failed trials.
func TestRewardLeavesInfraErrorsOut(t *testing.T) {
	yes, no := 1.0, 0.0
	pass, fail := true, false
	ev := &config.Eval{}
	judges := []built{{name: "wrote", cfg: config.Judge{Name: "wrote"}}}
	s := &rundir.Summary{Cases: []rundir.CaseSummary{
		{ID: "ok", Status: "completed", Verdicts: []rundir.Verdict{{Judge: "wrote", Value: &yes, Passed: &pass}}},
		{ID: "slow", Status: "timeout", Verdicts: []rundir.Verdict{{Judge: "wrote", Value: &no, Passed: &fail}}},
		{ID: "crash", Status: string(results.StatusInfraError), Verdicts: []rundir.Verdict{{Judge: "wrote", Skipped: true}}},
	}}
	applyReward(s, ev, judges)
	if s.Cases[2].Reward != nil {
		t.Errorf("the infrastructure error's reward is %v, want none", *s.Cases[2].Reward)
	}
	if s.Reward == nil || *s.Reward != 0.5 {
		t.Errorf("the run's reward is %v, want 0.5 (ok 1, slow 0)", s.Reward)
	}
}
