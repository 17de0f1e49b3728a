package claudecode

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agent-eval/agent-eval/internal/intercept"
)

func TestHookSettings(t *testing.T) {
	t.Parallel()
	f := intercept.File{Handlers: []intercept.Handler{
		{Patterns: []string{"Bash", "mcp__atlassian__*"}},
		{Patterns: []string{"AskUserQuestion", "Bash"}},
		{Patterns: []string{"*"}},
	}}
	got := HookSettings(f, "/bin/agent-eval hook --handlers '/w s/tool_handlers.yaml'", 60)
	var matchers []string
	for _, e := range got {
		matchers = append(matchers, e.Matcher)
		if len(e.Hooks) != 1 || e.Hooks[0].Type != "command" || e.Hooks[0].Timeout != 60 || e.Hooks[0].OnFailure != "block" {
			t.Errorf("entry %+v", e)
		}
	}
	if want := []string{"*", "AskUserQuestion", "Bash", "^mcp__atlassian__.*"}; !cmp.Equal(want, matchers) {
		t.Errorf("matchers = %q, want %q", matchers, want)
	}
	if got := intercept.ShellQuote("/w s/it's"); got != `'/w s/it'\''s'` {
		t.Errorf("ShellQuote = %s", got)
	}
	if got := intercept.ShellQuote("/usr/bin/agent-eval"); got != "/usr/bin/agent-eval" {
		t.Errorf("ShellQuote = %s", got)
	}
}

func TestHookSettingsDeniedPaths(t *testing.T) {
	t.Parallel()
	// Denied paths alone wire the hook for Bash; with handlers, Bash is not
	// listed twice.
	for _, f := range []intercept.File{
		{DeniedPaths: []string{"secret/**"}},
		{DeniedPaths: []string{"secret/**"}, Handlers: []intercept.Handler{{Match: "x", Patterns: []string{"Bash", "Read"}}}},
	} {
		var matchers []string
		for _, e := range HookSettings(f, "hook", 60) {
			matchers = append(matchers, e.Matcher)
		}
		want := []string{"Bash"}
		if len(f.Handlers) > 0 {
			want = []string{"Bash", "Read"}
		}
		if !slices.Equal(matchers, want) {
			t.Errorf("matchers = %v, want %v", matchers, want)
		}
	}
	if got := HookSettings(intercept.File{}, "hook", 60); len(got) != 0 {
		t.Errorf("no handlers and no denied paths: %v, want no entries", got)
	}
}
