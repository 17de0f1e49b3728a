package fakeapi

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/google/go-cmp/cmp"
)

func start(t *testing.T, opts Options) (*Server, anthropic.Client) {
	t.Helper()
	s := New(opts)
	url, err := s.Start("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	c := anthropic.NewClient(option.WithBaseURL(url), option.WithAPIKey("sk-test-secret"), option.WithMaxRetries(0))
	return s, c
}

func mustScript(t *testing.T, src string) *Script {
	t.Helper()
	s, err := ParseScript([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

var bashTool = anthropic.ToolUnionParam{OfTool: &anthropic.ToolParam{Name: "Bash",
	InputSchema: anthropic.ToolInputSchemaParam{Properties: map[string]any{"command": map[string]any{"type": "string"}}}}}

func params(msgs ...anthropic.MessageParam) anthropic.MessageNewParams {
	return anthropic.MessageNewParams{Model: "claude-test", MaxTokens: 1024, Messages: msgs, Tools: []anthropic.ToolUnionParam{bashTool},
		System: []anthropic.TextBlockParam{{Text: "You are helpful.\nPrimary working directory: /work/ws one\n"}}}
}

var user = anthropic.NewUserMessage(anthropic.NewTextBlock("go"))

const script = `
turns:
  - thinking: "Let me think about this for a while, it is a long thought."
    text: "I will run a command — ünïcödé text that is longer than one chunk."
    tool_uses:
      - {name: Bash, input: {command: "echo hi", description: "Print hi"}}
      - {id: toolu_custom, name: Write, input: {file_path: "${CWD}/out.txt", content: "x"}}
  - text: second turn
after_end: {text: finished}
side: {text: side answer}
`

// TestStreamingSDK decodes the SSE stream with the official SDK's streaming
// client, which checks the framing: event order, deltas and indexes.
func TestStreamingSDK(t *testing.T) {
	t.Parallel()
	_, c := start(t, Options{Script: mustScript(t, script)})
	stream := c.Messages.NewStreaming(context.Background(), params(user))
	var msg anthropic.Message
	var events []string
	for stream.Next() {
		ev := stream.Current()
		events = append(events, ev.Type)
		if err := msg.Accumulate(ev); err != nil {
			t.Fatalf("Accumulate(%s): %v", ev.Type, err)
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatalf("stream: %v", err)
	}
	// The SDK drops ping events; TestSSEFraming sees them.
	if events[0] != "message_start" || events[len(events)-2] != "message_delta" || events[len(events)-1] != "message_stop" {
		t.Errorf("event order = %v", events)
	}
	checkTurn0(t, msg)
}

func TestNonStreamingSDK(t *testing.T) {
	t.Parallel()
	_, c := start(t, Options{Script: mustScript(t, script)})
	msg, err := c.Messages.New(context.Background(), params(user))
	if err != nil {
		t.Fatal(err)
	}
	checkTurn0(t, *msg)
}

func checkTurn0(t *testing.T, msg anthropic.Message) {
	t.Helper()
	if msg.Model != "claude-test" || msg.StopReason != "tool_use" || msg.Role != "assistant" {
		t.Errorf("model %q, stop %q, role %q", msg.Model, msg.StopReason, msg.Role)
	}
	if len(msg.Content) != 4 {
		t.Fatalf("content has %d blocks, want 4: %+v", len(msg.Content), msg.Content)
	}
	if got := msg.Content[0].Thinking; got != "Let me think about this for a while, it is a long thought." {
		t.Errorf("thinking = %q", got)
	}
	if msg.Content[0].Signature != fakeSignature {
		t.Errorf("signature = %q", msg.Content[0].Signature)
	}
	if got := msg.Content[1].Text; got != "I will run a command — ünïcödé text that is longer than one chunk." {
		t.Errorf("text = %q", got)
	}
	type use struct {
		ID, Name string
		Input    map[string]any
	}
	var got []use
	for _, b := range msg.Content[2:] {
		var in map[string]any
		if err := json.Unmarshal(b.Input, &in); err != nil {
			t.Fatalf("tool input %s: %v", b.Input, err)
		}
		got = append(got, use{b.ID, b.Name, in})
	}
	want := []use{
		{"toolu_fake_0_0", "Bash", map[string]any{"command": "echo hi", "description": "Print hi"}},
		{"toolu_custom", "Write", map[string]any{"file_path": "/work/ws one/out.txt", "content": "x"}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tool uses (-want +got):\n%s", diff)
	}
	if msg.Usage.InputTokens == 0 || msg.Usage.OutputTokens == 0 {
		t.Errorf("usage = %+v, want non-zero tokens", msg.Usage)
	}
}

// TestTurnSelection: the turn is the number of assistant messages, so a
// retry of the same request gets the same answer; past the end comes
// after_end; a request without tools is a side call.
func TestTurnSelection(t *testing.T) {
	t.Parallel()
	s, c := start(t, Options{Script: mustScript(t, script)})
	ctx := context.Background()
	asst := anthropic.NewAssistantMessage(anthropic.NewToolUseBlock("toolu_fake_0_0", map[string]any{"command": "echo hi"}, "Bash"))
	result := anthropic.NewUserMessage(anthropic.NewToolResultBlock("toolu_fake_0_0", "hi\n", false))
	denied := anthropic.NewUserMessage(anthropic.NewToolResultBlock("toolu_fake_0_0", "blocked by hook", true))
	tests := []struct {
		name string
		p    anthropic.MessageNewParams
		want string
	}{
		{"turn 1", params(user, asst, result), "second turn"},
		{"turn 1 again (a retry)", params(user, asst, result), "second turn"},
		{"after the end", params(user, asst, result, asst, denied), "finished"},
		{"side call", anthropic.MessageNewParams{Model: "m", MaxTokens: 10, Messages: []anthropic.MessageParam{user}}, "side answer"},
	}
	for _, tt := range tests {
		msg, err := c.Messages.New(ctx, tt.p)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if got := msg.Content[0].Text; got != tt.want {
			t.Errorf("%s: text = %q, want %q", tt.name, got, tt.want)
		}
	}
	reqs := s.Requests()
	if len(reqs) != 4 {
		t.Fatalf("recorded %d requests, want 4", len(reqs))
	}
	if reqs[2].Kind != "main" || reqs[2].Turn != 2 || reqs[3].Kind != "side" {
		t.Errorf("kinds/turns = %s/%d, %s", reqs[2].Kind, reqs[2].Turn, reqs[3].Kind)
	}
	wantResults := []ToolResult{{ToolUseID: "toolu_fake_0_0", Content: "hi\n"}, {ToolUseID: "toolu_fake_0_0", Content: "blocked by hook", IsError: true}}
	if diff := cmp.Diff(wantResults, reqs[2].ToolResults); diff != "" {
		t.Errorf("recorded tool results (-want +got):\n%s", diff)
	}
	for _, r := range reqs {
		if r.Headers["X-Api-Key"] != "[redacted]" && r.Headers["Authorization"] != "[redacted]" {
			t.Errorf("the credential header is not redacted: %v", r.Headers)
		}
		if b, _ := json.Marshal(r); strings.Contains(string(b), "sk-test-secret") {
			t.Errorf("a secret reached the record: %s", b)
		}
	}
}

func TestErrorTurn(t *testing.T) {
	t.Parallel()
	_, c := start(t, Options{Script: mustScript(t, "turns:\n  - error: {status: 529, type: overloaded_error, message: try later}\n")})
	_, err := c.Messages.New(context.Background(), params(user))
	var apiErr *anthropic.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 529 || !strings.Contains(err.Error(), "try later") {
		t.Fatalf("error = %v, want a 529 overloaded_error", err)
	}
}

// TestNamedScripts: the X-Fake-Script header picks a script registered by
// name or found in ScriptDir (re-read on every request).
func TestNamedScripts(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(text string) {
		if err := os.WriteFile(filepath.Join(dir, "case-1.yaml"), []byte("turns: [{text: "+text+"}]\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("from-dir")
	s, c := start(t, Options{ScriptDir: dir, Script: mustScript(t, "turns: [{text: default}]\n")})
	s.SetScript("registered", mustScript(t, "turns: [{text: from-map}]\n"))
	ctx := context.Background()
	tests := []struct {
		header, want string
	}{
		{"", "default"},
		{"registered", "from-map"},
		{"case-1", "from-dir"},
	}
	for _, tt := range tests {
		msg, err := c.Messages.New(ctx, params(user), option.WithHeader(ScriptHeader, tt.header))
		if err != nil {
			t.Fatalf("script %q: %v", tt.header, err)
		}
		if got := msg.Content[0].Text; got != tt.want {
			t.Errorf("script %q: text %q, want %q", tt.header, got, tt.want)
		}
	}
	write("edited")
	if msg, err := c.Messages.New(ctx, params(user), option.WithHeader(ScriptHeader, "case-1")); err != nil || msg.Content[0].Text != "edited" {
		t.Errorf("edited script not re-read: %v", err)
	}
	for _, bad := range []string{"missing", "../etc"} {
		if _, err := c.Messages.New(ctx, params(user), option.WithHeader(ScriptHeader, bad)); err == nil {
			t.Errorf("script %q: no error", bad)
		}
	}
}

func TestOtherEndpoints(t *testing.T) {
	t.Parallel()
	s, c := start(t, Options{})
	ctx := context.Background()
	n, err := c.Messages.CountTokens(ctx, anthropic.MessageCountTokensParams{Model: "m", Messages: []anthropic.MessageParam{user}})
	if err != nil || n.InputTokens <= 0 {
		t.Errorf("count_tokens = %v, %v", n, err)
	}
	page, err := c.Models.List(ctx, anthropic.ModelListParams{})
	if err != nil || len(page.Data) != 1 {
		t.Errorf("models = %v, %v", page, err)
	}
	url := "http://" + s.ln.Addr().String()
	resp, err := http.Head(url + "/")
	if err != nil || resp.StatusCode != 200 {
		t.Errorf("HEAD / = %v, %v", resp, err)
	}
	resp, err = http.Get(url + "/nope")
	if err != nil || resp.StatusCode != 404 {
		t.Errorf("GET /nope = %v, %v", resp, err)
	}
	// An empty script ends every main request with the default text.
	msg, err := c.Messages.New(ctx, params(user))
	if err != nil || msg.Content[0].Text != "done." {
		t.Errorf("empty script: %v %v", msg, err)
	}
}

func TestParseScriptRejects(t *testing.T) {
	t.Parallel()
	for _, src := range []string{
		"turns: [{txt: typo}]",
		"turns: [{}]",
		"turns: [{error: {status: 200}}]",
		"turns: [{tool_use: {input: {}}}]",
		"side: {}",
		"turns: [{error: {status: 529}, count: 1}]",
		"turns: [{text: hi, count: 1}]",
		"turns: [{error: {status: 529}, count: -1, text: hi}]",
		"turns: [{error: {status: 200}, count: 1, text: hi}]",
	} {
		if _, err := ParseScript([]byte(src)); err == nil {
			t.Errorf("ParseScript(%q) succeeded, want an error", src)
		}
	}
}

func TestChunks(t *testing.T) {
	t.Parallel()
	s := strings.Repeat("é€a", 20)
	var joined string
	for _, c := range chunks(s, 16) {
		if len(c) > 16 || !utf8.ValidString(c) {
			t.Errorf("chunk %q: %d bytes, valid %v", c, len(c), utf8.ValidString(c))
		}
		joined += c
	}
	if joined != s {
		t.Errorf("chunks do not join back to the input")
	}
}

// TestSSEFraming reads the raw stream: event names in the order the real API
// sends them, each "event: X\ndata: {json}\n\n" with a matching type, and a
// Content-Length for the whole body.
func TestSSEFraming(t *testing.T) {
	t.Parallel()
	s := New(Options{Script: mustScript(t, "turns: [{text: hello, tool_use: {name: Bash, input: {command: ls -la /tmp}}}]\n")})
	url, err := s.Start("")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	body := `{"model":"m","stream":true,"max_tokens":5,"tools":[{"name":"Bash"}],"messages":[{"role":"system","content":"loose"},{"role":"user","content":"hi"}],"unknown_field":1}`
	resp, err := http.Post(url+"/v1/messages", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.Header.Get("Content-Type") != "text/event-stream" || resp.ContentLength != int64(len(raw)) {
		t.Errorf("content-type %q, content-length %d for %d bytes", resp.Header.Get("Content-Type"), resp.ContentLength, len(raw))
	}
	var names []string
	for _, ev := range strings.Split(strings.TrimSuffix(string(raw), "\n\n"), "\n\n") {
		name, data, ok := strings.Cut(ev, "\n")
		if !ok || !strings.HasPrefix(name, "event: ") || !strings.HasPrefix(data, "data: ") {
			t.Fatalf("malformed event %q", ev)
		}
		var payload struct{ Type string }
		if err := json.Unmarshal([]byte(strings.TrimPrefix(data, "data: ")), &payload); err != nil || payload.Type != strings.TrimPrefix(name, "event: ") {
			t.Errorf("event %q carries type %q (%v)", name, payload.Type, err)
		}
		names = append(names, strings.TrimPrefix(name, "event: "))
	}
	want := []string{"message_start", "ping",
		"content_block_start", "content_block_delta", "content_block_stop",
		"content_block_start", "content_block_delta", "content_block_delta", "content_block_stop",
		"message_delta", "message_stop"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("event sequence (-want +got):\n%s", diff)
	}
}

// TestErrorTurnCount: an error turn with count answers that many errors,
// then its content; counted per script and turn, and for side calls too.
func TestErrorTurnCount(t *testing.T) {
	t.Parallel()
	src := `
turns:
  - {error: {status: 529, type: overloaded_error, message: busy}, count: 2, text: "made it"}
side: {error: {status: 500, message: oops}, count: 1, text: "side ok"}
`
	s, c := start(t, Options{Script: mustScript(t, src)})
	s.SetScript("other", mustScript(t, src))
	ctx := context.Background()
	statusOf := func(err error) int {
		var apiErr *anthropic.Error
		if errors.As(err, &apiErr) {
			return apiErr.StatusCode
		}
		return 0
	}
	for i, want := range []int{529, 529, 0, 0} {
		msg, err := c.Messages.New(ctx, params(user))
		if got := statusOf(err); got != want || (want == 0 && (err != nil || msg.Content[0].Text != "made it")) {
			t.Fatalf("request %d: status %d, err %v; want %d", i, got, err, want)
		}
	}
	// Another script's turn has its own count.
	if _, err := c.Messages.New(ctx, params(user), option.WithHeader(ScriptHeader, "other")); statusOf(err) != 529 {
		t.Errorf("script other: %v, want its own first 529", err)
	}
	side := anthropic.MessageNewParams{Model: "m", MaxTokens: 10, Messages: []anthropic.MessageParam{user}}
	if _, err := c.Messages.New(ctx, side); statusOf(err) != 500 {
		t.Errorf("side 1: %v, want 500", err)
	}
	if msg, err := c.Messages.New(ctx, side); err != nil || msg.Content[0].Text != "side ok" {
		t.Errorf("side 2: %v, want side ok", err)
	}
}

// TestScriptURL: a base URL naming the script selects it without the
// header (the hook under the sandbox's scrub has no custom headers).
func TestScriptURL(t *testing.T) {
	t.Parallel()
	s := New(Options{Script: mustScript(t, "turns: [{text: default}]\n")})
	base, err := s.Start("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	s.SetScript("case 1", mustScript(t, "turns: [{text: by-path}]\n"))
	s.SetScript("hdr", mustScript(t, "turns: [{text: by-header}]\n"))
	ctx := context.Background()
	c := anthropic.NewClient(option.WithBaseURL(ScriptURL(base, "case 1")), option.WithAPIKey("k"), option.WithMaxRetries(0))
	if msg, err := c.Messages.New(ctx, params(user)); err != nil || msg.Content[0].Text != "by-path" {
		t.Fatalf("by path: %v", err)
	}
	if msg, err := c.Messages.New(ctx, params(user), option.WithHeader(ScriptHeader, "hdr")); err != nil || msg.Content[0].Text != "by-header" {
		t.Errorf("the header should win over the path: %v", err)
	}
	s.SetScript("case/step", mustScript(t, "turns: [{text: by-step}]\n"))
	step := anthropic.NewClient(option.WithBaseURL(ScriptURL(base, "case/step")), option.WithAPIKey("k"), option.WithMaxRetries(0))
	if msg, err := step.Messages.New(ctx, params(user)); err != nil || msg.Content[0].Text != "by-step" {
		t.Errorf("a name with a slash (a pipeline step): %v", err)
	}
	bad := anthropic.NewClient(option.WithBaseURL(ScriptURL(base, "../etc")), option.WithAPIKey("k"), option.WithMaxRetries(0))
	if _, err := bad.Messages.New(ctx, params(user)); err == nil {
		t.Error("script ../etc by path: no error")
	}
}
