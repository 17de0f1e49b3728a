package clirunner

import (
	"bufio"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/agent-eval/agent-eval/internal/transcript"
)

// parseFile feeds a captured stdout to a Parser, as Run does.
func parseFile(t *testing.T, path string) (Summary, []transcript.Event) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var events []transcript.Event
	p := NewParser(func(e transcript.Event) { events = append(events, e) })
	p.Line([]byte("a wrapper's own message, not JSON\n"))
	p.Line([]byte(`{"unrelated":"json"}`))
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		p.Line(sc.Bytes())
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	p.Finish()
	return p.Summary(), events
}

var ignoreInput = cmpopts.IgnoreFields(transcript.Event{}, "Input")

// Captured from opencode 1.18.33 run --format json against the fake
// Messages API: one scripted bash call that writes hello.txt, then text.
func TestOpenCodeBashWrite(t *testing.T) {
	t.Parallel()
	s, events := parseFile(t, "testdata/opencode-bash-write.jsonl")
	if s.Format != FormatOpenCode {
		t.Fatalf("Format = %q, want opencode", s.Format)
	}
	want := Summary{Format: FormatOpenCode, Text: "done.", CostUSD: 0.000249 + 0.000054, NumTurns: 2,
		Usage: transcript.Usage{InputTokens: 16, OutputTokens: 17},
		ToolCalls: []transcript.ToolCall{{ID: "toolu_fake_0_0", Name: "bash", Result: "(no output)", Returned: true,
			Input: []byte(`{"command":"printf 'Hello from OpenCode smoke test' > hello.txt","description":"create hello.txt"}`)}},
		Denials: []transcript.Denial{}}
	if diff := cmp.Diff(want, s, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
		t.Errorf("Summary (-want +got):\n%s", diff)
	}
	wantEvents := []transcript.Event{
		{Kind: transcript.KindText, Text: "Creating the file."},
		{Kind: transcript.KindToolCall, ToolUseID: "toolu_fake_0_0", Tool: "bash"},
		{Kind: transcript.KindToolResult, ToolUseID: "toolu_fake_0_0", Text: "(no output)"},
		{Kind: transcript.KindText, Text: "done."},
		{Kind: transcript.KindResult, Text: "done."},
	}
	if diff := cmp.Diff(wantEvents, events, ignoreInput); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

// OpenCode's own permission layer rejects a read outside the project
// (a denial); a failing command is a completed call with its exit code in
// metadata, not an error.
func TestOpenCodeToolErrors(t *testing.T) {
	t.Parallel()
	s, events := parseFile(t, "testdata/opencode-tool-errors.jsonl")
	if len(s.ToolCalls) != 2 || !s.ToolCalls[0].IsError || s.ToolCalls[1].IsError || s.ToolCalls[1].Result != "out\n" {
		t.Errorf("ToolCalls = %+v, want the read rejected and the bash call completed", s.ToolCalls)
	}
	if len(s.Denials) != 1 || s.Denials[0].ToolName != "read" || s.Denials[0].ToolUseID != "toolu_fake_0_0" {
		t.Errorf("Denials = %+v, want the rejected read", s.Denials)
	}
	var kinds []transcript.Kind
	for _, e := range events {
		kinds = append(kinds, e.Kind)
	}
	want := []transcript.Kind{transcript.KindText, transcript.KindToolCall, transcript.KindDenial, transcript.KindToolResult,
		transcript.KindToolCall, transcript.KindToolResult, transcript.KindResult}
	if diff := cmp.Diff(want, kinds); diff != "" {
		t.Errorf("event kinds (-want +got):\n%s", diff)
	}
}

// An API error ends the run with an error event (and exit code 1).
func TestOpenCodeAPIError(t *testing.T) {
	t.Parallel()
	s, events := parseFile(t, "testdata/opencode-api-error.jsonl")
	if !s.IsError || s.Text != "scripted bad key" || s.NumTurns != 0 {
		t.Errorf("Summary = %+v, want the error's message flagged", s)
	}
	if len(events) != 1 || events[0].Kind != transcript.KindResult || !events[0].IsError {
		t.Errorf("events = %+v, want one error result", events)
	}
}

// Claude Code's stream-json is recognised and parsed by package stream.
func TestStreamJSON(t *testing.T) {
	t.Parallel()
	s, events := parseFile(t, "../../stream/testdata/claude-2.1.332.jsonl")
	if s.Format != FormatStreamJSON || s.Text != "All done." || s.NumTurns != 2 || len(s.ToolCalls) != 2 || len(s.Denials) != 1 || s.Usage.InputTokens == 0 || s.CostUSD == 0 {
		t.Errorf("Summary = %+v", s)
	}
	// The result event lists the run's denials: their events come first,
	// and the transcript ends on the result.
	n := len(events)
	if n < 2 || events[n-1].Kind != transcript.KindResult || events[n-2].Kind != transcript.KindDenial {
		t.Errorf("events = %+v, want the denial, then the result last", events)
	}
}

func TestNotRecognised(t *testing.T) {
	t.Parallel()
	p := NewParser(nil)
	p.Line([]byte(`{"type":"step_start"}`)) // no session: not OpenCode's
	p.Line([]byte("plain text"))
	p.Finish()
	if s := p.Summary(); s.Format != FormatNone || s.ToolCalls == nil || s.Denials == nil {
		t.Errorf("Summary = %+v, want nothing recognised (and empty, non-nil lists)", s)
	}
}
