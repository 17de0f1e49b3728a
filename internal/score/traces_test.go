package score

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-eval/agent-eval/internal/transcript"
)

// TestTracesGateTheRecord: each traces: switch decides what of the case a
// judge's record holds.
func TestTracesGateTheRecord(t *testing.T) {
	c := fixtureCase{id: "case-a", cost: 0.5, files: map[string]string{"output/a.txt": "hi"},
		events: []transcript.Event{text("I said hello"), call("t1", "Bash", `{"command":"ls"}`), result("t1", "a.txt", false)}}
	for _, tc := range []struct {
		name, traces string
		has, lacks   []string
		conv         string
		calls        int
	}{
		{"all on", "", []string{"stdout", "stderr", "cost_usd", "num_turns", "exit_code"}, nil, "I said hello", 1},
		{"stdout off", "traces:\n  stdout: false\n", []string{"stderr", "cost_usd"}, []string{"stdout"}, "I said hello", 1},
		{"stderr off", "traces:\n  stderr: false\n", []string{"stdout"}, []string{"stderr"}, "I said hello", 1},
		{"metrics off", "traces:\n  metrics: false\n", []string{"stdout", "status"}, []string{"cost_usd", "num_turns", "exit_code", "duration_s", "token_usage"}, "I said hello", 1},
		{"events off", "traces:\n  events: false\n", []string{"stdout"}, nil, "STDOUT-TEXT\n", 0},
		{"events and stdout off", "traces:\n  events: false\n  stdout: false\n", nil, []string{"stdout"}, "", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ev, dir := writeProject(t, scoreEval+tc.traces, c)
			must(t, os.WriteFile(filepath.Join(dir.Case("case-a"), "stdout.log"), []byte("STDOUT-TEXT\n"), 0o644))
			must(t, os.WriteFile(filepath.Join(dir.Case("case-a"), "stderr.log"), []byte("STDERR-TEXT\n"), 0o644))
			rec, err := BuildRecord(dir, ev, "case-a")
			must(t, err)
			for _, k := range tc.has {
				if _, ok := rec.Outputs[k]; !ok {
					t.Errorf("outputs lack %s", k)
				}
			}
			for _, k := range tc.lacks {
				if _, ok := rec.Outputs[k]; ok {
					t.Errorf("outputs hold %s", k)
				}
			}
			if got := rec.Conversation(); got != tc.conv {
				t.Errorf("conversation = %q; want %q", got, tc.conv)
			}
			if len(rec.ToolCalls) != tc.calls || len(rec.Outputs["tool_calls"].([]any)) != tc.calls {
				t.Errorf("%d tool calls; want %d", len(rec.ToolCalls), tc.calls)
			}
			// What an LLM judge is sent follows the same switches.
			got, err := renderFor("{{ outputs.stdout }}|{{ conversation }}|{{ tool_trace }}", rec)
			must(t, err)
			if want := !strings.Contains(tc.name, "stdout off") && tc.name != "events and stdout off"; strings.Contains(got, "STDOUT-TEXT") != want {
				t.Errorf("prompt %q: stdout shown = %v; want %v", got, !want, want)
			}
			if strings.Contains(got, "Bash") != (tc.calls > 0) {
				t.Errorf("prompt %q: tool trace shown = %v", got, tc.calls == 0)
			}
		})
	}
}
