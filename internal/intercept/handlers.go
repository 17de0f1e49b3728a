// Package intercept is the tool-interception decision engine: given the
// compiled handlers of tool_handlers.yaml and one PreToolUse call, it decides
// to pass the call through, allow it, deny it, or answer an AskUserQuestion.
// It is pure: no I/O, no exec, no network; the LLM answering tier is an
// interface the caller provides.
package intercept

import (
	"fmt"
	"net/netip"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/agent-eval/agent-eval/internal/lazyre"
)

// DefaultHookModel answers AskUserQuestion when models.hook is unset.
const DefaultHookModel = "claude-haiku-4-5-20251001"

// File is tool_handlers.yaml.
type File struct {
	HookModel string `yaml:"hook_model,omitempty" json:"hook_model,omitempty"`
	// Root is the absolute directory denied_paths are relative to (the
	// workspace the agent works in); empty means the handlers file's
	// directory, which the hook fills in.
	Root string `yaml:"root,omitempty" json:"root,omitempty"`
	// DeniedPaths are paths no Bash command may name, spelled as Claude
	// Code's Read deny rules (gitignore style: dir/** for a directory,
	// //abs for an absolute path, ~/ for home, anything else relative to
	// Root). The hook's path layer (paths.go) enforces them.
	DeniedPaths []string `yaml:"denied_paths,omitempty" json:"denied_paths,omitempty"`
	// DeniedPathReasons gives a denied path the reason: of the eval.yaml
	// rule it came from, which the path layer's deny message names.
	DeniedPathReasons map[string]string `yaml:"denied_path_reasons,omitempty" json:"denied_path_reasons,omitempty"`
	// CaseOverrides is upstream's top-level form of the exact question →
	// answer map: it applies to every handler that covers AskUserQuestion.
	// Precedence, most specific first: the case's answers.yaml
	// case_overrides (WithCaseOverrides), then the handler's own
	// case_overrides, then this map.
	CaseOverrides map[string]string `yaml:"case_overrides,omitempty" json:"case_overrides,omitempty"`
	// Git gates git commands by their sub-command (git.go): the eval's git
	// deny rules, and read-only git in workspace_mode: repo.
	Git      *GitPolicy `yaml:"git,omitempty" json:"git,omitempty"`
	Handlers []Handler  `yaml:"handlers" json:"handlers"`
}

// AddDeniedPaths adds the paths not yet denied to DeniedPaths, each with
// reason as its deny message's reason.
func (f *File) AddDeniedPaths(reason string, paths ...string) {
	for _, p := range paths {
		if slices.Contains(f.DeniedPaths, p) {
			continue
		}
		f.DeniedPaths = append(f.DeniedPaths, p)
		if f.DeniedPathReasons == nil {
			f.DeniedPathReasons = map[string]string{}
		}
		f.DeniedPathReasons[p] = reason
	}
}

// Handler is one compiled inputs.tools entry.
type Handler struct {
	// Match and Prompt are the natural-language text from eval.yaml.
	Match      string `yaml:"match" json:"match"`
	Prompt     string `yaml:"prompt,omitempty" json:"prompt,omitempty"`
	PromptFile string `yaml:"prompt_file,omitempty" json:"prompt_file,omitempty"`
	// Patterns are tool names, exact or with a trailing * (mcp__jira__*).
	Patterns []string `yaml:"patterns" json:"patterns"`
	// InputFilters are case-insensitive regexes over a Bash command.
	InputFilters []string `yaml:"input_filters,omitempty" json:"input_filters,omitempty"`
	// EnvChecks: each variable must pass its check (see EnvCheck).
	EnvChecks map[string]EnvCheck `yaml:"env_checks,omitempty" json:"env_checks,omitempty"`
	// CaseOverrides map an exact question to its answer.
	CaseOverrides map[string]string `yaml:"case_overrides,omitempty" json:"case_overrides,omitempty"`
}

