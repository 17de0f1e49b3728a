package intercept

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/agent-eval/agent-eval/internal/lazyre"
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
	var calls []call
	parsed := false
	if req.ToolName == "Bash" {
		command, _ = req.ToolInput["command"].(string)
		if pd := decidePaths(p, req, command); pd.Kind == Deny {
			return pd
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
				d.Warnings = append(d.Warnings, fmt.Sprintf("handler %d (%s) has Bash in patterns but no input_filters; skipped (it would deny every Bash call)", i, oneLine(h.Match)))
				continue
			}
			if !parsed {
				var ok bool
				calls, ok = splitBash(command)
				if !ok {
					d.Warnings = append(d.Warnings, "the command did not parse as shell; matching its raw text")
				}
				parsed = true
			}
			hit, detail, envs := matchBash(h.filters, command, calls, req.Env)
			if !hit {
				continue
			}
			d.Handler, d.Detail = i, detail
			return gate(d, h, envs)
		}
		d.Handler = i
		if req.ToolName == "AskUserQuestion" {
			return answer(ctx, d, p, h, req.ToolInput, llm)
		}
		return gate(d, h, []map[string]string{req.Env})
	}
	return d
}

// matchBash tries the filters on the whole command and on each simple
// command. It returns the environments the matching commands run under.
func matchBash(filters []*regexp.Regexp, command string, calls []call, env map[string]string) (bool, string, []map[string]string) {
	var envs []map[string]string
	detail := ""
	for _, c := range calls {
		for _, f := range filters {
			if f.MatchString(c.text) {
				envs = append(envs, overlay(env, c.env))
				if detail == "" {
					detail = fmt.Sprintf("filter %q matched %q", strings.TrimPrefix(f.String(), "(?i)"), c.text)
				}
				break
			}
		}
	}
	if len(envs) > 0 {
		return true, detail, envs
	}
	for _, f := range filters {
		if f.MatchString(command) {
			// Only the whole line matches (the text spans commands): every
			// command's environment must pass.
			envs = []map[string]string{env}
			for _, c := range calls {
				envs = append(envs, overlay(env, c.env))
			}
			return true, fmt.Sprintf("filter %q matched the command line", strings.TrimPrefix(f.String(), "(?i)")), envs
		}
	}
	return false, "", nil
}

func overlay(base, over map[string]string) map[string]string {
	out := clone(base)
	for k, v := range over {
		out[k] = v
	}
	return out
}

