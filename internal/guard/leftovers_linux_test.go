package guard

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/agent-eval/agent-eval/internal/testutil"
)

// start runs a shell that leaves a child in its group and one escaped into
// its own session, as an agent's tools do.
func start(t *testing.T) *exec.Cmd {
	t.Helper()
	// Past the test's own deadline the shell is killed, so the cleanup's
	// Wait cannot hang (its escaped child is the sweep's to kill).
	cmd := exec.CommandContext(testutil.Context(t, time.Minute), "sh", "-c", "sleep 300 & setsid sleep 300 & wait")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		killTree(cmd.Process.Pid, false) // the escaped child too
		_ = cmd.Wait()
	})
	return cmd
}

// descendants are the live processes under pid.
func descendants(pid int) []int {
	var out []int
	for _, p := range processes() {
		if p.ppid == pid && !p.zombie {
			out = append(out, p.pid)
			out = append(out, descendants(p.pid)...)
		}
	}
	return out
}

func TestSweep(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "agents.txt")
	leftover, reused := start(t), start(t)
	var kids []int
	for deadline := time.Now().Add(5 * time.Second); len(kids) < 2; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the leftover's children never started")
		}
		kids = descendants(leftover.Process.Pid)
	}
	if err := Record(path, leftover.Process.Pid, "case a"); err != nil {
		t.Fatal(err)
	}
	// A pid recorded with another start time now names another process:
	// it must be left alone.
	p, err := stat(reused.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	fmt.Fprintf(f, "%d %d b\nnot a line\n", reused.Process.Pid, p.start+1)
	_ = f.Close()

	killed, err := Sweep(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(killed) != 1 || killed[0].Label != "case_a" || killed[0].PID != leftover.Process.Pid || killed[0].Procs < 3 {
		t.Fatalf("Sweep = %+v; want the recorded group of case a, 3 processes", killed)
	}
	// SIGKILL is delivered asynchronously: give it a moment.
	for _, pid := range append(kids, leftover.Process.Pid) {
		for deadline := time.Now().Add(2 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			q, err := stat(pid)
			if err != nil || q.zombie {
				break
			}
			if time.Now().After(deadline) {
				t.Errorf("process %d of the leftover still runs: %+v", pid, q)
				break
			}
		}
	}
	if q, err := stat(reused.Process.Pid); err != nil || q.zombie {
		t.Errorf("the process that reused a recorded pid was killed")
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("the record is still there after the sweep (%v)", err)
	}
	if k, err := Sweep(path); err != nil || len(k) != 0 {
		t.Errorf("a second Sweep = %v, %v; want nothing", k, err)
	}
}
