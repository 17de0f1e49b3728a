package engine

import (
	"testing"

	"github.com/agent-eval/agent-eval/internal/results"
)

// TestErrored: --retry errored runs again a case lost to the harness or
// the infrastructure, never one the agent made an error (ungated,
// tampered, over its collection limits).
func TestErrored(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		c    results.Case
		want bool
	}{
		{"harness error", results.Case{Status: results.StatusError}, true},
		{"infra error", results.Case{Status: results.StatusInfraError}, true},
		{"failed", results.Case{Status: results.StatusFailed}, false},
		{"ungated", results.Case{Status: results.StatusError, Ungated: true}, false},
		{"tampered", results.Case{Status: results.StatusError, Tampered: []string{"x: added"}}, false},
		{"over its limits", results.Case{Status: results.StatusError, OverLimit: &results.OverLimit{SkippedFiles: 1}}, false},
	} {
		if got := errored(&tc.c); got != tc.want {
			t.Errorf("%s: errored = %v, want %v", tc.name, got, tc.want)
		}
	}
}
