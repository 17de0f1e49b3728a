package cli

import (
	"fmt"
	"sort"
	"strings"

	"github.com/agent-eval/agent-eval/internal/lazyre"
)

var (
	jinjaRE = lazyre.New(`\{\{\s*input\.([A-Za-z0-9_][A-Za-z0-9_.-]*)\s*\}\}`)
	braceRE = lazyre.New(`\{([A-Za-z0-9_-]+)(\?)?\}`)
)

// renderPrompt fills a prompt template from a case's input: {{ input.a.b }}
// (nested fields), or the legacy {field} (required) and {field?} (optional)
// when the template has no {{. A missing required field is an error naming
// every missing field.
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
	var out string
	if strings.Contains(tpl, "{{") {
		out = jinjaRE().ReplaceAllStringFunc(tpl, func(m string) string {
			field := jinjaRE().FindStringSubmatch(m)[1]
			v, ok := lookup(field)
			if !ok {
				missing = append(missing, field)
			}
			return v
		})
		if rest := strings.Index(out, "{{"); rest >= 0 {
			return "", fmt.Errorf("the prompt template has an expression agent-eval cannot render: %q", clipText(out[rest:], 60))
		}
	} else {
		out = braceRE().ReplaceAllStringFunc(tpl, func(m string) string {
			sub := braceRE().FindStringSubmatch(m)
			v, ok := lookup(sub[1])
			if !ok && sub[2] == "" {
				missing = append(missing, sub[1])
			}
			return v
		})
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		return "", fmt.Errorf("the case's input lacks %s, which the prompt template needs", strings.Join(missing, ", "))
	}
	return strings.TrimSpace(out), nil
}

func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
