package hook

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-eval/agent-eval/internal/intercept"
	"github.com/agent-eval/agent-eval/internal/rundir"
)

func cursorEvent(event string, fields map[string]any) string {
	m := map[string]any{"hook_event_name": event, "conversation_id": "c1", "generation_id": "g1", "workspace_roots": []string{"/ws"}}
	for k, v := range fields {
		m[k] = v
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// TestCursorDecode: each of Cursor's before* events becomes Claude Code's
// call; anything else is an error, which denies.
func TestCursorDecode(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, raw string
		tool      string
		input     map[string]any
		cwd       string
		err       string
	}{
		{name: "shell", raw: cursorEvent(CursorShellEvent, map[string]any{"command": "curl x", "cwd": "/ws/sub"}), tool: "Bash", input: map[string]any{"command": "curl x"}, cwd: "/ws/sub"},
		{name: "shell without cwd", raw: cursorEvent(CursorShellEvent, map[string]any{"command": "ls"}), tool: "Bash", input: map[string]any{"command": "ls"}, cwd: "/ws"},
		{name: "read", raw: cursorEvent(CursorReadEvent, map[string]any{"file_path": "/ws/secret/k", "content": "TOPSECRET"}), tool: "Read", input: map[string]any{"file_path": "/ws/secret/k"}, cwd: "/ws"},
		{name: "mcp object", raw: cursorEvent(CursorMCPEvent, map[string]any{"tool_name": "jira:create_issue", "tool_input": map[string]any{"summary": "s"}}), tool: "mcp__jira__create_issue", input: map[string]any{"summary": "s"}, cwd: "/ws"},
		{name: "mcp string", raw: cursorEvent(CursorMCPEvent, map[string]any{"tool_name": "query", "tool_input": `{"q":"select"}`, "url": "http://x"}), tool: "mcp__cursor__query", input: map[string]any{"q": "select"}, cwd: "/ws"},
		{name: "mcp spelled", raw: cursorEvent(CursorMCPEvent, map[string]any{"tool_name": "mcp__slack__post"}), tool: "mcp__slack__post", input: map[string]any{}, cwd: "/ws"},
		{name: "no event", raw: `{"command":"ls"}`, err: "no hook_event_name"},
		{name: "other event", raw: cursorEvent("afterFileEdit", map[string]any{"file_path": "x"}), err: "not an event"},
		{name: "shell without command", raw: cursorEvent(CursorShellEvent, nil), err: "without a command"},
		{name: "blank command", raw: cursorEvent(CursorShellEvent, map[string]any{"command": "  "}), err: "without a command"},
		{name: "read without path", raw: cursorEvent(CursorReadEvent, nil), err: "without a file_path"},
		{name: "mcp without tool", raw: cursorEvent(CursorMCPEvent, nil), err: "without a tool_name"},
		{name: "mcp bad input", raw: cursorEvent(CursorMCPEvent, map[string]any{"tool_name": "q", "tool_input": "[1]"}), err: "tool_input"},
		{name: "not json", raw: `{`, err: "EOF"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in, err := decodeCursor([]byte(tc.raw))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got, _ := json.Marshal(in.ToolInput)
			want, _ := json.Marshal(tc.input)
			if in.ToolName != tc.tool || string(got) != string(want) || in.CWD != tc.cwd {
				t.Errorf("decoded %s %s cwd %s, want %s %s cwd %s", in.ToolName, got, in.CWD, tc.tool, want, tc.cwd)
			}
			if strings.Contains(string(got), "TOPSECRET") {
				t.Errorf("the file's content reached the decision's input")
			}
		})
	}
}

