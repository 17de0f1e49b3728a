package cli

import (
	"fmt"
	"os"
	"strings"

	"github.com/agent-eval/agent-eval/internal/config"

	"github.com/agent-eval/agent-eval/internal/intercept"
	"github.com/agent-eval/agent-eval/internal/results"
)

// answerTiers is the order tiers are listed in: the order the hook tries
// them.
var answerTiers = []string{intercept.TierOverride, intercept.TierLLM, intercept.TierFallback}

// tierCells is a case's answer count with its tiers: "0", or
// "2 (1 case_override, 1 llm)".
func tierCells(c *results.Case) string {
	if c.Answers == 0 {
		return "0"
	}
	var parts []string
	for _, tier := range answerTiers {
		if n := c.AnswersByTier[tier]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, tier))
		}
	}
	for tier, n := range c.AnswersByTier { // a tier this build does not know
		if n > 0 && !contains(answerTiers, tier) {
			parts = append(parts, fmt.Sprintf("%d %s", n, tier))
		}
	}
	if len(parts) == 0 {
		return fmt.Sprint(c.Answers)
	}
	return fmt.Sprintf("%d (%s)", c.Answers, strings.Join(parts, ", "))
}

// answeredByTier is the progress line's part: "0 answered",
// "1 answered (1 llm)".
func answeredByTier(c *results.Case) string {
	cell := tierCells(c)
	if n, rest, ok := strings.Cut(cell, " "); ok {
		return n + " answered " + rest
	}
	return cell + " answered"
}

// fallbackWarnings name each question the fallback answered: neither a
// case_overrides entry nor the hook model answered it, so the agent got the
// first option (or "yes") whatever the case says.
func fallbackWarnings(c *results.Case) []string {
	var out []string
	for _, a := range c.AnswerLog {
		if a.Tier == intercept.TierFallback {
			why := a.Why
			if why == "" {
				why = "the hook model gave no usable answer"
			}
			out = append(out, fmt.Sprintf("%s: question %q was answered by the fallback (%q): no case_overrides entry matched and %s", c.CaseID, a.Question, a.Answer, why))
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// warnTier2Scrub warns, once per run, when Claude Code's scrub will take the
// API key from the hook (the sandbox is on, or the eval set the scrub) while
// a handler answers AskUserQuestion against the real API: the hook model
// cannot authenticate, so every question without a case_overrides entry gets
// the fallback. Under --fake-model the fake needs no key.
func (st *runState) warnTier2Scrub(fake bool) {
	if fake || st.handlers == nil {
		return
	}
	extra := config.ResolveEnv(st.ev.Runner.Env, os.LookupEnv)
	st.scrubDefault(extra)
	if extra[ScrubEnv] != "1" && extra[ScrubEnv] != "true" {
		return
	}
	for _, h := range st.handlers.Handlers {
		for _, p := range h.Patterns {
			if p == "AskUserQuestion" || (strings.HasSuffix(p, "*") && strings.HasPrefix("AskUserQuestion", strings.TrimSuffix(p, "*"))) {
				fmt.Fprintln(st.e.Err, "agent-eval: warning: with "+ScrubEnv+"=1 (the sandbox is on) Claude Code removes ANTHROPIC_API_KEY and ANTHROPIC_AUTH_TOKEN from the hook, so the hook model cannot answer AskUserQuestion: questions without a case_overrides entry in the case's answers.yaml get the fallback (README, Tool interception)")
				return
			}
		}
	}
}
