package claudecode

import (
	"bytes"
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

	"github.com/google/go-cmp/cmp"

	"github.com/agent-eval/agent-eval/internal/agentproc"
	"github.com/agent-eval/agent-eval/internal/guard"
	"github.com/agent-eval/agent-eval/internal/testutil"
	"github.com/agent-eval/agent-eval/internal/testutil/need"
)

// TestMain lets the test binary stand in for agent-eval's guard verb, so
// every Run test runs both bare and under the guard.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "guard" {
		os.Exit(guard.Main(os.Args[2:], os.Stderr))
	}
	// These tests name the agent's processes by the pids the agent writes,
	// which in a pid namespace are the namespace's, not ours: they run the
	// guard's subreaper mode (agentproc's tests and the end-to-end scripts
	// run both).
	_ = os.Setenv(agentproc.ModeEnv, string(agentproc.Subreaper))
	if len(os.Args) == 4 && os.Args[1] == "runner" {
		// A run that TestRunDiesWithTheRun kills: Run(Bin: os.Args[2], Guard: os.Args[3]).
		Run(context.Background(), Spec{Bin: os.Args[2], Prompt: "p", Guard: os.Args[3], Timeout: time.Hour})
		os.Exit(0)
	}
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

func TestArgs(t *testing.T) {
	t.Parallel()
	budget := 2.5
	tests := []struct {
		name string
		spec Spec
		want []string
	}{
		{"minimal", Spec{Prompt: "hi"},
			[]string{"--print", "--output-format", "stream-json", "--verbose", "--append-system-prompt", HarnessSystemPrompt, "--", "hi"}},
		{"everything", Spec{Prompt: "/skill a b", Model: "m", Effort: "high", PermissionMode: "acceptEdits", MaxBudgetUSD: &budget,
			SystemPrompt: "Be brief.", PluginDirs: []string{"/p1", "/p2"}, AskUserQuestion: true,
			PermissionArgs: []string{"--settings", "/o.json"}},
			[]string{"--print", "--output-format", "stream-json", "--verbose", "--model", "m", "--effort", "high",
				"--permission-mode", "acceptEdits", "--max-budget-usd", "2.5", "--append-system-prompt", "Be brief.\n\n" + HarnessSystemPrompt,
				"--plugin-dir", "/p1", "--plugin-dir", "/p2", "--permission-prompt-tool", "stdio", "--settings", "/o.json", "--", "/skill a b"}},
		// A prompt that looks like a flag, after a variadic flag, is still the
		// prompt: the separator keeps it out of --allowed-tools.
		{"flag-like prompt", Spec{Prompt: "--help", PermissionArgs: []string{"--allowed-tools", "Read"}},
			[]string{"--print", "--output-format", "stream-json", "--verbose", "--append-system-prompt", HarnessSystemPrompt,
				"--allowed-tools", "Read", "--", "--help"}},
		{"zero budget is a budget", Spec{Prompt: "p", MaxBudgetUSD: new(float64)},
			[]string{"--print", "--output-format", "stream-json", "--verbose", "--max-budget-usd", "0", "--append-system-prompt", HarnessSystemPrompt, "--", "p"}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, Args(tt.spec)); diff != "" {
			t.Errorf("%s: Args (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestEnv(t *testing.T) {
	t.Parallel()
	caller := map[string]string{"PATH": "/bin", "HOME": "/h", "ANTHROPIC_API_KEY": "sk-x", "AWS_SECRET_ACCESS_KEY": "s",
		"GITHUB_TOKEN": "g", "JIRA_SERVER": "https://prod", "LANG": "C"}
	lookup := func(k string) (string, bool) { v, ok := caller[k]; return v, ok }
	got := Env(lookup, map[string]string{"LANG": "C.UTF-8", "JIRA_SERVER": "http://localhost", "IS_SANDBOX": "1"})
	slices.Sort(got)
	want := []string{"ANTHROPIC_API_KEY=sk-x", "HOME=/h", "IS_SANDBOX=1", "JIRA_SERVER=http://localhost", "LANG=C.UTF-8", "PATH=/bin"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Env: only the allowlist and the extras, extras winning (-want +got):\n%s", diff)
	}
}

// The agent reads its environment: MLFLOW_TRACKING_URI reaches it without
// the credentials agent-eval logs the verdict with.
func TestEnvTrackingURIWithoutCredentials(t *testing.T) {
	t.Parallel()
	// The URI as the caller has it → as the agent gets it.
	for uri, want := range map[string]string{
		"http://127.0.0.1:5000":                                               "http://127.0.0.1:5000",
		"https://mlflow.example.com/prefix/":                                  "https://mlflow.example.com/prefix/",
		"https://bot:hunter2hunter2@mlflow.example.com/prefix":                "https://mlflow.example.com/prefix",
		"https://ghp_abcdefghijklmnopqrstuvwxyz0123456789@mlflow.example.com": "https://mlflow.example.com",
		"databricks": "databricks",
	} {
		got := Env(func(k string) (string, bool) { return uri, k == "MLFLOW_TRACKING_URI" }, nil)
		if !slices.Equal(got, []string{"MLFLOW_TRACKING_URI=" + want}) {
			t.Errorf("Env with MLFLOW_TRACKING_URI=%s = %q, want it as %s", uri, got, want)
		}
	}
}

// agent writes an executable shell script standing in for the CLI.
func agent(t *testing.T, script string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "claude")
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

const resultLine = `{"type":"result","subtype":"success","is_error":false,"total_cost_usd":0.25,"num_turns":2,` +
	`"permission_denials":[{"tool_name":"Bash","tool_use_id":"t1","tool_input":{"command":"jira"}}]}`

func TestRun(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		script   string
		exit     int
		cost     float64
		denials  int
		isError  bool
		stdoutRE string
	}{
		{"success", "echo 'junk'\necho '" + resultLine + "'\n", 0, 0.25, 1, false, "junk\n"},
		{"exit code kept", "echo '" + resultLine + "'\nexit 3\n", 3, 0.25, 1, false, ""},
		{"an API error flagged in the result fails the case", `echo '{"type":"result","subtype":"success","is_error":true,"api_error_status":500}'` + "\n", 1, 0, 0, true, ""},
		// stdin is /dev/null: an agent that reads it gets EOF at once.
		{"stdin closed", "cat\necho '" + resultLine + "'\n", 0, 0.25, 1, false, ""},
	}
	for _, tt := range tests {
		for mode, g := range guards(t) {
			t.Run(tt.name+"/"+mode, func(t *testing.T) {
				t.Parallel()
				var out bytes.Buffer
				res := Run(testutil.Context(t, 2*time.Minute), Spec{Bin: agent(t, tt.script), Dir: t.TempDir(), Prompt: "p", Stdout: &out, Timeout: time.Minute, Guard: g})
				if res.Err != nil || res.ExitCode != tt.exit || res.TimedOut || res.Interrupted {
					t.Fatalf("exit %d, err %v, timed out %v, interrupted %v; want exit %d", res.ExitCode, res.Err, res.TimedOut, res.Interrupted, tt.exit)
				}
				s := res.Summary
				if s.CostUSD != tt.cost || len(s.Denials) != tt.denials || s.IsError != tt.isError {
					t.Errorf("summary cost %v, %d denials, is_error %v; want %v, %d, %v", s.CostUSD, len(s.Denials), s.IsError, tt.cost, tt.denials, tt.isError)
				}
				if !strings.HasPrefix(out.String(), tt.stdoutRE) {
					t.Errorf("stdout copy %q, want it to start with %q", out.String(), tt.stdoutRE)
				}
			})
		}
	}
}

func TestRunDirAndEnv(t *testing.T) {
	t.Parallel()
	for mode, g := range guards(t) {
		t.Run(mode, func(t *testing.T) { testRunDirAndEnv(t, g) })
	}
}

func testRunDirAndEnv(t *testing.T, g string) {
	t.Parallel()
	dir := t.TempDir()
	var errb bytes.Buffer
	res := Run(testutil.Context(t, time.Minute), Spec{Bin: agent(t, `pwd >&2; echo "FOO=$FOO HOME=${HOME:-unset}" >&2`), Dir: dir, Prompt: "p",
		Env: []string{"FOO=bar", "PATH=" + os.Getenv("PATH")}, Stderr: &errb, Guard: g})
	if res.ExitCode != 0 {
		t.Fatalf("exit %d: %v", res.ExitCode, res.Err)
	}
	real, _ := filepath.EvalSymlinks(dir)
	if got := errb.String(); got != real+"\nFOO=bar HOME=unset\n" && got != dir+"\nFOO=bar HOME=unset\n" {
		t.Errorf("stderr = %q; want the workspace as cwd and exactly the given environment", got)
	}
}

func TestRunMissingBinary(t *testing.T) {
	t.Parallel()
	for mode, g := range guards(t) {
		res := Run(testutil.Context(t, time.Minute), Spec{Bin: filepath.Join(t.TempDir(), "nope"), Prompt: "p", Guard: g})
		if res.ExitCode != -1 || res.Err == nil || res.Summary == nil {
			t.Errorf("%s: exit %d, err %v, summary %v; want -1, an error and an empty summary", mode, res.ExitCode, res.Err, res.Summary)
		}
	}
}

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

func TestVersion(t *testing.T) {
	t.Parallel()
	if got := Version(testutil.Context(t, time.Minute), agent(t, `echo "2.1.332 (Claude Code)"; echo more`)); got != "2.1.332 (Claude Code)" {
		t.Errorf("Version = %q, want the first line", got)
	}
	if got := Version(testutil.Context(t, time.Minute), agent(t, "exit 1")); got != "" {
		t.Errorf("Version of a failing binary = %q, want empty", got)
	}
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
