package codex

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/fakeapi"
	"github.com/agent-eval/agent-eval/internal/hook"
	"github.com/agent-eval/agent-eval/internal/intercept"
	"github.com/agent-eval/agent-eval/internal/permissions"
	"github.com/agent-eval/agent-eval/internal/runner"
	"github.com/agent-eval/agent-eval/internal/runner/claudecode"
	"github.com/agent-eval/agent-eval/internal/runner/runnertest"
	"github.com/agent-eval/agent-eval/internal/testutil"
	"github.com/agent-eval/agent-eval/internal/testutil/need"
	"github.com/agent-eval/agent-eval/internal/transcript"
)

// codexBin is the pinned Codex CLI: $CODEX_BIN, else the copy
// scripts/install-codex.sh put under .cache; the test skips without it
// (fails in CI).
func codexBin(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("runs the real Codex CLI")
	}
	bin := os.Getenv("CODEX_BIN")
	if bin == "" {
		v, err := os.ReadFile("../../../scripts/codex.version")
		if err != nil {
			t.Fatal(err)
		}
		bin, _ = filepath.Abs(filepath.Join("../../../.cache", "codex-"+strings.TrimSpace(string(v)), "node_modules", ".bin", "codex"))
	}
	if _, err := os.Stat(bin); err != nil {
		need.Missing(t, "the Codex CLI is not installed: "+err.Error(), need.Install("codex"))
	}
	return bin
}

// harnessBin is agent-eval, built once for the package's tests: the
// hook, and the guard that takes along what Codex leaves running (its
// sandbox's file-system helper outlives it now and then).
func harnessBin(t *testing.T) string {
	t.Helper()
	bin, err := buildHarness()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

var buildHarness = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "codex-test-harness-")
	if err != nil {
		return "", err
	}
	harnessDir = dir
	out := filepath.Join(dir, "agent-eval")
	if b, err := exec.Command("go", "build", "-o", out, "../../../cmd/agent-eval").CombinedOutput(); err != nil {
		return "", fmt.Errorf("build agent-eval: %v\n%s", err, b)
	}
	return out, nil
})

var harnessDir string

func TestMain(m *testing.M) {
	code := m.Run()
	if harnessDir != "" {
		_ = os.RemoveAll(harnessDir)
	}
	os.Exit(code)
}

func fakeServer(t *testing.T, scripts map[string]string) string {
	_, url := runnertest.FakeServer(t, scripts)
	return url
}

func loadEval(t *testing.T, root, body string) *config.Eval {
	return runnertest.LoadEval(t, root, body)
}

// evalBody is a codex eval whose agent's TMPDIR is tmp: never a folder
// holding CODEX_HOME, which Codex's sandbox refuses.
func evalBody(tmp, extra string) string {
	return "name: suite\nexecution: {prompt: hi}\nmodels: {skill: gpt-5.5}\nrunner: {type: codex, env: {TMPDIR: " + tmp +
		"}}\ndataset: {path: cases}\n" + extra
}

// TestRunnerSuite runs the shared runner suite against the real Codex CLI
// answered by the fake Responses API.
func TestRunnerSuite(t *testing.T) {
	bin := codexBin(t)
	url := fakeServer(t, map[string]string{
		"quick": "turns: [{text: done}]\n",
		// Codex returns a long command's output after a while and asks
		// again: every answer sleeps on.
		"hang": "turns: []\nafter_end: {tool_use: {name: Bash, input: {command: sleep 300}}}\n",
	})
	runnertest.Run(t, runnertest.Harness{
		New: New,
		Setup: func(t *testing.T, root string) runner.RunSetup {
			tmp := filepath.Join(root, "tmp")
			priv := filepath.Join(root, "private")
			for _, d := range []string{tmp, priv} {
				if err := os.MkdirAll(d, 0o700); err != nil {
					t.Fatal(err)
				}
			}
			return runner.RunSetup{Eval: loadEval(t, root, evalBody(tmp, "")), Model: "gpt-5.5", AgentBin: bin, HarnessBin: harnessBin(t),
				RunDir: filepath.Join(root, "runs", "r"), Private: priv, FakeModelURL: url, Warn: func(msg string) { t.Log(msg) }}
		},
		Stop: claudecode.Grace + 5*time.Second,
	})
}

