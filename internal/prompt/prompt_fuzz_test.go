package prompt

import "testing"

// Any prompt template eval.yaml holds renders or fails with an error; it
// never panics (validate renders every case's).
func FuzzRenderPrompt(f *testing.F) {
	for _, s := range []string{"{{ input.name | upper }}", "{% if input.x %}y{% endif %}", "{name} {x?}", "{{", "{% for %}", "{{ input['a'] }}", "{{ input.a.b.c }}"} {
		f.Add(s)
	}
	input := map[string]any{"name": "Ada", "a": map[string]any{"b": 1}}
	f.Fuzz(func(t *testing.T, tpl string) {
		_, _ = Render(tpl, input)
	})
}
