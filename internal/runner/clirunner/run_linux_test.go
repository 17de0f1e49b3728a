package clirunner

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agent-eval/agent-eval/internal/testutil"
)

// The timeout and an interrupt stop the whole process group: a child the
// agent started in the background dies with it, and an agent that ignores
// SIGTERM is killed after the grace period. Under the guard, so does a
// child that left the group (setsid).
func TestRunStopKillsGroup(t *testing.T) {
	t.Parallel()
	for gname, g := range guards(t) {
		for _, tt := range []struct{ name, script string }{
			{"terminates", `sleep 60 & echo $! > child.pid; wait`},
			{"ignores SIGTERM", `trap '' TERM; sleep 60 & echo $! > child.pid; while :; do sleep 0.1; done`},
			{"escapes the group", `setsid sleep 60 & echo $! > child.pid; wait`},
		} {
			for _, interrupt := range []bool{false, true} {
				if tt.name == "escapes the group" && g == "" {
					continue // only the guard follows a process out of the group
				}
				t.Run(fmt.Sprintf("%s/%s/interrupt=%v", gname, tt.name, interrupt), func(t *testing.T) {
					t.Parallel()
					ws := t.TempDir()
					ctx, cancel := context.WithCancel(testutil.Context(t, time.Minute))
					defer cancel()
					spec := Spec{Argv: shell(tt.script), Dir: ws, Env: testEnv, Grace: 300 * time.Millisecond, Guard: g}
					if interrupt {
						go func() { // once the child runs
							for i := 0; i < 500; i++ {
								if b, _ := os.ReadFile(filepath.Join(ws, "child.pid")); len(b) > 0 {
									break
								}
								time.Sleep(20 * time.Millisecond)
							}
							cancel()
						}()
					} else {
						spec.Timeout = time.Second
					}
					start := time.Now()
					res := Run(ctx, spec)
					if res.TimedOut == interrupt || res.Interrupted != interrupt || res.ExitCode != -1 {
						t.Errorf("Run = exit %d, timed out %v, interrupted %v, err %v", res.ExitCode, res.TimedOut, res.Interrupted, res.Err)
					}
					if took := time.Since(start); took > 15*time.Second {
						t.Errorf("Run took %v", took)
					}
					assertDead(t, filepath.Join(ws, "child.pid"))
				})
			}
		}
	}
}

// assertDead waits briefly for the process whose pid the file holds to be
// gone (or a zombie, waiting to be reaped).
func assertDead(t *testing.T, pidFile string) {
	t.Helper()
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatalf("the agent did not record its child: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			return
		}
		if f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:])); len(f) > 0 && f[0] == "Z" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the agent's child %d still runs", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// guards are the ways an agent is started: bare, and under the guard.
func guards(t *testing.T) map[string]string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return map[string]string{"bare": "", "guarded": self}
}
