package intercept

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/agent-eval/agent-eval/internal/clip"
	"github.com/agent-eval/agent-eval/internal/redact"
)

// Kind is what the hook does with a call.
type Kind string

// The decisions.
const (
	Pass  Kind = "pass"  // no handler matched: Claude Code decides as usual
	Allow Kind = "allow" // a handler matched and its checks passed
	Deny  Kind = "deny"  // a handler matched and its checks failed, or none were defined
)

// Answer tiers of AskUserQuestion.
const (
	TierOverride = "case_override"
	TierLLM      = "llm"
	TierFallback = "fallback"
)

// Request is one PreToolUse call.
type Request struct {
	ToolName  string
	ToolInput map[string]any
	// Env is the hook process's environment (env_checks read it).
	Env map[string]string
	// CWD is where the call runs (the hook input's cwd); FS answers the
	// path layer's questions about the filesystem (nil: none).
	CWD string
	FS  PathFS
}

// Decision is what to do with a call, and why.
type Decision struct {
	Kind    Kind   `json:"decision"`
	Reason  string `json:"reason,omitempty"`
	Handler int    `json:"handler"` // index of the matching handler, -1 for none
	// Detail says what matched: the filter and the sub-command it hit.
	Detail string `json:"detail,omitempty"`
	// For AskUserQuestion: the answers per question, and the tier of each.
	Answers      map[string]string `json:"answers,omitempty"`
	Tiers        map[string]string `json:"tiers,omitempty"`
	UpdatedInput map[string]any    `json:"-"`
	// Warnings are for stderr (a misconfigured handler, a fallback answer).
	Warnings []string `json:"warnings,omitempty"`
}

// Question is one AskUserQuestion question handed to the LLM tier.
type Question struct {
	Question    string
	Header      string
	Options     []string
	MultiSelect bool
	// Prompt is the handler's instruction; Model is the hook model.
	Prompt string
	Model  string
}

// Answerer is the LLM tier: it returns an answer for q (checked against the
// options by Decide). A nil Answerer skips the tier.
type Answerer interface {
	Answer(ctx context.Context, q Question) (string, error)
}

// Decide applies the first handler that matches the call.
func Decide(ctx context.Context, p *Policy, req Request, llm Answerer) Decision {
	d := Decision{Kind: Pass, Handler: -1}
	var command string
	var an *analysis
	if req.ToolName == "Bash" {
		command, _ = req.ToolInput["command"].(string)
		if why := overLimits(command); why != "" && (len(p.deniedPaths) > 0 || p.git != nil || slices.ContainsFunc(p.handlers, func(h prepared) bool {
			return len(h.filters) > 0 && slices.Contains(h.Patterns, "Bash")
		})) {
			d.Kind = Deny
			d.Reason = "Blocked by eval harness: the hook cannot tell what this command would run: " + why + ". Split it into smaller commands."
			d.Detail = "command over the analysis limits"
			return d
		}
		if pd := decidePaths(p, req, command); pd.Kind == Deny {
			return pd
		}
		if p.git != nil {
			an = analyseBash(command, req.Env, scriptReader(req), programFinder(req), linkFinder(req))
			why := gitVerdict(p.git, an)
			if why == "" && p.git.ReadOnly {
				why = gitFolderVerdict(p.git, command, an)
			}
			if why != "" {
				return Decision{Kind: Deny, Handler: -1, Reason: redact.String("Blocked by eval harness: " + why + "."), Detail: "git: " + clip.String(why, 200)}
			}
		}
	}
	for i, h := range p.handlers {
		if !slices.ContainsFunc(h.Patterns, func(pat string) bool { return matchesTool(pat, req.ToolName) }) {
			continue
		}
		if req.ToolName == "Bash" {
			if !slices.Contains(h.Patterns, "Bash") {
				continue // a Bash call is gated only by handlers that name Bash
			}
			if len(h.filters) == 0 {
				d.Warnings = append(d.Warnings, fmt.Sprintf("handler %d (%s) has Bash in patterns but no input_filters; skipped (it would deny every Bash call)", i+1, oneLine(h.Match)))
				continue
			}
			if an == nil {
				an = analyseBash(command, req.Env, scriptReader(req), programFinder(req), linkFinder(req))
			}
			an.files = lineFiles{fs: req.FS, cwd: req.CWD, env: req.Env} // for the clients' configuration files
			if an.unknown != "" {
				// A Bash handler is active and the command runs something
				// the hook cannot see: fail closed.
				d.Handler, d.Kind = i, Deny
				d.Reason = redact.String("Blocked by eval harness: the hook cannot tell what this command would run: " + an.unknown +
					". Run the command by its plain name, with literal arguments.")
				d.Detail = "unknowable command (" + strings.TrimSuffix(oneLine(h.Match), ".") + " is active)"
				return d
			}
			if why := opaqueHit(h.filters, an.calls); why != "" {
				d.Handler, d.Kind = i, Deny
				d.Reason = redact.String("Blocked by eval harness: the hook cannot tell what this command would run: " + why +
					". Run the command by its plain name, with literal arguments.")
				d.Detail = "unknowable command (" + strings.TrimSuffix(oneLine(h.Match), ".") + " is active)"
				return d
			}
			hit, detail, matched := matchBash(h.filters, command, an.calls, req.Env)
			if !hit {
				continue
			}
			for _, s := range an.sockets {
				// bash connects there itself: judged like a URL argument.
				target := word{s: s}
				if s == unknownValue {
					target = word{s: "tcp://host-only-known-when-it-runs", dyn: true}
				}
				matched = append(matched, call{env: req.Env, words: []word{{s: socketCommand}, target}})
			}
			d.Handler, d.Detail = i, redact.String(detail)
			return gate(d, h, matched, lineOf{calls: an.calls, fs: req.FS})
		}
		d.Handler = i
		if req.ToolName == "AskUserQuestion" {
			return answer(ctx, d, p, h, req.ToolInput, llm)
		}
		return gate(d, h, []call{{env: req.Env}}, lineOf{})
	}
	return d
}

