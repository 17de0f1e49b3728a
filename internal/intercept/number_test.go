package intercept_test

import (
	"context"
	"strings"
	"testing"

	"github.com/agent-eval/agent-eval/internal/intercept"
)

// TestWarningNumbersHandlersFromOne: a warning names a handler as people
// count (the first is handler 1); Decision.Handler stays the 0-based index.
func TestWarningNumbersHandlersFromOne(t *testing.T) {
	p, err := intercept.Prepare(intercept.File{Handlers: []intercept.Handler{
		{Match: "questions", Patterns: []string{"AskUserQuestion"}},
		{Match: "scripts", Patterns: []string{"Bash"}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	d := intercept.Decide(context.Background(), p, intercept.Request{ToolName: "Bash", ToolInput: map[string]any{"command": "ls"}}, nil)
	if len(d.Warnings) != 1 || !strings.HasPrefix(d.Warnings[0], "handler 2 (scripts) has Bash") {
		t.Errorf("warnings = %q, want one naming handler 2", d.Warnings)
	}
}