// invokeOnce starts a run of ev in a fresh workspace and invokes it once.
func invokeOnce(t *testing.T, s runner.RunSetup, name string, trust *bool) (runner.Result, []transcript.Event, string) {
	t.Helper()
	root := filepath.Dir(s.Eval.Path())
	ws := filepath.Join(root, "ws", name)
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	s.Workspaces = []string{ws}
	ctx := testutil.Context(t, 2*time.Minute)
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
	if trust != nil {
		sess.(*session).hooked = *trust
	}
	var stdout, tr bytes.Buffer
	w := transcript.NewWriter(&tr)
	res := sess.Invoke(ctx, runner.Invocation{Name: name, Prompt: "go", Timeout: time.Minute, Stdout: &stdout, Transcript: w})
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	events, _, _ := transcript.Read(&tr)
	return res, events, stdout.String()
}

func setup(t *testing.T, bin, url, extra string) runner.RunSetup {
	t.Helper()
	root := t.TempDir()
	tmp, priv := filepath.Join(root, "tmp"), filepath.Join(root, "private")
	for _, d := range []string{tmp, priv} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	ev := loadEval(t, root, evalBody(tmp, extra))
	return runner.RunSetup{Eval: ev, Model: "gpt-5.5", AgentBin: bin, HarnessBin: harnessBin(t), Permissions: permissions.Compile(ev.Permissions.Allow, ev.Permissions.Deny),
		RunDir: filepath.Join(root, "runs", "r"), Private: priv, FakeModelURL: url, Warn: func(msg string) { t.Log(msg) }}
}

// TestHookTrust: Codex runs the hooks of config.toml only with
// --dangerously-bypass-hook-trust; without it the hook never runs and
// nothing says so, which the missing canary shows (the engine then marks
// the case ungated).
func TestHookTrust(t *testing.T) {
	bin := codexBin(t)
	url := fakeServer(t, map[string]string{"gated": "turns:\n  - tool_use: {name: Bash, input: {command: echo hi}}\n  - text: done\n"})
	s := setup(t, bin, url, "permissions: {deny: [mcp__jira__create]}\n")
	for _, trust := range []bool{true, false} {
		res, _, stdout := invokeOnce(t, s, "gated", &trust)
		if res.ExitCode != 0 || res.Err != nil {
			t.Fatalf("trust %v: exit %d, err %v\n%s", trust, res.ExitCode, res.Err, stdout)
		}
		ledger, _ := os.ReadFile(filepath.Join(filepath.Dir(s.Eval.Path()), "ws", "gated", hook.LedgerFile))
		if got := strings.Contains(string(ledger), `"decision":"canary"`); got != trust {
			t.Errorf("trust %v: canary in the ledger %v:\n%s", trust, got, ledger)
		}
		_ = os.Remove(filepath.Join(filepath.Dir(s.Eval.Path()), "ws", "gated", hook.LedgerFile))
	}
}

// TestCrash: an HTTP 500 and a response.failed end the turn failed: exit
// 1, the error as the final text, flagged.
func TestCrash(t *testing.T) {
	bin := codexBin(t)
	url := fakeServer(t, map[string]string{
		"http500": "turns: [{error: {status: 500, type: server_error, message: the fake model is down}}]\n",
		"failed":  "turns: [{error: {status: 500, type: response.failed, message: fake stream failure}}]\n",
	})
	for name, want := range map[string]string{"http500": "", "failed": "fake stream failure"} {
		res, events, stdout := invokeOnce(t, setup(t, bin, url, ""), name, nil)
		if res.ExitCode != 1 || !res.IsError || res.Text == "" || !strings.Contains(res.Text, want) {
			t.Errorf("%s: exit %d, is_error %v, text %q\n%s", name, res.ExitCode, res.IsError, res.Text, stdout)
		}
		if n := len(events); n == 0 || events[n-1].Kind != transcript.KindResult || !events[n-1].IsError {
			t.Errorf("%s: the transcript does not end with the failed result: %+v", name, events)
		}
	}
}