// opaqueHit says why a call read from the arguments of a program the
// analysis does not know matches a filter ("" when none does): the program
// may run it, under an environment the hook cannot check. A program whose
// own name matches is the gated command itself, judged as usual.
func opaqueHit(filters []*regexp.Regexp, calls []call) string {
	for _, c := range calls {
		// A suffix (mywrap -- jira …) is the outer call's own words, which
		// its texts judge with the environment as usual.
		if c.opaque == "" || c.suffix || slices.ContainsFunc(filters, func(f *regexp.Regexp) bool { return f.MatchString(c.opaque) }) {
			continue // the gated command itself, judged as usual
		}
		for _, t := range c.texts() {
			for _, f := range filters {
				if f.MatchString(t) {
					return fmt.Sprintf("%s, a program the hook does not know, is given %q, which it may run as a command under an environment the hook cannot check", c.opaque, clip.String(t, 80))
				}
			}
		}
	}
	return ""
}

// matchBash tries the filters on the whole command and on each simple
// command (as printed and as the shell will read it). It returns the
// matching calls, their env being the full environment they run under.
func matchBash(filters []*regexp.Regexp, command string, calls []call, env map[string]string) (bool, string, []call) {
	var matched []call
	detail := ""
	for _, c := range calls {
	texts:
		for _, t := range append(c.texts(), targetTexts(c)...) {
			for _, f := range filters {
				if f.MatchString(t) {
					m := c
					m.env, m.set = overlay(env, c.env), c.env
					matched = append(matched, m)
					if detail == "" {
						detail = fmt.Sprintf("filter %q matched %q", strings.TrimPrefix(f.String(), "(?i)"), t)
					}
					break texts
				}
			}
		}
	}
	if len(matched) > 0 {
		return true, detail, matched
	}
	for _, f := range filters {
		if f.MatchString(command) {
			// Only the whole line matches (the text spans commands, or sits
			// in a here-doc or comment): every command's environment must
			// pass.
			matched = []call{{env: env}}
			for _, c := range calls {
				// Each command's own targets are judged too (curl -K - with
				// the URL in a here-doc).
				m := c
				m.env, m.set = overlay(env, c.env), c.env
				matched = append(matched, m)
			}
			return true, fmt.Sprintf("filter %q matched the command line", strings.TrimPrefix(f.String(), "(?i)")), matched
		}
	}
	return false, "", nil
}

func overlay(base, over map[string]string) map[string]string {
	out := clone(base)
	for k, v := range over {
		if v == unsetValue {
			delete(out, k)
			continue
		}
		out[k] = v
	}
	return out
}

// gate applies a matched handler's env_checks to the environment of every
// matched call, then judges the targets those calls name on their own
// command line (line is every call of it, for what one call defines for
// another, and the filesystem, for the config files a client reads). When
// all pass, the call passes through with no decision (Claude Code's
// permission rules still apply); Reason records why.
func gate(d Decision, h prepared, calls []call, line lineOf) Decision {
	label := strings.TrimSuffix(oneLine(h.Match), ".")
	deny := func(why string) Decision {
		d.Kind = Deny
		// why shows values through redact.Value already.
		d.Reason = fmt.Sprintf("Blocked by eval harness: %s: %s", label, why)
		return d
	}
	if len(h.EnvChecks) == 0 {
		return deny("this handler defines no env_checks, so matching calls are denied")
	}
	names := make([]string, 0, len(h.EnvChecks))
	for n := range h.EnvChecks {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, c := range calls {
		for _, name := range names {
			if why := checkVar(name, c.env, h.EnvChecks[name]); why != "" {
				return deny(why)
			}
		}
	}
	if why := judgeTargets(h, names, calls, line); why != "" {
		return deny(why)
	}
	d.Kind = Pass
	d.Reason = fmt.Sprintf("passed by eval harness: %s: env_checks passed (%s); Claude Code's permission rules decide", label, strings.Join(names, ", "))
	return d
}

func oneLine(s string) string {
	return clip.String(strings.Join(strings.Fields(s), " "), 120)
}
