package permissions

import (
	"slices"
	"strings"

	"github.com/agent-eval/agent-eval/internal/lazyre"
)

// Claude Code matches a Bash rule literally up to its first *, so
// Bash(python3 scripts/foo.py *) does not match the
// "python3 <workspace>/scripts/foo.py" form agents often use. A twin is the
// same rule with its project-relative path spelled from the workspace.

var (
	bashRuleRE = lazyre.New(`^Bash\((.+)\)$`)
	// spliceUnsafe are characters that would change a rule's meaning if a
	// workspace path holding them were spliced in.
	spliceUnsafe = " \t\n*?[]'\"$`"
)

// Twins returns rules followed by the absolute-workspace twin of every
// relative Bash rule, for each base (the workspace path, then its real path
// when that differs). For allow lists (allow true) a twin is added only when
// the path exists under the workspace (exists reports that) and no wildcard
// stands at or before the path token; deny twins are always added and keep
// their wildcards. The result is idempotent. When a base cannot be spliced
// into a rule verbatim, rules come back unchanged with a warning.
func Twins(rules []string, bases []string, allow bool, exists func(rel string) bool) (out []string, warning string) {
	if len(bases) == 0 {
		return rules, ""
	}
	for _, b := range bases {
		if strings.ContainsAny(b, spliceUnsafe) {
			return rules, "not adding absolute-path permission twins: workspace path '" + b + "' cannot be spliced into a rule verbatim"
		}
	}
	out = append([]string{}, rules...)
	for _, r := range rules {
		m := bashRuleRE().FindStringSubmatch(r)
		if m == nil {
			continue
		}
		tokens := strings.Split(m[1], " ")
		idx, suffix := -1, ""
		for i, tok := range tokens {
			if i == len(tokens)-1 && strings.HasSuffix(tok, ":*") && len(tok) > 2 {
				tok, suffix = strings.TrimSuffix(tok, ":*"), ":*"
			}
			if allow && strings.ContainsAny(tok, "*?[") {
				break // a wildcard at or before the path would widen the allow
			}
			if isRelPath(tok) {
				idx = i
				tokens[i] = tok
				break
			}
			suffix = ""
		}
		if idx < 0 {
			continue
		}
		rel := strings.TrimPrefix(tokens[idx], "./")
		if allow && !exists(rel) {
			continue
		}
		for _, b := range bases {
			tw := slices.Clone(tokens)
			tw[idx] = strings.TrimRight(b, "/") + "/" + rel + suffix
			twin := "Bash(" + strings.Join(tw, " ") + ")"
			if !slices.Contains(out, twin) {
				out = append(out, twin)
			}
		}
	}
	return out, ""
}

// isRelPath reports whether a rule token is a project-relative path: it
// holds a "/", does not start with / - ~ $ ' or ", and has no ".." segment.
func isRelPath(tok string) bool {
	if !strings.Contains(tok, "/") || tok == "" || strings.ContainsAny(tok[:1], `/-~$'"`) {
		return false
	}
	return !slices.Contains(strings.Split(tok, "/"), "..")
}
