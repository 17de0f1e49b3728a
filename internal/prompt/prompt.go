// Package prompt renders prompt templates from a case's input: Jinja2 as
// upstream writes them, or the legacy {field} / {field?} form. run, validate
// and the judges share it, so they agree on what a template means.
package prompt

import (
	"crypto/rand"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/ardanlabs/jinja"

	"github.com/agent-eval/agent-eval/internal/lazyre"
)

var (
	// jinjaTagRE is one {{ ... }} or {% ... %} tag.
	jinjaTagRE = lazyre.New(`(?s)\{\{.*?\}\}|\{%.*?%\}`)
	braceRE    = lazyre.New(`\{([A-Za-z0-9_-]+)(\?)?\}`)
)

// Render fills a prompt template from a case's input. A template with
// {{ or {% is Jinja2, as upstream's prompts are ({{ input.name | upper }},
// {% if input.x %}...{% endif %}); a bare name ({{ prompt }}) is the
// input's field of that name, as {prompt} is in the legacy form (input and
// steps are reserved: {{ input }} is the whole input). Else the legacy
// {field} (required) and {field?} (optional) apply. As upstream renders
// Jinja2 with strict undefined, a field a tag reads that the input lacks is
// an error (unless the template tests it with "is defined" or gives it a
// "| default"), and so is a required {field} that is absent or blank; the
// error names every missing field and the fields the input has. run and
// validate both render through here, so they agree.
func Render(tpl string, input map[string]any) (string, error) {
	var missing []string
	lookup := func(path string) (string, bool) {
		var cur any = input
		for _, part := range strings.Split(path, ".") {
			m, ok := cur.(map[string]any)
			if !ok {
				return "", false
			}
			if cur, ok = m[part]; !ok || cur == nil {
				return "", false
			}
		}
		s := strings.TrimSpace(fmt.Sprint(cur))
		return s, s != ""
	}
	if strings.Contains(tpl, "{{") || strings.Contains(tpl, "{%") {
		if missing := jinjaMissing(tpl, input); len(missing) > 0 {
			return "", missingErr(missing, input)
		}
		t, err := jinja.Compile(tpl)
		if err != nil {
			return "", fmt.Errorf("the prompt template is not valid Jinja2: %w", err)
		}
		vars := make(map[string]any, len(input)+1)
		for k, v := range input {
			vars[k] = v
		}
		if input == nil {
			input = map[string]any{}
		}
		vars["input"] = input
		out, err := t.Render(vars)
		if err != nil {
			return "", fmt.Errorf("render the prompt template: %w", err)
		}
		return strings.TrimSpace(out), nil
	}
	out := braceRE().ReplaceAllStringFunc(tpl, func(m string) string {
		sub := braceRE().FindStringSubmatch(m)
		v, ok := lookup(sub[1])
		if !ok && sub[2] == "" {
			missing = append(missing, sub[1])
		}
		return v
	})
	if len(missing) > 0 {
		return "", missingErr(missing, input)
	}
	return strings.TrimSpace(out), nil
}

// jinjaMissing lists the input fields the Jinja tags of tpl read that
// input lacks: input.a.b and input['a'] paths and bare names (a.b), except
// those the template guards ("is defined", "| default"), itself or a path
// leading to it. A null value is present; a path that goes through a value
// that is not a mapping is left to Jinja.
func jinjaMissing(tpl string, input map[string]any) []string {
	refs := Refs(tpl)
	guarded := map[string]bool{}
	for i, r := range refs {
		if len(r.Path) > 0 && r.Path[0] == "input" {
			refs[i].Path = r.Path[1:]
		}
		if r.Optional {
			guarded[refs[i].Name()] = true
		}
	}
	var missing []string
	for _, r := range refs {
		if r.Optional {
			continue
		}
		var cur any = input
		for i, key := range r.Path {
			path := strings.Join(r.Path[:i+1], ".")
			if guarded[path] {
				break
			}
			mp, ok := cur.(map[string]any)
			if !ok {
				break
			}
			if cur, ok = mp[key]; !ok {
				missing = append(missing, path)
				break
			}
		}
	}
	return missing
}

func missingErr(missing []string, input map[string]any) error {
	sort.Strings(missing)
	missing = compactStrings(missing)
	have := "it has no fields"
	if len(input) > 0 {
		keys := make([]string, 0, len(input))
		for k := range input {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		have = "its fields are " + strings.Join(keys, ", ")
	}
	return fmt.Errorf("the case's input lacks %s, which the prompt template needs (%s)", strings.Join(missing, ", "), have)
}

func compactStrings(s []string) []string {
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

var stepsRE = lazyre.New(`\{\{\s*steps\.([A-Za-z0-9_.-]+?)\.(output|exit_code)\s*\}\}`)

// RenderStep fills {{ steps.<id>.output|exit_code }} from the earlier
// steps, then the input fields.
// An earlier step's output is an agent's text: it goes in after the
// template is rendered (through a NUL-delimited placeholder with a random
// part), so a "{%" or "{{ input.x }}" in it is never rendered.
func RenderStep(tpl string, input map[string]any, steps map[string]any) (string, error) {
	var missing, values []string
	nonce := make([]byte, 8)
	_, _ = rand.Read(nonce)
	tpl = stepsRE().ReplaceAllStringFunc(tpl, func(m string) string {
		sub := stepsRE().FindStringSubmatch(m)
		st, ok := steps[sub[1]].(map[string]any)
		if !ok {
			missing = append(missing, "steps."+sub[1])
			return ""
		}
		values = append(values, strings.TrimSpace(fmt.Sprint(st[sub[2]])))
		return fmt.Sprintf("\x00step-%x-%d\x00", nonce, len(values)-1)
	})
	if len(missing) > 0 {
		return "", fmt.Errorf("the step prompt refers to %s, which has not run", strings.Join(missing, ", "))
	}
	out, err := Render(tpl, input)
	if err != nil {
		return "", err
	}
	for i, v := range values {
		out = strings.ReplaceAll(out, fmt.Sprintf("\x00step-%x-%d\x00", nonce, i), v)
	}
	return out, nil
}

// FillSteps replaces every {{ steps.<id>.output|exit_code }} in tpl with
// value (validate renders step prompts before any step has run).
func FillSteps(tpl, value string) string { return stepsRE().ReplaceAllString(tpl, value) }

// RenderWith renders a Jinja2 template with the given variables, as a
// judge's prompt is rendered: a name the variables lack renders empty (as
// upstream's judges do), and a template that does not compile is an error.
func RenderWith(tpl string, vars map[string]any) (string, error) {
	t, err := jinja.Compile(tpl)
	if err != nil {
		return "", fmt.Errorf("the template is not valid Jinja2: %w", err)
	}
	out, err := t.Render(vars)
	if err != nil {
		return "", fmt.Errorf("render the template: %w", err)
	}
	return out, nil
}

// Placeholders lists what Render would fill in tpl, as written and each
// once: its Jinja2 tags when it has any, else its {field} and {field?}
// placeholders. A template without any renders as itself.
func Placeholders(tpl string) []string {
	re := braceRE()
	if strings.Contains(tpl, "{{") || strings.Contains(tpl, "{%") {
		re = jinjaTagRE()
	}
	var out []string
	for _, m := range re.FindAllString(tpl, -1) {
		if !slices.Contains(out, m) {
			out = append(out, m)
		}
	}
	return out
}