// TestCursorThroughHook runs Cursor's stdin through the whole hook: the
// decision comes back as Cursor's permission, the reason in both message
// fields, and every failure denies.
func TestCursorThroughHook(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := writeHandlers(t, dir, intercept.File{
		Handlers: []intercept.Handler{
			{Match: "curl", Patterns: []string{"Bash"}, InputFilters: []string{`\bcurl\b`}},
			{Match: "no secrets", Patterns: []string{"mcp__vault__*"}},
		},
		DeniedPaths: []string{"secret/**"},
	})
	if err := os.MkdirAll(filepath.Join(dir, "secret"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("secret", filepath.Join(dir, "innocent")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, stdin string
		path        string
		permission  string
		reason      string
	}{
		{name: "gated shell", stdin: cursorEvent(CursorShellEvent, map[string]any{"command": "curl https://x", "cwd": dir}), path: path, permission: "deny", reason: "curl"},
		{name: "free shell", stdin: cursorEvent(CursorShellEvent, map[string]any{"command": "echo hi", "cwd": dir}), path: path, permission: "allow"},
		{name: "shell naming a denied path", stdin: cursorEvent(CursorShellEvent, map[string]any{"command": "cat x/../secret/k", "cwd": dir}), path: path, permission: "deny", reason: "secret"},
		{name: "gated mcp", stdin: cursorEvent(CursorMCPEvent, map[string]any{"tool_name": "vault:get", "tool_input": map[string]any{"k": "v"}}), path: path, permission: "deny", reason: "no secrets"},
		{name: "free read", stdin: cursorEvent(CursorReadEvent, map[string]any{"file_path": filepath.Join(dir, "ok.txt")}), path: path, permission: "allow"},
		{name: "denied read", stdin: cursorEvent(CursorReadEvent, map[string]any{"file_path": filepath.Join(dir, "secret", "k")}), path: path, permission: "deny", reason: "denied path"},
		{name: "denied read spelled around", stdin: cursorEvent(CursorReadEvent, map[string]any{"file_path": filepath.Join(dir, "x", "..", "secret", "k")}), path: path, permission: "deny", reason: "denied path"},
		{name: "denied read through a link", stdin: cursorEvent(CursorReadEvent, map[string]any{"file_path": filepath.Join(dir, "innocent", "k")}), path: path, permission: "deny", reason: "denied path"},
		{name: "relative denied read", stdin: cursorEvent(CursorReadEvent, map[string]any{"file_path": "secret/k", "workspace_roots": []string{dir}}), path: path, permission: "deny", reason: "denied path"},
		{name: "garbage", stdin: "nope", path: path, permission: "deny", reason: "could not read its input"},
		{name: "unknown event", stdin: cursorEvent("stop", nil), path: path, permission: "deny", reason: "not an event"},
		{name: "no handlers file", stdin: cursorEvent(CursorShellEvent, map[string]any{"command": "echo", "cwd": dir}), path: filepath.Join(dir, "missing.yaml"), permission: "deny", reason: "cannot read the handlers file"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := runHook(t, tc.stdin, Options{HandlersPath: tc.path, Dialect: DialectCursor})
			if r.code != ExitOK || r.out["permission"] != tc.permission {
				t.Fatalf("exit %d, output %s, want permission %s", r.code, r.raw, tc.permission)
			}
			if _, claude := r.out["hookSpecificOutput"]; claude {
				t.Errorf("Claude Code's shape written to Cursor: %s", r.raw)
			}
			if tc.permission == "deny" {
				for _, k := range []string{"user_message", "agent_message", "userMessage", "agentMessage"} {
					if s, _ := r.out[k].(string); !strings.Contains(s, tc.reason) {
						t.Errorf("%s = %q, want it to say %q", k, s, tc.reason)
					}
				}
			} else if len(r.out) != 1 {
				t.Errorf("an allow carries more than its permission: %s", r.raw)
			}
		})
	}
	ledger, err := os.ReadFile(filepath.Join(dir, LedgerFile))
	if err != nil {
		t.Fatal(err)
	}
	var tools []string
	for _, line := range strings.Split(strings.TrimSpace(string(ledger)), "\n") {
		var d rundir.Decision
		if err := json.Unmarshal([]byte(line), &d); err != nil {
			t.Fatal(err)
		}
		tools = append(tools, d.Tool+":"+d.Decision)
	}
	if got := strings.Join(tools, " "); !strings.HasPrefix(got, "Bash:deny Bash:pass Bash:deny mcp__vault__get:deny Read:pass") {
		t.Errorf("ledger = %s", got)
	}
}

// TestCursorAnsweredCallDenied: Cursor cannot take a rewritten input, so a
// decision that carries one is a deny, never an allow of the unanswered
// call.
func TestCursorAnsweredCallDenied(t *testing.T) {
	t.Parallel()
	var out, errb strings.Builder
	code := respondCursor(&out, &errb, Input{}, intercept.Decision{Kind: intercept.Allow, UpdatedInput: map[string]any{"answers": map[string]any{}}})
	if code != ExitOK || !strings.Contains(out.String(), `"permission":"deny"`) {
		t.Fatalf("exit %d, %s", code, out.String())
	}
}

// TestCursorBlocksByExitCode: a decision that cannot be written exits 2,
// which Cursor takes as a deny.
func TestCursorBlocksByExitCode(t *testing.T) {
	t.Parallel()
	var errb strings.Builder
	if code := respondCursor(failingWriter{}, &errb, Input{}, intercept.Decision{Kind: intercept.Pass}); code != ExitBlock {
		t.Fatalf("exit %d, want %d", code, ExitBlock)
	}
}
