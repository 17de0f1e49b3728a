package hook

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-eval/agent-eval/internal/intercept"
)

// BenchmarkRun measures one hook call in-process: read the input, load and
// prepare the handlers, decide, print, append to the ledger.
func BenchmarkRun(b *testing.B) {
	dir := b.TempDir()
	writeHandlers(b, dir, intercept.File{Handlers: []intercept.Handler{
		{Match: "q", Patterns: []string{"AskUserQuestion"}, CaseOverrides: map[string]string{"Deploy?": "no"}},
		{Match: "Jira", Patterns: []string{"Bash", "mcp__atlassian__*"}, InputFilters: []string{`\bjira\b`, `atlassian\.net`, `/rest/api/[0-9]+/issue`},
			EnvChecks: map[string]intercept.EnvCheck{"JIRA_SERVER": {MustContain: []string{"localhost", "127.0.0.1", "emulator", "test", "staging"}}}},
	}})
	cases := map[string]string{
		"deny":   input("Bash", map[string]any{"command": "./scripts/jira issue create --summary x"}, dir),
		"pass":   input("Bash", map[string]any{"command": "ls -la"}, dir),
		"answer": input("AskUserQuestion", map[string]any{"questions": []any{map[string]any{"question": "Deploy?", "options": []any{map[string]any{"label": "yes"}, map[string]any{"label": "no"}}}}}, dir),
	}
	env := []string{"JIRA_SERVER=https://acme.atlassian.net"}
	for name, in := range cases {
		b.Run(name, func(b *testing.B) {
			var out bytes.Buffer
			for b.Loop() {
				out.Reset()
				Run(context.Background(), strings.NewReader(in), &out, &out, Options{Environ: env})
			}
		})
	}
	_ = os.Remove(filepath.Join(dir, LedgerFile))
}
