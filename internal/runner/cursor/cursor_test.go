package cursor

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	yaml "go.yaml.in/yaml/v3"

	"github.com/agent-eval/agent-eval/internal/agentproc"
	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/hook"
	"github.com/agent-eval/agent-eval/internal/intercept"
	"github.com/agent-eval/agent-eval/internal/permissions"
	"github.com/agent-eval/agent-eval/internal/runner"
	"github.com/agent-eval/agent-eval/internal/runner/runnertest"
	"github.com/agent-eval/agent-eval/internal/testutil"
	"github.com/agent-eval/agent-eval/internal/transcript"
)

var standin struct {
	once sync.Once
	bin  string
	err  error
}

// standinBin builds the stand-in CLI (internal/testutil/cursorstandin) once, as cursor-agent.
func standinBin(t *testing.T) string {
	t.Helper()
	standin.once.Do(func() {
		dir, err := os.MkdirTemp("", "cursor-standin-")
		if err != nil {
			standin.err = err
			return
		}
		standin.bin = filepath.Join(dir, DefaultBinary)
		out, err := exec.Command("go", "build", "-o", standin.bin, "github.com/agent-eval/agent-eval/internal/testutil/cursorstandin").CombinedOutput()
		if err != nil {
			standin.err = fmt.Errorf("build the stand-in: %v\n%s", err, out)
		}
	})
	if standin.err != nil {
		t.Fatal(standin.err)
	}
	return standin.bin
}

func TestMain(m *testing.M) {
	code := m.Run()
	if standin.bin != "" {
		_ = os.RemoveAll(filepath.Dir(standin.bin))
	}
	os.Exit(code)
}