func TestExecRules(t *testing.T) {
	got := execRules(compiledOf("Bash(git push:*)", "Bash(rm -rf /)", "Bash", "Read(secret/**)"))
	want := `prefix_rule(pattern = ["git","push"], decision = "forbidden", justification = "eval.yaml denies Bash(git push:*)")` + "\n" +
		`prefix_rule(pattern = ["rm","-rf","/"], decision = "forbidden", justification = "eval.yaml denies Bash(rm -rf /)")` + "\n"
	if got != want {
		t.Errorf("execRules:\n%s\nwant:\n%s", got, want)
	}
}

func TestPathRule(t *testing.T) {
	for _, tt := range []struct{ rule, path, access string }{
		{"Read(secret/**)", "secret", "deny"},
		{"Edit(docs/**)", "docs", "read"},
		{"Read(//etc/passwd)", "/etc/passwd", "deny"},
		{"Read(**/*.pem)", "", ""},
		{"Bash(ls:*)", "", ""},
	} {
		p, a, ok := pathRule(tt.rule)
		if p != tt.path || a != tt.access || ok != (tt.path != "") {
			t.Errorf("pathRule(%s) = %q %q %v; want %q %q", tt.rule, p, a, ok, tt.path, tt.access)
		}
	}
}

func TestUnwrapShell(t *testing.T) {
	for in, want := range map[string]string{
		`/bin/bash -lc 'echo hi > out.txt'`: "echo hi > out.txt",
		`/bin/bash -lc 'echo '\''a'\'''`:    "echo 'a'",
		`/bin/bash -lc "printf 'x\n' > f"`:  `printf 'x\n' > f`,
		`/bin/bash -lc "echo $HOME"`:        `/bin/bash -lc "echo $HOME"`,
		`ls -la`:                            "ls -la",
		`/bin/bash -lc 'a' 'b'`:             `/bin/bash -lc 'a' 'b'`,
	} {
		if got := unwrapShell(in); got != want {
			t.Errorf("unwrapShell(%s) = %s; want %s", in, got, want)
		}
	}
}

func TestDenialReason(t *testing.T) {
	for out, want := range map[string]string{
		"Command blocked by PreToolUse hook: Blocked by eval harness: no. Command: curl x":                                       "PreToolUse hook: Blocked by eval harness: no",
		"exec_command failed: CreateProcess { message: \"Rejected(\\\"`/bin/bash -lc 'wget x'` rejected: eval: no wget\\\")\" }": "exec policy: eval: no wget",
		"Process exited with code 0\nOutput:\nhi\n":                                                                              "",
	} {
		if got := denialReason(out); got != want {
			t.Errorf("denialReason(%q) = %q; want %q", out, got, want)
		}
	}
	if got := sandboxDenial("Output:\ncat: secret/key.txt: Permission denied\n", []string{"/w/secret"}); got != "sandbox: cat: secret/key.txt: Permission denied" {
		t.Errorf("sandboxDenial: %q", got)
	}
	if got := sandboxDenial("apply_patch verification failed: Failed to read file to update /w/secret/x: Permission denied (os error 13)", []string{"/w/secret"}); got == "" {
		t.Errorf("sandboxDenial of a patch: none")
	}
	if got := sandboxDenial("Output:\ncat: other.txt: Permission denied\n", []string{"/w/secret"}); got != "" {
		t.Errorf("sandboxDenial of a path not denied: %q", got)
	}
}

func compiledOf(deny ...string) permissions.Compiled { return permissions.Compiled{Deny: deny} }

