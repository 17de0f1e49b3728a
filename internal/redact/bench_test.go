package redact

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
)

// benchText is what an agent's tool results look like in bulk: source
// code, build and test logs, git output, with the odd assignment.
func benchText(n int) string {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "func handler%d(w http.ResponseWriter, r *http.Request) { if err := json.NewDecoder(r.Body).Decode(&req); err != nil {\n", i)
		fmt.Fprintf(&b, "commit 3f786850e387550fdab836ed7e6dc881de23001b%d Author: Dev <dev@example.com> Date: Tue Dec 1 12:00:00 2026\n", i%10)
		fmt.Fprintf(&b, "--- PASS: TestThing/case_%d (0.00s) ok  \tgithub.com/x/y\t0.012s coverage: 81.2%% of statements\n", i)
		fmt.Fprintf(&b, "    cfg := Config{Name: \"svc\", Port: 8080, Timeout: 30 * time.Second} // see https://example.com/docs?a=1&b=2\n")
	}
	return b.String()
}

// benchLine is a stream-json line carrying a tool result of n bytes.
func benchLine(n int) []byte {
	ev := map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": []any{
		map[string]any{"type": "tool_result", "tool_use_id": "toolu_01ABCDEF", "content": benchText(n), "is_error": false}}},
		"session_id": "9f1c2d3e-aaaa-bbbb-cccc-111122223333", "uuid": "0b7e1f2a-1111-2222-3333-444455556666"}
	b, _ := json.Marshal(ev)
	return append(b, '\n')
}

func benchRedactor() *Redactor {
	return New(map[string]string{"ANTHROPIC_API_KEY": "sk-ant-api03-benchbenchbench-0001", "GITHUB_TOKEN": "ghp_benchbenchbenchbench0123456789",
		"JIRA_SERVER": "https://bot:hunter2hunter2@jira.example.com", "DB_PASSWORD": "correct-horse-battery", "HOME": "/root"})
}

func BenchmarkString(b *testing.B) {
	s := benchText(64 << 10)
	r := benchRedactor()
	b.SetBytes(int64(len(s)))
	b.ReportAllocs()
	for b.Loop() {
		_ = r.String(s)
	}
}

func BenchmarkJSON(b *testing.B) {
	line := benchLine(64 << 10)
	r := benchRedactor()
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	for b.Loop() {
		_ = r.JSON(line)
	}
}

func BenchmarkJSONWriter(b *testing.B) {
	var lines []byte
	for i := 0; i < 16; i++ {
		lines = append(lines, benchLine(4<<10)...)
	}
	r := benchRedactor()
	b.SetBytes(int64(len(lines)))
	b.ReportAllocs()
	for b.Loop() {
		w := r.JSONWriter(io.Discard)
		_, _ = w.Write(lines)
		_ = w.Close()
	}
}

// BenchmarkWriter: a text log (a cli agent's output, stderr) through the
// line writer, which checks each line's end for the start of a secret.
func BenchmarkWriter(b *testing.B) {
	text := []byte(benchText(64 << 10))
	r := benchRedactor()
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		w := r.Writer(io.Discard)
		for i := 0; i < len(text); i += 4096 {
			_, _ = w.Write(text[i:min(i+4096, len(text))])
		}
		_ = w.Close()
	}
}
