package hook

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agent-eval/agent-eval/internal/intercept"
	"github.com/agent-eval/agent-eval/internal/testutil/decisions"
)

func geminiStdin(tool string, in map[string]any, cwd string) string {
	b, _ := json.Marshal(map[string]any{"session_id": "s", "transcript_path": "/x/session.jsonl", "cwd": cwd,
		"hook_event_name": "BeforeTool", "timestamp": "2026-12-02T07:31:45.888Z", "tool_name": tool, "tool_input": in})
	return string(b)
}

func TestDecodeGemini(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, tool string
		in         map[string]any
		cwd        string
		want       Input
		wantErr    string
	}{
		{name: "shell", tool: "run_shell_command", in: map[string]any{"command": "ls", "description": "list"}, cwd: "/ws",
			want: Input{ToolName: "Bash", ToolInput: map[string]any{"command": "ls", "description": "list"}, CWD: "/ws"}},
		{name: "shell in a dir", tool: "run_shell_command", in: map[string]any{"command": "ls", "dir_path": "sub"}, cwd: "/ws",
			want: Input{ToolName: "Bash", ToolInput: map[string]any{"command": "ls"}, CWD: "/ws/sub"}},
		{name: "read", tool: "read_file", in: map[string]any{"file_path": "a.txt", "start_line": 2}, cwd: "/ws",
			want: Input{ToolName: "Read", ToolInput: map[string]any{"file_path": "a.txt"}, CWD: "/ws"}},
		{name: "write", tool: "write_file", in: map[string]any{"file_path": "a.txt", "content": "x"},
			want: Input{ToolName: "Write", ToolInput: map[string]any{"file_path": "a.txt", "content": "x"}}},
		{name: "replace", tool: "replace", in: map[string]any{"file_path": "a", "old_string": "o", "new_string": "n", "instruction": "i"},
			want: Input{ToolName: "Edit", ToolInput: map[string]any{"file_path": "a", "old_string": "o", "new_string": "n"}}},
		{name: "glob", tool: "glob", in: map[string]any{"pattern": "**/*.go", "dir_path": "src"},
			want: Input{ToolName: "Glob", ToolInput: map[string]any{"pattern": "**/*.go", "path": "src"}}},
		{name: "grep", tool: "grep_search", in: map[string]any{"pattern": "x", "dir_path": "src", "include_pattern": "*.go"},
			want: Input{ToolName: "Grep", ToolInput: map[string]any{"pattern": "x", "path": "src", "glob": "*.go"}}},
		{name: "old grep", tool: "search_file_content", in: map[string]any{"pattern": "x"},
			want: Input{ToolName: "Grep", ToolInput: map[string]any{"pattern": "x"}}},
		{name: "list", tool: "list_directory", in: map[string]any{"dir_path": "secret"},
			want: Input{ToolName: "Glob", ToolInput: map[string]any{"pattern": "*", "path": "secret"}}},
		{name: "fetch", tool: "web_fetch", in: map[string]any{"prompt": "Summarise https://example.com/a."},
			want: Input{ToolName: "WebFetch", ToolInput: map[string]any{"url": "https://example.com/a", "prompt": "Summarise https://example.com/a."}}},
		{name: "fetch two", tool: "web_fetch", in: map[string]any{"prompt": "https://a.example and https://b.example"},
			wantErr: "names 2 URLs"},
		{name: "search", tool: "google_web_search", in: map[string]any{"query": "q"},
			want: Input{ToolName: "WebSearch", ToolInput: map[string]any{"query": "q"}}},
		{name: "todos", tool: "write_todos", in: map[string]any{"todos": []any{}},
			want: Input{ToolName: "TodoWrite", ToolInput: map[string]any{"todos": []any{}}}},
		{name: "mcp", tool: "mcp_jira_create_issue", in: map[string]any{"summary": "s"},
			want: Input{ToolName: "mcp__jira__create_issue", ToolInput: map[string]any{"summary": "s"}}},
		{name: "unknown", tool: "teleport", in: map[string]any{}, wantErr: "teleport is not a Gemini CLI tool the harness knows"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := decodeGemini([]byte(geminiStdin(tt.tool, tt.in, tt.cwd)))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("decodeGemini(%s) error %v, want %q", tt.tool, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("decodeGemini(%s) (-want +got):\n%s", tt.tool, d)
			}
		})
	}
	for _, bad := range []string{"", "{", `{"tool_input":{}}`, `{"hook_event_name":"AfterTool","tool_name":"read_file"}`} {
		if _, err := decodeGemini([]byte(bad)); err == nil {
			t.Errorf("decodeGemini(%q) has no error", bad)
		}
	}
}

