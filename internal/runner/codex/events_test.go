package codex

import (
	"strings"
	"testing"

	"github.com/agent-eval/agent-eval/internal/redact"
	"github.com/agent-eval/agent-eval/internal/runner"
	"github.com/agent-eval/agent-eval/internal/transcript"
)

// TestInfraErrorHidesSecretAtTheCut: the message of a first turn that
// failed is redacted before it is clipped, so a secret across the cut is
// not shown in part.
func TestInfraErrorHidesSecretAtTheCut(t *testing.T) {
	const secret = "correct-horse-battery-staple-0042"
	msg := strings.Repeat("x", 190) + " " + secret + " tail"
	p := newParser(func(transcript.Event) {})
	p.line([]byte(`{"type":"turn.started"}`))
	p.line([]byte(`{"type":"turn.failed","error":{"message":"` + msg + `"}}`))
	out := runner.Result{Redactor: redact.New(map[string]string{"DB_PASSWORD": secret})}
	p.finish(&out, rollout{}, "gpt-5.5", nil)
	if out.InfraError == "" {
		t.Fatalf("no infrastructure error for a first turn that failed: %+v", out)
	}
	if strings.Contains(out.InfraError, secret[:8]) {
		t.Errorf("the error shows part of the secret: %q", out.InfraError)
	}
}
