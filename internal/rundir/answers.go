package rundir

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/agent-eval/agent-eval/internal/intercept"
	"github.com/agent-eval/agent-eval/internal/results"
	"github.com/agent-eval/agent-eval/internal/transcript"
)

// DeliveredAnswers reads a decision ledger (hook_decisions.jsonl) and keeps
// the answers Claude Code actually gave the agent: those of an allow whose
// tool call came back with a tool_result that is not an error. An answer
// whose call was denied (by a permission rule, or because Claude Code
// killed the hook at its timeout), or that never returned, is counted in
// notDelivered instead: the ledger says what the hook decided, the
// transcript what happened.
func DeliveredAnswers(ledger io.Reader, calls []transcript.ToolCall) (answered []results.Answer, notDelivered int, err error) {
	byID := map[string]transcript.ToolCall{}
	for _, c := range calls {
		byID[c.ID] = c
	}
	sc := bufio.NewScanner(ledger)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		var e Decision
		if json.Unmarshal(sc.Bytes(), &e) != nil || len(e.Answers) == 0 {
			continue
		}
		call, ok := byID[e.ToolUseID]
		if e.Decision != string(intercept.Allow) || e.ToolUseID == "" || !ok || !call.Returned || call.IsError {
			notDelivered += len(e.Answers)
			continue
		}
		qs := make([]string, 0, len(e.Answers))
		for q := range e.Answers {
			qs = append(qs, q)
		}
		sort.Strings(qs)
		for _, q := range qs {
			a := results.Answer{ToolUseID: e.ToolUseID, Question: q, Answer: e.Answers[q], Tier: e.Tiers[q]}
			if a.Tier == intercept.TierFallback {
				a.Why = fallbackWhy(e.Warnings, q)
			}
			answered = append(answered, a)
		}
	}
	if err := sc.Err(); err != nil {
		return answered, notDelivered, fmt.Errorf("read the decision ledger: %w", err)
	}
	return answered, notDelivered, nil
}

// fallbackWhy picks the hook's warning about question q other than the
// fallback notice itself: why tier 2 did not answer. Its first line only
// (an SDK error runs on), clipped.
func fallbackWhy(warnings []string, q string) string {
	quoted := fmt.Sprintf("%q", q)
	for _, w := range warnings {
		if !strings.Contains(w, quoted) || strings.HasPrefix(w, "answered "+quoted+" with the fallback") {
			continue
		}
		w, _, _ = strings.Cut(w, "\n")
		w = strings.TrimSpace(w)
		if len(w) > 240 {
			w = w[:237] + "..."
		}
		return w
	}
	return ""
}

// Canaries counts the canary lines of a decision ledger (hook --canary):
// each is a session that ran its hooks.
func Canaries(ledger []byte) int {
	n := 0
	for _, line := range splitLines(ledger) {
		var e struct {
			Decision string `json:"decision"`
		}
		if json.Unmarshal(line, &e) == nil && e.Decision == DecisionCanary {
			n++
		}
	}
	return n
}