// EnvCheck is what a variable's value must be for a matched call to go on.
// At least one of the two forms is set; when both are, both must hold.
//
// MustContain (the seed's form): the lower-cased value contains one of the
// substrings. Weak for URLs: "test" is in contest.atlassian.net.
//
// HostIn (for URL-valued variables): the value is parsed as a URL — with a
// scheme (https://bot@jira.test:8443/x, postgres://u@db.test/app) or
// without one, read as host[:port][/path] (localhost:8080, [::1]:9000) — and
// its host, lower-cased, without port, brackets or trailing dot, must be
// covered by an entry:
//   - a name entry "test" covers the host "test" itself and every host
//     under it (jira.test, a.b.test) — a whole-label suffix, so
//     contest.atlassian.net and test.atlassian.net are not covered;
//   - an entry "*.example.com" covers only hosts strictly under
//     example.com (a.example.com), not example.com itself;
//   - an IP entry (127.0.0.1, ::1) covers exactly that address: a name like
//     evil.127.0.0.1 is not an address and is not covered.
//
// A value with no host (empty, a bare path) fails.
type EnvCheck struct {
	MustContain []string `yaml:"must_contain,omitempty" json:"must_contain,omitempty"`
	HostIn      []string `yaml:"host_in,omitempty" json:"host_in,omitempty"`
}

// Policy is a prepared File: regexes compiled once, decided many times.
type Policy struct {
	HookModel   string
	handlers    []prepared
	root        string
	deniedPaths []string
	reasons     map[string]string
	git         *GitPolicy
}

type prepared struct {
	Handler
	filters []*regexp.Regexp
}

var envNameRE = lazyre.New(`^[A-Za-z_][A-Za-z0-9_]*$`)

// Prepare validates f and compiles its regexes. Every problem is reported;
// a policy is returned only when there are none.
func Prepare(f File) (*Policy, error) {
	p := &Policy{HookModel: f.HookModel}
	if p.HookModel == "" {
		p.HookModel = DefaultHookModel
	}
	var problems []string
	p.deniedPaths, p.reasons, p.git = f.DeniedPaths, f.DeniedPathReasons, f.Git
	if f.Root != "" {
		p.root = path.Clean(f.Root)
		if !path.IsAbs(f.Root) {
			problems = append(problems, fmt.Sprintf("root %q must be an absolute directory", f.Root))
		}
	}
	for i, d := range f.DeniedPaths {
		if strings.Trim(d, "/*") == "" || strings.ContainsAny(d, "\x00\n") {
			problems = append(problems, fmt.Sprintf("denied_paths[%d]: %q does not name a path", i, d))
		} else if _, err := path.Match(d, ""); err != nil {
			problems = append(problems, fmt.Sprintf("denied_paths[%d]: %q: %v", i, d, err))
		}
	}
	for i, h := range f.Handlers {
		h.CaseOverrides = withDefaults(h, f.CaseOverrides)
		ph := prepared{Handler: h}
		if len(h.Patterns) == 0 {
			problems = append(problems, fmt.Sprintf("handlers[%d]: no patterns", i))
		}
		for _, pat := range h.Patterns {
			if pat == "" || strings.Contains(strings.TrimSuffix(pat, "*"), "*") {
				problems = append(problems, fmt.Sprintf("handlers[%d]: pattern %q must be a tool name, optionally ending in *", i, pat))
			}
		}
		for _, f := range h.InputFilters {
			re, err := regexp.Compile("(?i)" + f)
			if err != nil {
				problems = append(problems, fmt.Sprintf("handlers[%d]: input_filters %q: %v", i, f, err))
				continue
			}
			ph.filters = append(ph.filters, re)
		}
		for name, c := range h.EnvChecks {
			if !envNameRE().MatchString(name) {
				problems = append(problems, fmt.Sprintf("handlers[%d]: env_checks: %q is not a variable name", i, name))
			}
			if len(c.MustContain) == 0 && len(c.HostIn) == 0 {
				problems = append(problems, fmt.Sprintf("handlers[%d]: env_checks.%s: must_contain and host_in are both empty", i, name))
			}
			for _, h := range c.HostIn {
				_, addrErr := netip.ParseAddr(strings.Trim(h, "[]"))
				if strings.TrimSpace(h) == "" || strings.ContainsAny(h, "/@ ") || strings.Contains(h, ":") && addrErr != nil {
					problems = append(problems, fmt.Sprintf("handlers[%d]: env_checks.%s: host_in entry %q must be a host name or address (no scheme, port, path or user)", i, name, h))
				}
			}
		}
		p.handlers = append(p.handlers, ph)
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("invalid handlers: %s", strings.Join(problems, "; "))
	}
	return p, nil
}

