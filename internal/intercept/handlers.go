// Package intercept is the tool-interception decision engine: given the
// compiled handlers of tool_handlers.yaml and one PreToolUse call, it decides
// to pass the call through, allow it, deny it, or answer an AskUserQuestion.
// It is pure: no I/O, no exec, no network; the LLM answering tier is an
// interface the caller provides.
package intercept

import (
	"fmt"
	"path"
	"regexp"
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
	DeniedPaths []string  `yaml:"denied_paths,omitempty" json:"denied_paths,omitempty"`
	Handlers    []Handler `yaml:"handlers" json:"handlers"`
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
	// EnvChecks: each variable must contain one of its substrings.
	EnvChecks map[string]EnvCheck `yaml:"env_checks,omitempty" json:"env_checks,omitempty"`
	// CaseOverrides map an exact question to its answer.
	CaseOverrides map[string]string `yaml:"case_overrides,omitempty" json:"case_overrides,omitempty"`
}

// EnvCheck requires a variable's lower-cased value to contain one of
// MustContain.
type EnvCheck struct {
	MustContain []string `yaml:"must_contain" json:"must_contain"`
}

// Policy is a prepared File: regexes compiled once, decided many times.
type Policy struct {
	HookModel   string
	handlers    []prepared
	root        string
	deniedPaths []string
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
	p.deniedPaths = f.DeniedPaths
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
			if len(c.MustContain) == 0 {
				problems = append(problems, fmt.Sprintf("handlers[%d]: env_checks.%s: must_contain is empty", i, name))
			}
		}
		p.handlers = append(p.handlers, ph)
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("invalid handlers: %s", strings.Join(problems, "; "))
	}
	return p, nil
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
