package permissions

import (
	"fmt"
	"slices"
	"strings"

	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/lazyre"
)

// Cursor's CLI reads permissions from <workspace>/.cursor/cli.json, in its
// own grammar: Read(glob), Write(glob), Shell(cmd[:args]), WebFetch(domain),
// Mcp(server:tool). Its schema requires an allow list, and an empty allow
// list denies everything.

// cursorCapabilities are Cursor's permission kinds, each with the pattern
// that covers all of it.
var cursorCapabilities = []struct{ kind, all string }{
	{"Read", "Read(**)"}, {"Write", "Write(**)"}, {"Shell", "Shell(**)"}, {"WebFetch", "WebFetch(*)"}, {"Mcp", "Mcp(*:*)"},
}

// CursorPlan is what a Cursor run writes.
type CursorPlan struct {
	// Config is the cli.json document, or nil when nothing is written
	// (neither list configured: Cursor's defaults, and any existing
	// cli.json, stay in effect).
	Config   map[string]any `json:"cursor_cli_json"`
	Warnings []string       `json:"warnings"`
}

// PlanCursor translates the permissions block for Cursor, merged with the
// workspace's existing cli.json (nil when there is none). It fails closed:
// an allow list that maps to nothing becomes an empty allow list (Cursor
// denies everything) with a warning, a capability the allow list does not
// grant is denied explicitly, and a rule it cannot translate is an error.
func PlanCursor(allow, deny []config.PermissionRule, existing map[string]any) (CursorPlan, error) {
	var p CursorPlan
	if len(allow) == 0 && len(deny) == 0 {
		return p, nil
	}
	doc := cloneJSON(existing)
	perms, _ := doc["permissions"].(map[string]any)
	if perms == nil {
		perms = map[string]any{}
	}
	denyPatterns := stringList(perms["deny"])
	tDeny, warns, err := translateCursor(deny, true)
	if err != nil {
		return p, err
	}
	p.Warnings = append(p.Warnings, warns...)
	denyPatterns = dedupe(denyPatterns, tDeny)

	var allowPatterns []string
	switch {
	case len(allow) > 0:
		allowPatterns, warns, err = translateCursor(allow, false)
		if err != nil {
			return p, err
		}
		p.Warnings = append(p.Warnings, warns...)
		if len(allowPatterns) == 0 {
			p.Warnings = append(p.Warnings, "permissions.allow did not map to any Cursor permission pattern; the agent will be denied every capability")
		}
		for _, c := range cursorCapabilities {
			granted := slices.ContainsFunc(allowPatterns, func(a string) bool { return strings.HasPrefix(a, c.kind+"(") })
			if !granted {
				denyPatterns = dedupe(denyPatterns, []string{c.all})
			}
		}
	case perms["allow"] != nil:
		allowPatterns = stringList(perms["allow"]) // deny-only: keep the project's own allow list
	default:
		for _, c := range cursorCapabilities {
			allowPatterns = append(allowPatterns, c.all) // deny-only: the schema requires an allow list
		}
	}
	if allowPatterns == nil {
		allowPatterns = []string{}
	}
	perms["allow"] = allowPatterns
	perms["deny"] = denyPatterns
	doc["permissions"] = perms
	p.Config = doc
	return p, nil
}

var cursorRuleRE = lazyre.New(`^([A-Za-z_][A-Za-z0-9_*-]*)(?:\((.*)\))?$`)

// RuleError is a rule a runner cannot enforce.
type RuleError struct {
	List      string // allow or deny
	Index     int
	Line, Col int
	Err       error
}

func (e *RuleError) Error() string { return e.Err.Error() }
func (e *RuleError) Unwrap() error { return e.Err }

