package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-eval/agent-eval/internal/engine"
	"github.com/agent-eval/agent-eval/internal/runner"
	"github.com/agent-eval/agent-eval/internal/runner/fake"
	"github.com/agent-eval/agent-eval/internal/workspace"
)

// startRecorder is the fake runner, noting what its Start was given and
// which of the workspaces existed then.
type startRecorder struct {
	*fake.Runner
	setup   runner.RunSetup
	existed []bool
}

func (s *startRecorder) Start(ctx context.Context, setup runner.RunSetup) (runner.Agent, error) {
	s.setup = setup
	for _, ws := range setup.Workspaces {
		fi, err := os.Stat(ws)
		s.existed = append(s.existed, err == nil && fi.IsDir())
	}
	return s.Runner.Start(ctx, setup)
}

// Every case's workspace exists before the first agent starts, each in a
// slot of its own in the private root (mode 0700), apart from the run's
// own folders; the run removes its slots and leaves the root.
func TestWorkspacesAreMadeUpFrontInSlotsOfTheirOwn(t *testing.T) {
	base := t.TempDir()
	t.Setenv(workspace.RootEnv, base)
	dir := project(t, caseEval, "a", "b", "c", "d")
	r := newRun(t, dir, map[string]fake.Script{})
	rec := &startRecorder{Runner: r.fake}
	reg := runner.NewRegistry()
	reg.Register(runner.TypeFake, func() runner.Runner { return rec })
	if _, err := engine.Run(context.Background(), r.plan(t), reg, r.obs); err != nil {
		t.Fatal(err)
	}
	s := rec.setup
	if len(s.Workspaces) != 4 || len(rec.existed) != 4 {
		t.Fatalf("workspaces %v", s.Workspaces)
	}
	if filepath.Dir(s.WorkspaceRoot) != base {
		t.Errorf("root %s is not in %s", s.WorkspaceRoot, base)
	}
	if fi, err := os.Stat(s.WorkspaceRoot); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("root mode %v (%v), want 0700", fi.Mode(), err)
	}
	slots := map[string]bool{filepath.Dir(s.Baselines): true}
	if filepath.Dir(s.Baselines) != s.Private || filepath.Dir(s.Private) != s.WorkspaceRoot {
		t.Errorf("baselines %s, private %s: not the run's own slot", s.Baselines, s.Private)
	}
	for i, ws := range s.Workspaces {
		slot := filepath.Dir(ws)
		if !rec.existed[i] || filepath.Dir(slot) != s.WorkspaceRoot || slots[slot] || strings.Trim(filepath.Base(slot), "0123456789abcdef") != "" {
			t.Errorf("workspace %s: existed at start %v, slot shared or misplaced", ws, rec.existed[i])
		}
		slots[slot] = true
		if _, err := os.Stat(slot); err == nil {
			t.Errorf("slot %s left behind", slot)
		}
	}
	if _, err := os.Stat(s.WorkspaceRoot); err != nil {
		t.Errorf("the root was removed: %v", err)
	}
}
