package intercept

import (
	"context"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestExtractPatterns(t *testing.T) {
	t.Parallel()
	tests := []struct {
		match string
		want  []string
	}{
		{"Questions asked to the user via AskUserQuestion.", []string{"AskUserQuestion"}},
		{"Any interaction with Jira — whether via MCP tools\nor Bash scripts calling the Jira API.", []string{"Bash"}},
		{"Calls to mcp__atlassian__* tools and mcp__slack__post_message", []string{"mcp__atlassian__*", "mcp__slack__post_message"}},
		{"It has already edited files", []string{"*"}},                             // "already" is not Read, "edited" is not Edit
		{"Anything that reads secrets via read or grep", []string{"Read", "Grep"}}, // whole words, any case
		{"Calls to the billing API", []string{"Bash"}},
		{"Scripts that deploy", []string{"Bash"}},
		{"Anything else", []string{"*"}},
	}
	for _, tt := range tests {
		if got := ExtractPatterns(tt.match); !cmp.Equal(tt.want, got) {
			t.Errorf("ExtractPatterns(%q) = %q, want %q", tt.match, got, tt.want)
		}
	}
}

func TestResolveCatalog(t *testing.T) {
	t.Parallel()
	h := Handler{Match: "Any interaction with Jira — via MCP tools or Bash scripts calling the Jira API.",
		Prompt: "Only allow if targeting a test instance or emulator.", Patterns: []string{"Bash"}}
	got, res, ok := ResolveCatalog(h)
	if !ok || res.Method != "catalog" || !cmp.Equal(res.Services, []string{"Jira"}) {
		t.Fatalf("ResolveCatalog = %+v, %v", res, ok)
	}
	if !slices.Contains(got.Patterns, "mcp__atlassian__*") || !slices.Contains(got.Patterns, "Bash") {
		t.Errorf("patterns = %q", got.Patterns)
	}
	if len(got.InputFilters) == 0 || !slices.Contains(got.EnvChecks["JIRA_SERVER"].HostIn, "localhost") || len(got.EnvChecks["JIRA_SERVER"].MustContain) != 0 {
		t.Errorf("filters %q, env_checks %v", got.InputFilters, got.EnvChecks)
	}
	if _, err := Prepare(File{Handlers: []Handler{got}}); err != nil {
		t.Errorf("the catalogue produced an invalid handler: %v", err)
	}
	for _, s := range Catalog() {
		if _, err := Prepare(File{Handlers: []Handler{{Match: s.Name, Patterns: append([]string{"Bash"}, s.MCP...), InputFilters: s.Commands}}}); err != nil {
			t.Errorf("catalogue entry %s: %v", s.Name, err)
		}
	}
	if _, _, ok := ResolveCatalog(Handler{Match: "Questions via AskUserQuestion", Patterns: []string{"AskUserQuestion"}}); ok {
		t.Error("an AskUserQuestion handler was resolved by the catalogue")
	}
	if _, _, ok := ResolveCatalog(Handler{Match: "the internal billing thing", Patterns: []string{"Bash"}}); ok {
		t.Error("an unknown service was resolved")
	}
}

func TestWithCaseOverrides(t *testing.T) {
	t.Parallel()
	f := File{Handlers: []Handler{
		{Patterns: []string{"AskUserQuestion"}, CaseOverrides: map[string]string{"Keep?": "yes", "Env?": "prod"}},
		{Patterns: []string{"Bash"}, InputFilters: []string{"x"}},
	}}
	got := WithCaseOverrides(f, map[string]string{"Env?": "staging"})
	if want := map[string]string{"Keep?": "yes", "Env?": "staging"}; !cmp.Equal(want, got.Handlers[0].CaseOverrides) {
		t.Errorf("overrides = %v, want %v", got.Handlers[0].CaseOverrides, want)
	}
	if got.Handlers[1].CaseOverrides != nil || f.Handlers[0].CaseOverrides["Env?"] != "prod" {
		t.Error("WithCaseOverrides touched another handler or its input")
	}
}

// The three places a question's fixed answer can come from, most specific
// first: the case's answers.yaml, the handler's case_overrides, the file's
// top-level case_overrides (upstream's documented form).
func TestCaseOverridesPrecedence(t *testing.T) {
	t.Parallel()
	f := File{
		CaseOverrides: map[string]string{"Top?": "top", "Handler?": "top", "Case?": "top"},
		Handlers: []Handler{
			{Patterns: []string{"Bash"}, InputFilters: []string{"jira"}},
			{Patterns: []string{"AskUserQuestion"}, CaseOverrides: map[string]string{"Handler?": "handler", "Case?": "handler"}},
		},
	}
	f = WithCaseOverrides(f, map[string]string{"Case?": "case"})
	if f.CaseOverrides["Top?"] != "top" {
		t.Fatal("WithCaseOverrides dropped the top-level case_overrides")
	}
	p, err := Prepare(f)
	if err != nil {
		t.Fatal(err)
	}
	var qs []any
	for _, q := range []string{"Top?", "Handler?", "Case?"} {
		qs = append(qs, map[string]any{"question": q, "options": []any{
			map[string]any{"label": "top"}, map[string]any{"label": "handler"}, map[string]any{"label": "case"}}})
	}
	d := Decide(context.Background(), p, Request{ToolName: "AskUserQuestion", ToolInput: map[string]any{"questions": qs}}, nil)
	want := map[string]string{"Top?": "top", "Handler?": "handler", "Case?": "case"}
	if d.Kind != Allow || !cmp.Equal(want, d.Answers) {
		t.Errorf("decision %v, answers %v; want allow with %v", d.Kind, d.Answers, want)
	}
	for q, tier := range d.Tiers {
		if tier != TierOverride {
			t.Errorf("%s answered by tier %s, want %s", q, tier, TierOverride)
		}
	}
}

func TestUnusedCaseOverrides(t *testing.T) {
	t.Parallel()
	ask := Handler{Patterns: []string{"*"}}
	bash := Handler{Patterns: []string{"Bash"}, InputFilters: []string{"x"}}
	top := map[string]string{"Q?": "a"}
	tests := []struct {
		f    File
		want bool
	}{
		{File{CaseOverrides: top, Handlers: []Handler{bash}}, true},
		{File{CaseOverrides: top, Handlers: []Handler{bash, ask}}, false},
		{File{Handlers: []Handler{bash}}, false},
	}
	for i, tt := range tests {
		if got := UnusedCaseOverrides(tt.f); got != tt.want {
			t.Errorf("%d: UnusedCaseOverrides = %v, want %v", i, got, tt.want)
		}
	}
}
