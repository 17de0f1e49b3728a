package intercept

import (
	"regexp"
	"slices"
	"strings"

	"github.com/agent-eval/agent-eval/internal/lazyre"
)

// KnownTools are the tool names Stage 1 recognises in a handler's match text.
var KnownTools = []string{"AskUserQuestion", "Bash", "Read", "Write", "Edit", "Glob", "Grep", "Agent", "Skill"}

var (
	mcpTokenRE   = lazyre.New(`\bmcp__[A-Za-z0-9_-]*\*?`)
	scriptOrAPIs = lazyre.New(`(?i)\b(scripts?|apis?|curl|wget|cli|command|commands)\b`)
)

// ExtractPatterns is Stage 1: the tool names a natural-language match text
// mentions, as whole words (case-insensitive: "already" is not Read), and its
// mcp__ tokens; failing that Bash when the text speaks of scripts or APIs;
// failing that "*".
func ExtractPatterns(match string) []string {
	var out []string
	for _, tool := range KnownTools {
		if regexp.MustCompile(`(?i)\b` + tool + `\b`).MatchString(match) {
			out = append(out, tool)
		}
	}
	for _, tok := range mcpTokenRE().FindAllString(match, -1) {
		if !slices.Contains(out, tok) {
			out = append(out, tok)
		}
	}
	if len(out) > 0 {
		return out
	}
	if scriptOrAPIs().MatchString(match) {
		return []string{"Bash"}
	}
	return []string{"*"}
}

// ShellQuote quotes s for a POSIX shell when it needs quoting.
func ShellQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`!*?[]{}()<>|&;#~") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// WithCaseOverrides returns f with a case's own question → answer pairs (the
// case_overrides map of its answers.yaml) added to every handler that covers
// AskUserQuestion; the case's answers win over the handler's own
// case_overrides, which win over the file's top-level case_overrides (see
// File.CaseOverrides). The rest of f is kept as it is.
func WithCaseOverrides(f File, overrides map[string]string) File {
	if len(overrides) == 0 {
		return f
	}
	out := f
	out.Handlers = slices.Clone(f.Handlers)
	for i, h := range out.Handlers {
		if !AnswersQuestions(h) {
			continue
		}
		merged := map[string]string{}
		for k, v := range h.CaseOverrides {
			merged[k] = v
		}
		for k, v := range overrides {
			merged[k] = v
		}
		out.Handlers[i].CaseOverrides = merged
	}
	return out
}
