package gemini

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agent-eval/agent-eval/internal/transcript"
)

func parse(t *testing.T, excluded []string, lines ...string) (summary, []transcript.Event) {
	t.Helper()
	var events []transcript.Event
	p := newParser(func(e transcript.Event) { events = append(events, e) }, excluded)
	for _, l := range lines {
		p.line([]byte(l + "\n"))
	}
	return p.finish(), events
}

// TestParseStream reads stream-json in the shapes Gemini CLI 0.61.0 prints
// (measured): deltas, tool calls and results, a hook's and the policy's
// denials (policy_violation), a call of an excluded tool, the result's
// stats.
func TestParseStream(t *testing.T) {
	t.Parallel()
	s, events := parse(t, []string{"google_web_search"},
		`{"type":"init","session_id":"x","model":"gemini-2.5-flash"}`,
		`{"type":"message","role":"user","content":"go"}`,
		`{"type":"message","role":"assistant","content":"Let me ","delta":true}`,
		`{"type":"message","role":"assistant","content":"look.","delta":true}`,
		`{"type":"tool_use","tool_name":"run_shell_command","tool_id":"t1","parameters":{"command":"ls","description":"d"}}`,
		`{"type":"tool_result","tool_id":"t1","status":"success","output":"a.txt"}`,
		`{"type":"tool_use","tool_name":"read_file","tool_id":"t2","parameters":{"file_path":"secret/k"}}`,
		`{"type":"tool_use","tool_name":"google_web_search","tool_id":"t3","parameters":{"query":"q"}}`,
		`{"type":"tool_result","tool_id":"t2","status":"error","output":"Tool execution blocked: no","error":{"type":"policy_violation","message":"Tool execution blocked: no"}}`,
		`{"type":"tool_result","tool_id":"t3","status":"error","output":"Tool \"google_web_search\" not found.","error":{"type":"tool_not_registered","message":"not found"}}`,
		`not json`,
		`{"type":"message","role":"assistant","content":"Done.","delta":true}`,
		`{"type":"result","status":"success","stats":{"total_tokens":1542,"input_tokens":1506,"output_tokens":36,"cached":150,"input":1356,"tool_calls":3,"models":{"gemini-2.5-flash":{"input_tokens":1506,"output_tokens":36,"cached":150}}}}`,
	)
	if s.text != "Done." || s.model != "gemini-2.5-flash" || s.turns != 3 || s.isError {
		t.Errorf("text %q, model %q, turns %d, error %v", s.text, s.model, s.turns, s.isError)
	}
	want := transcript.Usage{InputTokens: 1356, OutputTokens: 36, CacheReadTokens: 150}
	if s.usage != want || s.perModel["gemini-2.5-flash"].Usage != want {
		t.Errorf("usage %+v, per model %+v", s.usage, s.perModel)
	}
	wantDenials := []transcript.Denial{
		{ToolName: "Read", ToolUseID: "t2", ToolInput: json.RawMessage(`{"file_path":"secret/k"}`)},
		{ToolName: "WebSearch", ToolUseID: "t3", ToolInput: json.RawMessage(`{"query":"q"}`)},
	}
	if d := cmp.Diff(wantDenials, s.denials); d != "" {
		t.Errorf("denials (-want +got):\n%s", d)
	}
	if len(s.calls) != 3 || s.calls[0].Name != "Bash" || s.calls[0].Result != "a.txt" || !s.calls[0].Returned || !s.calls[1].IsError {
		t.Errorf("calls %+v", s.calls)
	}
	var kinds []string
	for _, e := range events {
		kinds = append(kinds, string(e.Kind))
	}
	if got := strings.Join(kinds, " "); got != "text tool_call tool_result tool_call tool_call tool_result denial tool_result denial text result" {
		t.Errorf("events: %s", got)
	}
	if events[0].Text != "Let me look." {
		t.Errorf("the deltas make one text: %+v", events[0])
	}
}

// TestParseErrorResult: an API error's result is an error with its
// message; a stream that ends without a result has no result event.
func TestParseErrorResult(t *testing.T) {
	t.Parallel()
	s, events := parse(t, nil,
		`{"type":"init","model":"gemini-2.5-flash"}`,
		`{"type":"result","status":"error","error":{"type":"unknown","message":"[API Error: {\"error\":{\"code\":500,\"message\":\"fake 500\"}}]"},"stats":{"input_tokens":0,"output_tokens":0,"cached":0,"models":{"gemini-2.5-flash":{}}}}`)
	if !s.isError || !strings.Contains(s.errMessage, "fake 500") || events[len(events)-1].Kind != transcript.KindResult || !events[len(events)-1].IsError {
		t.Errorf("summary %+v, events %+v", s, events)
	}
	s, events = parse(t, nil, `{"type":"init","model":"m"}`, `{"type":"message","role":"assistant","content":"half","delta":true}`)
	if s.result || len(events) != 1 || events[0].Kind != transcript.KindText {
		t.Errorf("a cut stream: %+v, %+v", s, events)
	}
}

func TestExitError(t *testing.T) {
	t.Parallel()
	tests := []struct {
		code int
		msg  string
		want string
	}{
		{244, "[API Error: fake]", "gemini: the model API answered HTTP 500 (exit 244 is the status mod 256): [API Error: fake]"},
		{144, "", "gemini: the model API answered HTTP 400 (exit 144 is the status mod 256)"},
		{173, "", "gemini: the model API answered HTTP 429 (exit 173 is the status mod 256)"},
		{41, "", "gemini: authentication failed (exit 41: no usable credentials, or the auth type in settings.json does not fit)"},
		{55, "", "gemini: the folder is not trusted (exit 55)"},
		{1, "boom\n  at x", "gemini exited with code 1: boom at x"},
		{7, "", "gemini exited with code 7"},
	}
	for _, tt := range tests {
		if got := exitError(tt.code, tt.msg).Error(); got != tt.want {
			t.Errorf("exitError(%d, %q) = %q, want %q", tt.code, tt.msg, got, tt.want)
		}
	}
}
