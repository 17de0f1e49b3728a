package engine_test

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/engine"
)

// TestNewPlanGuards: a run id that is no plain folder name and a --cases
// id the dataset lacks are usage errors naming what was given;
// --max-budget 0 is a cap of $0 (docs/commands.md: "0 or more") that wins over
// execution.max_budget_usd, and only the unset value (-1) keeps the
// eval's.
func TestNewPlanGuards(t *testing.T) {
	t.Parallel()
	evalYAML := strings.Replace(caseEval, `execution: {prompt: "Hello {name}."}`, `execution: {prompt: "Hello {name}.", max_budget_usd: 2}`, 1)
	dir := project(t, evalYAML, "a", "b")
	ev, err := config.Load(filepath.Join(dir, "eval.yaml"))
	if err != nil {
		t.Fatalf("the fixture does not load: %v", err)
	}
	env := engine.Environment{Dir: dir, Now: time.Date(2026, 12, 1, 2, 3, 4, 0, time.UTC), Getenv: func(string) string { return "" }}
	tests := []struct {
		name   string
		flags  engine.Flags
		err    string // a usage error holding this, or "" for none
		budget float64
	}{
		{"run id climbing out", engine.Flags{RunID: "../x", MaxBudgetUSD: -1}, `run id "../x" is not a safe folder name`, 0},
		{"run id with a slash", engine.Flags{RunID: "a/b", MaxBudgetUSD: -1}, `run id "a/b" is not a safe folder name`, 0},
		{"run id dot-dot", engine.Flags{RunID: "..", MaxBudgetUSD: -1}, `run id ".." is not a safe folder name`, 0},
		{"plain run id", engine.Flags{RunID: "mine", MaxBudgetUSD: -1}, "", 2},
		{"unknown case", engine.Flags{Cases: []string{"a", "zz"}, MaxBudgetUSD: -1}, `--cases: no case "zz"`, 0},
		{"known case", engine.Flags{Cases: []string{"b"}, MaxBudgetUSD: -1}, "", 2},
		{"budget unset", engine.Flags{MaxBudgetUSD: -1}, "", 2},
		{"budget zero", engine.Flags{MaxBudgetUSD: 0}, "", 0},
		{"budget given", engine.Flags{MaxBudgetUSD: 0.5}, "", 0.5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, err := engine.NewPlan(ev, "eval.yaml", tt.flags, env)
			if tt.err != "" {
				var ue *engine.UsageError
				if !errors.As(err, &ue) || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("NewPlan(%+v) = %v; want a usage error holding %q", tt.flags, err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("NewPlan(%+v): %v", tt.flags, err)
			}
			if p.MaxBudgetUSD != tt.budget {
				t.Errorf("NewPlan(%+v).MaxBudgetUSD = %v, want %v", tt.flags, p.MaxBudgetUSD, tt.budget)
			}
			if len(tt.flags.Cases) > 0 && strings.Join(p.Cases, ",") != strings.Join(tt.flags.Cases, ",") {
				t.Errorf("NewPlan(%+v).Cases = %v", tt.flags, p.Cases)
			}
		})
	}
}
