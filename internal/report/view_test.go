package report

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/agent-eval/agent-eval/internal/rundir"
	"github.com/agent-eval/agent-eval/internal/transcript"
)

func TestItems(t *testing.T) {
	in := json.RawMessage(`{"command":"curl https://prod"}`)
	events := []transcript.Event{
		{Kind: transcript.KindPrompt, Text: "go", Step: "plan"},
		// a denial with no tool_call event before it still carries the
		// hook's deny and its result
		{Kind: transcript.KindDenial, ToolUseID: "t1", Tool: "Bash", Input: in, Step: "plan"},
		{Kind: transcript.KindToolResult, ToolUseID: "t1", Text: "blocked", IsError: true, Step: "plan"},
		{Kind: transcript.KindToolCall, ToolUseID: "t2", Tool: "Read", Input: json.RawMessage(`{"file_path":"a.txt"}`), Step: "build"},
		{Kind: transcript.KindToolResult, ToolUseID: "t9", Text: "orphan result", Step: "build"},
	}
	ledger := []rundir.Decision{
		{ToolUseID: "t1", Tool: "Bash", Decision: "deny", Reason: "prod is off limits"},
		{ToolUseID: "t2", Tool: "Read", Decision: "pass", Handler: -1},
		{ToolUseID: "gone", Tool: "AskUserQuestion", Decision: "answer", Tiers: map[string]string{"q": "fallback"}, Answers: map[string]string{"q": "a"}},
	}
	items, unmatched := items(events, ledger)
	var kinds []string
	for _, it := range items {
		kinds = append(kinds, it.Kind)
	}
	if got := strings.Join(kinds, " "); got != "step prompt tool step tool tool" {
		t.Fatalf("kinds = %s", got)
	}
	d := items[2]
	if !d.Denied || d.Summary != "curl https://prod" || len(d.Hooks) != 1 || d.Hooks[0].Class != "deny" || !d.HasResult || d.Result != "blocked" {
		t.Errorf("the denial = %+v", d)
	}
	if len(items[4].Hooks) != 0 {
		t.Errorf("a pass decision is shown on its call: %+v", items[4].Hooks)
	}
	if items[5].Tool != "(result)" || items[5].Result != "orphan result" {
		t.Errorf("an orphan result = %+v", items[5])
	}
	if len(unmatched) != 1 || unmatched[0].Class != "fallback" || unmatched[0].Answers[0].Tier != "fallback" {
		t.Errorf("unmatched = %+v", unmatched)
	}
}

// TestTranscriptBounded: a session of thousands of long results shows the
// first megabyte in full and clips the rest hard.
func TestTranscriptBounded(t *testing.T) {
	var events []transcript.Event
	for range 3000 {
		events = append(events, transcript.Event{Kind: transcript.KindToolResult, ToolUseID: "x", Text: strings.Repeat("y", 6000)})
	}
	items, _ := items(events, nil)
	total := 0
	for _, it := range items {
		total += len(it.Result)
	}
	if total > caseBudget+maxShown+3000*tightShown || !items[len(items)-1].Clipped || items[0].Clipped {
		t.Errorf("3000 results of 6000 bytes show %d bytes (first clipped %v, last clipped %v)", total, items[0].Clipped, items[len(items)-1].Clipped)
	}
}

// TestDenialsWithoutTranscript: a run that wrote no transcript.jsonl still
// shows each denial run_result.json records, with the hook's deny on it.
func TestDenialsWithoutTranscript(t *testing.T) {
	d, _ := fixture(t, false)
	if err := os.Remove(d.Transcript("deploy-001")); err != nil {
		t.Fatal(err)
	}
	b, err := Render(d, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`<div class="ev tool denied" data-tool-use-id="toolu_01">`,
		`<span class="tag deny">DENIED</span> tool <b>Bash</b> <code class="sum">jira issue create --project OPS</code>`,
		`<span class="tag deny">hook deny</span> <small title="handlers[0] in tool_handlers.yaml">handler 1</small>`,
		// the answer's call is not in a transcript: listed apart
		`<h3>Hook decisions without a recorded call</h3>`,
	} {
		if !strings.Contains(string(b), want) {
			t.Errorf("report.html lacks %s", want)
		}
	}
}

func TestHrefOf(t *testing.T) {
	for in, want := range map[string]string{
		"cases/a/outputs/report.md":    "cases/a/outputs/report.md",
		"cases/a/outputs/#1 notes?.md": "cases/a/outputs/%231%20notes%3F.md",
		"cases/a/outputs/sub/ünï.txt":  "cases/a/outputs/sub/%C3%BCn%C3%AF.txt",
	} {
		if got := hrefOf(in); got != want {
			t.Errorf("hrefOf(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRelativeTo(t *testing.T) {
	rel := relativeTo("/tmp/ws/case-1/")
	for in, want := range map[string]string{
		"/tmp/ws/case-1/a/b.txt":           "./a/b.txt",
		"cd /tmp/ws/case-1 && ls":          "cd . && ls",
		`{"file_path":"/tmp/ws/case-1/x"}`: `{"file_path":"./x"}`,
		"/tmp/ws/case-10/x":                "/tmp/ws/case-10/x",
		"/tmp/ws/case-1.bak":               "/tmp/ws/case-1.bak",
		"no path":                          "no path",
	} {
		if got := rel(in); got != want {
			t.Errorf("relativeTo(%q) = %q, want %q", in, got, want)
		}
	}
	if got := relativeTo("")("/a/b"); got != "/a/b" {
		t.Errorf("without a workspace: %q", got)
	}
}
