package permissions

import (
	"net/url"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// Verdict is what compiled permission rules say about one tool call, as
// far as Match can tell.
type Verdict struct {
	// Decision is deny, allow or none (no rule matches: Claude Code's
	// permission mode decides).
	Decision string `json:"decision"`
	// Rule is the rule that decided (deny or allow).
	Rule string `json:"rule,omitempty"`
	// Reason says why, in one line.
	Reason string `json:"reason"`
	// Unjudged lists rules of forms Match does not know; they may still
	// apply to the call.
	Unjudged []string `json:"unjudged,omitempty"`
}

// Call is the tool call Match judges: the tool, its input, the working
// directory (relative paths and rules are resolved against it) and the
// home directory (for ~/ rules).
type Call struct {
	Tool  string
	Input map[string]any
	CWD   string
	Home  string
}

// Match approximates Claude Code's permission rule semantics for the common
// rule forms (measured against 2.1.332 where ../shared/docs/claude-code-behaviour.md
// says so; otherwise Claude Code's documented behaviour):
//
//   - deny rules are checked before allow rules, and a deny wins;
//   - Tool or Tool(*) matches every call of Tool; a tool name may end in *
//     (mcp__*), and mcp__server matches every tool of that server;
//   - Bash(prefix:*) matches a command that is prefix or starts with
//     "prefix "; Bash(text) with * matches as a glob; Bash(text) otherwise
//     must equal the command. A command line is split into its simple
//     commands (pipes, &&, ;, subshells): one denied part denies the line, and
//     every part must be allowed for an allow;
//   - Read(pattern) covers Read, Grep, Glob and NotebookRead, and the files
//     named by common read commands in Bash (cat, head, grep, …); Edit(pattern)
//     covers Edit, Write, MultiEdit and NotebookEdit; Write(pattern),
//     Grep(pattern), … cover their own tool. Patterns follow
//     gitignore: //abs is absolute, ~/x under home, /x and x relative to the
//     working directory, ** any depth, a pattern without a slash any
//     basename;
//   - WebFetch(domain:host) matches a URL on that host.
//
// Anything else (other specifiers, a command only known at run time) is not
// judged: it is listed in Unjudged, never silently allowed.
func Match(allow, deny []string, c Call) Verdict {
	v := Verdict{Decision: "none"}
	if rule, ok := firstMatch(deny, c, true, &v); ok {
		v.Decision, v.Rule = "deny", rule
		v.Reason = "denied by the permission rule " + rule
		return v
	}
	if rule, ok := firstMatch(allow, c, false, &v); ok {
		v.Decision, v.Rule = "allow", rule
		v.Reason = "allowed by the permission rule " + rule
		return v
	}
	v.Reason = "no permission rule matches: Claude Code's permission mode decides"
	return v
}

func firstMatch(rules []string, c Call, deny bool, v *Verdict) (string, bool) {
	for _, rule := range rules {
		switch matchRule(rule, c, deny) {
		case yes:
			return rule, true
		case unknown:
			v.Unjudged = append(v.Unjudged, rule)
		}
	}
	return "", false
}

type tri int

const (
	no tri = iota
	yes
	unknown
)

func matchRule(rule string, c Call, deny bool) tri {
	name, spec, hasSpec := strings.Cut(strings.TrimSpace(rule), "(")
	if hasSpec {
		if !strings.HasSuffix(spec, ")") {
			return unknown
		}
		spec = strings.TrimSuffix(spec, ")")
	}
	if !hasSpec || spec == "*" || spec == "" {
		return boolTri(toolNameMatches(name, c.Tool))
	}
	switch name {
	case "Bash":
		if c.Tool != "Bash" {
			return no
		}
		return bashMatches(spec, c, deny)
	case "Read", "Edit":
		if c.Tool == "Bash" && name == "Read" && deny {
			return bashReads(spec, c)
		}
		if !pathToolCovered(name, c.Tool) {
			return no
		}
		p, ok := callPath(c)
		if !ok {
			return unknown
		}
		return boolTri(pathMatches(spec, p, c, c.Tool == "Grep" || c.Tool == "Glob"))
	case "Write", "MultiEdit", "NotebookEdit", "Grep", "Glob", "NotebookRead":
		if c.Tool != name {
			return no
		}
		p, ok := callPath(c)
		if !ok {
			return unknown
		}
		return boolTri(pathMatches(spec, p, c, c.Tool == "Grep" || c.Tool == "Glob"))
	case "WebFetch":
		if c.Tool != "WebFetch" {
			return no
		}
		host, ok := strings.CutPrefix(spec, "domain:")
		raw, _ := c.Input["url"].(string)
		u, err := url.Parse(raw)
		if !ok || err != nil || u.Hostname() == "" {
			return unknown
		}
		return boolTri(strings.EqualFold(u.Hostname(), host))
	}
	if !toolNameMatches(name, c.Tool) {
		return no
	}
	return unknown
}

func boolTri(b bool) tri {
	if b {
		return yes
	}
	return no
}

func toolNameMatches(name, tool string) bool {
	if name == tool {
		return true
	}
	if prefix, ok := strings.CutSuffix(name, "*"); ok {
		return strings.HasPrefix(tool, prefix)
	}
	// mcp__server covers every tool of the server.
	return strings.HasPrefix(name, "mcp__") && strings.Count(name, "__") == 1 && strings.HasPrefix(tool, name+"__")
}

var (
	readTools = []string{"Read", "Grep", "Glob", "NotebookRead"}
	editTools = []string{"Edit", "Write", "MultiEdit", "NotebookEdit"}
)

func pathToolCovered(ruleTool, tool string) bool {
	list := readTools
	if ruleTool == "Edit" {
		list = editTools
	}
	for _, t := range list {
		if t == tool {
			return true
		}
	}
	return false
}

// callPath is the path a file tool works on, absolute.
func callPath(c Call) (string, bool) {
	var p string
	for _, key := range []string{"file_path", "notebook_path", "path"} {
		if s, ok := c.Input[key].(string); ok && s != "" {
			p = s
			break
		}
	}
	if p == "" {
		if c.Tool != "Grep" && c.Tool != "Glob" {
			return "", false
		}
		p = c.CWD // a search without a path searches the working directory
	}
	return absolute(p, c), true
}

func absolute(p string, c Call) string {
	if strings.HasPrefix(p, "~/") && c.Home != "" {
		p = filepath.Join(c.Home, p[2:])
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(c.CWD, p)
	}
	return filepath.Clean(p)
}

// pathMatches reports whether rule pattern covers the absolute path p; with
// below, a directory p also matches when the pattern covers what is in it
// (a search over the directory reads its files).
func pathMatches(pattern, p string, c Call, below bool) bool {
	var anchor string
	switch {
	case strings.HasPrefix(pattern, "//"):
		anchor, pattern = "/", pattern[2:]
	case strings.HasPrefix(pattern, "~/"):
		anchor, pattern = c.Home, pattern[2:]
	default:
		anchor, pattern = c.CWD, strings.TrimPrefix(strings.TrimPrefix(pattern, "./"), "/")
	}
	if anchor == "" {
		return false
	}
	rel, err := filepath.Rel(anchor, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return false
	}
	rel = filepath.ToSlash(rel)
	if !strings.Contains(strings.TrimSuffix(pattern, "/"), "/") {
		pattern = "**/" + pattern // gitignore: no slash, any depth
	}
	re := globRE(strings.TrimSuffix(pattern, "/"))
	if re.MatchString(rel) || re.MatchString(rel+"/") {
		return true
	}
	// A rule on a directory's contents covers a search of the directory,
	// and a pattern dir/** covers dir/x.
	return below && (re.MatchString(path.Join(rel, "x")) || rel == ".")
}

// globRE compiles a gitignore-style glob: ** any depth, * and ? within one
// path segment.
func globRE(pattern string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString("^")
	for i := 0; i < len(pattern); i++ {
		switch ch := pattern[i]; {
		case strings.HasPrefix(pattern[i:], "**/"):
			b.WriteString("(?:.*/)?")
			i += 2
		case strings.HasPrefix(pattern[i:], "**"):
			b.WriteString(".*")
			i++
		case ch == '*':
			b.WriteString("[^/]*")
		case ch == '?':
			b.WriteString("[^/]")
		default:
			b.WriteString(regexp.QuoteMeta(string(ch)))
		}
	}
	b.WriteString("$")
	return regexp.MustCompile(b.String())
}

// bashMatches judges Bash(spec) against the command line.
func bashMatches(spec string, c Call, deny bool) tri {
	parts, ok := simpleCommands(c)
	if !ok {
		return unknown
	}
	matchOne := func(cmd string) bool {
		if prefix, ok := strings.CutSuffix(spec, ":*"); ok {
			return cmd == prefix || strings.HasPrefix(cmd, prefix+" ")
		}
		if strings.Contains(spec, "*") {
			re := "^" + strings.ReplaceAll(regexp.QuoteMeta(spec), `\*`, ".*") + "$"
			return regexp.MustCompile(re).MatchString(cmd)
		}
		return cmd == spec
	}
	all := len(parts) > 0
	for _, p := range parts {
		m := matchOne(p)
		if deny && m {
			return yes
		}
		all = all && m
	}
	if !deny && all {
		return yes
	}
	return no
}

// readCommands name files in their operands; grep-like ones take a pattern
// first.
var readCommands = map[string]bool{"cat": false, "head": false, "tail": false, "less": false, "more": false,
	"nl": false, "tac": false, "wc": false, "sort": false, "uniq": false, "od": false, "xxd": false,
	"strings": false, "file": false, "stat": false, "diff": false, "cut": false, "grep": true, "egrep": true,
	"fgrep": true, "rg": true}

// bashReads judges a Read(spec) deny rule against the files that common
// read commands in the line name.
func bashReads(spec string, c Call) tri {
	words, ok := commandWords(c)
	if !ok {
		return unknown
	}
	for _, w := range words {
		if len(w) == 0 {
			continue
		}
		patternFirst, reads := readCommands[path.Base(w[0])]
		if !reads {
			continue
		}
		skipped := !patternFirst
		for _, arg := range w[1:] {
			if strings.HasPrefix(arg, "-") {
				continue
			}
			if !skipped {
				skipped = true
				continue
			}
			if pathMatches(spec, absolute(arg, c), c, true) {
				return yes
			}
		}
	}
	return no
}

// simpleCommands are the simple commands of the call's command line, as
// Claude Code splits it, each printed back as one line.
func simpleCommands(c Call) ([]string, bool) {
	words, ok := commandWords(c)
	if !ok {
		return nil, false
	}
	out := make([]string, 0, len(words))
	for _, w := range words {
		out = append(out, strings.Join(w, " "))
	}
	return out, true
}

// commandWords parses the command and returns each simple command's words
// with the shell's quoting undone; false when the line does not parse or a
// word is only known at run time.
func commandWords(c Call) ([][]string, bool) {
	cmd, _ := c.Input["command"].(string)
	f, err := syntax.NewParser().Parse(strings.NewReader(cmd), "")
	if err != nil {
		return nil, false
	}
	var out [][]string
	ok := true
	syntax.Walk(f, func(n syntax.Node) bool {
		call, isCall := n.(*syntax.CallExpr)
		if !isCall || len(call.Args) == 0 {
			return true
		}
		var words []string
		for _, w := range call.Args {
			s, err := expand.Literal(nil, w)
			if err != nil || !literalWord(w) {
				ok = false
				return false
			}
			words = append(words, s)
		}
		out = append(out, words)
		return true
	})
	return out, ok
}

// literalWord reports whether w holds no expansion (parameters, command
// substitution, arithmetic): its value is known before the line runs.
func literalWord(w *syntax.Word) bool {
	lit := true
	syntax.Walk(w, func(n syntax.Node) bool {
		switch n.(type) {
		case *syntax.ParamExp, *syntax.CmdSubst, *syntax.ArithmExp, *syntax.ProcSubst, *syntax.ExtGlob:
			lit = false
		}
		return lit
	})
	return lit
}
