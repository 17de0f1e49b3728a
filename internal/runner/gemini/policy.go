package gemini

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/agent-eval/agent-eval/internal/permissions"
)

// nativeTools maps Claude Code's tool names (eval.yaml's rules) to Gemini
// CLI's.
var nativeTools = map[string][]string{
	"Bash":      {"run_shell_command"},
	"Read":      {"read_file", "read_many_files"},
	"Write":     {"write_file"},
	"Edit":      {"replace"},
	"Glob":      {"glob", "list_directory"},
	"Grep":      {"grep_search"},
	"WebFetch":  {"web_fetch"},
	"WebSearch": {"google_web_search"},
	"Agent":     {"invoke_agent"},
	"Task":      {"invoke_agent"},
	"Skill":     {"activate_skill"},
}

// pathTools are the Gemini tools a path rule of a Claude tool covers, and
// the argument that holds the path.
var pathTools = map[string][][2]string{
	"Read":  {{"read_file", "file_path"}},
	"Edit":  {{"write_file", "file_path"}, {"replace", "file_path"}},
	"Write": {{"write_file", "file_path"}},
	"Glob":  {{"glob", "dir_path"}, {"list_directory", "dir_path"}},
	"Grep":  {{"grep_search", "dir_path"}},
}

// Priorities of the compiled rules: a deny outranks an allow, which
// outranks the catch-all deny of commands no allow rule names.
const (
	priorityDeny     = 900
	priorityAllow    = 500
	priorityCatchAll = 100
)

// policy is the eval's permissions as Gemini CLI's own controls.
type policy struct {
	toml    string   // the --policy file ("" when there is no rule)
	exclude []string // tools.exclude: tools denied whole
}

// compilePolicy compiles eval.yaml's permission rules (Claude Code's
// syntax) into Gemini CLI's policy engine: a whole tool denied → a deny
// rule and tools.exclude; Bash(prefix:*) → commandPrefix rules (an allow
// list of Bash commands denies the commands it does not name, as a
// headless Claude Code does); a path rule → argsPattern rules over the file
// tools' paths as the workspace-relative or absolute text the model wrote
// (the hook's path layer is what holds a path however it is spelled). What
// Gemini cannot express is reported through warn.
func compilePolicy(c permissions.Compiled, warn func(string)) policy {
	var p policy
	var b strings.Builder
	rule := func(tool, field, value, decision string, priority int, msg string) {
		fmt.Fprintf(&b, "[[rule]]\ntoolName = %s\n", strconv.Quote(tool))
		if field != "" {
			fmt.Fprintf(&b, "%s = %s\n", field, tomlString(value))
		}
		fmt.Fprintf(&b, "decision = %q\npriority = %d\n", decision, priority)
		if msg != "" {
			fmt.Fprintf(&b, "denyMessage = %s\n", tomlString(msg))
		}
		b.WriteString("\n")
	}
	reason := func(r string) string {
		msg := "eval.yaml denies " + r
		if why := c.Reasons[r]; why != "" {
			msg += ": " + why
		}
		return msg
	}
	bashAllows := false
	var limited []string // the file-writing tools an allow list limits
	for _, r := range c.Allow {
		name, arg, _ := split(r)
		if arg == "" || arg == "*" || arg == ":*" {
			continue
		}
		if name == "Write" || name == "Edit" {
			for _, pt := range pathTools[name] {
				for _, pat := range pathPatterns(pt[1], arg) {
					rule(pt[0], "argsPattern", pat, "allow", priorityAllow, "")
				}
				if !slices.Contains(limited, pt[0]) {
					limited = append(limited, pt[0])
				}
			}
			continue
		}
		if name != "Bash" {
			continue
		}
		prefix, exact := bashPrefix(arg)
		if exact {
			prefix = arg
		}
		bashAllows = true
		rule("run_shell_command", "commandPrefix", prefix, "allow", priorityAllow, "")
	}
	if bashAllows {
		rule("run_shell_command", "", "", "deny", priorityCatchAll, "eval.yaml's permissions.allow does not name this command, and nobody is there to approve it")
	}
	for _, t := range limited {
		rule(t, "", "", "deny", priorityCatchAll, "eval.yaml's permissions.allow does not name this path, and nobody is there to approve the write")
	}
	for _, r := range c.Deny {
		name, arg, ok := split(r)
		if !ok {
			warn(fmt.Sprintf("permissions: %s is not a rule the gemini runner can compile; it is not enforced natively", r))
			continue
		}
		tools, known := nativeTools[name]
		switch {
		case strings.HasPrefix(name, "mcp__"):
			warn(fmt.Sprintf("permissions: %s is not compiled into Gemini CLI's policy (MCP tools are named by server there); the hook gates MCP calls named in inputs.tools", r))
		case !known:
			warn(fmt.Sprintf("permissions: %s names no Gemini CLI tool; it is not enforced natively", r))
		case arg == "" || arg == "*" || arg == ":*":
			for _, t := range tools {
				rule(t, "", "", "deny", priorityDeny, reason(r))
				if !slices.Contains(p.exclude, t) {
					p.exclude = append(p.exclude, t)
				}
			}
		case name == "Bash":
			prefix, _ := bashPrefix(arg)
			rule("run_shell_command", "commandPrefix", prefix, "deny", priorityDeny, reason(r))
		case name == "WebFetch":
			if d, ok := strings.CutPrefix(arg, "domain:"); ok {
				rule("web_fetch", "argsPattern", `https?://[^/"\s]*`+regexp.QuoteMeta(d)+`[/:"\s]`, "deny", priorityDeny, reason(r))
			}
		default:
			for _, pt := range pathTools[name] {
				for _, pat := range pathPatterns(pt[1], arg) {
					rule(pt[0], "argsPattern", pat, "deny", priorityDeny, reason(r))
				}
			}
		}
	}
	p.toml = b.String()
	return p
}

