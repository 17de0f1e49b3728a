package prompt

import (
	"regexp"
	"strings"
	"testing"
)

// Any prompt template eval.yaml holds renders or fails with an error; it
// never panics (validate renders every case's). Besides that:
//   - a template renders the same twice over the same input (run and
//     validate agree, and a rerun asks the agent the same);
//   - a legacy template ({field}) that renders leaves none of the input's
//     fields as {field} or {field?} in what it gives the agent;
//   - a step's output put in with RenderStep never leaves its placeholder
//     behind, and is never rendered as a template itself.
func FuzzRenderPrompt(f *testing.F) {
	for _, s := range []string{"{{ input.name | upper }}", "{% if input.x %}y{% endif %}", "{name} {x?}", "{{", "{% for %}", "{{ input['a'] }}", "{{ input.a.b.c }}",
		"{name?}{{name}", "{a{name}}", "Hello {name}, {a}", "{% for k, v in input.items() %}{{ k }}={{ v }} {% endfor %}", "{% if input.name is defined %}{{ input.name }}{% endif %}",
		"{{ input.missing | default('none') }}", "{a{0?}}", "{% for i in range(3) %}{{ steps.s1.output }}{% endfor %}"} {
		f.Add(s)
	}
	input := map[string]any{"name": "Ada", "a": map[string]any{"b": 1}, "x": true}
	placeholder := regexp.MustCompile("\x00step-[0-9a-f]{16}-[0-9]+\x00")
	optional := regexp.MustCompile(`\{[^{}]*\?\}`)
	const stepOut = "{{ input.name }}{% if true %}rendered{% endif %}"
	steps := map[string]any{"s1": map[string]any{"output": stepOut, "exit_code": 0}}
	f.Fuzz(func(t *testing.T, tpl string) {
		out, err := Render(tpl, input)
		again, err2 := Render(tpl, input)
		if out != again || (err == nil) != (err2 == nil) || (err != nil && err.Error() != err2.Error()) {
			t.Errorf("%q rendered twice: %q (%v), then %q (%v)", tpl, out, err, again, err2)
		}
		if err == nil && !strings.Contains(tpl, "{{") && !strings.Contains(tpl, "{%") {
			// Placeholders are filled in one pass, so what removing one
			// leaves ({a{0?}} → {a}) is text, never expanded again.
			joined := optional.ReplaceAllString(tpl, "")
			for k := range input {
				if strings.Contains(joined, "{"+k+"}") && !strings.Contains(tpl, "{"+k+"}") {
					continue
				}
				if strings.Contains(out, "{"+k+"}") || strings.Contains(out, "{"+k+"?}") {
					t.Errorf("%q rendered as %q: {%s} is left unexpanded", tpl, out, k)
				}
			}
		}
		withStep := tpl + " {{ steps.s1.output }}"
		out, err = RenderStep(withStep, input, steps)
		if err != nil {
			return
		}
		if placeholder.MatchString(out) {
			t.Errorf("%q rendered as %q: a step's placeholder is left in", withStep, out)
		}
		if !strings.Contains(tpl, "rendered") && strings.Contains(out, "rendered") && !strings.Contains(out, stepOut) {
			t.Errorf("%q rendered as %q: the step's output was rendered as a template", withStep, out)
		}
	})
}

// Refs reads any text without panicking, and every ref it gives has a
// path of names that are not empty.
func FuzzRefs(f *testing.F) {
	for _, s := range []string{"{{ a.b['c'] }}", "{% for x in y %}{{ x }}{% endfor %}", "{{ '", "{{ a[", "{{- x | default('') -}}", "{% set %}", "{{ f(k=v) is defined }}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, tpl string) {
		for _, r := range Refs(tpl) {
			if len(r.Path) == 0 || r.Path[0] == "" {
				t.Errorf("Refs(%q) gave a ref with no name: %+v", tpl, r)
			}
		}
	})
}
