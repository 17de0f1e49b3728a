package permissions

import (
	"strings"

	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/lazyre"
)

// Finding is a rule Claude Code would ignore or read differently from what
// its author most likely meant.
type Finding struct {
	List  string `json:"list"`
	Index int    `json:"index"`
	Rule  string `json:"rule"`
	Line  int    `json:"line,omitempty"`
	Col   int    `json:"col,omitempty"`
	Msg   string `json:"message"`
}

var (
	ruleRE       = lazyre.New(`^([^()]+?)(?:\((.*)\))?$`)
	anchoredMCP  = lazyre.New(`^mcp__[^*?]+?__`)
	pathToolRE   = lazyre.New(`^(Read|Edit|Write|Grep|Glob|NotebookEdit)$`)
	looksLikeDir = lazyre.New(`^[^\s]*/[^\s]*$`)
)

// Lint checks both lists for rules Claude Code (2.1.332) would skip or
// misread.
func Lint(allow, deny []config.PermissionRule) []Finding {
	var out []Finding
	for _, l := range []struct {
		name  string
		rules []config.PermissionRule
	}{{"allow", allow}, {"deny", deny}} {
		for i, r := range l.rules {
			f := func(msg string) {
				out = append(out, Finding{List: l.name, Index: i, Rule: ruleText(r), Line: r.Line, Col: r.Col, Msg: msg})
			}
			if r.IsPath() {
				lintPath(l.name, r, f)
				continue
			}
			lintString(l.name, r.Pattern, f)
		}
	}
	return out
}

func lintPath(list string, r config.PermissionRule, f func(string)) {
	if strings.HasSuffix(r.Path, "/*") {
		f("path " + r.Path + " matches only the files directly inside; write " + strings.TrimSuffix(r.Path, "*") + " to cover the whole directory")
	}
	for _, t := range r.Tools {
		switch {
		case pathToolRE().MatchString(t) && t != "NotebookEdit":
		case t == "Bash" && list == "deny":
		case t == "Bash":
			f("Bash cannot be scoped to a path: Bash rules match the command string; this allow grants nothing for Bash")
		default:
			f(t + " takes no path; a path rule scopes only " + strings.Join(PathTools, ", "))
		}
	}
}

func lintString(list, rule string, f func(string)) {
	m := ruleRE().FindStringSubmatch(rule)
	if m == nil {
		return
	}
	tool, spec, hasSpec := strings.TrimSpace(m[1]), m[2], strings.Contains(rule, "(")
	if strings.ContainsAny(tool, "*?") {
		if list == "allow" && !anchoredMCP().MatchString(tool) {
			f("Claude Code skips an allow glob on tool names unless it follows a literal mcp__<server>__ (e.g. mcp__jira__*); list the tools, or use mcp__<server> to allow a whole server")
		}
		return
	}
	if !hasSpec {
		return
	}
	switch {
	case tool == "Bash" && looksLikeDir().MatchString(spec) && !strings.Contains(spec, " ") && !strings.HasSuffix(spec, ":*"):
		f("Bash rules match the command string, not a path: " + rule + " does not scope files; use {path: ..., tools: [Read, Edit]}")
	case pathToolRE().MatchString(tool):
		if tool == "Write" || tool == "Grep" || tool == "Glob" || tool == "NotebookEdit" {
			eff := "Edit"
			if tool == "Grep" || tool == "Glob" {
				eff = "Read"
			}
			f("Claude Code consults only Read() and Edit() path rules and ignores " + tool + "(...); write " + eff + "(" + spec + ")")
		}
		if strings.HasSuffix(spec, "/*") {
			f(spec + " matches only the files directly inside; write " + spec + "* to cover the whole directory")
		}
		if strings.HasPrefix(spec, "/") && !strings.HasPrefix(spec, "//") {
			f("a single leading / is relative to the settings file, not the filesystem root; write /" + spec + " for an absolute path")
		}
	}
}
