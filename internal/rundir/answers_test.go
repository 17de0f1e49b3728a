package rundir

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agent-eval/agent-eval/internal/results"
	"github.com/agent-eval/agent-eval/internal/transcript"
)

// TestDeliveredAnswers: only answers whose call came back without an error
// count; the ledger's allow is what the hook decided, not what happened.
func TestDeliveredAnswers(t *testing.T) {
	t.Parallel()
	ledger := strings.Join([]string{
		`{"tool_use_id":"ok","tool":"AskUserQuestion","decision":"allow","answers":{"B?":"no","A?":"yes"},"tiers":{"A?":"llm","B?":"fallback"},"warnings":["the hook model could not answer \"B?\": no credentials\nmore lines","answered \"B?\" with the fallback \"no\""]}`,
		// Claude Code killed the hook at its timeout and denied the call.
		`{"tool_use_id":"killed","tool":"AskUserQuestion","decision":"allow","answers":{"C?":"yes"},"tiers":{"C?":"llm"}}`,
		// Denied by a permission rule after the hook answered.
		`{"tool_use_id":"denied","tool":"AskUserQuestion","decision":"allow","answers":{"D?":"yes"},"tiers":{"D?":"case_override"}}`,
		// The run ended before the call returned.
		`{"tool_use_id":"pending","tool":"AskUserQuestion","decision":"allow","answers":{"E?":"yes"},"tiers":{"E?":"llm"}}`,
		// Not in the transcript at all, or without an id.
		`{"tool_use_id":"ghost","tool":"AskUserQuestion","decision":"allow","answers":{"F?":"yes"}}`,
		`{"tool":"AskUserQuestion","decision":"allow","answers":{"G?":"yes"}}`,
		`{"tool_use_id":"bash","tool":"Bash","decision":"deny","reason":"no"}`,
		`not json`,
	}, "\n")
	calls := []transcript.ToolCall{
		{ID: "ok", Name: "AskUserQuestion", Returned: true},
		{ID: "killed", Name: "AskUserQuestion", Returned: true, IsError: true},
		{ID: "denied", Name: "AskUserQuestion", Returned: true, IsError: true},
		{ID: "pending", Name: "AskUserQuestion"},
		{ID: "bash", Name: "Bash", Returned: true, IsError: true},
	}
	got, lost, err := DeliveredAnswers(strings.NewReader(ledger), calls)
	if err != nil {
		t.Fatal(err)
	}
	want := []results.Answer{{ToolUseID: "ok", Question: "A?", Answer: "yes", Tier: "llm"}, {ToolUseID: "ok", Question: "B?", Answer: "no", Tier: "fallback", Why: `the hook model could not answer "B?": no credentials`}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("delivered answers (-want +got):\n%s", diff)
	}
	if lost != 5 {
		t.Errorf("%d answers not delivered, want 5", lost)
	}
}
