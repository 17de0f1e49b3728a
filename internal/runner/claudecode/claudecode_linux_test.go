package claudecode

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agent-eval/agent-eval/internal/testutil"
	"github.com/agent-eval/agent-eval/internal/testutil/need"
)

// TestRunStopsTheProcessGroup: on a timeout or an interrupt the whole group
// goes — the agent, which ignores SIGTERM here, and a child it left running
// — and what it printed before is kept and parsed.
func TestRunStopsTheProcessGroup(t *testing.T) {
	t.Parallel()
	for _, interrupt := range []bool{false, true} {
		for mode, g := range guards(t) {
			t.Run(map[bool]string{false: "timeout", true: "interrupt"}[interrupt]+"/"+mode, func(t *testing.T) {
				t.Parallel()
				pidFile := filepath.Join(t.TempDir(), "child.pid")
				escFile := pidFile + ".escaped"
				script := "trap '' TERM\n" +
					"echo '" + resultLine + "'\n" +
					"setsid sh -c 'echo $$ > " + escFile + ".tmp; mv " + escFile + ".tmp " + escFile + "; exec sleep 300' &\n" +
					"while [ ! -s " + escFile + " ]; do :; done\n" +
					"sleep 300 &\necho $! > " + pidFile + "\n" +
					"while :; do sleep 1; done\n"
				ctx, cancel := context.WithCancel(testutil.Context(t, time.Minute))
				defer cancel()
				spec := Spec{Bin: agent(t, script), Prompt: "p", Grace: 200 * time.Millisecond, Guard: g}
				if interrupt {
					go func() {
						waitFor(t, pidFile)
						cancel()
					}()
				} else {
					spec.Timeout = 500 * time.Millisecond
				}
				res := Run(ctx, spec)
				if res.ExitCode != -1 || res.TimedOut == interrupt || res.Interrupted != interrupt {
					t.Fatalf("exit %d, timed out %v, interrupted %v", res.ExitCode, res.TimedOut, res.Interrupted)
				}
				if res.Summary.CostUSD != 0.25 || len(res.Summary.Denials) != 1 {
					t.Errorf("the output before the stop was not parsed: %+v", res.Summary)
				}
				b, err := os.ReadFile(pidFile)
				if err != nil {
					t.Fatal(err)
				}
				pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
				deadline := time.Now().Add(5 * time.Second)
				for alive(pid) {
					if time.Now().After(deadline) {
						t.Fatalf("the agent's child %d is still running", pid)
					}
					time.Sleep(20 * time.Millisecond)
				}
				// One that left the group: out of reach bare, killed by the guard.
				b, _ = os.ReadFile(escFile)
				esc, _ := strconv.Atoi(strings.TrimSpace(string(b)))
				if g == "" {
					_ = syscall.Kill(esc, syscall.SIGKILL)
					return
				}
				for alive(esc) {
					if time.Now().After(deadline) {
						_ = syscall.Kill(esc, syscall.SIGKILL)
						t.Fatalf("the agent's escaped child %d is still running", esc)
					}
					time.Sleep(20 * time.Millisecond)
				}
			})
		}
	}
}

// alive reports whether pid runs (a zombie waiting for a reaper does not).
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return !os.IsNotExist(err)
	}
	_, rest, _ := strings.Cut(string(b), ") ")
	return !strings.HasPrefix(rest, "Z")
}

// TestRunDoesNotWaitForLeftovers: an agent that ends while a process it
// started still holds its output open — inside its group (killed) or
// escaped with setsid (its pipe is dropped after the grace period) — gives
// its result at once, not at the timeout.
func TestRunDoesNotWaitForLeftovers(t *testing.T) {
	t.Parallel()
	for _, escape := range []bool{false, true} {
		for mode, g := range guards(t) {
			t.Run(map[bool]string{false: "in the group", true: "escaped"}[escape]+"/"+mode, func(t *testing.T) {
				t.Parallel()
				if escape {
					need.Program(t, "setsid")
				}
				pidFile := filepath.Join(t.TempDir(), "child.pid")
				launch := "sleep 300 &\necho $! > " + pidFile + "\n"
				if escape {
					launch = "setsid sh -c 'echo $$ > " + pidFile + "; exec sleep 300' &\n"
				}
				bin := agent(t, "echo '"+resultLine+"'\n"+launch+"while [ ! -s "+pidFile+" ]; do :; done\nexit 0\n")
				start := time.Now()
				res := Run(testutil.Context(t, 2*time.Minute), Spec{Bin: bin, Prompt: "p", Grace: 300 * time.Millisecond, Timeout: time.Minute, Guard: g})
				if res.ExitCode != 0 || res.Err != nil || res.TimedOut || res.Summary.CostUSD != 0.25 {
					t.Fatalf("exit %d, err %v, timed out %v, cost %v", res.ExitCode, res.Err, res.TimedOut, res.Summary.CostUSD)
				}
				if d := time.Since(start); d > 30*time.Second {
					t.Errorf("Run returned after %v; it waited for the leftover process", d)
				}
				b, _ := os.ReadFile(pidFile)
				pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
				if escape {
					_ = syscall.Kill(pid, syscall.SIGKILL) // outside our reach by design; clean up
					return
				}
				deadline := time.Now().Add(5 * time.Second)
				for alive(pid) {
					if time.Now().After(deadline) {
						t.Fatalf("the agent's leftover child %d is still running", pid)
					}
					time.Sleep(20 * time.Millisecond)
				}
			})
		}
	}
}

func waitFor(t *testing.T, path string) {
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if b, err := os.ReadFile(path); err == nil && len(b) > 0 {
			return
		}
	}
	t.Error(path + " never appeared")
}

// TestRunDiesWithTheRun: when the process running the agent is killed with
// SIGKILL, and cannot stop anything itself, the agent goes too (its
// parent-death signal) and, under the guard, so do its children, in its
// group or escaped with setsid.
func TestRunDiesWithTheRun(t *testing.T) {
	t.Parallel()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for mode, g := range guards(t) {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			script := "echo $$ > " + dir + "/agent.pid\n" +
				"sleep 300 &\necho $! > " + dir + "/child.pid\n" +
				"setsid sh -c 'echo $$ > " + dir + "/escaped.pid; exec sleep 300' &\n" +
				"while :; do sleep 1; done\n"
			runner := exec.CommandContext(testutil.Context(t, time.Minute), self, "runner", agent(t, script), g)
			if err := runner.Start(); err != nil {
				t.Fatal(err)
			}
			for _, f := range []string{"agent.pid", "child.pid", "escaped.pid"} {
				waitFor(t, filepath.Join(dir, f))
			}
			_ = runner.Process.Kill()
			_ = runner.Wait()
			want := []string{"agent.pid"}
			if g != "" {
				want = append(want, "child.pid", "escaped.pid")
			}
			for _, f := range []string{"agent.pid", "child.pid", "escaped.pid"} {
				b, _ := os.ReadFile(filepath.Join(dir, f))
				pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
				if !slices.Contains(want, f) {
					_ = syscall.Kill(pid, syscall.SIGKILL) // bare: out of reach; clean up
					continue
				}
				deadline := time.Now().Add(5 * time.Second)
				for alive(pid) {
					if time.Now().After(deadline) {
						_ = syscall.Kill(pid, syscall.SIGKILL)
						t.Fatalf("%s (%d) still runs 5s after its run was killed", f, pid)
					}
					time.Sleep(20 * time.Millisecond)
				}
			}
		})
	}
}