// gate applies a matched handler's env_checks to every environment.
func gate(d Decision, h prepared, envs []map[string]string) Decision {
	label := strings.TrimSuffix(oneLine(h.Match), ".")
	if len(h.EnvChecks) == 0 {
		d.Kind = Deny
		d.Reason = fmt.Sprintf("Blocked by eval harness: %s (this handler defines no env_checks, so matching calls are denied)", label)
		return d
	}
	names := make([]string, 0, len(h.EnvChecks))
	for n := range h.EnvChecks {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, env := range envs {
		for _, name := range names {
			if why := checkVar(name, env, h.EnvChecks[name].MustContain); why != "" {
				d.Kind = Deny
				d.Reason = fmt.Sprintf("Blocked by eval harness: %s: %s", label, why)
				return d
			}
		}
	}
	d.Kind = Allow
	d.Reason = fmt.Sprintf("allowed by eval harness: %s: env_checks passed (%s)", label, strings.Join(names, ", "))
	return d
}

var secretName = lazyre.New(`(?i)token|key|secret|password|passwd|credential|auth`)

func checkVar(name string, env map[string]string, mustContain []string) string {
	v, set := env[name]
	shown := func() string {
		if secretName().MatchString(name) {
			return "[redacted]"
		}
		return fmt.Sprintf("%q", v)
	}
	switch {
	case !set:
		return fmt.Sprintf("%s is not set; it must contain one of %s", name, strings.Join(mustContain, ", "))
	case v == unknownValue:
		return fmt.Sprintf("%s is assigned a value that cannot be checked before it runs (not a literal)", name)
	}
	lv := strings.ToLower(v)
	for _, s := range mustContain {
		if strings.Contains(lv, strings.ToLower(s)) {
			return ""
		}
	}
	return fmt.Sprintf("%s=%s does not contain any of %s (it must point at a test instance)", name, shown(), strings.Join(mustContain, ", "))
}

// answer resolves every question of an AskUserQuestion call: an exact
// case_overrides entry, else the LLM tier (its reply must be one of the
// options), else the first option or "yes".
func answer(ctx context.Context, d Decision, p *Policy, h prepared, input map[string]any, llm Answerer) Decision {
	d.Answers, d.Tiers = map[string]string{}, map[string]string{}
	questions, _ := input["questions"].([]any)
	if len(questions) == 0 {
		d.Kind = Deny
		d.Reason = "Blocked by eval harness: AskUserQuestion without questions"
		return d
	}
	for _, raw := range questions {
		q := parseQuestion(raw)
		q.Prompt, q.Model = h.Prompt, p.HookModel
		if a, ok := h.CaseOverrides[q.Question]; ok {
			d.Answers[q.Question], d.Tiers[q.Question] = a, TierOverride
			continue
		}
		if llm != nil && len(q.Options) > 0 {
			reply, err := llm.Answer(ctx, q)
			if err == nil {
				if a, ok := pickOption(reply, q); ok {
					d.Answers[q.Question], d.Tiers[q.Question] = a, TierLLM
					continue
				}
				d.Warnings = append(d.Warnings, fmt.Sprintf("the hook model's answer %q to %q is not one of its options", clip(reply, 80), q.Question))
			} else {
				d.Warnings = append(d.Warnings, fmt.Sprintf("the hook model could not answer %q: %v", q.Question, err))
			}
		}
		a := "yes"
		if len(q.Options) > 0 {
			a = q.Options[0]
		}
		d.Answers[q.Question], d.Tiers[q.Question] = a, TierFallback
		d.Warnings = append(d.Warnings, fmt.Sprintf("answered %q with the fallback %q", q.Question, a))
	}
	d.Kind = Allow
	d.Reason = "answered by eval harness: " + oneLine(h.Match)
	answers := map[string]any{}
	for k, v := range d.Answers {
		answers[k] = v
	}
	d.UpdatedInput = map[string]any{"questions": questions, "answers": answers}
	return d
}

func parseQuestion(raw any) Question {
	m, _ := raw.(map[string]any)
	q := Question{}
	q.Question, _ = m["question"].(string)
	q.Header, _ = m["header"].(string)
	q.MultiSelect, _ = m["multiSelect"].(bool)
	opts, _ := m["options"].([]any)
	for _, o := range opts {
		switch o := o.(type) {
		case string:
			q.Options = append(q.Options, o)
		case map[string]any:
			if l, ok := o["label"].(string); ok {
				q.Options = append(q.Options, l)
			}
		}
	}
	return q
}

// pickOption maps a model reply onto the option labels: exact, else
// case-insensitive after trimming quotes and spaces. A multiSelect reply
// may name several labels, separated by commas.
func pickOption(reply string, q Question) (string, bool) {
	one := func(s string) (string, bool) {
		s = strings.Trim(strings.TrimSpace(s), "\"'`“”.")
		for _, o := range q.Options {
			if s == o {
				return o, true
			}
		}
		for _, o := range q.Options {
			if strings.EqualFold(s, o) {
				return o, true
			}
		}
		return "", false
	}
	if a, ok := one(reply); ok {
		return a, true
	}
	if !q.MultiSelect {
		return "", false
	}
	var picked []string
	for _, part := range strings.Split(reply, ",") {
		a, ok := one(part)
		if !ok {
			return "", false
		}
		picked = append(picked, a)
	}
	return strings.Join(picked, ", "), len(picked) > 0
}

func oneLine(s string) string {
	return clip(strings.Join(strings.Fields(s), " "), 120)
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-3] + "..."
}
