package cli

import (
	"testing"

	"github.com/agent-eval/agent-eval/internal/export/otlp"
)

// The agent reads its environment: --otlp-agent's endpoint never carries
// the credentials of the run's endpoint.
func TestAgentOTLPBase(t *testing.T) {
	tests := []struct {
		name, endpoint, want string
		dropped              bool
	}{
		{"plain", "http://127.0.0.1:4318/v1/traces", "http://127.0.0.1:4318", false},
		{"path prefix", "https://collector.example.com/otlp/v1/traces", "https://collector.example.com/otlp", false},
		{"user and password", "https://bot:hunter2hunter2@collector.example.com/v1/traces", "https://collector.example.com", true},
		{"token as user", "https://ghp_abcdefghijklmnopqrstuvwxyz0123456789@collector.example.com/v1/traces", "https://collector.example.com", true},
		{"query token", "https://collector.example.com/v1/traces?api_key=sekrit-query-key", "https://collector.example.com", true},
		{"fragment", "https://collector.example.com/v1/traces#sekrit", "https://collector.example.com", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, dropped := agentOTLPBase(&otlp.Options{Endpoint: tt.endpoint})
			if got != tt.want || dropped != tt.dropped {
				t.Errorf("agentOTLPBase(%q) = %q, %v; want %q, %v", tt.endpoint, got, dropped, tt.want, tt.dropped)
			}
		})
	}
}
