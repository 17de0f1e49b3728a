package stream

import (
	"bufio"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agent-eval/agent-eval/internal/transcript"
)

func TestEvents(t *testing.T) {
	t.Parallel()
	f, err := os.Open("testdata/claude-2.1.332.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var got []transcript.Event
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		for _, e := range Events(sc.Bytes()) {
			e.Input = nil // compared below by tool
			got = append(got, e)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	const m = "claude-opus-5-5"
	want := []transcript.Event{
		{Kind: transcript.KindText, Text: "Let me check.", Model: m},
		{Kind: transcript.KindToolCall, ToolUseID: "toolu_fake_0_0", Tool: "Bash", Model: m},
		{Kind: transcript.KindToolCall, ToolUseID: "toolu_fake_0_1", Tool: "Bash", Model: m},
		{Kind: transcript.KindToolResult, ToolUseID: "toolu_fake_0_0", Text: "hi"},
		{Kind: transcript.KindToolResult, ToolUseID: "toolu_fake_0_1", Text: "Permission to use Bash with command rm -rf junk has been denied.", IsError: true},
		{Kind: transcript.KindText, Text: "All done.", Model: m},
		{Kind: transcript.KindDenial, ToolUseID: "toolu_fake_0_1", Tool: "Bash"},
		{Kind: transcript.KindResult, Text: "All done."},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Events (-want +got):\n%s", diff)
	}
	if got := Events([]byte("not json")); got != nil {
		t.Errorf("Events(junk) = %v, want nil", got)
	}
}