// TestConfigReachesModel: the model, runner.effort, runner.system_prompt
// and runner.settings (merged into config.toml) reach the model's
// requests; the invocation's script is named in the header.
func TestConfigReachesModel(t *testing.T) {
	bin := codexBin(t)
	srv, url := runnertest.FakeServer(t, map[string]string{"cfg": "turns: [{text: done}]\n"})
	s := setup(t, bin, url, "")
	s.Eval.Runner.Effort = "minimal"
	s.Eval.Runner.SystemPrompt = "SYSTEM-PROMPT-MARKER"
	s.Eval.Runner.Settings = map[string]any{"binary": "ignored", "model_verbosity": "high"}
	res, _, stdout := invokeOnce(t, s, "cfg", nil)
	if res.ExitCode != 0 || res.Text != "done" {
		t.Fatalf("exit %d, text %q\n%s", res.ExitCode, res.Text, stdout)
	}
	var main *fakeapi.Request
	for _, r := range srv.Requests() {
		if r.Kind == "main" {
			main = &r
		}
	}
	if main == nil {
		t.Fatal("no main request")
	}
	body := string(main.Body)
	for _, want := range []string{`"model":"gpt-5.5"`, `"effort":"minimal"`, "SYSTEM-PROMPT-MARKER", "running inside an automated evaluation", `"verbosity":"high"`} {
		if !strings.Contains(body, want) {
			t.Errorf("the request lacks %s", want)
		}
	}
	if main.Script != "cfg" {
		t.Errorf("script %q; want cfg", main.Script)
	}
}

// TestCompile: the generated config.toml's sandbox, profile, hook and
// runner.settings, for an eval with denied paths, inputs.tools-like
// handlers and network.
func TestCompile(t *testing.T) {
	root := t.TempDir()
	ev := loadEval(t, root, "name: c\nexecution: {prompt: hi}\nmodels: {skill: gpt-5.5}\nrunner: {type: codex, settings: {binary: x, model_verbosity: low}}\n"+
		"dataset: {path: cases}\npermissions:\n  network: {allow: ['*']}\n  deny: [{path: secret/, tools: [Read, Edit, Bash]}, {path: docs/, tools: [Edit]}, 'Bash(git push:*)', mcp__jira__create]\n")
	ws := filepath.Join(root, "slots", "s1", "ws")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	r := &started{s: runner.RunSetup{Eval: ev, Model: "gpt-5.5", HarnessBin: "/bin/agent-eval", Private: filepath.Join(root, "priv"),
		WorkspaceRoot: filepath.Join(root, "slots"), RunDir: filepath.Join(root, "runs", "r1"),
		Permissions: permissions.Compile(ev.Permissions.Allow, ev.Permissions.Deny), Warn: func(string) {}}}
	c, err := r.compile(runner.Workspace{ID: "c", Dir: ws}, filepath.Join(root, "priv", "home"))
	if err != nil {
		t.Fatal(err)
	}
	prof := c.config["permissions"].(map[string]any)[ProfileName].(map[string]any)
	fs := prof["filesystem"].(map[string]any)
	if rel := fs[":workspace_roots"].(map[string]any); rel["secret"] != "deny" || rel["docs"] != "read" || rel["."] != "write" {
		t.Errorf("workspace entries %v", rel)
	}
	if fs[":slash_tmp"] != "read" || fs[filepath.Join(root, "slots", "s1")] != "write" {
		t.Errorf("filesystem %v", fs)
	}
	if fs[ev.Path()] != "deny" || fs[ev.DatasetDir()] != "deny" {
		t.Errorf("eval.yaml and the dataset are not hidden: %v", fs)
	}
	if prof["network"] == nil || c.config["model_verbosity"] != "low" || c.config["binary"] != nil || c.config["sandbox_mode"] != nil {
		t.Errorf("config %v", c.config)
	}
	hooks, _ := c.config["hooks"].(map[string]any)
	if !c.hooked || hooks["PreToolUse"] == nil || hooks["SessionStart"] == nil || !strings.Contains(string(c.handlers), "mcp__jira__create") {
		t.Errorf("hook %v %v\n%s", c.hooked, hooks, c.handlers)
	}
	if !strings.Contains(c.rules, `["git","push"]`) {
		t.Errorf("rules %q", c.rules)
	}
	// permissions.sandbox: off: danger-full-access, no profile, the hook's
	// path layer instead.
	ev.Permissions.Sandbox, ev.Permissions.Network = config.SandboxOff, nil
	if c, err = r.compile(runner.Workspace{ID: "c", Dir: ws}, filepath.Join(root, "priv", "home")); err != nil {
		t.Fatal(err)
	}
	if c.config["sandbox_mode"] != "danger-full-access" || c.config["permissions"] != nil || !strings.Contains(string(c.handlers), "secret/**") {
		t.Errorf("sandbox off: %v\n%s", c.config, c.handlers)
	}
	// runner.settings may not take the sandbox, the profile, the approval
	// policy or the fake's provider away: each is put back, with one
	// warning naming them.
	ev.Permissions.Sandbox = ""
	var warns []string
	r.s.Warn = func(w string) { warns = append(warns, w) }
	r.s.FakeModelURL = "http://127.0.0.1:1"
	ev.Runner.Settings = map[string]any{"sandbox_mode": "danger-full-access", "default_permissions": ":workspace", "approval_policy": "on-request",
		"model_provider": "openai", "model_providers": map[string]any{FakeProvider: map[string]any{"base_url": "https://elsewhere.example/v1"}},
		"permissions": map[string]any{ProfileName: map[string]any{"filesystem": map[string]any{":workspace_roots": map[string]any{"secret": "write"}}}}}
	for range 2 {
		if c, err = r.compile(runner.Workspace{ID: "c", Dir: ws}, filepath.Join(root, "priv", "home")); err != nil {
			t.Fatal(err)
		}
		rel := c.config["permissions"].(map[string]any)[ProfileName].(map[string]any)["filesystem"].(map[string]any)[":workspace_roots"].(map[string]any)
		prov := c.config["model_providers"].(map[string]any)[FakeProvider].(map[string]any)
		if c.config["sandbox_mode"] != nil || c.config["default_permissions"] != ProfileName || c.config["approval_policy"] != "never" ||
			c.config["model_provider"] != FakeProvider || !strings.HasPrefix(prov["base_url"].(string), "http://127.0.0.1:1") || rel["secret"] != "deny" {
			t.Errorf("runner.settings overrode what the harness owns: %v", c.config)
		}
	}
	if len(warns) != 1 || !strings.Contains(warns[0], "runner.settings.approval_policy, runner.settings.default_permissions, runner.settings.model_provider, runner.settings.model_providers, runner.settings.permissions, runner.settings.sandbox_mode ignored") {
		t.Errorf("warnings %q", warns)
	}
	r.s.FakeModelURL = ""
	// runner.settings may not take the hook away.
	ev.Runner.Settings = map[string]any{"hooks": map[string]any{"PreToolUse": nil}}
	if _, err := r.compile(runner.Workspace{ID: "c", Dir: ws}, filepath.Join(root, "priv", "home")); err == nil {
		t.Errorf("runner.settings.hooks replaced the harness's hook")
	}
}

