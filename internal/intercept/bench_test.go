package intercept

import (
	"context"
	"testing"
)

// BenchmarkDecide measures a decision on a prepared policy, Bash parsing and
// normalisation included: a matched command denied by its env_check, and an
// everyday command no filter matches (what most calls are).
func BenchmarkDecide(b *testing.B) {
	p, err := Prepare(File{Handlers: []Handler{{Match: "Jira", Patterns: []string{"Bash"}, InputFilters: []string{`\bjira\b`, `atlassian\.net`},
		EnvChecks: map[string]EnvCheck{"JIRA_SERVER": {MustContain: []string{"localhost", "test"}}}}}})
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct{ name, command string }{
		{"deny", "echo start && JIRA_SERVER=https://prod jira issue create | tee out"},
		{"everyday", `cd api && go test ./... -run 'TestX' -count=1 2>&1 | tail -20 && git commit -m "fix: $(date +%F)"`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			req := Request{ToolName: "Bash", ToolInput: map[string]any{"command": bc.command}, Env: map[string]string{"HOME": "/home/u", "PWD": "/ws"}}
			for b.Loop() {
				Decide(context.Background(), p, req, nil)
			}
		})
	}
}
