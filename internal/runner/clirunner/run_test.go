package clirunner

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
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
	// (Outside Linux the guard's containment is the process group: the
	// subreaper is Linux's.)
	if runtime.GOOS == "linux" {
		_ = os.Setenv(agentproc.ModeEnv, string(agentproc.Subreaper))
	}
	os.Exit(m.Run())
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
