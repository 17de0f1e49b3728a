package stream

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agent-eval/agent-eval/internal/transcript"
)

// parse feeds a whole stream to a Parser line by line, as agentproc does
// for a running agent.
func parse(r io.Reader) (*Summary, error) {
	p := NewParser()
	br := bufio.NewReaderSize(r, 256<<10)
	var long []byte
	for {
		line, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			long = append(long, line...)
			continue
		}
		if long != nil {
			line = append(long, line...)
			long = nil
		}
		if len(line) > 0 {
			p.Line(line)
		}
		if err == io.EOF {
			return p.Summary(), nil
		}
		if err != nil {
			return p.Summary(), err
		}
	}
}

// TestRealStream parses a stream recorded from Claude Code 2.1.332 (against
// the fake Messages API): one turn with text and two Bash calls, one of them
// denied by --disallowed-tools, then a final text.
func TestRealStream(t *testing.T) {
	t.Parallel()
	f, err := os.Open("testdata/claude-2.1.332.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, err := parse(f)
	if err != nil {
		t.Fatal(err)
	}
	if s.Model != "claude-opus-5-5" || s.NumTurns != 2 || s.IsError || s.Subtype != "success" || s.Result != "All done." {
		t.Errorf("model %q turns %d error %v subtype %q result %q", s.Model, s.NumTurns, s.IsError, s.Subtype, s.Result)
	}
	if s.CostUSD <= 0 || s.Usage.InputTokens <= 0 || len(s.PerModel) != 1 {
		t.Errorf("cost %v usage %+v per model %v", s.CostUSD, s.Usage, s.PerModel)
	}
	if len(s.ToolCalls) != 2 || s.ToolCalls[0].Result != "hi" || s.ToolCalls[0].IsError || !s.ToolCalls[1].IsError {
		t.Errorf("tool calls = %+v", s.ToolCalls)
	}
	if len(s.Denials) != 1 || s.Denials[0].ToolName != "Bash" || s.Denials[0].ToolUseID != "toolu_fake_0_1" ||
		!strings.Contains(string(s.Denials[0].ToolInput), "rm -rf junk") {
		t.Errorf("denials = %+v", s.Denials)
	}
}

func result(cost float64, denials string, modelCost float64) string {
	return fmt.Sprintf(`{"type":"result","subtype":"success","is_error":false,"total_cost_usd":%v,"usage":{"input_tokens":10,"output_tokens":2},"modelUsage":{"m":{"inputTokens":10,"outputTokens":2,"costUSD":%v}},"permission_denials":%s,"result":"r"}`, cost, modelCost, denials)
}

func TestDenialsUnionAndDedupe(t *testing.T) {
	t.Parallel()
	d1 := `{"tool_name":"Bash","tool_use_id":"a","tool_input":{"command":"x"}}`
	d2 := `{"tool_name":"Read","tool_use_id":"b","tool_input":{"file_path":"/e"}}`
	in := strings.Join([]string{
		"not json at all",
		`{"type":"assistant","message":{"id":"m1","model":"m","content":[{"type":"tool_use","id":"a","name":"Bash","input":{"command":"x"}}]}}`,
		`{"type":"assistant","message":{"id":"m1","model":"m","content":[{"type":"text","text":"same message, second block"}]}}`,
		result(0.5, "["+d1+"]", 0.5),
		`{"type":"assistant","message":{"id":"m2","model":"m","content":[]}}`,
		result(0.25, "["+d1+","+d2+"]", 1.0),
		`{"type":"stream_event","event":{}}`,
		`{"type":"result","broken": `,
	}, "\n")
	s, err := parse(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, d := range s.Denials {
		ids = append(ids, d.ToolUseID)
	}
	if diff := cmp.Diff([]string{"a", "b"}, ids); diff != "" {
		t.Errorf("denials (-want +got):\n%s", diff)
	}
	if s.NumTurns != 2 || s.ResultEvents != 2 || s.JunkLines != 2 {
		t.Errorf("turns %d, results %d, junk %d; want 2, 2, 2", s.NumTurns, s.ResultEvents, s.JunkLines)
	}
	if s.CostUSD != 1.5 { // per-model sum 1.5 exceeds the reported 0.75
		t.Errorf("cost = %v, want the per-model sum 1.5", s.CostUSD)
	}
	if s.Usage.InputTokens != 20 {
		t.Errorf("usage = %+v", s.Usage)
	}
}

func TestLongLinesAndNoTrailingNewline(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", 1<<20)
	in := `{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"a","content":"` + big + `"}]}}` + "\n" + result(1, "[]", 1)
	s, err := parse(strings.NewReader(in))
	if err != nil || s.ResultEvents != 1 || s.JunkLines != 0 {
		t.Fatalf("Parse = %+v, %v", s, err)
	}
	if s.Denials == nil || s.ToolCalls == nil {
		t.Error("empty lists must be [], not null")
	}
	b, _ := json.Marshal(s)
	if !bytes.Contains(b, []byte(`"permission_denials":[]`)) {
		t.Errorf("JSON = %s", b)
	}
}

// BenchmarkParse reads a large synthetic stream shaped like a real run:
// assistant turns with tool calls, big tool results, stream events.
func BenchmarkParse(b *testing.B) {
	var buf bytes.Buffer
	output := strings.Repeat("line of tool output with some text in it\\n", 200)
	for i := 0; buf.Len() < 64<<20; i++ {
		fmt.Fprintf(&buf, `{"type":"assistant","message":{"id":"msg_%d","model":"claude-opus-5-5","role":"assistant","content":[{"type":"text","text":"Running the next step of the plan now."},{"type":"tool_use","id":"toolu_%d","name":"Bash","input":{"command":"make test","description":"Run tests"}}],"usage":{"input_tokens":1200,"output_tokens":80}},"session_id":"s","uuid":"u"}`+"\n", i, i)
		fmt.Fprintf(&buf, `{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_%d","content":"%s","is_error":false}]},"session_id":"s","uuid":"u"}`+"\n", i, output)
		fmt.Fprintf(&buf, `{"type":"stream_event","event":{"type":"content_block_delta","delta":{"type":"text_delta","text":"%s"}},"session_id":"s"}`+"\n", strings.Repeat("tok ", 50))
	}
	buf.WriteString(result(1, "[]", 1) + "\n")
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for b.Loop() {
		if _, err := parse(bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
	}
}

// TestLargeUserLine takes the fast path for tool results: ids and error
// flags are read without decoding the (large) content, and a key spelled
// inside the content (escaped) is not mistaken for one.
func TestLargeUserLine(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("output ", 2000)
	in := strings.Join([]string{
		`{"type":"assistant","message":{"id":"m1","content":[{"type":"tool_use","id":"a","name":"Bash","input":{}},{"type":"tool_use","id":"b","name":"Read","input":{}}]}}`,
		`{"type":"user","message":{"content":[{"type":"tool_result","content":"` + big + `","is_error":true,"tool_use_id":"a"},` +
			`{"type":"tool_result","content":"` + big + ` \"is_error\":true,\"tool_use_id\":\"b\"","is_error":false,"tool_use_id":"b"}]}}`,
	}, "\n")
	s, err := parse(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.ToolCalls) != 2 || !s.ToolCalls[0].IsError || s.ToolCalls[1].IsError {
		t.Errorf("tool calls = %+v; want a failed, b not", s.ToolCalls)
	}
}

// TestEvents: the parser hands on the transcript's events as it reads —
// text, tool calls and results, the denial and the final result — and a
// huge tool result still gets its event, its text left out.
func TestEvents(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("testdata/claude-2.1.332.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("output ", 2000)
	b = append(b, []byte("\n"+`{"type":"assistant","message":{"id":"m9","content":[{"type":"thinking","thinking":"hmm"},{"type":"tool_use","id":"z","name":"Read","input":{}}]}}`+"\n"+
		`{"type":"user","message":{"content":[{"type":"tool_result","content":"`+big+`","is_error":false,"tool_use_id":"z"}]}}`+"\n")...)
	p := NewParser()
	var got []string
	p.OnEvent = func(e transcript.Event) {
		got = append(got, fmt.Sprintf("%s %s%s %v %q", e.Kind, e.Tool, e.ToolUseID, e.Truncated, e.Text))
	}
	for _, line := range bytes.Split(b, []byte("\n")) {
		p.Line(line)
	}
	want := []string{
		`text  false "Let me check."`,
		`tool_call Bashtoolu_fake_0_0 false ""`,
		`tool_call Bashtoolu_fake_0_1 false ""`,
		`tool_result toolu_fake_0_0 false "hi"`,
		`tool_result toolu_fake_0_1 false "Permission to use Bash with command rm -rf junk has been denied."`,
		`text  false "All done."`,
		`denial Bashtoolu_fake_0_1 false ""`,
		`result  false "All done."`,
		`thinking  false "hmm"`,
		`tool_call Readz false ""`,
		`tool_result z true "` + big + `"`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

// TestHugeToolResultIsClipped: a tool result past the transcript's bound
// gets its first MaxText bytes, decoded, whatever escape the cut falls in;
// the line is left as it was (the next result's id is still read).
func TestHugeToolResultIsClipped(t *testing.T) {
	t.Parallel()
	for _, tail := range []string{`\n`, `\\`, `\u00e9`, `\"`, "x"} {
		body := strings.Repeat(tail, transcript.MaxText) // an escape at every offset
		line := `{"type":"user","message":{"content":[{"type":"tool_result","content":"` + body + `","is_error":false,"tool_use_id":"a"},` +
			`{"type":"tool_result","content":"short","is_error":true,"tool_use_id":"b"}]}}`
		p := NewParser()
		p.Line([]byte(`{"type":"assistant","message":{"id":"m","content":[{"type":"tool_use","id":"a","name":"R","input":{}},{"type":"tool_use","id":"b","name":"R","input":{}}]}}`))
		var results []transcript.Event
		p.OnEvent = func(e transcript.Event) {
			if e.Kind == transcript.KindToolResult {
				results = append(results, e)
			}
		}
		p.Line([]byte(line))
		if len(results) != 2 || results[0].Text == "" || len(results[0].Text) > transcript.MaxText || !results[0].Truncated {
			t.Fatalf("tail %q: results %d, first text %d bytes", tail, len(results), len(results[0].Text))
		}
		if results[1].ToolUseID != "b" || !results[1].IsError || results[1].Text != "short" {
			t.Errorf("tail %q: second result %+v", tail, results[1])
		}
		if s := p.Summary(); !s.ToolCalls[1].IsError || !s.ToolCalls[0].Returned {
			t.Errorf("tail %q: calls %+v", tail, s.ToolCalls)
		}
	}
}
