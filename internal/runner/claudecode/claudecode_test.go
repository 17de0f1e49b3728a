package claudecode

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agent-eval/agent-eval/internal/agentproc"
	"github.com/agent-eval/agent-eval/internal/guard"
	"github.com/agent-eval/agent-eval/internal/testutil"
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
	// (Outside Linux the guard's containment is the process group: the
	// subreaper is Linux's.)
	if runtime.GOOS == "linux" {
		_ = os.Setenv(agentproc.ModeEnv, string(agentproc.Subreaper))
	}
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

func TestVersion(t *testing.T) {
	t.Parallel()
	if got := Version(testutil.Context(t, time.Minute), agent(t, `echo "2.1.332 (Claude Code)"; echo more`)); got != "2.1.332 (Claude Code)" {
		t.Errorf("Version = %q, want the first line", got)
	}
	if got := Version(testutil.Context(t, time.Minute), agent(t, "exit 1")); got != "" {
		t.Errorf("Version of a failing binary = %q, want empty", got)
	}
}
