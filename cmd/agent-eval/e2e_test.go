package main

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/agent-eval/agent-eval/internal/agentproc"
	"github.com/agent-eval/agent-eval/internal/fakeapi"
	"github.com/agent-eval/agent-eval/internal/testutil/need"
)

// The end-to-end scripts in testdata/e2e run the real Claude Code CLI (the
// version pinned in scripts/claude-code.version), and the cli runner's ones
// the real OpenCode CLI ($OPENCODE_BIN, scripts/opencode.version), against
// the scripted fake of the Messages API, with an isolated HOME and no
// traffic but to the fake.
//
// Commands the scripts get, besides testscript's own:
//
//	fake start SCRIPT        serve SCRIPT (re-read on every request) and point
//	                         ANTHROPIC_BASE_URL at it
//	fake requests            one JSON line per request received (no bodies)
//	fake results             the tool_result blocks of the last main request:
//	                         "<tool_use_id> error=<bool> <content>"
//	fake count KIND N        fail unless N requests of KIND (main, side, ...)
//	                         were received
//
//	events FILE TYPE [FIELD]  for each stream-json line of FILE whose type (or
//	                         type/subtype) is TYPE, print FIELD's value, or
//	                         the whole event, as JSON with sorted keys; FILE
//	                         "stdout" is the previous command's stdout
//
// and the programs denyhook, mcpstub and agent-eval-json FILE PATH (prints
// the JSON value at a dotted PATH of FILE, keys sorted) (a PreToolUse hook that denies every call with
// the reason given as its arguments and appends its stdin to $WORK/hook.log).

const repoRoot = "../.."

// claudeCLI finds the pinned Claude Code binary: $CLAUDE_BIN, else the copy
// scripts/install-claude.sh put under .cache. In CI a missing CLI fails the
// test; elsewhere it skips (need.Missing).
func claudeCLI(t *testing.T) string {
	t.Helper()
	v, err := os.ReadFile(filepath.Join(repoRoot, "scripts", "claude-code.version"))
	if err != nil {
		t.Fatal(err)
	}
	version := strings.TrimSpace(string(v))
	bin := os.Getenv("CLAUDE_BIN")
	if bin == "" {
		bin = filepath.Join(repoRoot, ".cache", "claude-code-"+version, "node_modules", ".bin", "claude")
	}
	abs, err := filepath.Abs(bin)
	if err == nil {
		bin = abs
	}
	if _, err := os.Stat(bin); err != nil {
		need.Missing(t, fmt.Sprintf("the Claude Code CLI %s is not usable: %v", version, err), need.Install("claude"))
	}
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		need.Missing(t, fmt.Sprintf("the Claude Code CLI %s is not usable: %v", version, err), need.Install("claude"))
	}
	if !strings.HasPrefix(string(out), version+" ") {
		t.Fatalf("%s --version = %q, want %s: the e2e scripts assert that version's behaviour", bin, strings.TrimSpace(string(out)), version)
	}
	return bin
}

// openCodeCLI finds the pinned OpenCode binary (the cli runner's real
// second agent): $OPENCODE_BIN, else the copy scripts/install-opencode.sh
// put under .cache. It returns "" when there is none, which fails in CI;
// scripts that need it start with [!opencode] skip.
func openCodeCLI(t *testing.T) string {
	return pinnedCLI(t, "OpenCode", "OPENCODE_BIN", "opencode", "opencode")
}

// codexCLI finds the pinned Codex CLI (the codex runner's agent) as
// openCodeCLI does: $CODEX_BIN, else scripts/install-codex.sh's copy;
// scripts that need it start with [!codex] skip.
func codexCLI(t *testing.T) string { return pinnedCLI(t, "Codex", "CODEX_BIN", "codex", "codex") }

// geminiCLI finds the pinned Gemini CLI (the gemini runner's agent) the
// same way: $GEMINI_BIN, else scripts/install-gemini.sh's copy; scripts
// that need it start with [!gemini] skip.
func geminiCLI(t *testing.T) string {
	return pinnedCLI(t, "Gemini CLI", "GEMINI_BIN", "gemini", "gemini")
}

