package clirunner

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-eval/agent-eval/internal/fakeapi"
	"github.com/agent-eval/agent-eval/internal/runner"
	"github.com/agent-eval/agent-eval/internal/testutil"
	"github.com/agent-eval/agent-eval/internal/testutil/fakemodel"
	"github.com/agent-eval/agent-eval/internal/testutil/need"
	"github.com/agent-eval/agent-eval/internal/transcript"
)

// OpenCodeEnv is the environment that keeps OpenCode's own files (config,
// data, cache, state, logs) in home instead of the real home.
// It also turns off what would reach the internet (the models.dev
// catalogue, updates, LSP downloads, sharing) and the reading of Claude
// Code's files.
func openCodeEnv(home string) map[string]string {
	return map[string]string{
		"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, "config"), "XDG_DATA_HOME": filepath.Join(home, "data"),
		"XDG_CACHE_HOME": filepath.Join(home, "cache"), "XDG_STATE_HOME": filepath.Join(home, "state"),
		"OPENCODE_DISABLE_MODELS_FETCH": "1", "OPENCODE_DISABLE_AUTOUPDATE": "1", "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
		"OPENCODE_DISABLE_SHARE": "1", "OPENCODE_DISABLE_CLAUDE_CODE": "1",
	}
}

// openCodeBin returns $OPENCODE_BIN, the real OpenCode CLI; without it the
// test skips (fails in CI), and with -short too.
func openCodeBin(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("runs the real OpenCode CLI")
	}
	bin := os.Getenv("OPENCODE_BIN")
	if bin == "" {
		need.Missing(t, "$OPENCODE_BIN, the real OpenCode CLI, is not set", need.Install("opencode"))
	}
	return bin
}

// The real OpenCode CLI (OPENCODE_BIN, scripts/install-opencode.sh) runs
// against the fake Messages API: the scripted bash call creates a file, a
// write call a second one, and the runner reports the exit code, usage,
// tool calls and transcript.
func TestOpenCodeAgainstFake(t *testing.T) {
	bin := openCodeBin(t)
	srv := fakeapi.New(fakeapi.Options{Script: &fakeapi.Script{
		Turns: []fakeapi.Turn{
			{Text: "Creating the file.", ToolUse: &fakeapi.ToolUse{Name: "bash", Input: map[string]any{
				"command": "printf 'Hello from OpenCode smoke test' > hello.txt", "description": "create hello.txt"}}},
			{ToolUse: &fakeapi.ToolUse{Name: "write", Input: map[string]any{"filePath": "${CWD}/second.txt", "content": "two"}}},
		},
		AfterEnd: &fakeapi.Turn{Text: "Done: hello.txt written."},
		Side:     &fakeapi.Turn{Text: "a title"},
	}})
	fakemodel.Serve(t, srv)
	ws, home := t.TempDir(), t.TempDir()
	argv, err := Expand(mustSplit(t, "{opencode} run --format json --model {model} {args}"),
		Vars{Workspace: ws, Model: "anthropic/claude-sonnet-4-5", Args: "Create hello.txt saying hello"}, map[string]any{"opencode": bin})
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr, tr bytes.Buffer
	w := transcript.NewWriter(&tr)
	// OpenCode's anthropic provider takes ANTHROPIC_BASE_URL (set by
	// fakemodel.Serve, without /v1, as Claude Code wants it) over
	// opencode.json's baseURL and appends /messages to it: the fake
	// answers there too.
	env := Env(os.Environ(), openCodeEnv(home))
	res := Run(testutil.Context(t, 3*time.Minute), Spec{Argv: argv, Dir: ws, Env: env,
		OutputDir: filepath.Join(ws, "output"), Timeout: 2 * time.Minute, Stdout: &stdout, Stderr: &stderr, Transcript: w})
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	t.Logf("opencode took %v; stdout %d bytes; stderr: %s", res.Duration.Round(time.Millisecond), stdout.Len(), stderr.String())
	if res.ExitCode != 0 || res.Err != nil || res.IsError {
		t.Fatalf("Run = exit %d, err %v, error %v %q\nstdout:\n%s", res.ExitCode, res.Err, res.IsError, res.Text, stdout.String())
	}
	if res.Format != FormatOpenCode || res.Usage.InputTokens == 0 || res.Usage.OutputTokens == 0 || res.CostUSD <= 0 || res.NumTurns != 3 {
		t.Errorf("usage: format %q, %+v, cost %v, turns %d", res.Format, res.Usage, res.CostUSD, res.NumTurns)
	}
	if b, err := os.ReadFile(filepath.Join(ws, "hello.txt")); err != nil || string(b) != "Hello from OpenCode smoke test" {
		t.Errorf("hello.txt = %q, %v\nstdout:\n%s", b, err, stdout.String())
	}
	if b, err := os.ReadFile(filepath.Join(ws, "second.txt")); err != nil || string(b) != "two" {
		t.Errorf("second.txt (${CWD} from OpenCode's prompt) = %q, %v", b, err)
	}
	if len(res.ToolCalls) != 2 || res.ToolCalls[0].Name != "bash" || res.ToolCalls[1].Name != "write" || !res.ToolCalls[0].Returned || res.ToolCalls[1].IsError {
		t.Errorf("ToolCalls = %+v", res.ToolCalls)
	}
	events, _, err := transcript.Read(&tr)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, e := range events {
		kinds = append(kinds, string(e.Kind))
	}
	if got, want := strings.Join(kinds, " "), "text tool_call tool_result tool_call tool_result text result"; got != want {
		t.Errorf("transcript kinds = %s, want %s", got, want)
	}
	if res.Text != "Done: hello.txt written." {
		t.Errorf("Text = %q", res.Text)
	}
	for _, d := range []string{".config/opencode", ".local/share/opencode"} {
		if _, err := os.Stat(filepath.Join(home, d)); err == nil {
			t.Errorf("OpenCode wrote %s under HOME although XDG folders were set", d)
		}
	}
}

