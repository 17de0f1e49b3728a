package transcript

import (
	"encoding/json"
	"strings"

	"github.com/agent-eval/agent-eval/internal/clip"
)

// WithDenials adds the permission denials a case's result records that its
// transcript lacks (a run without transcript.jsonl, or a denial the runner
// did not stream) as KindDenial events at the end, so every denial is seen
// once.
func WithDenials(events []Event, denials []Denial) []Event {
	seen := map[string]bool{}
	for _, e := range events {
		if e.Kind == KindDenial {
			seen[e.ToolUseID] = true
		}
	}
	for _, d := range denials {
		if d.ToolUseID == "" || !seen[d.ToolUseID] {
			events = append(events, Event{Kind: KindDenial, ToolUseID: d.ToolUseID, Tool: d.ToolName, Input: d.ToolInput})
		}
	}
	return events
}

// InputSummary is a tool call's input in one line of at most n bytes: the
// command, the path, the pattern — what a person would say the call was —
// else the input itself.
func InputSummary(input json.RawMessage, n int) string {
	var m map[string]any
	if json.Unmarshal(input, &m) != nil {
		return clip.String(OneLine(string(input)), n)
	}
	for _, k := range []string{"command", "file_path", "path", "pattern", "url", "query", "description", "prompt"} {
		if s, ok := m[k].(string); ok && s != "" {
			return clip.String(OneLine(s), n)
		}
	}
	if qs, ok := m["questions"].([]any); ok && len(qs) > 0 {
		if q, ok := qs[0].(map[string]any); ok {
			if s, ok := q["question"].(string); ok {
				return clip.String(OneLine(s), n)
			}
		}
	}
	return clip.String(OneLine(string(input)), n)
}

// OneLine is s with every run of white space (new lines too) one space.
func OneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
