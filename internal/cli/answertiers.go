package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/hook"
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

// hookCredentials hands the hook model its credentials when Claude Code's
// scrub will take them from the hook (CLAUDE_CODE_SUBPROCESS_ENV_SCRUB=1,
// set whenever the sandbox is on) while a handler answers AskUserQuestion:
// a 0600 file in a folder of its own, which the sandbox keeps from the
// agent's commands and a Read/Edit deny rule from its tools; the hook reads
// it (--credentials) only when a question reaches tier 2. Without the
// eval's sandbox nothing would keep that file from the agent, so an eval
// that sets the scrub itself gets a warning instead: its questions fall
// back. Under --fake-model the file holds the fake's placeholder key.
func (st *runState) hookCredentials(fake bool) error {
	if st.handlers == nil || !asksQuestions(st.handlers) {
		return nil
	}
	extra := config.ResolveEnv(st.ev.Runner.Env, os.LookupEnv)
	st.scrubDefault(extra)
	if extra[ScrubEnv] != "1" && extra[ScrubEnv] != "true" {
		return nil
	}
	if !st.sandbox.On {
		if !fake {
			fmt.Fprintln(st.e.Err, "agent-eval: warning: runner.env sets "+ScrubEnv+" without the eval's sandbox, so Claude Code removes ANTHROPIC_API_KEY and ANTHROPIC_AUTH_TOKEN from the hook and the hook model cannot answer AskUserQuestion: questions without a case_overrides entry get the fallback (set permissions.sandbox: on instead; README, Tool interception)")
		}
		return nil
	}
	lookup := os.LookupEnv
	if fake {
		lookup = func(name string) (string, bool) { return "fake-model", name == "ANTHROPIC_API_KEY" }
	}
	content := hook.FormatCredentials(lookup)
	if content == "" {
		return nil // nothing to hand over: the hook model will say so per question
	}
	dir, err := os.MkdirTemp("", "agent-eval-cred-")
	if err != nil {
		return fmt.Errorf("make the hook's credentials folder: %w", err)
	}
	st.credDir, st.credFile = dir, filepath.Join(dir, "hook.env")
	if err := os.WriteFile(st.credFile, []byte(content), 0o600); err != nil {
		return fmt.Errorf("write the hook's credentials: %w", err)
	}
	return nil
}

// asksQuestions reports whether a handler covers AskUserQuestion.
func asksQuestions(f *intercept.File) bool {
	return slices.ContainsFunc(f.Handlers, intercept.AnswersQuestions)
}
