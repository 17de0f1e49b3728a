// Package permissions compiles eval.yaml's permissions block into what each
// runner enforces: Claude Code rule strings (CLI flags or a settings file),
// absolute-workspace twins of relative Bash rules, and Cursor's cli.json. It
// never runs anything; the only files it touches are the ones it is asked to
// write (overlay.go).
package permissions

import (
	"slices"
	"strings"

	"github.com/agent-eval/agent-eval/internal/config"
)

// Form says how the rules reach Claude Code.
type Form string

// The two forms of a permissions block.
const (
	// FormSimple: every rule is a string; they go verbatim to
	// --allowed-tools / --disallowed-tools.
	FormSimple Form = "simple"
	// FormPath: at least one {path, tools} rule; the compiled rules go into a
	// settings file passed with --settings.
	FormPath Form = "path"
)

// PathTools are the tools a path-based rule can scope.
var PathTools = []string{"Read", "Edit", "Write", "Grep", "Glob"}

// Compiled is a compiled permissions block.
type Compiled struct {
	Form  Form     `json:"form"`
	Allow []string `json:"allow"`
	Deny  []string `json:"deny"`
	// Notes says what the compiler dropped or added, and why.
	Notes []Note `json:"notes"`
	// Reasons maps a compiled rule to the reason: of the {path, tools,
	// reason} rule it came from (the first such rule when several compile
	// to the same one). Deny messages the harness writes name it.
	Reasons map[string]string `json:"reasons,omitempty"`
}

// Note is something the compiler did that the user should know about.
type Note struct {
	List  string `json:"list"`  // allow or deny
	Index int    `json:"index"` // position in that list
	Rule  string `json:"rule"`  // the rule as written
	Line  int    `json:"line,omitempty"`
	Col   int    `json:"col,omitempty"`
	Msg   string `json:"message"`
	// Reason is the rule's own reason:, when it has one.
	Reason string `json:"reason,omitempty"`
}

// Compile compiles both lists. Strings pass through verbatim. A {path,
// tools} rule becomes Tool(pattern) for each path tool it names, with
// gitignore semantics (dir/ → dir/**; an absolute /x → //x, Claude Code's
// spelling of an absolute path). Claude Code consults only Read() and Edit()
// path rules, so Write also yields Edit and Grep/Glob also yield Read, which
// keeps each rule effective. In deny lists Bash hardens into Read and Edit of
// the path; anywhere else a tool that takes no path is dropped with a note.
// Output is deduplicated in first-seen order.
func Compile(allow, deny []config.PermissionRule) Compiled {
	c := Compiled{Form: FormSimple}
	for _, r := range append(slices.Clip(allow), deny...) {
		if r.IsPath() {
			c.Form = FormPath
		}
	}
	c.Allow = c.compileList("allow", allow, false)
	c.Deny = c.compileList("deny", deny, true)
	return c
}

func (c *Compiled) compileList(list string, rules []config.PermissionRule, hardenBash bool) []string {
	out := []string{}
	var reason string
	add := func(s string) {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
		if _, seen := c.Reasons[s]; reason != "" && !seen {
			if c.Reasons == nil {
				c.Reasons = map[string]string{}
			}
			c.Reasons[s] = reason
		}
	}
	for i, r := range rules {
		reason = r.Reason
		if !r.IsPath() {
			add(r.Pattern)
			continue
		}
		if strings.TrimSpace(r.Path) == "" {
			continue // the loader reports it
		}
		pattern := PathPattern(r.Path)
		note := func(msg string) {
			c.Notes = append(c.Notes, Note{List: list, Index: i, Rule: ruleText(r), Line: r.Line, Col: r.Col, Msg: msg, Reason: r.Reason})
		}
		for _, tool := range r.Tools {
			switch tool {
			case "Read", "Edit":
				add(tool + "(" + pattern + ")")
			case "Write":
				add("Write(" + pattern + ")")
				add("Edit(" + pattern + ")")
			case "Grep", "Glob":
				add(tool + "(" + pattern + ")")
				add("Read(" + pattern + ")")
			case "Bash":
				if hardenBash {
					add("Read(" + pattern + ")")
					add("Edit(" + pattern + ")")
					continue
				}
				note("Bash cannot be scoped to a path (its rules match the command string); dropped from this allow rule")
			default:
				note(tool + " takes no path; dropped from this path rule (path rules scope " + strings.Join(PathTools, ", ") + ")")
			}
		}
	}
	return out
}

// PathPattern turns a gitignore-style path into a Claude Code rule
// specifier: a directory (trailing /) matches recursively, a leading / (an
// absolute path) becomes //, anything else stays as written (relative to the
// working directory).
func PathPattern(p string) string {
	if strings.HasSuffix(p, "/") {
		p += "**"
	}
	if strings.HasPrefix(p, "/") && !strings.HasPrefix(p, "//") {
		p = "/" + p
	}
	return p
}

func ruleText(r config.PermissionRule) string {
	if !r.IsPath() {
		return r.Pattern
	}
	return "{path: " + r.Path + ", tools: [" + strings.Join(r.Tools, ", ") + "]}"
}

// dedupe appends the items of more missing from base, keeping order.
func dedupe(base []string, more ...[]string) []string {
	out := append([]string{}, base...)
	for _, list := range more {
		for _, s := range list {
			if !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
	}
	return out
}

// HookDeniedPathReasons maps each of paths (HookDeniedPaths of c.Deny) to
// the reason: of the rule its Read(…) deny came from; nil when none has one.
func HookDeniedPathReasons(c Compiled, paths []string) map[string]string {
	var out map[string]string
	for _, p := range paths {
		if why := c.Reasons["Read("+p+")"]; why != "" {
			if out == nil {
				out = map[string]string{}
			}
			out[p] = why
		}
	}
	return out
}

// HookDeniedPaths are the paths the hook's path layer keeps every Bash
// command away from: the pattern of each Read(…) deny rule. A {path, tools}
// deny rule naming Bash, Read, Grep or Glob compiles into one, so a path
// the agent may not read with its tools it may not read with Bash either
// (Claude Code's own Read rules stop only `cat`-like commands it
// recognises). Edit-only denies are not included: reading those paths is
// allowed. None when Bash itself is denied outright.
func HookDeniedPaths(deny []string) []string {
	var out []string
	for _, r := range deny {
		if r == "Bash" || r == "Bash(*)" || r == "Bash(:*)" {
			return nil
		}
		if p, ok := strings.CutPrefix(r, "Read("); ok && strings.HasSuffix(p, ")") {
			p = strings.TrimSuffix(p, ")")
			if p != "" && !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
	}
	return out
}
