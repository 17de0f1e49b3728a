package fakeapi

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// geminiBody is a GenerateContentRequest as Gemini CLI sends it: the
// session context, the prompt, the turns so far; tools when offered.
func geminiBody(t *testing.T, tools []string, contents ...map[string]any) []byte {
	t.Helper()
	first := map[string]any{"role": "user", "parts": []any{
		map[string]any{"text": "<session_context>\n- **Workspace Directories:**\n  - /work/ws one\n- **Directory Structure:**\n</session_context>"},
		map[string]any{"text": "go"}}}
	req := map[string]any{"contents": append([]map[string]any{first}, contents...), "systemInstruction": map[string]any{"parts": []any{map[string]any{"text": "sys"}}}}
	if len(tools) > 0 {
		var decls []any
		for _, n := range tools {
			decls = append(decls, map[string]any{"name": n, "parametersJsonSchema": map[string]any{"type": "object"}})
		}
		req["tools"] = []any{map[string]any{"functionDeclarations": decls}}
	}
	b, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func postGemini(t *testing.T, url, path, script string, body []byte) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("x-goog-api-key", "secret-key")
	if script != "" {
		req.Header.Set(ScriptHeader, script)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, b
}

// sseParts reassembles a streamed answer: its parts (texts joined), the
// last chunk's finish reason and usage.
func sseParts(t *testing.T, body []byte) (text string, calls []map[string]any, finish string, usage map[string]any) {
	t.Helper()
	sc := bufio.NewScanner(bytes.NewReader(body))
	for sc.Scan() {
		line, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "data: ")
		if !ok {
			continue
		}
		var chunk struct {
			Candidates []struct {
				Content struct {
					Parts []map[string]any `json:"parts"`
				} `json:"content"`
				FinishReason string `json:"finishReason"`
			} `json:"candidates"`
			Usage map[string]any `json:"usageMetadata"`
		}
		if err := json.Unmarshal([]byte(line), &chunk); err != nil {
			t.Fatalf("chunk %q: %v", line, err)
		}
		for _, p := range chunk.Candidates[0].Content.Parts {
			if s, ok := p["text"].(string); ok && p["thought"] == nil {
				text += s
			}
			if fc, ok := p["functionCall"].(map[string]any); ok {
				calls = append(calls, fc)
			}
		}
		if f := chunk.Candidates[0].FinishReason; f != "" {
			finish, usage = f, chunk.Usage
		}
	}
	return text, calls, finish, usage
}

// geminiWhole is a generateContent answer's parts.
type geminiWhole struct {
	Candidates []struct {
		Content struct {
			Parts []map[string]any `json:"parts"`
		} `json:"content"`
	} `json:"candidates"`
}

var geminiTools = []string{"read_file", "write_file", "run_shell_command", "replace", "glob", "grep_search", "web_fetch"}