// pinnedCLI finds the binary bin of an agent pinned in
// scripts/<name>.version: $env, else .cache/<name>-<version>'s npm copy;
// "" when there is none (a failure in CI).
func pinnedCLI(t *testing.T, agent, env, name, bin string) string {
	t.Helper()
	v, err := os.ReadFile(filepath.Join(repoRoot, "scripts", name+".version"))
	if err != nil {
		t.Fatal(err)
	}
	version := strings.TrimSpace(string(v))
	path := os.Getenv(env)
	if path == "" {
		path = filepath.Join(repoRoot, ".cache", name+"-"+version, "node_modules", ".bin", bin)
	}
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	if _, err := os.Stat(path); err != nil {
		if need.InCI() {
			need.Missing(t, fmt.Sprintf("%s %s is not installed: %v", agent, version, err), need.Install(name))
		}
		return ""
	}
	return path
}

// cursorStandin builds the stand-in for Cursor's CLI (internal/testutil/
// cursorstandin; the real one cannot be installed here) as cursor-agent in a
// folder of its own, or takes $CURSOR_AGENT_BIN. The scripts that run it
// start with [!cursor] skip; a stand-in that does not build fails.
func cursorStandin(t *testing.T) string {
	t.Helper()
	if bin := os.Getenv("CURSOR_AGENT_BIN"); bin != "" {
		abs, err := filepath.Abs(bin)
		if err != nil {
			t.Fatal(err)
		}
		return abs
	}
	bin := filepath.Join(t.TempDir(), "cursor-agent")
	cmd := exec.Command("go", "build", "-o", bin, "./internal/testutil/cursorstandin")
	cmd.Dir = repoRoot
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build the cursor-agent stand-in: %v\n%s", err, out)
	}
	return bin
}

func TestE2E(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end tests run the real Claude Code CLI")
	}
	claude := claudeCLI(t)
	opencode := openCodeCLI(t)
	cursorAgent := cursorStandin(t)
	gemini := geminiCLI(t)
	codex := codexCLI(t)
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/e2e",
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		Setup: func(env *testscript.Env) error {
			home, err := claudeScriptEnv(env, claude)
			if err != nil {
				return err
			}
			env.Setenv("OUTER_HOME", os.Getenv("HOME")) // the HOME a script's agent must leave alone
			env.Setenv("ANTHROPIC_API_KEY", "fake-key-for-tests")
			for _, k := range []string{"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "DISABLE_TELEMETRY", "DISABLE_AUTOUPDATER", "DISABLE_ERROR_REPORTING", "IS_SANDBOX"} {
				env.Setenv(k, "1")
			}
			env.Setenv("CLAUDE_CODE_MAX_RETRIES", "1")
			// A secret no earlier run left lying around (sandbox_leaks).
			tok := make([]byte, 6)
			if _, err := rand.Read(tok); err != nil {
				return err
			}
			env.Setenv("LEAK_TOKEN", "ZK7Q"+hex.EncodeToString(tok))
			env.Setenv("AGENT_EVAL_BIN", "agent-eval") // hooks run the registered command on PATH
			if opencode != "" {
				// OpenCode keeps its files in the XDG folders: all inside
				// the isolated HOME, and nothing fetched from the internet.
				env.Setenv("OPENCODE_BIN", opencode)
				for k, d := range map[string]string{"XDG_CONFIG_HOME": ".config", "XDG_DATA_HOME": ".local/share", "XDG_CACHE_HOME": ".cache", "XDG_STATE_HOME": ".local/state"} {
					env.Setenv(k, filepath.Join(home, d))
				}
				for _, k := range []string{"OPENCODE_DISABLE_MODELS_FETCH", "OPENCODE_DISABLE_AUTOUPDATE", "OPENCODE_DISABLE_LSP_DOWNLOAD", "OPENCODE_DISABLE_SHARE", "OPENCODE_DISABLE_CLAUDE_CODE"} {
					env.Setenv(k, "1")
				}
			}
			// The cursor-agent stand-in, on PATH as Cursor's CLI would be.
			env.Setenv("CURSOR_AGENT_BIN", cursorAgent)
			env.Setenv("PATH", filepath.Dir(cursorAgent)+string(os.PathListSeparator)+env.Getenv("PATH"))
			if gemini != "" {
				env.Setenv("GEMINI_BIN", gemini)
			}
			if codex != "" {
				env.Setenv("CODEX_BIN", codex)
			}
			env.Values[fakeKey{}] = &fakeHolder{}
			if err := setExamples(env); err != nil {
				return err
			}
			return shortWorkspaces(env)
		},
		// [opencode]: the OpenCode CLI is there (a script of the cli runner
		// with it skips without it, except in CI, which fails above).
		// [cursor]: the cursor-agent stand-in is built (always, once it
		// builds: a script of the cursor runner runs it).
		// [gemini]: the Gemini CLI is there ($GEMINI_BIN; likewise).
		// [codex]: the Codex CLI is there (likewise).
		// [pidns]: this machine can give an agent a pid namespace.
		// [need:PROGRAM]: as scriptCondition.
		Condition: func(cond string) (bool, error) {
			if cond == "opencode" {
				return opencode != "", nil
			}
			if cond == "cursor" {
				return cursorAgent != "", nil
			}
			if cond == "gemini" {
				return gemini != "", nil
			}
			if cond == "codex" {
				return codex != "", nil
			}
			if cond == "pidns" {
				err := agentproc.NamespaceWorks()
				return need.Condition(err == nil, fmt.Sprintf("no pid namespace for the agent here: %v", err), "run as root, or allow unprivileged user namespaces")
			}
			return scriptCondition(cond)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"fake":   cmdFake,
			"events": cmdEvents,
		},
	})
}