// The runner.Runner adapter drives OpenCode the way `run --fake-model`
// will: upstream's opencode-smoke command shape (bash -c passing the
// placeholders as arguments), the case's input, and the fake selected per
// invocation by its URL (/s/<case>, without /v1).
func TestOpenCodeThroughRunner(t *testing.T) {
	openCodeBin(t)
	srv := fakeapi.New(fakeapi.Options{Script: &fakeapi.Script{Turns: []fakeapi.Turn{{Text: "the wrong script"}}}})
	srv.SetScript("case-001", &fakeapi.Script{
		Turns: []fakeapi.Turn{{ToolUse: &fakeapi.ToolUse{Name: "bash", Input: map[string]any{
			"command": "mkdir -p output && printf 'Hello from OpenCode smoke test' > output/hello.txt", "description": "create hello.txt"}}}},
		AfterEnd: &fakeapi.Turn{Text: "Done."},
		Side:     &fakeapi.Turn{Text: "a title"},
	})
	url := fakemodel.Serve(t, srv)
	for k, v := range openCodeEnv(t.TempDir()) {
		t.Setenv(k, v)
	}
	ev := loadEval(t, `
execution:
  skill: opencode-smoke
  arguments: "{prompt}"
runner:
  type: cli
  env: {HOME: "${HOME}", XDG_CONFIG_HOME: "${XDG_CONFIG_HOME}", XDG_DATA_HOME: "${XDG_DATA_HOME}", XDG_CACHE_HOME: "${XDG_CACHE_HOME}",
    XDG_STATE_HOME: "${XDG_STATE_HOME}", OPENCODE_BIN: "${OPENCODE_BIN}", OPENCODE_DISABLE_MODELS_FETCH: "1", OPENCODE_DISABLE_AUTOUPDATE: "1",
    OPENCODE_DISABLE_LSP_DOWNLOAD: "1", OPENCODE_DISABLE_SHARE: "1", OPENCODE_DISABLE_CLAUDE_CODE: "1"}
  command:
    - bash
    - -c
    - exec "$OPENCODE_BIN" run --format json --model "$2" "$1"
    - --
    - "{args}"
    - "{model}"
models: {skill: anthropic/claude-sonnet-4-5}
dataset: {path: cases}
`, map[string]string{"cases/case-001/input.yaml": "prompt: Create output/hello.txt.\n"})
	ctx := testutil.Context(t, 3*time.Minute)
	ws := t.TempDir()
	run, err := New().Start(ctx, runner.RunSetup{Eval: ev, Model: ev.Models.Skill, FakeModelURL: url, Workspaces: []string{ws}})
	if err != nil {
		t.Fatal(err)
	}
	defer run.Close()
	sess, err := run.Prepare(ctx, runner.Workspace{ID: "case-001", Dir: ws, CaseDir: filepath.Join(ev.DatasetDir(), "case-001")})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	var stdout bytes.Buffer
	res := sess.Invoke(ctx, runner.Invocation{Name: "case-001", Prompt: "/opencode-smoke Create output/hello.txt.", Timeout: 2 * time.Minute, Stdout: &stdout})
	if res.ExitCode != 0 || res.Err != nil || res.Usage.OutputTokens == 0 || res.NumTurns != 2 || len(res.ToolCalls) != 1 {
		t.Fatalf("Invoke = exit %d, err %v, usage %+v, turns %d, calls %d\nstdout:\n%s", res.ExitCode, res.Err, res.Usage, res.NumTurns, len(res.ToolCalls), stdout.String())
	}
	if b, err := os.ReadFile(filepath.Join(ws, "output", "hello.txt")); err != nil || string(b) != "Hello from OpenCode smoke test" {
		t.Errorf("output/hello.txt = %q, %v", b, err)
	}
	for _, r := range srv.Requests() {
		if r.Kind == "main" && r.Script != "case-001" {
			t.Errorf("a request used script %q, want case-001's", r.Script)
		}
	}
}