// TestHookFailureDenies: a gate that cannot decide — its binary exits 1 or
// is killed — blocks the call; Codex itself runs a call whose hook fails
// with anything but exit 2.
func TestHookFailureDenies(t *testing.T) {
	bin := codexBin(t)
	url := fakeServer(t, map[string]string{"gated": "turns:\n  - tool_use: {name: Bash, input: {command: touch pwned}}\n  - text: done\n"})
	for name, fail := range map[string]string{"working": "", "exit1": "exit 1", "killed": "kill -9 $$"} {
		t.Run(name, func(t *testing.T) {
			s := setup(t, bin, url, "")
			s.Handlers = &intercept.File{Handlers: []intercept.Handler{{Match: "touch", Patterns: []string{"Bash"}, InputFilters: []string{`\btouch\b`}}}}
			if fail == "" {
				fail = "true"
			}
			broken := filepath.Join(t.TempDir(), "agent-eval")
			script := "#!/bin/sh\nif [ \"$1\" = hook ]; then case \" $* \" in *\" --canary \"*) ;; *) " + fail + ";; esac; fi\nexec " + intercept.ShellQuote(harnessBin(t)) + " \"$@\"\n"
			if err := os.WriteFile(broken, []byte(script), 0o755); err != nil {
				t.Fatal(err)
			}
			s.HarnessBin = broken
			res, _, stdout := invokeOnce(t, s, "gated", nil)
			if res.Err != nil {
				t.Fatalf("err %v\n%s", res.Err, stdout)
			}
			if _, err := os.Stat(filepath.Join(filepath.Dir(s.Eval.Path()), "ws", "gated", "pwned")); err == nil {
				t.Errorf("a call whose hook %s ran:\n%s", fail, stdout)
			}
		})
	}
}