// fakeKey holds the script's fake server in testscript's values.
type fakeKey struct{}

type fakeHolder struct{ srv *fakeapi.Server }

func cmdFake(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) == 0 {
		ts.Fatalf("usage: fake start SCRIPT | requests | results | count KIND N")
	}
	if neg && args[0] != "count" {
		ts.Fatalf("fake %s does not take !", args[0])
	}
	holder := ts.Value(fakeKey{}).(*fakeHolder)
	srv := holder.srv
	if args[0] != "start" && srv == nil {
		ts.Fatalf("fake %s: no fake started (run fake start SCRIPT first)", args[0])
	}
	switch args[0] {
	case "start":
		if len(args) != 2 {
			ts.Fatalf("usage: fake start SCRIPT")
		}
		path := ts.MkAbs(args[1])
		if _, err := fakeapi.LoadScript(path); err != nil {
			ts.Fatalf("%v", err)
		}
		srv = fakeapi.New(fakeapi.Options{ScriptFile: path})
		url, err := srv.Start("")
		ts.Check(err)
		ts.Defer(func() { _ = srv.Close() })
		holder.srv = srv
		ts.Setenv("ANTHROPIC_BASE_URL", url)
	case "requests":
		for _, r := range srv.Requests() {
			r.Body = nil
			b, err := json.Marshal(r)
			ts.Check(err)
			fmt.Fprintf(ts.Stdout(), "%s\n", b)
		}
	case "results":
		var last *fakeapi.Request
		for _, r := range srv.Requests() {
			if r.Kind == "main" {
				last = &r
			}
		}
		if last == nil {
			ts.Fatalf("fake results: no main request was received")
		}
		for _, tr := range last.ToolResults {
			fmt.Fprintf(ts.Stdout(), "%s error=%t %s\n", tr.ToolUseID, tr.IsError, strings.ReplaceAll(tr.Content, "\n", `\n`))
		}
	case "count":
		if len(args) != 3 {
			ts.Fatalf("usage: fake count KIND N")
		}
		want, err := strconv.Atoi(args[2])
		ts.Check(err)
		got := 0
		for _, r := range srv.Requests() {
			if r.Kind == args[1] {
				got++
			}
		}
		if (got == want) == neg {
			ts.Fatalf("fake received %d %s requests; want %s%d", got, args[1], map[bool]string{true: "not ", false: ""}[neg], want)
		}
	default:
		ts.Fatalf("unknown fake subcommand %q", args[0])
	}
}