func TestGeminiStream(t *testing.T) {
	s := New(Options{})
	url, err := s.Start("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	s.SetScript("case-a", mustScript(t, `
turns:
  - text: "I will write the file now, in more than one chunk."
    tool_uses:
      - {name: Bash, input: {command: "echo hi", description: "say hi"}}
      - {name: Write, input: {file_path: "${CWD}/out.txt", content: "x"}}
      - {name: Read, input: {file_path: "a"}}
      - {name: read_file, input: {file_path: "native"}}
  - text: second
`))
	path := "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
	resp, body := postGemini(t, url, path, "case-a", geminiBody(t, geminiTools))
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("status %d %s: %s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	text, calls, finish, usage := sseParts(t, body)
	if text != "I will write the file now, in more than one chunk." || finish != "STOP" || usage["totalTokenCount"] == nil {
		t.Errorf("text %q, finish %q, usage %v", text, finish, usage)
	}
	want := []map[string]any{
		{"id": "call_fake_0_0", "name": "run_shell_command", "args": map[string]any{"command": "echo hi", "description": "say hi"}},
		{"id": "call_fake_0_1", "name": "write_file", "args": map[string]any{"file_path": "/work/ws one/out.txt", "content": "x"}},
		{"id": "call_fake_0_2", "name": "read_file", "args": map[string]any{"file_path": "a"}},
		{"id": "call_fake_0_3", "name": "read_file", "args": map[string]any{"file_path": "native"}},
	}
	if d := cmp.Diff(want, calls); d != "" {
		t.Errorf("function calls (-want +got):\n%s", d)
	}
	// The next turn: the model's calls and their responses are in the
	// request; the results are recorded.
	next := geminiBody(t, geminiTools,
		map[string]any{"role": "model", "parts": []any{map[string]any{"functionCall": map[string]any{"id": "c1", "name": "run_shell_command", "args": map[string]any{}}}}},
		map[string]any{"role": "user", "parts": []any{map[string]any{"functionResponse": map[string]any{"id": "c1", "name": "run_shell_command",
			"response": map[string]any{"error": "Tool execution blocked: no"}}}}})
	_, body = postGemini(t, url, "/s/case-a/v1beta/models/gemini-2.5-flash:generateContent", "", next)
	var whole geminiWhole
	if err := json.Unmarshal(body, &whole); err != nil || whole.Candidates[0].Content.Parts[0]["text"] != "second" {
		t.Fatalf("generateContent by the script's URL: %s (%v)", body, err)
	}
	reqs := s.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests recorded", len(reqs))
	}
	last := reqs[1]
	if last.Kind != "main" || last.Turn != 1 || last.Script != "case-a" || last.Model != "gemini-2.5-flash" || last.Stream {
		t.Errorf("recorded %+v", last)
	}
	if d := cmp.Diff([]ToolResult{{ToolUseID: "c1", Content: "Tool execution blocked: no", IsError: true}}, last.ToolResults); d != "" {
		t.Errorf("tool results (-want +got):\n%s", d)
	}
	if last.Headers["X-Goog-Api-Key"] != "[redacted]" {
		t.Errorf("the API key was recorded: %v", last.Headers)
	}
}

func TestGeminiSideCallsAndErrors(t *testing.T) {
	s := New(Options{})
	url, err := s.Start("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	s.SetScript("err", mustScript(t, `
turns:
  - error: {status: 500, message: "fake 500"}
`))
	s.SetScript("once", mustScript(t, `
turns:
  - error: {status: 429, type: rate_limit_error, message: "slow down"}
    count: 1
    text: "after the retry"
`))
	// The routing call (no tools, a JSON schema): an object it accepts.
	routing := map[string]any{"contents": []any{map[string]any{"role": "user", "parts": []any{map[string]any{"text": "route"}}}},
		"generationConfig": map[string]any{"responseMimeType": "application/json", "responseJsonSchema": map[string]any{"type": "object",
			"properties": map[string]any{"complexity_reasoning": map[string]any{"type": "string"}, "complexity_score": map[string]any{"type": "integer"},
				"next_speaker": map[string]any{"type": "string", "enum": []any{"user", "model"}}},
			"required": []any{"complexity_reasoning", "complexity_score", "next_speaker"}}}}
	b, _ := json.Marshal(routing)
	_, body := postGemini(t, url, "/v1beta/models/gemini-2.5-flash-lite:generateContent", "err", b)
	var whole geminiWhole
	if err := json.Unmarshal(body, &whole); err != nil {
		t.Fatal(err)
	}
	var answer map[string]any
	if err := json.Unmarshal([]byte(whole.Candidates[0].Content.Parts[0]["text"].(string)), &answer); err != nil {
		t.Fatalf("the routing answer is not JSON: %s", body)
	}
	if d := cmp.Diff(map[string]any{"complexity_reasoning": "fake", "complexity_score": float64(1), "next_speaker": "user"}, answer); d != "" {
		t.Errorf("routing answer (-want +got):\n%s", d)
	}
	resp, body := postGemini(t, url, "/v1beta/models/m:streamGenerateContent?alt=sse", "err", geminiBody(t, geminiTools))
	if resp.StatusCode != 500 || !strings.Contains(string(body), `"status":"INTERNAL"`) || !strings.Contains(string(body), "fake 500") {
		t.Errorf("error turn: %d %s", resp.StatusCode, body)
	}
	resp, body = postGemini(t, url, "/v1beta/models/m:streamGenerateContent?alt=sse", "once", geminiBody(t, geminiTools))
	if resp.StatusCode != 429 || !strings.Contains(string(body), "RESOURCE_EXHAUSTED") {
		t.Errorf("counted error turn, first: %d %s", resp.StatusCode, body)
	}
	_, body = postGemini(t, url, "/v1beta/models/m:streamGenerateContent?alt=sse", "once", geminiBody(t, geminiTools))
	if text, _, _, _ := sseParts(t, body); text != "after the retry" {
		t.Errorf("counted error turn, retry: %s", body)
	}
	_, body = postGemini(t, url, "/v1beta/models/m:countTokens", "", geminiBody(t, nil))
	if !strings.Contains(string(body), "totalTokens") {
		t.Errorf("countTokens: %s", body)
	}
}
