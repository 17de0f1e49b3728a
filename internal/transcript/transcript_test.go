package transcript

import (
	"bytes"
	"strings"
	"testing"
)

func TestWriteRead(t *testing.T) {
	var b bytes.Buffer
	w := NewWriter(&b)
	long := strings.Repeat("é", MaxText) // 2 bytes a rune: cut on a rune boundary
	w.Write(Event{Kind: KindPrompt, Text: "do it"})
	w.Write(Event{Kind: KindToolCall, ToolUseID: "t1", Tool: "Bash", Input: []byte(`{"command":"ls"}`)})
	w.Write(Event{Kind: KindToolResult, ToolUseID: "t1", Text: long})
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	b.WriteString("{\"kind\":\"text\",\"te") // a crash mid-line
	ev, skipped, err := Read(&b)
	if err != nil {
		t.Fatal(err)
	}
	if len(ev) != 3 || skipped != 1 {
		t.Fatalf("got %d events, %d skipped; want 3, 1", len(ev), skipped)
	}
	r := ev[2]
	if !r.Truncated || len(r.Text) > MaxText || !strings.HasPrefix(long, r.Text) || !strings.HasSuffix(r.Text, "é") {
		t.Errorf("the long result was not clipped on a rune boundary: truncated=%v len=%d", r.Truncated, len(r.Text))
	}
	if ev[1].Tool != "Bash" || string(ev[1].Input) != `{"command":"ls"}` {
		t.Errorf("tool call = %+v", ev[1])
	}
}