// TestInvokeRewritesConfig: what a step without the sandbox changed in its
// CODEX_HOME or the workspace — config.toml without the hooks, a rules file
// of its own, tool_handlers.yaml swapped for a link — is put back before the
// next invocation, without writing through the link.
func TestInvokeRewritesConfig(t *testing.T) {
	root := t.TempDir()
	ev := loadEval(t, root, "name: c\nexecution: {prompt: hi}\nmodels: {skill: gpt-5.5}\nrunner: {type: codex}\ndataset: {path: cases}\n"+
		"permissions: {sandbox: off, deny: [{path: secret/, tools: [Read, Bash]}, 'Bash(git push:*)']}\n")
	ws, home := filepath.Join(root, "ws"), filepath.Join(root, "home")
	for _, d := range []string{ws, home} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	r := &started{s: runner.RunSetup{Eval: ev, Model: "gpt-5.5", HarnessBin: harnessBin(t), Private: root,
		Permissions: permissions.Compile(ev.Permissions.Allow, ev.Permissions.Deny), Warn: func(string) {}}, bin: "/bin/true"}
	w := runner.Workspace{ID: "c", Dir: ws}
	c, err := r.compile(w, home)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.write(ws, home); err != nil {
		t.Fatal(err)
	}
	want := map[string][]byte{}
	for _, p := range []string{filepath.Join(home, "config.toml"), filepath.Join(home, RulesFile), filepath.Join(ws, hook.HandlersFile)} {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		want[p] = b
	}
	// The agent's moves.
	victim := filepath.Join(root, "victim")
	if err := os.WriteFile(victim, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte("approval_policy = \"never\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "rules", "allow.rules"), []byte(`prefix_rule(pattern=["git"], decision="allow")`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(ws, hook.HandlersFile)); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, filepath.Join(ws, hook.HandlersFile)); err != nil {
		t.Fatal(err)
	}
	s := &session{r: r, w: w, home: home, hooked: c.hooked, compiled: c}
	if res := s.Invoke(testutil.Context(t, 2*time.Minute), runner.Invocation{Name: "c", Prompt: "go", Timeout: time.Minute}); res.ExitCode != 0 {
		t.Fatalf("invoke: exit %d, %v", res.ExitCode, res.Err)
	}
	for p, b := range want {
		if got, err := os.ReadFile(p); err != nil || !bytes.Equal(got, b) {
			t.Errorf("%s after the invocation = %q, %v; want what Prepare wrote", p, got, err)
		}
	}
	if _, err := os.Stat(filepath.Join(home, "rules", "allow.rules")); err == nil {
		t.Errorf("the agent's own rules file is still there")
	}
	if b, _ := os.ReadFile(victim); string(b) != "mine" {
		t.Errorf("written through the link: %q", b)
	}
}

// TestAPIErrors: what the real Codex CLI reports when the model API fails
// every time (its own retries are off) tells the engine whether to try
// again: a status Codex names, or an infrastructure failure when it names
// none and the model never answered; a 400 is the request's fault.
func TestAPIErrors(t *testing.T) {
	bin := codexBin(t)
	url := fakeServer(t, map[string]string{
		"e500": "turns: [{error: {status: 500, message: boom}, count: 5, text: late}]\n",
		"e429": "turns: [{error: {status: 429, message: slow down}, count: 5, text: late}]\n",
		"e400": "turns: [{error: {status: 400, message: bad request}, count: 5, text: late}]\n",
		"ok":   "turns: [{text: fine}]\n",
	})
	tests := []struct {
		name   string
		status int
		infra  bool
	}{
		{"e500", 0, true},
		{"e429", 429, false},
		{"e400", 0, false}, // Codex shows the body, no status
		{"ok", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, _, stdout := invokeOnce(t, setup(t, bin, url, ""), tt.name, nil)
			if res.APIErrorStatus != tt.status || (res.InfraError != "") != tt.infra {
				t.Errorf("status %d, infra %q; want status %d, infra %t\nstdout:\n%s", res.APIErrorStatus, res.InfraError, tt.status, tt.infra, stdout)
			}
		})
	}
}
