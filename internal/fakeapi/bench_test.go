package fakeapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// claudeLikeBody is a Messages API request shaped like Claude Code's
// (measured on 2.1.332: a 29 KB system prompt, 53 KB of tool schemas, a
// first user message of 17 KB of system reminders), at the given turn.
func claudeLikeBody(turn int) []byte {
	para := strings.Repeat("Use the tools available to you to assist the user; be concise. ", 16) + "\n"
	var sys strings.Builder
	for sys.Len() < 29_000 {
		sys.WriteString(para)
	}
	tools := make([]map[string]any, 0, 26)
	for i := 0; i < 26; i++ {
		tools = append(tools, map[string]any{"name": fmt.Sprintf("Tool%d", i), "description": para,
			"input_schema": map[string]any{"type": "object", "properties": map[string]any{
				"command": map[string]any{"type": "string", "description": para}}}})
	}
	first := []map[string]any{{"type": "text", "text": "<system-reminder>\n# Environment\n - Primary working directory: /tmp/ws/case-1\n</system-reminder>"}}
	for len(first) < 9 {
		first = append(first, map[string]any{"type": "text", "text": "<system-reminder>\n" + para + para + "</system-reminder>"})
	}
	first = append(first, map[string]any{"type": "text", "text": "Write the file out.txt."})
	msgs := []map[string]any{{"role": "user", "content": first}}
	for i := 0; i < turn; i++ {
		id := fmt.Sprintf("toolu_fake_%d_0", i)
		msgs = append(msgs,
			map[string]any{"role": "assistant", "content": []map[string]any{{"type": "tool_use", "id": id, "name": "Bash", "input": map[string]any{"command": "ls -la"}}}},
			map[string]any{"role": "user", "content": []map[string]any{{"type": "tool_result", "tool_use_id": id, "content": "total 0\nout.txt\n"}}})
	}
	b, err := json.Marshal(map[string]any{"model": "claude-sonnet-4-5", "stream": true, "max_tokens": 32000,
		"system": []map[string]any{{"type": "text", "text": sys.String()}}, "tools": tools, "messages": msgs})
	if err != nil {
		panic(err)
	}
	return b
}

// BenchmarkMessages serves one Claude-Code-sized streaming request with
// the request log going to a file, as `run --fake-model` does.
func BenchmarkMessages(b *testing.B) {
	body := claudeLikeBody(2)
	f, err := os.Create(filepath.Join(b.TempDir(), "requests.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	s := New(Options{Log: f, Script: &Script{Turns: []Turn{{Text: "one"}, {Text: "two"}, {Text: "three"}}}})
	h := s.Handler()
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		req := httptest.NewRequest(http.MethodPost, "/v1/messages", bytes.NewReader(body))
		req.Header.Set("X-Api-Key", "sk-secret")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != http.StatusOK {
			b.Fatalf("status %d: %s", w.Code, w.Body)
		}
	}
	b.StopTimer()
	if st, err := f.Stat(); err == nil {
		b.ReportMetric(float64(st.Size())/float64(b.N), "logB/op")
	}
}
