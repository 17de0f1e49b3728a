package engine_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/engine"
)

// TestNewPlanRecordReplay: --record goes with neither --fake-model nor
// --replay and only with a runner whose API it records; --replay needs a
// run directory and makes the run a fake model run.
func TestNewPlanRecordReplay(t *testing.T) {
	t.Parallel()
	dir := project(t, caseEval, "a")
	ev, err := config.Load(filepath.Join(dir, "eval.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	cli := project(t, strings.Replace(caseEval, "name: demo\n", "name: demo\nrunner: {type: cli, command: [\"true\"]}\n", 1), "a")
	evCLI, err := config.Load(filepath.Join(cli, "eval.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	load := func(runnerYAML string) *config.Eval {
		d := project(t, strings.Replace(caseEval, "name: demo\n", "name: demo\n"+runnerYAML, 1), "a")
		e, err := config.Load(filepath.Join(d, "eval.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	evCodex, evGemini := load("runner: {type: codex}\n"), load("runner: {type: gemini}\n")
	evProvider := load("runner: {type: codex, settings: {model_provider: azure}}\n")
	run := filepath.Join(t.TempDir(), "r1")
	if err := os.MkdirAll(filepath.Join(run, "cases", "a"), 0o755); err != nil {
		t.Fatal(err)
	}
	env := engine.Environment{Dir: dir, Now: time.Date(2026, 12, 1, 2, 3, 4, 0, time.UTC), Getenv: func(string) string { return "" }}
	for _, tt := range []struct {
		name  string
		ev    *config.Eval
		flags engine.Flags
		err   string
	}{
		{"record", ev, engine.Flags{Record: true, MaxBudgetUSD: -1}, ""},
		{"record with fake model", ev, engine.Flags{Record: true, FakeModel: true, MaxBudgetUSD: -1}, "--record records a real model's answers"},
		{"record with replay", ev, engine.Flags{Record: true, Replay: run, MaxBudgetUSD: -1}, "--record records a real model's answers"},
		{"record a cli runner", evCLI, engine.Flags{Record: true, MaxBudgetUSD: -1}, "runner cli is not recorded yet"},
		{"record codex", evCodex, engine.Flags{Record: true, MaxBudgetUSD: -1}, ""},
		{"record gemini", evGemini, engine.Flags{Record: true, MaxBudgetUSD: -1}, ""},
		{"record codex's own provider", evProvider, engine.Flags{Record: true, MaxBudgetUSD: -1}, "runner.settings.model_provider names a provider of its own"},
		{"replay", ev, engine.Flags{Replay: run, MaxBudgetUSD: -1}, ""},
		{"replay with fake model", ev, engine.Flags{Replay: run, FakeModel: true, MaxBudgetUSD: -1}, "goes without --fake-model"},
		{"replay of no run", ev, engine.Flags{Replay: filepath.Join(run, "cases"), MaxBudgetUSD: -1}, "--replay: "},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, err := engine.NewPlan(tt.ev, "eval.yaml", tt.flags, env)
			if tt.err != "" || err != nil {
				wantUsageError(t, err, tt.err)
				return
			}
			if tt.flags.Replay != "" && (!p.FakeModel || p.Replay.Path != run) {
				t.Errorf("replay plan: FakeModel %v, Replay %q", p.FakeModel, p.Replay.Path)
			}
			if p.Record != tt.flags.Record {
				t.Errorf("Record = %v", p.Record)
			}
		})
	}
}

// wantUsageError fails t unless err is a usage error holding want.
func wantUsageError(t *testing.T, err error, want string) {
	t.Helper()
	var ue *engine.UsageError
	if !errors.As(err, &ue) || want == "" || !strings.Contains(err.Error(), want) {
		t.Fatalf("NewPlan = %v; want a usage error holding %q", err, want)
	}
}
