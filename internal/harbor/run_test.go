package harbor

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestJobArgs: every option reaches harbor's command line, and an agent
// variable travels as a ${VAR} template, never as its value.
func TestJobArgs(t *testing.T) {
	j := Job{Bin: "harbor", Tasks: "t", JobsDir: "j", Name: "n", AgentArgs: []string{"-a", "claude-code", "-m", "m", "--ak", "permission_mode=default"},
		Env: "daytona", EnvKwargs: []string{"a=1"}, Concurrency: 8, Attempts: 2,
		AgentEnv: map[string]string{"TOKEN": "AGENT_EVAL_CARRIER_0", "A": "AGENT_EVAL_CARRIER_1"}}
	got := strings.Join(j.Args(), " ")
	want := "run -p t -o j --job-name n -y -q -a claude-code -m m --ak permission_mode=default -e daytona --ek a=1 -n 8 -k 2 --ae A=${AGENT_EVAL_CARRIER_1} --ae TOKEN=${AGENT_EVAL_CARRIER_0}"
	if got != want {
		t.Errorf("args:\n got %s\nwant %s", got, want)
	}
	if cl := j.CommandLine(); !strings.Contains(cl, "'TOKEN=${AGENT_EVAL_CARRIER_0}'") {
		t.Errorf("command line %s does not quote the template", cl)
	}
}

// TestJobInterrupt: an interrupted job sends harbor SIGINT (so it stops its
// trials) and returns the context's error.
func TestJobInterrupt(t *testing.T) {
	dir := t.TempDir()
	stub := filepath.Join(dir, "harbor")
	mark := filepath.Join(dir, "got-sigint")
	script := "#!/bin/sh\ntrap 'echo yes > " + mark + "; exit 130' INT\necho started\nwhile :; do sleep 0.05; done\n"
	if err := os.WriteFile(stub, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	err := Job{Bin: stub, Tasks: "t", JobsDir: dir, Name: "n", Grace: 5 * time.Second}.Run(ctx)
	if err != context.DeadlineExceeded {
		t.Errorf("Run = %v, want the context's error", err)
	}
	if b, _ := os.ReadFile(mark); strings.TrimSpace(string(b)) != "yes" {
		t.Errorf("harbor did not get SIGINT before it was stopped")
	}
}

// TestJobFailure: harbor's own failure (exit status) is an error that
// says so.
func TestJobFailure(t *testing.T) {
	stub := filepath.Join(t.TempDir(), "harbor")
	if err := os.WriteFile(stub, []byte("#!/bin/sh\nexit 2\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	err := Job{Bin: stub}.Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "harbor run") {
		t.Errorf("Run = %v, want a harbor run error", err)
	}
}
