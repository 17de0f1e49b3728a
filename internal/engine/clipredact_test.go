package engine

import (
	"errors"
	"strings"
	"testing"

	"github.com/agent-eval/agent-eval/internal/redact"
	"github.com/agent-eval/agent-eval/internal/results"
	"github.com/agent-eval/agent-eval/internal/runner"
)

// The agent's final message and the error it could not run with are
// clipped in the case's error; a secret across the cut is hidden all the
// same (redacted first: a secret cut short is no longer found).
func TestCaseErrorHidesSecretAtTheCut(t *testing.T) {
	const secret = "correct-horse-battery-staple-42"
	red := redact.New(map[string]string{"DB_PASSWORD": secret})
	at := strings.Repeat("x", 185) + " " + secret + " and more"
	tests := []struct {
		name string
		res  runner.Result
		got  func(c *results.Case, res runner.Result) string
	}{
		{"final message", runner.Result{ExitCode: 1, IsError: true, Text: at, Redactor: red},
			func(c *results.Case, res runner.Result) string { RecordInvocation(c, res, 0); return c.Error }},
		{"could not run", runner.Result{ExitCode: -1, Err: errors.New(at), Redactor: red},
			func(_ *results.Case, res runner.Result) string { return InfraFailure(res) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.got(&results.Case{}, tt.res)
			if strings.Contains(got, secret[:8]) || !strings.Contains(got, redact.Mark) {
				t.Errorf("the error shows part of the secret, or no mark: %q", got)
			}
		})
	}
}