// TestGeminiDialectThroughHook runs Gemini CLI's calls through the hook:
// a denied path holds for read_file, grep and the shell however it is
// spelled; a deny is Gemini's JSON; a pass and an allow print nothing; what
// the hook cannot read is denied in Gemini's shape.
func TestGeminiDialectThroughHook(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "secret"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "secret", "key.txt"), []byte("k"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("secret", filepath.Join(dir, "innocent")); err != nil {
		t.Fatal(err)
	}
	handlers := writeHandlers(t, dir, intercept.File{DeniedPaths: []string{"secret/**"}, DeniedPathReasons: map[string]string{"secret/**": "the key"},
		Handlers: []intercept.Handler{{Match: "jira", Patterns: []string{"Bash"}, InputFilters: []string{"jira-cli"}, Prompt: "no jira"}}})
	tests := []struct {
		name, tool string
		in         map[string]any
		deny       string // a reason's part; "" for nothing printed
	}{
		{name: "read", tool: "read_file", in: map[string]any{"file_path": "secret/key.txt"}, deny: "the key"},
		{name: "read absolute", tool: "read_file", in: map[string]any{"file_path": filepath.Join(dir, "x", "..", "secret", "key.txt")}, deny: "denied path"},
		{name: "read through a link", tool: "read_file", in: map[string]any{"file_path": "innocent/key.txt"}, deny: "denied path"},
		{name: "read many", tool: "read_many_files", in: map[string]any{"paths": []any{"README.md", "secret/key.txt"}}, deny: "denied path"},
		{name: "read many by include", tool: "read_many_files", in: map[string]any{"paths": []any{}, "include": []any{"**/*.txt"}}, deny: "denied path"},
		{name: "read many by a glob", tool: "read_many_files", in: map[string]any{"paths": []any{"sec*/**"}}, deny: "denied path"},
		{name: "read many by a glob through a link", tool: "read_many_files", in: map[string]any{"paths": []any{"innocent/*.txt"}}, deny: "denied path"},
		{name: "write", tool: "write_file", in: map[string]any{"file_path": "./secret/new.txt", "content": "x"}, deny: "denied path"},
		{name: "grep the root", tool: "grep_search", in: map[string]any{"pattern": "k"}, deny: "denied path"},
		{name: "cat", tool: "run_shell_command", in: map[string]any{"command": "cat secret/key.txt"}, deny: "denied path"},
		{name: "cat from a dir", tool: "run_shell_command", in: map[string]any{"command": "cat key.txt", "dir_path": "secret"}, deny: "denied path"},
		{name: "handler", tool: "run_shell_command", in: map[string]any{"command": "jira-cli create"}, deny: "Blocked"},
		{name: "unknown tool", tool: "teleport", in: map[string]any{}, deny: "not a Gemini CLI tool"},
		{name: "read elsewhere", tool: "read_file", in: map[string]any{"file_path": "README.md"}},
		{name: "read many elsewhere", tool: "read_many_files", in: map[string]any{"paths": []any{"docs/*.md"}, "include": []any{"src/**/*.go"}}},
		{name: "list the root", tool: "list_directory", in: map[string]any{"dir_path": "."}},
		{name: "echo", tool: "run_shell_command", in: map[string]any{"command": "echo hi"}},
		{name: "todos", tool: "write_todos", in: map[string]any{"todos": []any{}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := runHook(t, geminiStdin(tt.tool, tt.in, dir), Options{HandlersPath: handlers, Dialect: DialectGemini})
			if r.code != ExitOK {
				t.Fatalf("exit %d, stderr %s", r.code, r.stderr)
			}
			if tt.deny == "" {
				if r.raw != "" {
					t.Errorf("%s printed %q, want nothing", tt.name, r.raw)
				}
				return
			}
			if r.out["decision"] != "deny" || !strings.Contains(r.out["reason"].(string), tt.deny) {
				t.Errorf("%s printed %q, want a deny naming %q", tt.name, r.raw, tt.deny)
			}
		})
	}
	r := runHook(t, "not json", Options{HandlersPath: handlers, Dialect: DialectGemini})
	if r.code != ExitOK || r.out["decision"] != "deny" {
		t.Errorf("unreadable input: exit %d, %q", r.code, r.raw)
	}
}

// TestCorpusThroughGemini replays the decision corpus's Bash cases as
// Gemini's run_shell_command: the same decision (an allow printed as
// nothing, as a pass is).
func TestCorpusThroughGemini(t *testing.T) {
	t.Parallel()
	corpus, err := decisions.Load("../intercept/testdata/decisions.yaml")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, c := range corpus.Cases {
		if c.Tool != "Bash" {
			continue
		}
		n++
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			dir, environ := corpusCase(t, corpus, c)
			r := runHook(t, geminiStdin("run_shell_command", c.Input, filepath.Join(dir, c.CWD)), Options{Environ: environ,
				HandlersPath: filepath.Join(dir, HandlersFile), Dialect: DialectGemini})
			got := "pass"
			if r.out["decision"] == "deny" {
				got = "deny"
			}
			want := "pass"
			if c.Want == intercept.Deny {
				want = "deny"
			}
			if r.code != ExitOK || got != want {
				t.Fatalf("exit %d, %q, want %s", r.code, r.raw, want)
			}
		})
	}
	if n == 0 {
		t.Fatal("the corpus has no Bash case")
	}
}
