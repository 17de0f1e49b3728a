package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestHookFastPath(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args     []string
		handlers string
		ok       bool
	}{
		{[]string{"hook"}, "", true},
		{[]string{"hook", "--handlers", "/w/tool_handlers.yaml"}, "/w/tool_handlers.yaml", true},
		{[]string{"hook", "--handlers=/w/a b.yaml"}, "/w/a b.yaml", true},
		// Everything else is cobra's: help, empty or flag-like values, extra words.
		{[]string{"hook", "--help"}, "", false},
		{[]string{"hook", "--handlers"}, "", false},
		{[]string{"hook", "--handlers="}, "", false},
		{[]string{"hook", "--handlers", ""}, "", false},
		{[]string{"hook", "--handlers", "--help"}, "", false},
		{[]string{"hook", "--handlers", "f", "extra"}, "", false},
		{[]string{"hook", "-h"}, "", false},
		{[]string{"version"}, "", false},
		{nil, "", false},
	}
	for _, tt := range tests {
		handlers, ok := hookFastPath(tt.args)
		if handlers != tt.handlers || ok != tt.ok {
			t.Errorf("hookFastPath(%q) = %q, %v; want %q, %v", tt.args, handlers, ok, tt.handlers, tt.ok)
		}
	}
}

// TestHookFastPathDecidesLikeCobra: the hook answers the same through Main's
// fast path as through the command tree, for a deny, a pass-through and a
// broken handlers file.
func TestHookFastPathDecidesLikeCobra(t *testing.T) {
	dir := t.TempDir()
	handlers := filepath.Join(dir, "tool_handlers.yaml")
	if err := os.WriteFile(handlers, []byte("handlers:\n  - match: Jira via Bash.\n    patterns: [Bash]\n    input_filters: ['\\bjira\\b']\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	input := func(cmd string) string {
		return `{"session_id":"s","cwd":"` + dir + `","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"` + cmd + `"},"tool_use_id":"toolu_1"}`
	}
	for _, tt := range []struct{ name, handlers, input, want string }{
		{"deny", handlers, input("jira issue create"), `"permissionDecision":"deny"`},
		{"pass-through", handlers, input("ls"), ""},
		{"missing handlers", filepath.Join(dir, "missing.yaml"), input("ls"), `"permissionDecision":"deny"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var fastOut, fastErr, slowOut, slowErr bytes.Buffer
			args := []string{"hook", "--handlers", tt.handlers}
			if _, ok := hookFastPath(args); !ok {
				t.Fatalf("%q does not take the fast path", args)
			}
			fast := Main(args, Streams{In: strings.NewReader(tt.input), Out: &fastOut, Err: &fastErr})
			slow := run(context.Background(), args, env{Streams: Streams{In: strings.NewReader(tt.input), Out: &slowOut, Err: &slowErr}, Getenv: os.Getenv})
			if fast != slow || fastOut.String() != slowOut.String() || fastErr.String() != slowErr.String() {
				t.Errorf("fast path = %d %q %q\ncobra     = %d %q %q", fast, fastOut.String(), fastErr.String(), slow, slowOut.String(), slowErr.String())
			}
			if tt.want == "" && fastOut.Len() != 0 || !strings.Contains(fastOut.String(), tt.want) {
				t.Errorf("stdout = %q, want %q", fastOut.String(), tt.want)
			}
		})
	}
}
