package engine

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agent-eval/agent-eval/internal/redact"
	"github.com/agent-eval/agent-eval/internal/results"
	"github.com/agent-eval/agent-eval/internal/transcript"
)

// TestRedactCaseEveryField: each free-text field of a case result (and of
// its steps) loses the run's known secret, whatever field the agent or
// the hook model put it in.
func TestRedactCaseEveryField(t *testing.T) {
	t.Parallel()
	const secret = "zQ7mvKnownSecret31"
	in := json.RawMessage(`{"command":"echo ` + secret + `"}`)
	tests := []struct {
		name string
		c    results.Case
	}{
		{"error", results.Case{Error: "agent said " + secret}},
		{"result", results.Case{Result: "the token is " + secret}},
		{"modified file", results.Case{ModifiedFiles: []string{"out/" + secret + ".txt"}}},
		{"file over a limit", results.Case{OverLimit: &results.OverLimit{Skipped: []results.SkippedFile{{Path: "out/" + secret + ".bin", Bytes: 1}}}}},
		{"denial input", results.Case{PermissionDenials: []transcript.Denial{{ToolName: "Bash", ToolInput: in}}}},
		{"answer question", results.Case{AnswerLog: []results.Answer{{Question: "is it " + secret + "?"}}}},
		{"answer", results.Case{AnswerLog: []results.Answer{{Answer: "yes: " + secret}}}},
		{"answer why", results.Case{AnswerLog: []results.Answer{{Why: "model saw " + secret}}}},
		{"step result", results.Case{Steps: []*results.Case{{Result: "step printed " + secret}}}},
		{"step denial", results.Case{Steps: []*results.Case{{PermissionDenials: []transcript.Denial{{ToolInput: in}}}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			red := redact.New(map[string]string{"APP_TOKEN": secret})
			c := tt.c
			before, err := json.Marshal(&c)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(before), secret) {
				t.Fatalf("fixture: %s holds no secret", before)
			}
			RedactCase(&c, red)
			after, err := json.Marshal(&c)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(after), secret) {
				t.Errorf("RedactCase left the secret: %s", after)
			}
		})
	}
	// No redactor (a run with nothing to hide) leaves the case as it was.
	c := results.Case{Result: secret}
	RedactCase(&c, nil)
	if c.Result != secret {
		t.Errorf("RedactCase(nil) changed the result to %q", c.Result)
	}
}
