package lifecycle

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agent-eval/agent-eval/internal/config"
)

func ptr(i int) *int { return &i }

func TestPhase(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var log bytes.Buffer
	hooks := []config.Hook{
		{Command: `printf 'env:\n  SERVICE_URL: http://localhost:9\ndata:\n  seeded: 3\n' > .hook-outputs.yaml`, Description: "seed"},
		{Command: "exit 7", Condition: "false"},
		{Command: `test "$CASE_ID" = c1 && echo "ran for $CASE_ID" > ran.txt`},
	}
	out, err := Phase(context.Background(), "before_each", hooks, dir, Environ(os.Environ(), map[string]string{"CASE_ID": "c1"}), &log, true)
	if err != nil {
		t.Fatalf("Phase: %v\n%s", err, log.String())
	}
	if out.Env["SERVICE_URL"] != "http://localhost:9" || out.Data["seeded"] != 3 {
		t.Errorf("outputs = %+v", out)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "ran.txt")); string(b) != "ran for c1\n" {
		t.Errorf("ran.txt = %q", b)
	}
	if _, err := os.Stat(filepath.Join(dir, OutputsFile)); !os.IsNotExist(err) {
		t.Error("the outputs file was not deleted")
	}
	if !strings.Contains(log.String(), "hook before_each: seed ... OK") || !strings.Contains(log.String(), "SKIP (condition)") {
		t.Errorf("log = %s", log.String())
	}
}

func TestPhaseFailures(t *testing.T) {
	t.Parallel()
	var log bytes.Buffer
	dir := t.TempDir()
	hooks := []config.Hook{{Command: "exit 3", Description: "breaks"}, {Command: "touch after"}}
	if _, err := Phase(context.Background(), "before_all", hooks, dir, os.Environ(), &log, true); err == nil || !strings.Contains(err.Error(), "hook failed in before_all: breaks (exit code 3)") {
		t.Errorf("strict: err = %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "after")); !os.IsNotExist(err) {
		t.Error("a failing hook did not stop the phase")
	}
	hooks[0].OnFailure = "continue"
	if _, err := Phase(context.Background(), "before_all", hooks, dir, os.Environ(), &log, true); err != nil {
		t.Errorf("on_failure continue: %v", err)
	}
	start := time.Now()
	_, err := Phase(context.Background(), "after_each", []config.Hook{{Command: "sleep 30", Timeout: ptr(1)}}, dir, os.Environ(), &log, false)
	if err != nil || time.Since(start) > 10*time.Second || !strings.Contains(log.String(), "TIMEOUT") {
		t.Errorf("timeout: err %v after %v, log %s", err, time.Since(start), log.String())
	}
}

// TestPhaseBackgroundService: a before_all that starts a service in the
// background and exits is done at once, and the service keeps running for
// the agent.
func TestPhaseBackgroundService(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	log, err := os.Create(filepath.Join(dir, "hooks.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	hooks := []config.Hook{{Command: "sleep 300 & echo $! > service.pid; echo started", Timeout: ptr(120)}}
	start := time.Now()
	if _, err := Phase(context.Background(), "before_all", hooks, dir, os.Environ(), log, true); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 60*time.Second {
		t.Errorf("the phase waited %v for the background service", d)
	}
	b, err := os.ReadFile(filepath.Join(dir, "service.pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	if pid <= 0 || syscall.Kill(pid, 0) != nil {
		t.Fatalf("the service (pid %d) is not running after the hook", pid)
	}
	_ = syscall.Kill(pid, syscall.SIGKILL)
}
