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
		// A bare name is the input's field of that name, as {name} is.
		{"{{prompt}}", "", "lacks prompt, which the prompt template needs (its fields are empty, file, meta, name)"},
		{"{{ name }} writes {{ file }}", "Ada writes a.txt", ""},
		{"{{ meta.lang }}/{{ meta['lang'] }}", "go/go", ""},
		{"{{ meta.nope }}", "", "lacks meta.nope"},
		{"{{ topic | default('any') }}", "any", ""},
		{"{% if topic is defined %}{{ topic }}{% else %}none{% endif %}", "none", ""},
		{"{% if topic is not defined %}none{% endif %}", "none", ""},
		{"{% set who = name %}{{ who }}", "Ada", ""},
		{"{% for c in name %}{{ c }}.{% endfor %}", "A.d.a.", ""},
		{"{{ 'lit' }} {{ name ~ '!' }} {{ range(2) | list | length }}", "lit Ada! 2", ""},
		{"{{ name | replace('A', 'E') }}", "Eda", ""},
		{"{{ input.name }} and {{ name }}", "Ada and Ada", ""},
		{"{{ input | length }}", "4", ""},
		{"{{ loop_var }}", "", "lacks loop_var"},
		{"{{- name -}}", "Ada", ""},
		{"{{ who }}", "", "lacks who"},
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

// A case's input with a prompt field: {{prompt}}, {{ prompt }}, {prompt}
// and {{ input.prompt }} all render it.
func TestRenderBarePrompt(t *testing.T) {
	t.Parallel()
	input := map[string]any{"prompt": "Fix the bug."}
	for _, tpl := range []string{"{{prompt}}", "{{ prompt }}", "{prompt}", "{{ input.prompt }}", "{{ input['prompt'] }}"} {
		if got, err := Render(tpl, input); err != nil || got != "Fix the bug." {
			t.Errorf("Render(%q) = %q, %v; want the prompt", tpl, got, err)
		}
	}
	if _, err := Render("{{prompt}}", nil); err == nil || !strings.Contains(err.Error(), "lacks prompt") || !strings.Contains(err.Error(), "it has no fields") {
		t.Errorf("Render({{prompt}}) over no input: %v, want it to name prompt and say there are no fields", err)
	}
}

func TestRefs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		tpl  string
		want string // name, name? for optional, joined by spaces
	}{
		{"plain text {x}", ""},
		{"{{ outputs }} {{ inputs.prompt }}", "outputs inputs.prompt"},
		{"{{ input.get('x', 'y') }} {{ a.b.items() }}", "input a.b"},
		{"{% for k, v in annotations.items() %}{{ k }}{{ v }}{% endfor %}", "annotations"},
		{"{% if evidence is defined %}{{ evidence }}{% endif %}", "evidence?"},
		{"{{ x | default('') }} {{ y | d }} {{ z | upper }}", "x? y? z"},
		{"{{ f(key=val) }} {{ 'a' ~ b }} {{ c is none }}", "val b c"},
		{"{% set s = t %}{{ s }} {{ loop }} {{ true }} {{ range(3) }}", "t"},
		{"{{ a['k'] }} {{ a[\"k\"] }} {{ a[n] }}", "a.k a n"},
		{"{%- if p -%}{{ q }}{%- endif %}", "p q"},
	}
	for _, tt := range tests {
		var got []string
		for _, r := range Refs(tt.tpl) {
			n := r.Name()
			if r.Optional {
				n += "?"
			}
			got = append(got, n)
		}
		if g := strings.Join(got, " "); g != tt.want {
			t.Errorf("Refs(%q) = %q, want %q", tt.tpl, g, tt.want)
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
