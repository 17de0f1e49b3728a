package rundir

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/agent-eval/agent-eval/internal/transcript"
)

// TestWriteEvents: events.json holds the transcript as runner-neutral
// events (a tool result named by its call's tool), and [] for a case with
// no transcript.
func TestWriteEvents(t *testing.T) {
	f := CaseFolder{t.TempDir()}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(f.WriteEvents())
	if b, _ := os.ReadFile(f.Events()); string(b) != "[]\n" {
		t.Errorf("events.json of no transcript = %q; want []", b)
	}
	tf, err := os.Create(f.Transcript())
	must(err)
	w := transcript.NewWriter(tf)
	for _, e := range []transcript.Event{
		{Kind: transcript.KindPrompt, Text: "do it"},
		{Kind: transcript.KindText, Text: "on it"},
		{Kind: transcript.KindToolCall, ToolUseID: "t1", Tool: "Bash", Input: json.RawMessage(`{"command":"ls"}`)},
		{Kind: transcript.KindToolResult, ToolUseID: "t1", Text: "a.txt"},
		{Kind: transcript.KindDenial, ToolUseID: "t2", Tool: "Write"},
		{Kind: transcript.KindResult, Text: "done"},
	} {
		w.Write(e)
	}
	must(w.Flush())
	must(tf.Close())
	must(f.WriteEvents())
	b, err := os.ReadFile(filepath.Join(f.Path, EventsFile))
	must(err)
	var got []map[string]any
	must(json.Unmarshal(b, &got))
	types := []string{}
	for _, e := range got {
		types = append(types, e["type"].(string))
	}
	want := []string{"prompt", "assistant", "assistant", "tool_result", "permission_denial", "result"}
	if len(types) != len(want) {
		t.Fatalf("types = %v; want %v", types, want)
	}
	for i := range want {
		if types[i] != want[i] {
			t.Errorf("event %d is %s; want %s", i, types[i], want[i])
		}
	}
	if got[3]["tool_name"] != "Bash" || got[3]["content"] != "a.txt" {
		t.Errorf("tool result = %v", got[3])
	}
	if tools := got[2]["tools"].([]any); tools[0].(map[string]any)["name"] != "Bash" {
		t.Errorf("tool call = %v", got[2])
	}
}
