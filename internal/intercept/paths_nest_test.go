package intercept

import (
	"context"
	"strings"
	"testing"
)

// TestPathNestingReason: a command nesting shells past what the path layer
// analyses is denied with a reason in the user's words, not the code's.
func TestPathNestingReason(t *testing.T) {
	t.Parallel()
	p, err := Prepare(File{Root: "/ws", DeniedPaths: []string{"secret/**"}})
	if err != nil {
		t.Fatal(err)
	}
	command := "cat public/a"
	for range maxNesting + 2 {
		command = "bash -c '" + strings.ReplaceAll(command, "'", `'\''`) + "'"
	}
	d := Decide(context.Background(), p, Request{ToolName: "Bash", ToolInput: map[string]any{"command": command}, CWD: "/ws"}, nil)
	if d.Kind != Deny || !strings.Contains(d.Reason, "the command nests shells too deeply to be checked") || strings.Contains(d.Reason, "pathShells") {
		t.Errorf("%s: %q, want a deny saying the command nests shells too deeply", d.Kind, d.Reason)
	}
}
