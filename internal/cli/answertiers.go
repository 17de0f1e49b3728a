package cli

import (
	"fmt"
	"strings"

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
