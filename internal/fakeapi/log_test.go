package fakeapi

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/agent-eval/agent-eval/internal/redact"
)

// logServer starts a server logging to a file; it returns the server, a
// client and the log's path.
func logServer(t *testing.T, opts Options) (*Server, anthropic.Client, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "requests.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.Close() })
	opts.Log = f
	s, c := start(t, opts)
	return s, c, path
}

// The log is compact, streamed and redacted: each line holds the request's
// shape, its tool results, its last message and the fake's tool calls, not
// the ~100 KB body; nothing stays in memory; Requests and /_fake/requests
// read the file back.
func TestLogIsCompactStreamedAndRedacted(t *testing.T) {
	t.Parallel()
	s, c, path := logServer(t, Options{Script: mustScript(t, script),
		Redactor: redact.New(map[string]string{"MY_PASSWORD": "hunter2-hunter2"})})
	ctx := context.Background()
	prompt := anthropic.NewUserMessage(anthropic.NewTextBlock("go; the key is API_KEY=abc123secret and the password hunter2-hunter2"))
	if _, err := c.Messages.New(ctx, params(prompt)); err != nil {
		t.Fatal(err)
	}
	asst := anthropic.NewAssistantMessage(anthropic.NewToolUseBlock("toolu_fake_0_0", map[string]any{"command": "echo hi"}, "Bash"))
	result := anthropic.NewUserMessage(anthropic.NewToolResultBlock("toolu_fake_0_0", "hi from the tool\n", false))
	if _, err := c.Messages.New(ctx, params(prompt, asst, result)); err != nil {
		t.Fatal(err)
	}
	if len(s.requests) != 0 {
		t.Errorf("the server kept %d requests in memory next to its log", len(s.requests))
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, leak := range []string{"abc123secret", "hunter2-hunter2", "sk-test-secret", "You are helpful", `"body"`} {
		if bytes.Contains(raw, []byte(leak)) {
			t.Errorf("the log holds %q:\n%s", leak, raw)
		}
	}
	reqs := s.Requests()
	if len(reqs) != 2 {
		t.Fatalf("Requests read back %d requests, want 2:\n%s", len(reqs), raw)
	}
	first, second := reqs[0], reqs[1]
	if first.Kind != "main" || first.Messages != 1 || len(first.Tools) != 1 || first.Tools[0] != "Bash" || first.Bytes == 0 {
		t.Errorf("first request's shape = %+v", first)
	}
	if first.SystemSHA256 == "" || first.SystemSHA256 != second.SystemSHA256 {
		t.Errorf("system hashes %q, %q: want one, equal", first.SystemSHA256, second.SystemSHA256)
	}
	if !strings.Contains(string(first.Last), "the key is API_KEY=[redacted]") {
		t.Errorf("first request's last message = %s, want the prompt, redacted", first.Last)
	}
	if len(first.ToolUses) != 2 || first.ToolUses[0].ID != "toolu_fake_0_0" || first.ToolUses[0].Input["command"] != "echo hi" {
		t.Errorf("the fake's tool calls = %+v", first.ToolUses)
	}
	if second.Turn != 1 || second.Messages != 3 || !strings.Contains(string(second.Last), "hi from the tool") ||
		len(second.ToolResults) != 1 || second.ToolResults[0].Content != "hi from the tool\n" {
		t.Errorf("second request = turn %d, %d messages, last %s, results %+v", second.Turn, second.Messages, second.Last, second.ToolResults)
	}

	// GET /_fake/requests streams the same records as a JSON array.
	resp, err := http.Get("http://" + s.ln.Addr().String() + "/_fake/requests")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var served []Request
	if err := json.NewDecoder(resp.Body).Decode(&served); err != nil {
		t.Fatalf("/_fake/requests: %v", err)
	}
	if len(served) != 2 || served[1].Turn != 1 {
		t.Errorf("/_fake/requests served %d requests: %+v", len(served), served)
	}
}

// With LogBodies the log holds each body, still redacted.
func TestLogBodies(t *testing.T) {
	t.Parallel()
	s, c, _ := logServer(t, Options{Script: mustScript(t, script), LogBodies: true})
	prompt := anthropic.NewUserMessage(anthropic.NewTextBlock("TOKEN=abc123secret"))
	if _, err := c.Messages.New(context.Background(), params(prompt)); err != nil {
		t.Fatal(err)
	}
	reqs := s.Requests()
	if len(reqs) != 1 || !strings.Contains(string(reqs[0].Body), "You are helpful") {
		t.Fatalf("logged body = %+v", reqs)
	}
	if strings.Contains(string(reqs[0].Body), "abc123secret") {
		t.Errorf("the logged body is not redacted: %s", reqs[0].Body)
	}
}

// A log that cannot be read back lists nothing rather than a copy kept in
// memory.
func TestLogWriteOnly(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	s := New(Options{Log: &buf})
	req, _ := http.NewRequest(http.MethodGet, "/v1/models", nil)
	s.Handler().ServeHTTP(discard{}, req)
	if got := s.Requests(); got != nil {
		t.Errorf("Requests = %+v, want nil", got)
	}
	if !strings.Contains(buf.String(), `"kind":"models"`) {
		t.Errorf("log = %q", buf.String())
	}
}

type discard struct{}

func (discard) Header() http.Header         { return http.Header{} }
func (discard) Write(p []byte) (int, error) { return io.Discard.Write(p) }
func (discard) WriteHeader(int)             {}

// Large blocks are redacted through a cache: the second time a block comes
// it is still redacted, and the lines stay valid JSON.
func TestLogRedactsRepeatedLargeBlocks(t *testing.T) {
	t.Parallel()
	s, c, path := logServer(t, Options{Script: mustScript(t, script)})
	big := strings.Repeat("<system-reminder>context</system-reminder> ", 30) + "export GITHUB_TOKEN=abc123secret"
	prompt := anthropic.NewUserMessage(anthropic.NewTextBlock(big), anthropic.NewTextBlock("go"))
	for range 2 {
		if _, err := c.Messages.New(context.Background(), params(prompt)); err != nil {
			t.Fatal(err)
		}
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(raw, []byte("abc123secret")) {
		t.Errorf("the log holds the secret:\n%s", raw)
	}
	reqs := s.Requests()
	if len(reqs) != 2 {
		t.Fatalf("read back %d requests, want 2", len(reqs))
	}
	for _, r := range reqs {
		var blocks []struct{ Text string }
		if err := json.Unmarshal(r.Last, &blocks); err != nil || len(blocks) != 2 || !strings.Contains(blocks[0].Text, "GITHUB_TOKEN=[redacted]") || blocks[1].Text != "go" {
			t.Errorf("last = %s (%v)", r.Last, err)
		}
	}
}

// A log that already held lines (fake-model --log appends) is read back
// from where this server started.
func TestLogReadsBackItsOwnLines(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "requests.jsonl")
	if err := os.WriteFile(path, []byte(`{"kind":"main","turn":7}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := New(Options{Log: f})
	req, _ := http.NewRequest(http.MethodGet, "/v1/models", nil)
	s.Handler().ServeHTTP(discard{}, req)
	if got := s.Requests(); len(got) != 1 || got[0].Kind != "models" {
		t.Errorf("Requests = %+v, want the one models request", got)
	}
}
