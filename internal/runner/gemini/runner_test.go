package gemini

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agent-eval/agent-eval/internal/agentproc"
	"github.com/agent-eval/agent-eval/internal/runner"
	"github.com/agent-eval/agent-eval/internal/runner/runnertest"
	"github.com/agent-eval/agent-eval/internal/testutil"
	"github.com/agent-eval/agent-eval/internal/testutil/need"
	"github.com/agent-eval/agent-eval/internal/transcript"
)

// geminiBin is the real Gemini CLI: $GEMINI_BIN, else the copy
// scripts/install-gemini.sh put under .cache; the test skips (fails in CI)
// without it.
func geminiBin(t *testing.T) string {
	t.Helper()
	bin := os.Getenv("GEMINI_BIN")
	if bin == "" {
		v, err := os.ReadFile("../../../scripts/gemini.version")
		if err != nil {
			t.Fatal(err)
		}
		bin = filepath.Join("../../../.cache", "gemini-"+strings.TrimSpace(string(v)), "node_modules", ".bin", "gemini")
	}
	abs, err := filepath.Abs(bin)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(abs); err != nil {
		need.Missing(t, "the Gemini CLI is not installed: "+err.Error(), "scripts/install-gemini.sh, or set $GEMINI_BIN")
	}
	return abs
}

// harness builds agent-eval once (the hook and the guard the agent runs).
var harness = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "agent-eval-gemini-test-")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "agent-eval")
	out, err := exec.Command("go", "build", "-o", bin, "../../../cmd/agent-eval").CombinedOutput()
	if err != nil {
		return "", &buildError{out: string(out), err: err}
	}
	return bin, nil
})

type buildError struct {
	out string
	err error
}

func (e *buildError) Error() string { return "build agent-eval: " + e.err.Error() + "\n" + e.out }

func setup(t *testing.T, root, bin, url, body string) runner.RunSetup {
	t.Helper()
	h, err := harness()
	if err != nil {
		t.Fatal(err)
	}
	ev := runnertest.LoadEval(t, root, body)
	return runner.RunSetup{Eval: ev, AgentBin: bin, HarnessBin: h, RunDir: filepath.Join(root, "runs", "r"),
		Baselines: filepath.Join(root, "baselines"), FakeModelURL: url, Warn: func(msg string) { t.Log(msg) }}
}

// TestRunnerSuite runs the shared runner suite against the real Gemini CLI
// answered by the fake Gemini API.
func TestRunnerSuite(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the real Gemini CLI")
	}
	bin := geminiBin(t)
	url := runnertest.FakeModel(t, map[string]string{
		"quick": "turns: [{text: done}]\n",
		"hang":  "turns: [{tool_use: {name: Bash, input: {command: sleep 300}}}, {text: waited}]\n",
	})
	runnertest.Run(t, runnertest.Harness{
		New: New,
		Setup: func(t *testing.T, root string) runner.RunSetup {
			return setup(t, root, bin, url, "name: suite\nexecution: {prompt: hi}\ndataset: {path: cases}\n")
		},
		Stop: agentproc.Grace + 5*time.Second,
	})
}

// invoke runs one case named name in a fresh workspace.
func invoke(t *testing.T, s runner.RunSetup, root, name string) (runner.Result, []transcript.Event, string) {
	t.Helper()
	ws := filepath.Join(root, "ws", "5107", name)
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	s.WorkspaceRoot, s.Workspaces = filepath.Join(root, "ws"), []string{ws}
	ctx := testutil.Context(t, 3*time.Minute)
	ag, err := New().Start(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	defer ag.Close()
	sess, err := ag.Prepare(ctx, runner.Workspace{ID: name, Dir: ws})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	var stdout, stderr, tr bytes.Buffer
	w := transcript.NewWriter(&tr)
	res := sess.Invoke(ctx, runner.Invocation{Name: name, Prompt: "go", Timeout: 2 * time.Minute, Stdout: &stdout, Stderr: &stderr, Transcript: w})
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	events, _, err := transcript.Read(&tr)
	if err != nil {
		t.Fatal(err)
	}
	return res, events, stderr.String()
}

// TestAPIErrorExit: an HTTP 500 with retries off ends Gemini CLI with exit
// 244 (500 mod 256), which the result says in words; its error report
// lands in the agent's temp folder, not the workspace.
func TestAPIErrorExit(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the real Gemini CLI")
	}
	bin := geminiBin(t)
	url := runnertest.FakeModel(t, map[string]string{"crash": "turns: [{error: {status: 500, message: fake outage}}]\n"})
	root := t.TempDir()
	res, events, stderr := invoke(t, setup(t, root, bin, url, "name: crash\nexecution: {prompt: hi}\ndataset: {path: cases}\n"), root, "crash")
	if res.ExitCode != 244 || !res.IsError || res.Err == nil || res.TimedOut {
		t.Fatalf("exit %d, is_error %v, err %v; stderr:\n%s", res.ExitCode, res.IsError, res.Err, stderr)
	}
	if msg := res.Err.Error(); !strings.Contains(msg, "HTTP 500") || !strings.Contains(msg, "fake outage") {
		t.Errorf("err %q does not say what happened", msg)
	}
	if last := events[len(events)-1]; last.Kind != transcript.KindError {
		t.Errorf("the transcript ends with %+v, not the error", last)
	}
	reports, _ := filepath.Glob(filepath.Join(root, "ws", "5107", tempDirName, "gemini-client-error-*.json"))
	inWorkspace, _ := filepath.Glob(filepath.Join(root, "ws", "5107", "crash", "gemini-client-error-*"))
	if len(reports) == 0 || len(inWorkspace) > 0 {
		t.Errorf("error reports: %v in the temp folder, %v in the workspace", reports, inWorkspace)
	}
}

// TestUsageAndCalls: usage, turns and the canonical tool calls of a
// stream.
func TestUsageAndCalls(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the real Gemini CLI")
	}
	bin := geminiBin(t)
	url := runnertest.FakeModel(t, map[string]string{"work": `
turns:
  - text: "Writing."
    tool_use: {name: Write, input: {file_path: "${CWD}/out.txt", content: "hello"}}
  - tool_use: {name: Bash, input: {command: "cat out.txt"}}
  - text: "All done."
`})
	root := t.TempDir()
	res, _, stderr := invoke(t, setup(t, root, bin, url, "name: work\nexecution: {prompt: hi}\ndataset: {path: cases}\n"), root, "work")
	if res.ExitCode != 0 || res.Err != nil {
		t.Fatalf("exit %d, err %v; stderr:\n%s", res.ExitCode, res.Err, stderr)
	}
	if res.Text != "All done." || res.NumTurns != 3 || res.Usage.InputTokens == 0 || res.Usage.OutputTokens == 0 || res.Model != FakeModel {
		t.Errorf("text %q, turns %d, usage %+v, model %q", res.Text, res.NumTurns, res.Usage, res.Model)
	}
	if len(res.ToolCalls) != 2 || res.ToolCalls[0].Name != "Write" || res.ToolCalls[1].Name != "Bash" || res.ToolCalls[1].Result != "hello" {
		t.Errorf("tool calls %+v", res.ToolCalls)
	}
	if b, err := os.ReadFile(filepath.Join(root, "ws", "5107", "work", "out.txt")); err != nil || string(b) != "hello" {
		t.Errorf("out.txt: %q, %v", b, err)
	}
	if len(res.Denials) != 0 {
		t.Errorf("denials %+v", res.Denials)
	}
}