func loadEval(t *testing.T, dir, src string) *config.Eval {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, "cases"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "eval.yaml"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	ev, err := config.Load(filepath.Join(dir, "eval.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return ev
}

// TestRunnerSuite runs the shared runner suite against the stand-in CLI
// answered by the fake Messages API.
func TestRunnerSuite(t *testing.T) {
	bin := standinBin(t)
	url := runnertest.FakeModel(t, map[string]string{
		"quick": "turns: [{text: done}]\n",
		"hang":  "turns: [{tool_use: {name: Bash, input: {command: sleep 300}}}, {text: waited}]\n",
	})
	runnertest.Run(t, runnertest.Harness{
		New: New,
		Setup: func(t *testing.T, root string) runner.RunSetup {
			ev := loadEval(t, filepath.Join(root, "eval"), "name: suite\nexecution: {prompt: hi}\nrunner: {type: cursor}\nmodels: {skill: m1}\ndataset: {path: cases}\n")
			return runner.RunSetup{Eval: ev, Model: "m1", AgentBin: bin, RunDir: filepath.Join(root, "runs", "r"), Private: t.TempDir(),
				FakeModelURL: url, Warn: func(msg string) { t.Log(msg) }}
		},
		Stop: agentproc.Grace + 5*time.Second,
	})
}

// TestPrepare: the workspace gets cli.json with the eval's and the
// harness's denies, hooks.json with the gate and the canary ahead of the
// workspace's own hooks, tool_handlers.yaml with the denied paths; Close
// puts the workspace's own files back.
func TestPrepare(t *testing.T) {
	root := t.TempDir()
	ev := loadEval(t, filepath.Join(root, "eval"), "name: p\nexecution: {prompt: hi}\nrunner: {type: cursor, settings: {binary: "+standinBin(t)+", editor: {vimMode: true}}}\n"+
		"models: {skill: m1}\ndataset: {path: cases}\npermissions: {deny: [\"Read(secret/**)\"]}\n")
	ws := filepath.Join(root, "ws", "slot", "c1")
	if err := os.MkdirAll(filepath.Join(ws, ".cursor"), 0o755); err != nil {
		t.Fatal(err)
	}
	own := `{"version":1,"hooks":{"afterFileEdit":[{"command":"./fmt.sh"}],"beforeShellExecution":[{"command":"./mine.sh"}]}}`
	if err := os.WriteFile(filepath.Join(ws, HooksPath), []byte(own), 0o600); err != nil {
		t.Fatal(err)
	}
	comp := permissions.Compile(ev.Permissions.Allow, ev.Permissions.Deny)
	h := &intercept.File{Handlers: []intercept.Handler{{Match: "curl", Patterns: []string{"Bash"}, InputFilters: []string{`\bcurl\b`}}}}
	ctx := testutil.Context(t, time.Minute)
	run, err := New().Start(ctx, runner.RunSetup{Eval: ev, HarnessBin: "/opt/agent eval", Handlers: h, Permissions: comp,
		WorkspaceRoot: filepath.Join(root, "ws"), Private: t.TempDir(), Warn: func(string) {}})
	if err != nil {
		t.Fatal(err)
	}
	sess, err := run.Prepare(ctx, runner.Workspace{ID: "c1", Dir: ws})
	if err != nil {
		t.Fatal(err)
	}
	var cli struct {
		Permissions struct{ Allow, Deny []string }
	}
	readJSON(t, filepath.Join(ws, permissions.CursorConfigPath), &cli)
	for _, want := range []string{"Read(secret/**)", "Write(.cursor/**)", "Write(tool_handlers.yaml)", "Write(hook_decisions.jsonl)"} {
		if !contains(cli.Permissions.Deny, want) {
			t.Errorf("cli.json deny %v lacks %s", cli.Permissions.Deny, want)
		}
	}
	var hooks struct {
		Version int
		Hooks   map[string][]map[string]any
	}
	readJSON(t, filepath.Join(ws, HooksPath), &hooks)
	b, _ := os.ReadFile(filepath.Join(ws, hook.HandlersFile))
	var hf intercept.File
	if err := yaml.Unmarshal(b, &hf); err != nil {
		t.Fatal(err)
	}
	for _, e := range Events {
		list := hooks.Hooks[e]
		if len(list) == 0 {
			t.Fatalf("hooks.json has no %s: %+v", e, hooks)
		}
		cmd, _ := list[0]["command"].(string)
		if !strings.HasPrefix(cmd, "'/opt/agent eval' hook --handlers "+intercept.ShellQuote(filepath.Join(ws, hook.HandlersFile))+" --sha256 ") || !strings.HasSuffix(cmd, " --dialect cursor") {
			t.Errorf("%s runs %q", e, cmd)
		}
		if list[0]["failClosed"] != true {
			t.Errorf("%s is not failClosed: %v", e, list[0])
		}
	}
	if l := hooks.Hooks[hook.CursorShellEvent]; len(l) != 2 || l[1]["command"] != "./mine.sh" {
		t.Errorf("the workspace's own beforeShellExecution hook is not kept after the gate: %v", l)
	}
	if l := hooks.Hooks["afterFileEdit"]; len(l) != 1 {
		t.Errorf("the workspace's own afterFileEdit hook is lost: %v", l)
	}
	canary := hooks.Hooks[hook.CursorPromptEvent]
	if len(canary) != 1 || !strings.Contains(canary[0]["command"].(string), " hook --canary beforeSubmitPrompt --handlers ") {
		t.Errorf("canary: %v", canary)
	}
	homeCursor := filepath.Join(root, "ws", "slot", ".cursor")
	if !contains(cli.Permissions.Deny, "Write("+homeCursor+"/**)") {
		t.Errorf("cli.json deny %v does not keep the agent off its home's .cursor", cli.Permissions.Deny)
	}
	for _, p := range []string{"secret/**", ".cursor/**", hook.HandlersFile, hook.LedgerFile, homeCursor + "/**"} {
		if !contains(hf.DeniedPaths, p) {
			t.Errorf("tool_handlers.yaml denied_paths %v lacks %s", hf.DeniedPaths, p)
		}
	}
	var home struct{ Editor map[string]any }
	readJSON(t, filepath.Join(root, "ws", "slot", ".cursor", "cli-config.json"), &home)
	if home.Editor["vimMode"] != true {
		t.Errorf("runner.settings did not reach the home's cli-config.json: %+v", home)
	}
	if err := sess.Close(); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, HooksPath)); string(b) != own {
		t.Errorf("hooks.json after Close = %s, want the workspace's own", b)
	}
	if _, err := os.Stat(filepath.Join(ws, permissions.CursorConfigPath)); !os.IsNotExist(err) {
		t.Errorf("cli.json left behind: %v", err)
	}
}

