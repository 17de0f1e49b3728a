package cli

import (
	"fmt"
	"sort"
	"strings"

	"github.com/ardanlabs/jinja"

	"github.com/agent-eval/agent-eval/internal/lazyre"
)

var (
	// jinjaRefRE finds a bare {{ input.a.b }} reference (filters allowed),
	// whose field must be in the case's input when the template has no
	// {% ... %} block that could guard it.
	jinjaRefRE = lazyre.New(`\{\{-?\s*input\.([A-Za-z0-9_][A-Za-z0-9_.-]*)\s*(?:\||-?\}\})`)
	braceRE    = lazyre.New(`\{([A-Za-z0-9_-]+)(\?)?\}`)
)

// renderPrompt fills a prompt template from a case's input. A template with
// {{ or {% is Jinja2, as upstream's prompts are ({{ input.name | upper }},
// {% if input.x %}...{% endif %}); else the legacy {field} (required) and
// {field?} (optional) apply. A field used bare ({{ input.x }}) in a template
// with no {% %} block, or a required {field}, that the input lacks is an
// error naming every missing field. run and validate both render through
// here, so they agree.
func renderPrompt(tpl string, input map[string]any) (string, error) {
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
		if !strings.Contains(tpl, "{%") {
			for _, m := range jinjaRefRE().FindAllStringSubmatch(tpl, -1) {
				if _, ok := lookup(m[1]); !ok && !strings.Contains(m[0], "|") {
					missing = append(missing, m[1])
				}
			}
			if len(missing) > 0 {
				return "", missingErr(missing)
			}
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

func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
