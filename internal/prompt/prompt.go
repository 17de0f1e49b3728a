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
	// jinjaTagRE is one {{ ... }} or {% ... %} tag; jinjaRefRE an
	// input.a.b reference inside it, with what follows (to spot is defined,
	// | default and method calls).
	jinjaTagRE = lazyre.New(`(?s)\{\{.*?\}\}|\{%.*?%\}`)
	jinjaRefRE = lazyre.New(`\binput((?:\.[A-Za-z_][A-Za-z0-9_]*|\[\s*(?:'[^']*'|"[^"]*")\s*\])+)(\s*\(|\s+is\s+(?:not\s+)?defined\b|\s*\|\s*(?:default|d)\b)?`)
	jinjaKeyRE = lazyre.New(`\.([A-Za-z_][A-Za-z0-9_]*)|\[\s*(?:'([^']*)'|"([^"]*)")\s*\]`)
	braceRE    = lazyre.New(`\{([A-Za-z0-9_-]+)(\?)?\}`)
)

// Render fills a prompt template from a case's input. A template with
// {{ or {% is Jinja2, as upstream's prompts are ({{ input.name | upper }},
// {% if input.x %}...{% endif %}); else the legacy {field} (required) and
// {field?} (optional) apply. As upstream renders Jinja2 with strict
// undefined, an input field a tag uses that the input lacks is an error
// (unless tested with "is defined" or given a "| default"), and so is a
// required {field} that is absent or blank; the error names every missing
// field. run and validate both render through here, so they agree.
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
			return "", missingErr(missing)
		}
		t, err := jinja.Compile(tpl)
		if err != nil {
			return "", fmt.Errorf("the prompt template is not valid Jinja2: %w", err)
		}
		if input == nil {
			input = map[string]any{}
		}
		out, err := t.Render(map[string]any{"input": input})
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
		return "", missingErr(missing)
	}
	return strings.TrimSpace(out), nil
}

// jinjaMissing lists the input fields the Jinja tags of tpl use that input
// lacks: input.a.b and input['a'] paths, except those followed by a call
// (input.get('x')), "is defined" or "| default". A null value is present.
func jinjaMissing(tpl string, input map[string]any) []string {
	type ref struct{ keys []string }
	var refs []ref
	guarded := map[string]bool{}
	for _, tag := range jinjaTagRE().FindAllString(tpl, -1) {
		for _, m := range jinjaRefRE().FindAllStringSubmatch(tag, -1) {
			var keys []string
			for _, k := range jinjaKeyRE().FindAllStringSubmatch(m[1], -1) {
				keys = append(keys, k[1]+k[2]+k[3])
			}
			switch {
			case strings.TrimSpace(m[2]) == "(":
				keys = keys[:len(keys)-1] // a method: input.get(...), input.x.items()
			case m[2] != "":
				guarded[strings.Join(keys, ".")] = true // is defined, | default
				continue
			}
			refs = append(refs, ref{keys})
		}
	}
	var missing []string
	for _, r := range refs {
		var cur any = input
		for i, key := range r.keys {
			path := strings.Join(r.keys[:i+1], ".")
			if guarded[path] {
				break // the template tests it (or defaults it) itself
			}
			mp, ok := cur.(map[string]any)
			if !ok {
				break // not a mapping: Jinja's own error, or an attribute of a value
			}
			if cur, ok = mp[key]; !ok {
				missing = append(missing, path)
				break
			}
		}
	}
	return missing
}

func missingErr(missing []string) error {
	sort.Strings(missing)
	missing = compactStrings(missing)
	return fmt.Errorf("the case's input lacks %s, which the prompt template needs", strings.Join(missing, ", "))
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