// TestCloseThroughLink: an agent that turns the workspace's .cursor into
// a link to somewhere else gets nothing written or removed there when the
// session puts the workspace's own files back; Close says so.
func TestCloseThroughLink(t *testing.T) {
	for _, own := range []bool{false, true} {
		t.Run(fmt.Sprintf("own hooks.json %v", own), func(t *testing.T) {
			root := t.TempDir()
			ev := loadEval(t, filepath.Join(root, "eval"), "name: p\nexecution: {prompt: hi}\nrunner: {type: cursor}\nmodels: {skill: m1}\ndataset: {path: cases}\n"+
				"permissions: {deny: [\"Read(secret/**)\"]}\n")
			ws := filepath.Join(root, "w")
			if err := os.MkdirAll(filepath.Join(ws, ".cursor"), 0o755); err != nil {
				t.Fatal(err)
			}
			if own {
				if err := os.WriteFile(filepath.Join(ws, HooksPath), []byte(`{"version":1}`), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			ctx := testutil.Context(t, time.Minute)
			run, err := New().Start(ctx, runner.RunSetup{Eval: ev, AgentBin: standinBin(t), HarnessBin: "/bin/true",
				Permissions: permissions.Compile(ev.Permissions.Allow, ev.Permissions.Deny), Private: t.TempDir(), Warn: func(string) {}})
			if err != nil {
				t.Fatal(err)
			}
			sess, err := run.Prepare(ctx, runner.Workspace{ID: "c", Dir: ws})
			if err != nil {
				t.Fatal(err)
			}
			// The agent's move: .cursor becomes a link to a folder of the user's.
			victim := filepath.Join(root, "victim")
			if err := os.MkdirAll(victim, 0o755); err != nil {
				t.Fatal(err)
			}
			for _, f := range []string{"hooks.json", "cli.json"} {
				if err := os.WriteFile(filepath.Join(victim, f), []byte("mine"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.RemoveAll(filepath.Join(ws, ".cursor")); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(victim, filepath.Join(ws, ".cursor")); err != nil {
				t.Fatal(err)
			}
			if err := sess.Close(); err == nil || !strings.Contains(err.Error(), "symlink") {
				t.Errorf("Close through a linked .cursor = %v, want a refusal", err)
			}
			for _, f := range []string{"hooks.json", "cli.json"} {
				if b, err := os.ReadFile(filepath.Join(victim, f)); err != nil || string(b) != "mine" {
					t.Errorf("%s behind the link = %q, %v; want it untouched", f, b, err)
				}
			}
		})
	}
}

// TestNoHookWithoutGates: nothing to gate, no hook (and no canary to
// expect); the permissions are still written.
func TestNoHookWithoutGates(t *testing.T) {
	root := t.TempDir()
	ev := loadEval(t, filepath.Join(root, "eval"), "name: p\nexecution: {prompt: hi}\nrunner: {type: cursor}\nmodels: {skill: m1}\ndataset: {path: cases}\n")
	ws := filepath.Join(root, "w")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx := testutil.Context(t, time.Minute)
	run, err := New().Start(ctx, runner.RunSetup{Eval: ev, AgentBin: standinBin(t), Private: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	sess, err := run.Prepare(ctx, runner.Workspace{ID: "c", Dir: ws})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	if _, err := os.Stat(filepath.Join(ws, HooksPath)); !os.IsNotExist(err) {
		t.Errorf("hooks.json written with nothing to gate: %v", err)
	}
	if _, err := os.Stat(filepath.Join(ws, permissions.CursorConfigPath)); err != nil {
		t.Errorf("no cli.json: %v", err)
	}
	s := sess.(*session)
	env := strings.Join(s.env(runner.Invocation{Name: "c"}), "\n")
	if strings.Contains(env, "HOME="+os.Getenv("HOME")+"\n") || !strings.Contains(env, "HOME="+s.home) {
		t.Errorf("HOME is not the session's own: %s", env)
	}
	if args := strings.Join(s.args("do it"), " "); args != "-p --output-format stream-json --force do it" {
		t.Errorf("args = %s", args)
	}
}

func TestMissingBinary(t *testing.T) {
	root := t.TempDir()
	ev := loadEval(t, root, "name: p\nexecution: {prompt: hi}\nrunner: {type: cursor, settings: {binary: no-such-cursor-agent}}\nmodels: {skill: m1}\ndataset: {path: cases}\n")
	_, err := New().Start(testutil.Context(t, time.Minute), runner.RunSetup{Eval: ev})
	if _, ok := err.(*runner.ConfigError); !ok || !strings.Contains(err.Error(), "no-such-cursor-agent") {
		t.Fatalf("err = %v, want a ConfigError naming the binary", err)
	}
}

// TestParse reads the documented events into the transcript and the
// summary.
func TestParse(t *testing.T) {
	stream := `{"type":"system","subtype":"init","apiKeySource":"env","cwd":"/w","session_id":"s","model":"gpt-5","permissionMode":"default"}
{"type":"user","message":{"role":"user","content":[{"type":"text","text":"go"}]},"session_id":"s"}
{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"Reading."}]},"session_id":"s"}
{"type":"tool_call","subtype":"started","call_id":"c1","tool_call":{"readToolCall":{"args":{"path":"README.md"}}},"session_id":"s"}
{"type":"tool_call","subtype":"completed","call_id":"c1","tool_call":{"readToolCall":{"args":{"path":"README.md"},"result":{"success":{"content":"# hi","totalLines":1}}}},"session_id":"s"}
{"type":"tool_call","subtype":"started","call_id":"c2","tool_call":{"shellToolCall":{"args":{"command":"curl x"}}},"session_id":"s"}
{"type":"tool_call","subtype":"completed","call_id":"c2","tool_call":{"shellToolCall":{"args":{"command":"curl x"},"result":{"rejected":{"reason":"no curl"}}}},"session_id":"s"}
{"type":"tool_call","subtype":"started","call_id":"c3","tool_call":{"writeToolCall":{"args":{"path":"o.txt","fileText":"x"}}},"session_id":"s"}
{"type":"tool_call","subtype":"completed","call_id":"c3","tool_call":{"writeToolCall":{"args":{"path":"o.txt","fileText":"x"},"result":{"success":{"path":"/w/o.txt"}}}},"session_id":"s"}
not json
{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"Done."}]},"session_id":"s"}
{"type":"result","subtype":"success","is_error":false,"duration_ms":12,"duration_api_ms":12,"result":"Reading.Done.","session_id":"s"}
`
	var events []transcript.Event
	p := newParser(func(e transcript.Event) { events = append(events, e) })
	for _, l := range strings.Split(stream, "\n") {
		p.Line([]byte(l))
	}
	s := p.finish("")
	if s.Model != "gpt-5" || s.Text != "Reading.Done." || s.IsError || s.NumTurns != 2 {
		t.Errorf("summary %+v", s)
	}
	if len(s.ToolCalls) != 3 || s.ToolCalls[0].Name != "Read" || string(s.ToolCalls[0].Input) != `{"file_path":"README.md"}` || s.ToolCalls[0].Result != "# hi" {
		t.Errorf("tool calls %+v", s.ToolCalls)
	}
	if c := s.ToolCalls[2]; c.Name != "Write" || string(c.Input) != `{"content":"x","file_path":"o.txt"}` || c.IsError {
		t.Errorf("write %+v", c)
	}
	if len(s.Denials) != 1 || s.Denials[0].ToolName != "Bash" || s.Denials[0].ToolUseID != "c2" || string(s.Denials[0].ToolInput) != `{"command":"curl x"}` {
		t.Errorf("denials %+v", s.Denials)
	}
	var kinds []string
	for _, e := range events {
		kinds = append(kinds, string(e.Kind))
	}
	want := "text tool_call tool_result tool_call denial tool_result tool_call tool_result text result"
	if got := strings.Join(kinds, " "); got != want {
		t.Errorf("events %s, want %s", got, want)
	}
}

// TestParseFailure: a stream that ends without its result is an error,
// with the failure in the transcript.
func TestParseFailure(t *testing.T) {
	var events []transcript.Event
	p := newParser(func(e transcript.Event) { events = append(events, e) })
	p.Line([]byte(`{"type":"system","subtype":"init","model":"m","session_id":"s"}`))
	s := p.finish("cursor-agent exited 1: error: model request failed: 500")
	if !s.IsError || len(events) != 2 || events[0].Kind != transcript.KindError || events[1].Kind != transcript.KindResult || !events[1].IsError {
		t.Errorf("summary %+v, events %+v", s, events)
	}
}

// TestHookDenials: the hook's denies the stream shows are not counted
// twice; the others take the id and input of a failed call of theirs.
func TestHookDenials(t *testing.T) {
	sum := summary{
		ToolCalls: []transcript.ToolCall{{ID: "a", Name: "Bash", Input: json.RawMessage(`{"command":"x"}`), IsError: true},
			{ID: "b", Name: "Read", Input: json.RawMessage(`{"file_path":"k"}`), IsError: true}},
		Denials: []transcript.Denial{{ToolName: "Bash", ToolUseID: "a", ToolInput: json.RawMessage(`{"command":"x"}`)}},
	}
	got := hookDenials(sum, []string{"Bash", "Read", "mcp__x__y"})
	b, _ := json.Marshal(got)
	want := `[{"tool_name":"Bash","tool_use_id":"a","tool_input":{"command":"x"}},{"tool_name":"Read","tool_use_id":"b","tool_input":{"file_path":"k"}},{"tool_name":"mcp__x__y","tool_use_id":"","tool_input":{}}]`
	if string(b) != want {
		t.Errorf("denials %s\nwant %s", b, want)
	}
}

// TestModelError: the model's error ends the run non-zero, without a
// result event, and the error reaches the result.
func TestModelError(t *testing.T) {
	bin := standinBin(t)
	url := runnertest.FakeModel(t, map[string]string{"boom": "turns: [{error: {status: 500, type: api_error, message: overloaded here}}]\n"})
	root := t.TempDir()
	ev := loadEval(t, filepath.Join(root, "eval"), "name: e\nexecution: {prompt: hi}\nrunner: {type: cursor}\nmodels: {skill: m1}\ndataset: {path: cases}\n")
	ws := filepath.Join(root, "w")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx := testutil.Context(t, 2*time.Minute)
	run, err := New().Start(ctx, runner.RunSetup{Eval: ev, AgentBin: bin, Private: t.TempDir(), FakeModelURL: url})
	if err != nil {
		t.Fatal(err)
	}
	sess, err := run.Prepare(ctx, runner.Workspace{ID: "boom", Dir: ws})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	var tr bytes.Buffer
	w := transcript.NewWriter(&tr)
	res := sess.Invoke(ctx, runner.Invocation{Name: "boom", Prompt: "hi", Timeout: time.Minute, Transcript: w})
	_ = w.Flush()
	if res.ExitCode != 1 || !res.IsError || !strings.Contains(res.Text, "overloaded here") || res.Err != nil {
		t.Errorf("result %+v", res)
	}
	if !strings.Contains(tr.String(), `"kind":"error"`) {
		t.Errorf("transcript %s", tr.String())
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