// pathPatterns are the argsPattern expressions of a path rule's argument
// over the file tools' field. Gemini refuses nested quantifiers (ReDoS):
// one for the path as written relative to the workspace, one for any path
// ending in it (absolute spellings; a like-named folder elsewhere matches
// too, which Gemini's file tools, kept to the workspace, never reach).
func pathPatterns(field, arg string) []string {
	rel := relPattern(strings.TrimPrefix(arg, "/"))
	if !strings.HasSuffix(rel, `[^"]*`) {
		rel += `(/|")`
	}
	return []string{`"` + field + `":"(\./)?` + rel, `"` + field + `":"[^"]*/` + rel}
}

// split cuts Tool(arg) into its parts; a bare name has no arg.
func split(r string) (name, arg string, ok bool) {
	name, rest, found := strings.Cut(r, "(")
	if !found {
		return r, "", r != ""
	}
	arg, ok = strings.CutSuffix(rest, ")")
	return name, arg, ok && name != ""
}

// bashPrefix is the command prefix of a Bash rule's argument: "git push:*"
// and "git push *" are "git push"; exact says the rule names one command.
func bashPrefix(arg string) (prefix string, exact bool) {
	for _, suf := range []string{":*", " *", "*"} {
		if p, ok := strings.CutSuffix(arg, suf); ok {
			return strings.TrimSpace(p), false
		}
	}
	return arg, true
}

// tomlString quotes s as a TOML literal string when it can (no escapes to
// get wrong in a regular expression), else as a basic string.
func tomlString(s string) string {
	if !strings.ContainsAny(s, "'\n\r") {
		return "'" + s + "'"
	}
	return strconv.Quote(s)
}

// relPattern is a rule's path as a regular expression over what Gemini
// puts in a file tool's arguments (path, relative to the workspace).
func relPattern(p string) string {
	p = strings.TrimPrefix(path.Clean("/"+p), "/")
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case c == '*' && i+1 < len(p) && p[i+1] == '*':
			b.WriteString(`[^"]*`)
			i++
		case c == '*':
			b.WriteString(`[^"/]*`)
		case c == '?':
			b.WriteString(`[^"/]`)
		case strings.ContainsRune(`\.+()|[]{}^$`, rune(c)):
			b.WriteByte('\\')
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
