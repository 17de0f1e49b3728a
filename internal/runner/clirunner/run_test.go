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

	"github.com/agent-eval/agent-eval/internal/agentproc"
	"github.com/agent-eval/agent-eval/internal/guard"
	"github.com/agent-eval/agent-eval/internal/testutil"
	"github.com/agent-eval/agent-eval/internal/transcript"
)

func shell(script string) []string { return []string{"sh", "-c", script} }

var testEnv = Env([]string{"PATH=/usr/bin:/bin", "DROPPED=no", "PWD=/elsewhere"}, map[string]string{"FROM_EVAL": "e", "DROPPED": "yes"})

func TestRunCwdEnvStreamsMetrics(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	out := filepath.Join(ws, "output")
	var stdout, stderr bytes.Buffer
	res := Run(testutil.Context(t, time.Minute), Spec{
		Argv: shell(`pwd; echo "$PWD"; echo "$FROM_EVAL $DROPPED"; echo oops >&2; mkdir -p output
printf '{"token_usage":{"input":10,"output":5,"cache_read":2,"cache_write":1},"cost_usd":0.25,"num_turns":3,"model":"m1"}' > output/metrics.json
exit 7`),
		Dir: ws, Env: testEnv, OutputDir: out, Stdout: &stdout, Stderr: &stderr,
	})
	if res.Err != nil || res.ExitCode != 7 || res.TimedOut || res.Interrupted {
		t.Fatalf("Run = %+v", res)
	}
	if want := ws + "\n" + ws + "\ne yes\n"; stdout.String() != want {
		t.Errorf("stdout = %q, want %q (cwd and $PWD, env with the eval's winning)", stdout.String(), want)
	}
	if stderr.String() != "oops\n" {
		t.Errorf("stderr = %q", stderr.String())
	}
	if res.Metrics == nil || res.Usage != (transcript.Usage{InputTokens: 10, OutputTokens: 5, CacheReadTokens: 2, CacheCreationTokens: 1}) ||
		res.CostUSD != 0.25 || res.NumTurns != 3 || res.Model != "m1" || res.PerModel["m1"].CostUSD != 0.25 {
		t.Errorf("usage from metrics.json: %+v", res)
	}
}

func TestRunBadMetrics(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	res := Run(testutil.Context(t, time.Minute), Spec{Argv: shell(`mkdir output; echo '{not json' > output/metrics.json`), Dir: ws, Env: testEnv, OutputDir: filepath.Join(ws, "output")})
	if res.ExitCode != 0 || res.Err == nil || !strings.Contains(res.Err.Error(), "metrics.json") {
		t.Errorf("Run = exit %d, %v; want exit 0 and an error naming metrics.json", res.ExitCode, res.Err)
	}
}

func TestRunMissingProgram(t *testing.T) {
	t.Parallel()
	var tr bytes.Buffer
	w := transcript.NewWriter(&tr)
	res := Run(testutil.Context(t, time.Minute), Spec{Argv: []string{"no-such-agent-xyz"}, Dir: t.TempDir(), Env: testEnv, Transcript: w, Step: "s1"})
	if res.ExitCode != -1 || res.Err == nil || !strings.Contains(res.Err.Error(), "no-such-agent-xyz") {
		t.Errorf("Run = exit %d, %v", res.ExitCode, res.Err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(tr.String(), `"kind":"error","step":"s1"`) {
		t.Errorf("transcript = %s, want an error event of step s1", tr.String())
	}
}

// TestMain lets the test binary stand in for agent-eval's guard verb, so
// the stop tests run both bare and under the guard.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "guard" {
		os.Exit(guard.Main(os.Args[2:], os.Stderr))
	}
	// These tests name the agent's processes by the pids the agent writes,
	// which in a pid namespace are the namespace's, not ours: they run the
	// guard's subreaper mode (agentproc's tests and the end-to-end scripts
	// run both).
	_ = os.Setenv(agentproc.ModeEnv, string(agentproc.Subreaper))
	os.Exit(m.Run())
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

// A recognised stream becomes transcript events, each with its step.
func TestRunTranscript(t *testing.T) {
	t.Parallel()
	var tr bytes.Buffer
	w := transcript.NewWriter(&tr)
	res := Run(testutil.Context(t, time.Minute), Spec{Argv: []string{"cat", "testdata/opencode-bash-write.jsonl"}, Dir: ".", Env: testEnv, Transcript: w, Step: "build"})
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	events, _, err := transcript.Read(&tr)
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != 0 || res.Format != FormatOpenCode || len(events) != 5 || events[0].Step != "build" || res.Usage.OutputTokens != 17 {
		t.Errorf("Run = %+v, events %+v", res, events)
	}
}