// withDefaults is h's case_overrides with the file's top-level ones under
// them (the handler's own answer wins), for a handler that covers
// AskUserQuestion; other handlers never answer questions.
func withDefaults(h Handler, top map[string]string) map[string]string {
	if len(top) == 0 || !AnswersQuestions(h) {
		return h.CaseOverrides
	}
	merged := make(map[string]string, len(top)+len(h.CaseOverrides))
	for k, v := range top {
		merged[k] = v
	}
	for k, v := range h.CaseOverrides {
		merged[k] = v
	}
	return merged
}

// UnusedCaseOverrides reports whether f has top-level case_overrides but no
// handler covering AskUserQuestion, so they would answer nothing (the hook
// passes an unmatched question through, as upstream does).
func UnusedCaseOverrides(f File) bool {
	return len(f.CaseOverrides) > 0 && !slices.ContainsFunc(f.Handlers, AnswersQuestions)
}

// AnswersQuestions reports whether h covers AskUserQuestion.
func AnswersQuestions(h Handler) bool {
	return slices.ContainsFunc(h.Patterns, func(p string) bool { return matchesTool(p, "AskUserQuestion") })
}

// matchesTool reports whether a pattern covers a tool name.
func matchesTool(pattern, tool string) bool {
	if prefix, ok := strings.CutSuffix(pattern, "*"); ok {
		return strings.HasPrefix(tool, prefix)
	}
	return pattern == tool
}

// Misconfigured lists the handlers that have Bash among their patterns but
// no input_filters: the hook skips them (they would otherwise deny every
// Bash call), and validate should say so.
func Misconfigured(f File) []int {
	var out []int
	for i, h := range f.Handlers {
		for _, p := range h.Patterns {
			if p == "Bash" && len(h.InputFilters) == 0 {
				out = append(out, i)
				break
			}
		}
	}
	return out
}

var (
	urlVarRE = lazyre.New(`(?i)(url|uri|server|host|endpoint|dsn|addr|address|api)$`)
	ipLikeRE = lazyre.New(`^[0-9a-fA-F:.\[\]]+$`)
)

// WeakChecks lists the must_contain values of URL-valued variables that are
// short words production host names can contain: "test" passes
// contest.atlassian.net, "stag" latest-stage…, "dev" devices.example.com. A
// value with a dot (jira.test.example.com), an address or localhost is not
// reported. validate and compile print them as warnings.
func WeakChecks(f File) []string {
	var out []string
	for i, h := range f.Handlers {
		names := make([]string, 0, len(h.EnvChecks))
		for n := range h.EnvChecks {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			if !urlVarRE().MatchString(n) {
				continue
			}
			var weak []string
			for _, v := range h.EnvChecks[n].MustContain {
				v = strings.TrimSpace(v)
				if strings.Contains(v, ".") || ipLikeRE().MatchString(v) || strings.EqualFold(v, "localhost") || len(v) > 8 {
					continue
				}
				weak = append(weak, fmt.Sprintf("%q", v))
			}
			if len(weak) > 0 {
				out = append(out, fmt.Sprintf("handlers[%d].env_checks.%s.must_contain: %s %s short words that production host names contain (\"test\" is in contest.atlassian.net and latest-prod.example.com), so such a host passes the check; use host_in, which compares the URL's host exactly or as a subdomain",
					i, n, strings.Join(weak, ", "), plural(len(weak), "is a", "are")))
			}
		}
	}
	return out
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
