package hook

import (
	"context"
	"testing"

	"github.com/agent-eval/agent-eval/internal/intercept"
)

// TestDecider: a decoded call is decided as Run decides it, in the agent's
// dialect: Codex's and Gemini's file tools meet the path layer, Claude
// Code's do not (its permission rules judge them), and a transcript's
// multi-file patch (its text under "input") is judged file by file.
func TestDecider(t *testing.T) {
	t.Parallel()
	f := intercept.File{Root: "/ws", DeniedPaths: []string{"secret/**"}, Handlers: []intercept.Handler{}}
	patch := "*** Begin Patch\n*** Add File: ok.txt\n+x\n*** Update File: secret/key.txt\n-a\n+b\n*** End Patch\n"
	tests := []struct {
		dialect, tool string
		input         map[string]any
		want          intercept.Kind
	}{
		{DialectClaude, "Write", map[string]any{"file_path": "/ws/secret/key.txt", "content": "x"}, intercept.Pass},
		{DialectGemini, "Write", map[string]any{"file_path": "/ws/secret/key.txt", "content": "x"}, intercept.Deny},
		{DialectCodex, "Edit", map[string]any{"file_path": "/ws/secret/key.txt", "old_string": "a", "new_string": "b"}, intercept.Deny},
		{DialectCodex, "apply_patch", map[string]any{"input": patch}, intercept.Deny},
		{DialectCodex, "apply_patch", map[string]any{"input": "*** Begin Patch\n*** Add File: ok.txt\n+x\n*** Add File: b.txt\n+y\n*** End Patch\n"}, intercept.Pass},
		{DialectClaude, "Bash", map[string]any{"command": "cat secret/key.txt"}, intercept.Deny},
	}
	for _, tc := range tests {
		d, err := NewDecider(f, tc.dialect)
		if err != nil {
			t.Fatal(err)
		}
		if got := d.Decide(context.Background(), tc.tool, tc.input, "/ws", nil, OSFS{}, nil); got.Kind != tc.want {
			t.Errorf("%s %s %v = %s (%s), want %s", tc.dialect, tc.tool, tc.input, got.Kind, got.Reason, tc.want)
		}
	}
	if _, err := NewDecider(f, "nope"); err == nil {
		t.Error("NewDecider accepted an unknown dialect")
	}
}
