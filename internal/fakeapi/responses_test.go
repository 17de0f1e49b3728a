package fakeapi

import (
	"bufio"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// codexTools is what Codex offers: exec_command and the freeform
// apply_patch.
var codexTools = []map[string]any{{"type": "function", "name": "exec_command"}, {"type": "custom", "name": "apply_patch"},
	{"type": "web_search"}}

// postResponses sends one Responses API request and returns its SSE events
// (type → data, in order) and the HTTP status.
func postResponses(t *testing.T, url, script string, body map[string]any) (int, []map[string]any) {
	t.Helper()
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest(http.MethodPost, url+"/v1/responses", strings.NewReader(string(b)))
	req.Header.Set("content-type", "application/json")
	if script != "" {
		req.Header.Set("x-fake-script", script) // Codex sends it lower-cased
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var events []map[string]any
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			var e map[string]any
			if err := json.Unmarshal([]byte(data), &e); err != nil {
				t.Fatalf("event %s: %v", data, err)
			}
			events = append(events, e)
		}
	}
	return resp.StatusCode, events
}

func userMsg(text string) map[string]any {
	return map[string]any{"type": "message", "role": "user", "content": []map[string]any{{"type": "input_text", "text": text}}}
}

// TestResponses: a script's turns come out as Responses API events, with
// Claude Code's tools mapped onto Codex's; the turn is the number of the
// model's earlier answers; the tool outputs are recorded.
func TestResponses(t *testing.T) {
	t.Parallel()
	s, _ := start(t, Options{})
	s.SetScript("case-a", mustScript(t, `
turns:
  - text: "Running."
    tool_uses:
      - {name: Bash, input: {command: "echo hi"}}
      - {name: Write, input: {file_path: "${CWD}/out.txt", content: "a\nb"}}
      - {name: Read, input: {file_path: "my file"}}
      - {name: exec_command, input: {cmd: "ls"}}
  - text: done
`))
	url := "http://" + s.ln.Addr().String()
	status, events := postResponses(t, url, "case-a", map[string]any{"model": "gpt-5.5", "stream": true, "tools": codexTools,
		"input": []any{userMsg("<environment_context>\n  <cwd>/w s</cwd>\n</environment_context>"), userMsg("do it")}})
	if status != http.StatusOK {
		t.Fatalf("status %d", status)
	}
	var types []string
	var done []map[string]any
	for _, e := range events {
		types = append(types, e["type"].(string))
		if e["type"] == "response.output_item.done" {
			done = append(done, e["item"].(map[string]any))
		}
	}
	if types[0] != "response.created" || types[len(types)-1] != "response.completed" {
		t.Errorf("events %v", types)
	}
	want := []string{
		`{"content":[{"text":"Running.","type":"output_text"}],"id":"msg_fake_0","role":"assistant","status":"completed","type":"message"}`,
		`{"arguments":"{\"cmd\":\"echo hi\"}","call_id":"call_fake_0_0","id":"fc_fake_0_0","name":"exec_command","status":"completed","type":"function_call"}`,
		`{"call_id":"call_fake_0_1","id":"fc_fake_0_1","input":"*** Begin Patch\n*** Add File: /w s/out.txt\n+a\n+b\n*** End Patch\n","name":"apply_patch","status":"completed","type":"custom_tool_call"}`,
		`{"arguments":"{\"cmd\":\"cat 'my file'\"}","call_id":"call_fake_0_2","id":"fc_fake_0_2","name":"exec_command","status":"completed","type":"function_call"}`,
		`{"arguments":"{\"cmd\":\"ls\"}","call_id":"call_fake_0_3","id":"fc_fake_0_3","name":"exec_command","status":"completed","type":"function_call"}`,
	}
	var got []string
	for _, it := range done {
		b, _ := json.Marshal(it)
		got = append(got, string(b))
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("items (-want +got):\n%s", d)
	}
	usage := events[len(events)-1]["response"].(map[string]any)["usage"].(map[string]any)
	if usage["input_tokens"].(float64) < 1 || usage["output_tokens"].(float64) < 1 {
		t.Errorf("usage %v", usage)
	}

	// The next request carries the answer and the outputs: turn 1.
	history := []any{userMsg("do it"), map[string]any{"type": "message", "role": "assistant", "content": []any{}},
		map[string]any{"type": "function_call", "call_id": "call_fake_0_0", "name": "exec_command", "arguments": "{}"},
		map[string]any{"type": "function_call_output", "call_id": "call_fake_0_0", "output": "Command blocked by PreToolUse hook: no"}}
	_, events = postResponses(t, url, "case-a", map[string]any{"model": "gpt-5.5", "stream": true, "tools": codexTools, "input": history})
	last := events[len(events)-2]["item"].(map[string]any)
	if last["type"] != "message" || !strings.Contains(mustJSON(last["content"]), `"text":"done"`) {
		t.Errorf("turn 1: %v", last)
	}
	reqs := s.Requests()
	if r := reqs[len(reqs)-1]; r.Turn != 1 || r.Kind != "main" || r.Script != "case-a" ||
		len(r.ToolResults) != 1 || r.ToolResults[0].Content != "Command blocked by PreToolUse hook: no" {
		t.Errorf("recorded %+v", r)
	}
}

// TestResponsesErrors: an error turn answers its HTTP status in OpenAI's
// shape; type response.failed answers 200 and fails the stream.
func TestResponsesErrors(t *testing.T) {
	t.Parallel()
	s, _ := start(t, Options{Script: mustScript(t, "turns: [{error: {status: 500, type: server_error, message: down}}]\n")})
	s.SetScript("failed", mustScript(t, "turns: [{error: {status: 500, type: response.failed, message: broke}}]\n"))
	url := "http://" + s.ln.Addr().String()
	body := map[string]any{"model": "m", "stream": true, "tools": codexTools, "input": "hi"}
	if status, _ := postResponses(t, url, "", body); status != http.StatusInternalServerError {
		t.Errorf("status %d; want 500", status)
	}
	status, events := postResponses(t, url, "failed", body)
	if status != http.StatusOK || len(events) != 2 || events[1]["type"] != ResponseFailed ||
		!strings.Contains(mustJSON(events[1]), `"message":"broke"`) {
		t.Errorf("response.failed: %d %v", status, events)
	}
	// By URL path too, as ScriptURL names it.
	if status, _ := postResponses(t, ScriptURL(url, "failed"), "", body); status != http.StatusOK {
		t.Errorf("script by path: status %d", status)
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
