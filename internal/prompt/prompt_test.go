package prompt

import (
	"strings"
	"testing"
)

func TestRenderPrompt(t *testing.T) {
	t.Parallel()
	input := map[string]any{"name": "Ada", "file": "a.txt", "meta": map[string]any{"lang": "go"}, "empty": "  "}
	tests := []struct {
		tpl, want, err string
	}{
		{"Greet {{ input.name }} in {{input.meta.lang}}.", "Greet Ada in go.", ""},
		{"Write {file} for {name}{empty?}.", "Write a.txt for Ada.", ""},
		{"Write {file} for {who} and {what}", "", "lacks what, who"},
		{"{{ input.missing }}", "", "lacks missing"},
		{"{{ input.name | upper }}", "ADA", ""},
		{"{% if input.meta %}{{ input.meta.lang | upper }}{% else %}none{% endif %}", "GO", ""},
		{"{% if input.nope %}{{ input.nope }}{% endif %}ok", "", "lacks nope"},
		{"{% if input.nope is defined %}{{ input.nope }}{% endif %}ok", "ok", ""},
		{"{% if input.nope is defined %}x{% endif %}ok", "ok", ""},
		{"{{ input.nope | default('z') }} {{ input.get('nope', 'y') }} {{ input['name'] }}", "z y Ada", ""},
		{"{{ input['nope'] }}", "", "lacks nope"},
		{"{{ input.meta.nope }}", "", "lacks meta.nope"},
		{"{{ input.name.upper() }}", "ADA", ""},
		{"{% for k, v in input.meta.items() %}{{ k }}={{ v }}{% endfor %}", "lang=go", ""},
		{"{{ input.empty }}|", "|", ""},
		{"{{ input.name | nosuch }}", "", "unknown filter"},
		{"{% if input.name %}unclosed", "", "not valid Jinja2"},
		{"{{ input.missing }} {{ input.missing }}", "", "lacks missing,"},
		{"No fields at all", "No fields at all", ""},
	}
	for _, tt := range tests {
		got, err := Render(tt.tpl, input)
		switch {
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("Render(%q) error = %v, want %q", tt.tpl, err, tt.err)
		case tt.err == "" && (err != nil || got != tt.want):
			t.Errorf("Render(%q) = %q, %v; want %q", tt.tpl, got, err, tt.want)
		}
	}
}

// An earlier step's output is text the agent wrote: it is put in after the
// template renders, never rendered itself.
func TestRenderStepPromptOutputIsData(t *testing.T) {
	t.Parallel()
	input := map[string]any{"name": "Ada", "secret": "s3"}
	steps := map[string]any{"plan": map[string]any{"output": "use {% raw %} and {{ input.secret }} {name}", "exit_code": 0}}
	for _, tt := range []struct{ tpl, want string }{
		{"Hi {{ input.name | upper }}: {{ steps.plan.output }} ({{ steps.plan.exit_code }})", "Hi ADA: use {% raw %} and {{ input.secret }} {name} (0)"},
		{"Hi {name}: {{ steps.plan.output }}", "Hi Ada: use {% raw %} and {{ input.secret }} {name}"},
		{"{% for i in [1, 2] %}{{ steps.plan.exit_code }}{% endfor %}", "00"},
	} {
		got, err := RenderStep(tt.tpl, input, steps)
		if err != nil || got != tt.want {
			t.Errorf("RenderStep(%q) = %q, %v; want %q", tt.tpl, got, err, tt.want)
		}
	}
}
