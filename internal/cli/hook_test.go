package cli

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestHookFastPath(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		want hookArgs
		ok   bool
	}{
		{[]string{"hook"}, hookArgs{}, true},
		{[]string{"hook", "--handlers", "/w/tool_handlers.yaml"}, hookArgs{handlers: "/w/tool_handlers.yaml"}, true},
		{[]string{"hook", "--handlers=/w/a b.yaml"}, hookArgs{handlers: "/w/a b.yaml"}, true},
		{[]string{"hook", "--handlers", "/w/h.yaml", "--sha256", "ab12"}, hookArgs{handlers: "/w/h.yaml", sha256: "ab12"}, true},
		{[]string{"hook", "--sha256=ab12", "--handlers=/w/h.yaml"}, hookArgs{handlers: "/w/h.yaml", sha256: "ab12"}, true},
		// Everything else is cobra's: help, missing, empty or flag-like
		// values, repeated or unknown flags, extra words.
		{[]string{"hook", "--help"}, hookArgs{}, false},
		{[]string{"hook", "--handlers"}, hookArgs{}, false},
		{[]string{"hook", "--handlers="}, hookArgs{}, false},
		{[]string{"hook", "--handlers", ""}, hookArgs{}, false},
		{[]string{"hook", "--handlers", "--help"}, hookArgs{}, false},
		{[]string{"hook", "--handlers", "--sha256", "ab"}, hookArgs{}, false},
		{[]string{"hook", "--handlers", "a", "--handlers", "b"}, hookArgs{}, false},
		{[]string{"hook", "--handlers", "f", "extra"}, hookArgs{}, false},
		{[]string{"hook", "--handler", "f"}, hookArgs{}, false},
		{[]string{"hook", "-h"}, hookArgs{}, false},
		{[]string{"version"}, hookArgs{}, false},
		{nil, hookArgs{}, false},
	}
	for _, tt := range tests {
		got, ok := hookFastPath(tt.args)
		if got != tt.want || ok != tt.ok {
			t.Errorf("hookFastPath(%q) = %+v, %v; want %+v, %v", tt.args, got, ok, tt.want, tt.ok)
		}
	}
}

// TestHookFastPathDecidesLikeCobra: the hook answers the same through Main's
// fast path as through the command tree, for a deny, a pass-through and a
// broken handlers file.
func TestHookFastPathDecidesLikeCobra(t *testing.T) {
	dir := t.TempDir()
	handlers := filepath.Join(dir, "tool_handlers.yaml")
	content := []byte("handlers:\n  - match: Jira via Bash.\n    patterns: [Bash]\n    input_filters: ['\\bjira\\b']\n")
	if err := os.WriteFile(handlers, content, 0o644); err != nil {
		t.Fatal(err)
	}
	input := func(cmd string) string {
		return `{"session_id":"s","cwd":"` + dir + `","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"` + cmd + `"},"tool_use_id":"toolu_1"}`
	}
	sum := sha256.Sum256(content)
	digest := hex.EncodeToString(sum[:])
	for _, tt := range []struct {
		name  string
		args  []string
		input string
		want  string
	}{
		{"deny", []string{"--handlers", handlers}, input("jira issue create"), `"permissionDecision":"deny"`},
		{"pass-through", []string{"--handlers", handlers}, input("ls"), ""},
		{"pinned pass-through", []string{"--handlers", handlers, "--sha256", digest}, input("ls"), ""},
		{"pin mismatch", []string{"--handlers", handlers, "--sha256", strings.Repeat("0", 64)}, input("ls"), `was changed after the run wrote it`},
		{"missing handlers", []string{"--handlers", filepath.Join(dir, "missing.yaml")}, input("ls"), `"permissionDecision":"deny"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var fastOut, fastErr, slowOut, slowErr bytes.Buffer
			args := append([]string{"hook"}, tt.args...)
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
