package fakeapi

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/agent-eval/agent-eval/internal/redact"
	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/google/go-cmp/cmp"
)

// startRecorder puts a recorder in front of upstream and returns a client
// of conversation name through it.
func startRecorder(t *testing.T, upstream string, red *redact.Redactor) (*Recorder, anthropic.Client) {
	t.Helper()
	rc, err := NewRecorder(RecorderOptions{Upstream: upstream, Redactor: red,
		Auth: func(h http.Header) { h.Set("X-Api-Key", "sk-real-upstream-key") }})
	if err != nil {
		t.Fatal(err)
	}
	base, err := rc.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rc.Close() })
	return rc, anthropic.NewClient(option.WithBaseURL(ScriptURL(base, "case1")), option.WithAPIKey("fake-model"), option.WithMaxRetries(0))
}

// TestRecordRoundTrip records two streamed turns and a side call through
// the recorder and reads the cassette back with the fake's parser: the
// same tool calls (the working directory as ${CWD}), the requests'
// normalised last messages, the real key sent upstream and never the
// agent's, and a secret the answer held redacted.
func TestRecordRoundTrip(t *testing.T) {
	t.Parallel()
	up := New(Options{Script: mustScript(t, `
turns:
  - text: "the key is sk-ant-api03-secretsecretsecret"
    tool_uses:
      - {id: toolu_up_1, name: Bash, input: {command: "ls '/work/ws one'"}}
  - text: all done
side: {text: a title}
`)})
	upURL, err := up.Start("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = up.Close() })
	red := redact.New(nil)
	red.LearnValues("sk-ant-api03-secretsecretsecret")
	rc, c := startRecorder(t, upURL, red)
	ctx := context.Background()
	stream := c.Messages.NewStreaming(ctx, params(user))
	var msg anthropic.Message
	for stream.Next() {
		if err := msg.Accumulate(stream.Current()); err != nil {
			t.Fatal(err)
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	if len(msg.Content) != 2 || msg.Content[1].ID != "toolu_up_1" {
		t.Fatalf("the agent got %+v, want the upstream's answer", msg.Content)
	}
	p := params(user, msg.ToParam(), anthropic.NewUserMessage(
		anthropic.NewToolResultBlock("toolu_up_1", "a.txt\n/work/ws one/b.txt", false),
		anthropic.NewTextBlock("<system-reminder>today is Monday</system-reminder>")))
	if _, err := c.Messages.New(ctx, p); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Messages.New(ctx, anthropic.MessageNewParams{Model: "claude-test", MaxTokens: 10, Messages: []anthropic.MessageParam{user}}); err != nil {
		t.Fatal(err)
	}
	for _, r := range up.Requests() {
		if r.Auth != authPrint(http.Header{"X-Api-Key": {"sk-real-upstream-key"}}) {
			t.Errorf("upstream got credential %q, want the real key's", r.Auth)
		}
		if r.Headers[ScriptHeader] != "" {
			t.Errorf("upstream got %s: %s", ScriptHeader, r.Headers[ScriptHeader])
		}
	}
	if got := rc.Names(); !cmp.Equal(got, []string{"case1"}) {
		t.Fatalf("Names() = %v", got)
	}
	y, err := rc.Cassette("case1")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(y), "secretsecret") || strings.Contains(string(y), "sk-real") {
		t.Errorf("the cassette holds a secret:\n%s", y)
	}
	sc, err := ParseScript(y)
	if err != nil {
		t.Fatalf("the cassette does not parse as a script: %v\n%s", err, y)
	}
	want := &Script{
		Turns: []Turn{
			{Text: sc.Turns[0].Text, ToolUses: []ToolUse{{ID: "toolu_up_1", Name: "Bash", Input: map[string]any{"command": "ls '${CWD}'"}}},
				StopReason: "tool_use", Request: &RecordedRequest{Last: "go"}},
			{Text: "all done", StopReason: "end_turn", Request: &RecordedRequest{Last: "[tool_result] a.txt\n${CWD}/b.txt"}},
		},
		Side: &Turn{Text: "a title", StopReason: "end_turn"},
	}
	if diff := cmp.Diff(want, sc); diff != "" {
		t.Errorf("cassette (-want +got):\n%s\n%s", diff, y)
	}
	if !strings.HasPrefix(sc.Turns[0].Text, "the key is ") {
		t.Errorf("turn 0 text = %q", sc.Turns[0].Text)
	}
}

// TestRecorderStreams: the first SSE event reaches the client while the
// upstream still holds the rest of its answer.
func TestRecorderStreams(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "event: message_start\ndata: {\"type\":\"message_start\"}\n\n")
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
		fmt.Fprint(w, "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n")
		fmt.Fprint(w, "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"late\"}}\n\n")
		fmt.Fprint(w, "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"}}\n\n")
	}))
	defer up.Close()
	rc, err := NewRecorder(RecorderOptions{Upstream: up.URL})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(rc.Handler())
	defer srv.Close()
	body := `{"model":"m","stream":true,"tools":[{"name":"Bash"}],"messages":[{"role":"user","content":"hi"}]}`
	resp, err := http.Post(ScriptURL(srv.URL, "c")+"/v1/messages", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	first := make(chan string, 1)
	br := bufio.NewReader(resp.Body)
	go func() {
		line, _ := br.ReadString('\n')
		first <- line
	}()
	select {
	case line := <-first:
		if !strings.Contains(line, "message_start") {
			t.Errorf("first line = %q", line)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the first event did not reach the client before the upstream finished: the recorder buffers")
	}
	close(release)
	if _, err := io.Copy(io.Discard, br); err != nil {
		t.Fatal(err)
	}
	sc := rc.Script("c")
	if len(sc.Turns) != 1 || sc.Turns[0].Text != "late" || sc.Turns[0].Request.Last != "hi" {
		t.Errorf("recorded %+v", sc.Turns)
	}
}

func TestNewRecorderRejectsRelativeUpstream(t *testing.T) {
	if _, err := NewRecorder(RecorderOptions{Upstream: "api.anthropic.com"}); err == nil {
		t.Error("NewRecorder accepted an upstream without a scheme")
	}
}

// TestRecorderUpstreamDown: an upstream that cannot be reached is a 502
// API error to the agent, and nothing is recorded.
func TestRecorderUpstreamDown(t *testing.T) {
	t.Parallel()
	up := httptest.NewServer(http.NotFoundHandler())
	addr := up.URL
	up.Close()
	rc, err := NewRecorder(RecorderOptions{Upstream: addr})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(rc.Handler())
	defer srv.Close()
	resp, err := http.Post(ScriptURL(srv.URL, "c")+"/v1/messages", "application/json",
		strings.NewReader(`{"model":"m","tools":[{"name":"Bash"}],"messages":[{"role":"user","content":"hi"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadGateway || !strings.Contains(string(b), "agent-eval record: forward to") {
		t.Errorf("status %d: %s", resp.StatusCode, b)
	}
	if got := rc.Names(); len(got) != 0 {
		t.Errorf("recorded %v", got)
	}
}
