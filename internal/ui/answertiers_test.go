package ui

import (
	"strings"
	"testing"

	"github.com/agent-eval/agent-eval/internal/results"
)

func TestAnswersByTier(t *testing.T) {
	t.Parallel()
	log := []results.Answer{
		{Question: "Which env?", Answer: "staging", Tier: "llm"},
		{Question: "Deploy?", Answer: "no", Tier: "case_override"},
		{Question: "Formal?", Answer: "yes", Tier: "fallback"},
	}
	for _, tc := range []struct {
		name      string
		log       []results.Answer
		cell      string
		line      string
		fallbacks int
	}{
		{"none", nil, "0", "0 answered", 0},
		{"llm", log[:1], "1 (1 llm)", "1 answered (1 llm)", 0},
		{"all", log, "3 (1 case_override, 1 llm, 1 fallback)", "3 answered (1 case_override, 1 llm, 1 fallback)", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &results.Case{CaseID: "c1", Answers: len(tc.log), AnswerLog: tc.log, AnswersByTier: results.TierCounts(tc.log)}
			if got := tierCells(c.Answers, c.AnswersByTier); got != tc.cell {
				t.Errorf("tierCells = %q, want %q", got, tc.cell)
			}
			if got := answeredByTier(c); got != tc.line {
				t.Errorf("answeredByTier = %q, want %q", got, tc.line)
			}
			w := fallbackWarnings(c)
			if len(w) != tc.fallbacks {
				t.Fatalf("fallbackWarnings = %q, want %d", w, tc.fallbacks)
			}
			if len(w) == 1 && (!strings.Contains(w[0], "c1") || !strings.Contains(w[0], `"Formal?"`)) {
				t.Errorf("warning %q names neither the case nor the question", w[0])
			}
		})
	}
	run := results.RunResult{PerCase: map[string]*results.Case{}}
	run.Add(&results.Case{CaseID: "a", AnswersByTier: map[string]int{"llm": 1}})
	run.Add(&results.Case{CaseID: "b", AnswersByTier: map[string]int{"llm": 2, "fallback": 1}})
	if run.AnswersByTier["llm"] != 3 || run.AnswersByTier["fallback"] != 1 {
		t.Errorf("run answers_by_tier = %v", run.AnswersByTier)
	}
}
