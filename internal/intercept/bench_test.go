package intercept

import (
	"context"
	"strings"
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

// nestedSubst is n levels of $( around a command.
func nestedSubst(n int) string {
	return strings.Repeat("echo $(", n) + "jira" + strings.Repeat(")", n)
}

// BenchmarkDecidePathological measures the inputs that once took the hook
// past Claude Code's timeout (7,000 levels of $( took 43 s): at the limits
// the analysis still reads, and far beyond them, where it denies before
// parsing.
func BenchmarkDecidePathological(b *testing.B) {
	p, err := Prepare(File{Root: "/ws", DeniedPaths: []string{"secret/**"}, Handlers: []Handler{{Match: "Jira", Patterns: []string{"Bash"}, InputFilters: []string{`\bjira\b`},
		EnvChecks: map[string]EnvCheck{"JIRA_SERVER": {MustContain: []string{"localhost"}}}}}})
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct{ name, command string }{
		{"nested-at-limit", nestedSubst(maxParenDepth / 2)},
		{"nested-12000", nestedSubst(12000)},
		{"flat-at-limit", strings.Repeat("echo a; ", maxCommandBytes/8-1)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			req := Request{ToolName: "Bash", ToolInput: map[string]any{"command": bc.command}, Env: map[string]string{"HOME": "/home/u"}, CWD: "/ws"}
			for b.Loop() {
				Decide(context.Background(), p, req, nil)
			}
		})
	}
}