func cmdEvents(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 || len(args) > 3 {
		ts.Fatalf("usage: events FILE TYPE [FIELD]")
	}
	n := 0
	for _, line := range strings.Split(ts.ReadFile(args[0]), "\n") {
		var ev map[string]any
		if json.Unmarshal([]byte(line), &ev) != nil {
			continue
		}
		typ, _ := ev["type"].(string)
		if sub, ok := ev["subtype"].(string); ok && args[1] == typ+"/"+sub {
			typ = args[1]
		}
		if typ != args[1] {
			continue
		}
		n++
		var v any = ev
		if len(args) == 3 {
			var ok bool
			if v, ok = ev[args[2]]; !ok {
				ts.Fatalf("a %s event has no field %q", args[1], args[2])
			}
		}
		b, err := json.Marshal(v) // maps marshal with sorted keys
		ts.Check(err)
		fmt.Fprintf(ts.Stdout(), "%s\n", b)
	}
	if n == 0 {
		ts.Fatalf("no %s event in %s", args[1], args[0])
	}
}

// denyhook is a PreToolUse hook for the scripts: it records its stdin and
// denies the call with the reason given as its arguments.
func denyhook() {
	in, _ := io.ReadAll(os.Stdin)
	if work := os.Getenv("WORK"); work != "" {
		f, err := os.OpenFile(filepath.Join(work, "hook.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err == nil {
			_, _ = f.Write(append(bytes.TrimSpace(in), '\n'))
			_ = f.Close()
		}
	}
	reason := strings.Join(os.Args[1:], " ")
	out, _ := json.Marshal(map[string]any{"hookSpecificOutput": map[string]any{
		"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": reason}})
	fmt.Println(string(out))
	os.Exit(0)
}

// mcpstub is a tiny stdio MCP server for the scripts: one tool, lookup,
// which answers "value-of-<key>" and appends each call to $WORK/mcp.log.
func mcpstub() {
	dec := json.NewDecoder(os.Stdin)
	enc := json.NewEncoder(os.Stdout)
	for {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				ProtocolVersion string         `json:"protocolVersion"`
				Arguments       map[string]any `json:"arguments"`
			} `json:"params"`
		}
		if err := dec.Decode(&req); err != nil {
			os.Exit(0)
		}
		if req.ID == nil {
			continue // a notification
		}
		var result any
		switch req.Method {
		case "initialize":
			result = map[string]any{"protocolVersion": req.Params.ProtocolVersion, "capabilities": map[string]any{"tools": map[string]any{}},
				"serverInfo": map[string]any{"name": "evalsrv", "version": "1.0.0"}}
		case "tools/list":
			result = map[string]any{"tools": []any{map[string]any{"name": "lookup", "description": "Look a key up.",
				"inputSchema": map[string]any{"type": "object", "properties": map[string]any{"key": map[string]any{"type": "string"}}}}}}
		case "tools/call":
			key, _ := req.Params.Arguments["key"].(string)
			if work := os.Getenv("WORK"); work != "" {
				if f, err := os.OpenFile(filepath.Join(work, "mcp.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644); err == nil {
					fmt.Fprintln(f, "lookup", key)
					_ = f.Close()
				}
			}
			result = map[string]any{"content": []any{map[string]any{"type": "text", "text": "value-of-" + key}}}
		case "ping":
			result = map[string]any{}
		default:
			_ = enc.Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID, "error": map[string]any{"code": -32601, "message": "method not found"}})
			continue
		}
		_ = enc.Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": result})
	}
}

// agentEvalJSON prints the value at a dotted path of a JSON file.
func agentEvalJSON() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: agent-eval-json FILE PATH")
		os.Exit(2)
	}
	b, err := os.ReadFile(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for _, k := range strings.Split(os.Args[2], ".") {
		m, ok := v.(map[string]any)
		if !ok {
			fmt.Fprintf(os.Stderr, "%s: not an object at %q\n", os.Args[2], k)
			os.Exit(1)
		}
		if v, ok = m[k]; !ok {
			fmt.Fprintf(os.Stderr, "%s: no key %q\n", os.Args[2], k)
			os.Exit(1)
		}
	}
	out, _ := json.Marshal(v)
	fmt.Println(string(out))
	os.Exit(0)
}
