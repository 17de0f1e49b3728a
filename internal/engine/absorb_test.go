package engine

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestTamperGuardAbsorbsOnlyTheHooksWindow: what the eval's own hooks
// change while they run is taken into the fingerprint; what the agent
// changed before they started (a file rewritten, a file removed) still
// counts as tampering.
func TestTamperGuardAbsorbsOnlyTheHooksWindow(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for _, d := range []string{"agent", "hook"} {
		if err := os.Mkdir(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(rel, body string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(root, rel), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	remove := func(rel string) {
		t.Helper()
		if err := os.Remove(filepath.Join(root, rel)); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"agent.txt", "hook.txt", "agent/gone.txt", "hook/gone.txt"} {
		write(f, "before")
	}
	g := newTamperGuard([]string{root}, nil, nil)
	write("agent.txt", "the agent's")
	remove("agent/gone.txt")
	time.Sleep(3 * hookSlack) // the agent's changes are well before the hooks start
	start := time.Now()
	write("hook.txt", "the hook's")
	write("hook/new.txt", "the hook's")
	remove("hook/gone.txt")
	g.absorb(start)
	got := g.changes()
	want := []string{filepath.Join(root, "agent.txt") + ": changed", filepath.Join(root, "agent", "gone.txt") + ": removed"}
	if !slices.Equal(got, want) {
		t.Errorf("changes after absorb = %q, want %q", got, want)
	}
}