// translateCursor maps rules onto Cursor patterns.
func translateCursor(rules []config.PermissionRule, deny bool) (out, warnings []string, err error) {
	add := func(ps ...string) { out = dedupe(out, ps) }
	for i, r := range rules {
		fail := func(err error) ([]string, []string, error) {
			return nil, nil, &RuleError{List: listName(deny), Index: i, Line: r.Line, Col: r.Col, Err: err}
		}
		if r.IsPath() {
			glob := cursorGlob(r.Path)
			for _, tool := range r.Tools {
				switch tool {
				case "Read", "Grep":
					add("Read(" + glob + ")")
				case "Glob":
					if deny {
						add("Read(" + glob + ")")
					}
				case "Edit", "Write":
					add("Write(" + glob + ")")
				case "Bash", "Shell", "WebFetch", "WebSearch", "Mcp":
					if !deny {
						warnings = append(warnings, fmt.Sprintf("Cursor cannot path-scope %s; dropped from allow rule %s", tool, ruleText(r)))
						continue
					}
					ps, _, err := cursorPattern(tool, "", deny)
					if err != nil {
						return fail(err)
					}
					add(ps...)
				default:
					if deny {
						return fail(fmt.Errorf("deny rule %s: no Cursor equivalent of %s", ruleText(r), tool))
					}
					warnings = append(warnings, fmt.Sprintf("%s takes no path; dropped from allow rule %s", tool, ruleText(r)))
				}
			}
			continue
		}
		m := cursorRuleRE().FindStringSubmatch(r.Pattern)
		if m == nil {
			return fail(fmt.Errorf("%s rule %q: cannot translate it for Cursor", listName(deny), r.Pattern))
		}
		ps, warn, err := cursorPattern(m[1], m[2], deny)
		if err != nil {
			return fail(fmt.Errorf("%s rule %q: %w", listName(deny), r.Pattern, err))
		}
		if warn != "" {
			warnings = append(warnings, warn)
		}
		add(ps...)
	}
	return out, warnings, nil
}

func listName(deny bool) string {
	if deny {
		return "deny"
	}
	return "allow"
}

// cursorPattern maps one Claude Code tool rule onto Cursor patterns.
func cursorPattern(tool, arg string, deny bool) ([]string, string, error) {
	arg = strings.TrimSpace(arg)
	glob := func() string {
		if arg == "" {
			return "**"
		}
		return cursorGlob(arg)
	}
	switch {
	case tool == "Read" || tool == "Grep":
		return []string{"Read(" + glob() + ")"}, "", nil
	case tool == "Glob":
		if deny {
			return []string{"Read(" + glob() + ")"}, "", nil
		}
		return nil, "Glob has no Cursor allow pattern; dropped from the allow list", nil
	case tool == "Edit" || tool == "Write" || tool == "MultiEdit" || tool == "NotebookEdit":
		return []string{"Write(" + glob() + ")"}, "", nil
	case tool == "Bash" || tool == "Shell":
		cmd := strings.TrimSpace(strings.TrimSuffix(strings.TrimSuffix(arg, ":*"), " *"))
		if cmd == "" || cmd == "*" || cmd == "**" {
			return []string{"Shell(**)"}, "", nil
		}
		word, rest, _ := strings.Cut(cmd, " ")
		if rest = strings.TrimSpace(rest); rest == "" || rest == "*" {
			return []string{"Shell(" + word + ")"}, "", nil
		}
		return []string{"Shell(" + word + ":" + rest + ")"}, "", nil
	case tool == "WebFetch" || tool == "WebSearch":
		if arg == "" {
			return []string{"WebFetch(*)"}, "", nil
		}
		return []string{"WebFetch(" + strings.TrimPrefix(arg, "domain:") + ")"}, "", nil
	case tool == "Mcp":
		if arg == "" {
			return []string{"Mcp(*:*)"}, "", nil
		}
		return []string{"Mcp(" + arg + ")"}, "", nil
	case strings.HasPrefix(tool, "mcp__"):
		rest := strings.TrimPrefix(tool, "mcp__")
		if rest == "*" {
			return []string{"Mcp(*:*)"}, "", nil
		}
		server, name, found := strings.Cut(rest, "__")
		if !found || name == "" {
			name = "*"
		}
		return []string{"Mcp(" + server + ":" + name + ")"}, "", nil
	case tool == "Agent" || tool == "Task":
		if deny {
			return nil, "", nil // Cursor has no subagents to deny
		}
		return nil, "", fmt.Errorf("no Cursor equivalent of %s", tool)
	}
	return nil, "", fmt.Errorf("no Cursor equivalent of %s", tool)
}

// cursorGlob spells a path for Cursor: a directory matches recursively and
// Claude Code's // for an absolute path becomes a single /.
func cursorGlob(p string) string {
	if strings.HasSuffix(p, "/") {
		p += "**"
	}
	if strings.HasPrefix(p, "//") {
		p = p[1:]
	}
	return p
}
