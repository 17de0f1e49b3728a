package intercept

import (
	"context"
	"testing"
)

// BenchmarkDecide measures a decision on a prepared policy, Bash parsing
// included.
func BenchmarkDecide(b *testing.B) {
	p, err := Prepare(File{Handlers: []Handler{{Match: "Jira", Patterns: []string{"Bash"}, InputFilters: []string{`\bjira\b`, `atlassian\.net`},
		EnvChecks: map[string]EnvCheck{"JIRA_SERVER": {MustContain: []string{"localhost", "test"}}}}}})
	if err != nil {
		b.Fatal(err)
	}
	req := Request{ToolName: "Bash", ToolInput: map[string]any{"command": "echo start && JIRA_SERVER=https://prod jira issue create | tee out"}, Env: map[string]string{}}
	for b.Loop() {
		Decide(context.Background(), p, req, nil)
	}
}
