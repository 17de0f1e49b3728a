package fakeapi

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/agent-eval/agent-eval/internal/redact"
	"github.com/google/go-cmp/cmp"
)

// post sends body to url with headers and returns the status and the
// answer.
func post(t *testing.T, url string, headers map[string]string, body any) (int, string) {
	t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(got)
}

// recordThrough starts upstream (a fake, behind check) and a recorder in
// front of it at upstream's URL + prefix, and returns the recorder and
// its base URL.
func recordThrough(t *testing.T, upstream *Server, prefix string, auth func(http.Header), check func(*http.Request)) (*Recorder, string) {
	t.Helper()
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		check(r)
		upstream.Handler().ServeHTTP(w, r)
	}))
	t.Cleanup(up.Close)
	red := redact.New(nil)
	red.LearnValues("sk-real-upstream-key")
	rc, err := NewRecorder(RecorderOptions{Upstream: up.URL + prefix, StripPrefix: prefix, Redactor: red, Auth: auth})
	if err != nil {
		t.Fatal(err)
	}
	base, err := rc.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rc.Close() })
	return rc, base
}

// replayer is a strict fake holding the cassette of conversation name.
func replayer(t *testing.T, rc *Recorder, name string) (*Server, string) {
	t.Helper()
	y, err := rc.Cassette(name)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := ParseScript(y)
	if err != nil {
		t.Fatalf("the cassette does not parse as a script: %v\n%s", err, y)
	}
	s := New(Options{Strict: true})
	s.SetScript(name, sc)
	base, err := s.Start("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s, base
}

// codexTurn0 is Codex's first request in workspace cwd on date: its
// instructions, its environment context and the prompt.
func codexTurn0(cwd, date, prompt string) map[string]any {
	dev := map[string]any{"type": "message", "role": "developer", "content": []map[string]any{{"type": "input_text", "text": "You are Codex; sandbox " + date}}}
	env := userMsg("<environment_context>\n  <cwd>" + cwd + "</cwd>\n  <current_date>" + date + "</current_date>\n</environment_context>")
	return map[string]any{"model": "gpt-5.5", "stream": true, "tools": codexTools, "input": []any{dev, env, userMsg(prompt)}}
}

// codexTurn1 is the request after the answer of turn 0: its items sent
// back, with the two calls' outputs.
func codexTurn1(t *testing.T, cwd, date, prompt, wall string) map[string]any {
	t.Helper()
	req := codexTurn0(cwd, date, prompt)
	var back []any
	for _, s := range []string{
		`{"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"plan"}],"encrypted_content":"opaque"}`,
		`{"type":"message","role":"assistant","id":"msg_1","content":[{"type":"output_text","text":"Running."}]}`,
		`{"type":"function_call","id":"fc_1","call_id":"call_up_1","name":"exec_command","arguments":"{\"cmd\":\"ls\"}"}`,
		`{"type":"custom_tool_call","id":"fc_2","call_id":"call_up_2","name":"apply_patch","input":"*** Begin Patch\n*** End Patch\n"}`,
	} {
		var v any
		if err := json.Unmarshal([]byte(s), &v); err != nil {
			t.Fatal(err)
		}
		back = append(back, v)
	}
	back = append(back,
		map[string]any{"type": "function_call_output", "call_id": "call_up_1",
			"output": "Chunk ID: " + wall + "x\nWall time: " + wall + " seconds\nProcess exited with code 0\nOutput:\n" + cwd + "/a.txt\n"},
		map[string]any{"type": "custom_tool_call_output", "call_id": "call_up_2", "output": "Exit code: 0\nWall time: " + wall + " seconds\nOutput:\nSuccess."})
	req["input"] = append(req["input"].([]any), back...)
	return req
}

// TestRecordResponses records two turns of a Codex session (the
// Responses API, its SSE stream) and replays them strictly: the cassette
// holds Codex's own calls with their ids and arguments, the reasoning
// summary, the working directory as ${CWD}, and the requests' new input
// without Codex's environment context and volatile tool output; the real
// key goes upstream, the agent's never; a replay elsewhere, another day,
// with other wall times answers the same calls, and a changed prompt
// diverges at turn 0.
func TestRecordResponses(t *testing.T) {
	t.Parallel()
	up := New(Options{Script: mustScript(t, `
turns:
  - thinking: plan
    text: "Running."
    tool_uses:
      - {id: call_up_1, name: exec_command, input: {cmd: "ls '/work/ws one'"}}
      - {id: call_up_2, name: apply_patch, input: {input: "*** Begin Patch\n*** End Patch\n"}}
  - text: done, sk-real-upstream-key
`)})
	rc, base := recordThrough(t, up, "/v1", func(h http.Header) { h.Set("Authorization", "Bearer sk-real-upstream-key") },
		func(r *http.Request) {
			if r.URL.Path != "/v1/responses" {
				t.Errorf("upstream got path %s, want /v1/responses", r.URL.Path)
			}
		})
	agent := map[string]string{"Authorization": "Bearer fake-model"}
	url := ScriptURL(base, "case1") + "/v1/responses"
	for i, body := range []map[string]any{codexTurn0("/work/ws one", "2026-12-07", "go"), codexTurn1(t, "/work/ws one", "2026-12-07", "go", "0.0512")} {
		if status, got := post(t, url, agent, body); status != http.StatusOK || !strings.Contains(got, "response.completed") {
			t.Fatalf("turn %d through the recorder: status %d: %s", i, status, got)
		}
	}
	for _, r := range up.Requests() {
		if r.Auth != authPrint(http.Header{"Authorization": {"Bearer sk-real-upstream-key"}}) {
			t.Errorf("upstream got credential %q, want the real key's", r.Auth)
		}
	}
	y, err := rc.Cassette("case1")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(y), "sk-real") {
		t.Errorf("the cassette holds the key:\n%s", y)
	}
	sc, err := ParseScript(y)
	if err != nil {
		t.Fatalf("%v\n%s", err, y)
	}
	want := []Turn{
		{Thinking: "plan", Text: "Running.", StopReason: "tool_use", Request: &RecordedRequest{Last: "go"}, ToolUses: []ToolUse{
			{ID: "call_up_1", Name: "exec_command", Input: map[string]any{"cmd": "ls '${CWD}'"}},
			{ID: "call_up_2", Name: "apply_patch", Input: map[string]any{"input": "*** Begin Patch\n*** End Patch\n"}}}},
		{Text: sc.Turns[1].Text, StopReason: "end_turn", Request: &RecordedRequest{
			Last: "[tool_result] Process exited with code 0\nOutput:\n${CWD}/a.txt\n[tool_result] Exit code: 0\nOutput:\nSuccess."}},
	}
	if diff := cmp.Diff(want, sc.Turns); diff != "" {
		t.Errorf("cassette (-want +got):\n%s\n%s", diff, y)
	}

	rep, rbase := replayer(t, rc, "case1")
	rurl := ScriptURL(rbase, "case1") + "/v1/responses"
	status, got := post(t, rurl, nil, codexTurn0("/tmp/ws 2", "2027-01-01", "go"))
	if status != http.StatusOK || !strings.Contains(got, `ls '/tmp/ws 2'`) || !strings.Contains(got, `"call_id":"call_up_1"`) {
		t.Errorf("replayed turn 0: status %d: %s", status, got)
	}
	if status, got := post(t, rurl, nil, codexTurn1(t, "/tmp/ws 2", "2027-01-01", "go", "1.25")); status != http.StatusOK || !strings.Contains(got, "done") {
		t.Errorf("replayed turn 1: status %d: %s", status, got)
	}
	if _, ok := rep.Divergence("case1"); ok {
		t.Fatal("an unchanged session diverged")
	}
	if status, got := post(t, rurl, nil, codexTurn0("/tmp/ws 2", "2027-01-01", "go on")); status != http.StatusBadRequest || !strings.Contains(got, "invalid_request_error") {
		t.Errorf("changed prompt: status %d: %s, want OpenAI's 400", status, got)
	}
	if d, ok := rep.Divergence("case1"); !ok || d.Turn != 0 || !strings.Contains(d.Diff, "+go on") {
		t.Errorf("divergence = %+v, %v", d, ok)
	}
}

// geminiCallTurn1 is the Gemini CLI's request after turn 0 called
// write_file (id callID, "" without one) and got output.
func geminiCallTurn1(t *testing.T, tools []string, callID, output string) []byte {
	return geminiBody(t, tools,
		map[string]any{"role": "model", "parts": []any{map[string]any{"text": "Writing."},
			map[string]any{"functionCall": map[string]any{"id": callID, "name": "write_file", "args": map[string]any{"file_path": "a.txt"}}}}},
		map[string]any{"role": "user", "parts": []any{map[string]any{"functionResponse": map[string]any{"id": callID, "name": "write_file",
			"response": map[string]any{"output": output}}}}})
}

// TestRecordGemini records a Gemini CLI session (the Gemini API, alt=sse)
// and replays it strictly: the function calls with their ids and args,
// the thoughts, the last content without the CLI's session context and
// process ids; the real key goes upstream in x-goog-api-key and neither
// the agent's header nor its ?key= does; a structured side call is not
// recorded, a plain one is the side answer; a changed tool result
// diverges at turn 1.
func TestRecordGemini(t *testing.T) {
	t.Parallel()
	up := New(Options{Script: mustScript(t, `
turns:
  - thinking: first a plan
    text: "Writing."
    tool_use: {id: up_1, name: write_file, input: {file_path: "/work/ws one/a.txt", content: "hi"}}
  - text: done
side: {text: a summary}
`)})
	rc, base := recordThrough(t, up, "", func(h http.Header) { h.Set("X-Goog-Api-Key", "sk-real-upstream-key") },
		func(r *http.Request) {
			if r.URL.Query().Has("key") || r.URL.Query().Get("alt") != "sse" {
				t.Errorf("upstream got query %q, want alt=sse and no key", r.URL.RawQuery)
			}
		})
	agent := map[string]string{"X-Goog-Api-Key": "fake-model"}
	tools := []string{"write_file", "run_shell_command"}
	url := ScriptURL(base, "case1") + "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse&key=fake-model"
	for i, body := range [][]byte{geminiBody(t, tools), geminiCallTurn1(t, tools, "up_1", "Output: hi\nProcess Group PGID: 4242")} {
		if status, got := post(t, url, agent, json.RawMessage(body)); status != http.StatusOK {
			t.Fatalf("turn %d: status %d: %s", i, status, got)
		}
	}
	var schema map[string]any
	_ = json.Unmarshal(geminiBody(t, nil), &schema)
	schema["generationConfig"] = map[string]any{"responseJsonSchema": map[string]any{"type": "object"}}
	for _, side := range []any{schema, json.RawMessage(geminiBody(t, nil))} {
		if status, got := post(t, url, agent, side); status != http.StatusOK {
			t.Fatalf("side call: status %d: %s", status, got)
		}
	}
	for _, r := range up.Requests() {
		if r.Auth != authPrint(http.Header{"X-Goog-Api-Key": {"sk-real-upstream-key"}}) {
			t.Errorf("upstream got credential %q, want the real key's", r.Auth)
		}
	}
	y, err := rc.Cassette("case1")
	if err != nil {
		t.Fatal(err)
	}
	sc, err := ParseScript(y)
	if err != nil {
		t.Fatalf("%v\n%s", err, y)
	}
	want := &Script{
		Turns: []Turn{
			{Thinking: "first a plan", Text: "Writing.", StopReason: "tool_use", Request: &RecordedRequest{Last: "go"},
				ToolUses: []ToolUse{{ID: "up_1", Name: "write_file", Input: map[string]any{"file_path": "${CWD}/a.txt", "content": "hi"}}}},
			{Text: "done", StopReason: "end_turn", Request: &RecordedRequest{Last: "[tool_result] Output: hi"}},
		},
		Side: &Turn{Text: "a summary", StopReason: "end_turn"},
	}
	if diff := cmp.Diff(want, sc); diff != "" {
		t.Errorf("cassette (-want +got):\n%s\n%s", diff, y)
	}

	rep, rbase := replayer(t, rc, "case1")
	rurl := ScriptURL(rbase, "case1") + "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
	if status, got := post(t, rurl, nil, json.RawMessage(geminiBody(t, tools))); status != http.StatusOK || !strings.Contains(got, `"id":"up_1"`) {
		t.Errorf("replayed turn 0: status %d: %s", status, got)
	}
	if status, got := post(t, rurl, nil, json.RawMessage(geminiCallTurn1(t, tools, "", "Output: hi\nProcess Group PGID: 777"))); status != http.StatusOK {
		t.Errorf("replayed turn 1: status %d: %s", status, got)
	}
	if _, ok := rep.Divergence("case1"); ok {
		t.Fatal("an unchanged session diverged")
	}
	status, got := post(t, rurl, nil, json.RawMessage(geminiCallTurn1(t, tools, "up_1", "Output: bye")))
	if status != http.StatusBadRequest || !strings.Contains(got, "INVALID_ARGUMENT") {
		t.Errorf("changed result: status %d: %s, want the Gemini API's 400", status, got)
	}
	if d, ok := rep.Divergence("case1"); !ok || d.Turn != 1 || !strings.Contains(d.Diff, "+[tool_result] Output: bye") {
		t.Errorf("divergence = %+v, %v", d, ok)
	}
}

// TestRecordedAnswers: how the Responses and Gemini APIs' answers, errors
// and ends read as turns.
func TestRecordedAnswers(t *testing.T) {
	t.Parallel()
	sse := http.Header{"Content-Type": {"text/event-stream"}}
	js := http.Header{"Content-Type": {"application/json"}}
	for _, tc := range []struct {
		name   string
		read   func(*http.Response, []byte) (Turn, bool)
		status int
		header http.Header
		body   string
		want   Turn
		none   bool
	}{
		{name: "openai http error", read: responsesTurn, status: 429, header: js,
			body: `{"error":{"type":"rate_limit_exceeded","code":"rate_limit_exceeded","message":"slow down"}}`,
			want: Turn{Error: &APIError{Status: 429, Type: "rate_limit_exceeded", Message: "slow down"}}},
		{name: "response.failed", read: responsesTurn, status: 200, header: sse,
			body: "event: response.failed\ndata: {\"type\":\"response.failed\",\"response\":{\"status\":\"failed\",\"error\":{\"code\":\"server_error\",\"message\":\"boom\"}}}\n\n",
			want: Turn{Error: &APIError{Status: 500, Type: ResponseFailed, Message: "boom"}}},
		{name: "incomplete", read: responsesTurn, status: 200, header: sse,
			body: "data: {\"type\":\"response.output_item.done\",\"item\":{\"type\":\"message\",\"role\":\"assistant\",\"content\":[{\"type\":\"output_text\",\"text\":\"cut\"}]}}\n\n" +
				"data: {\"type\":\"response.incomplete\",\"response\":{\"status\":\"incomplete\",\"incomplete_details\":{\"reason\":\"max_output_tokens\"}}}\n\n",
			want: Turn{Text: "cut", StopReason: "max_tokens"}},
		{name: "whole response", read: responsesTurn, status: 200, header: js,
			body: `{"status":"completed","output":[{"type":"function_call","call_id":"c1","name":"exec_command","arguments":"{\"cmd\":\"ls\"}"}]}`,
			want: Turn{StopReason: "tool_use", ToolUses: []ToolUse{{ID: "c1", Name: "exec_command", Input: map[string]any{"cmd": "ls"}}}}},
		{name: "empty response", read: responsesTurn, status: 200, header: sse, body: "data: {\"type\":\"response.completed\",\"response\":{\"status\":\"completed\",\"output\":[]}}\n\n", none: true},
		{name: "gemini http error", read: geminiTurn, status: 429, header: js,
			body: `{"error":{"code":429,"message":"quota","status":"RESOURCE_EXHAUSTED"}}`,
			want: Turn{Error: &APIError{Status: 429, Type: "RESOURCE_EXHAUSTED", Message: "quota"}}},
		{name: "gemini array", read: geminiTurn, status: 200, header: js,
			body: `[{"candidates":[{"content":{"parts":[{"text":"a"}]}}]},{"candidates":[{"content":{"parts":[{"text":"b"}]},"finishReason":"MAX_TOKENS"}]}]`,
			want: Turn{Text: "ab", StopReason: "max_tokens"}},
		{name: "gemini object, call without id", read: geminiTurn, status: 200, header: js,
			body: `{"candidates":[{"content":{"parts":[{"functionCall":{"name":"glob","args":{"pattern":"*"}}}]},"finishReason":"STOP"}]}`,
			want: Turn{StopReason: "tool_use", ToolUses: []ToolUse{{Name: "glob", Input: map[string]any{"pattern": "*"}}}}},
		{name: "gemini nothing", read: geminiTurn, status: 200, header: sse, body: "data: {\"candidates\":[]}\r\n\r\n", none: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, ok := tc.read(&http.Response{StatusCode: tc.status, Header: tc.header}, []byte(tc.body))
			if ok == tc.none {
				t.Fatalf("ok = %v (%+v)", ok, got)
			}
			if diff := cmp.Diff(tc.want, got); !tc.none && diff != "" {
				t.Errorf("turn (-want +got):\n%s", diff)
			}
		})
	}
}

// TestNormalizeAPIs: what strict replay compares of a Codex and a Gemini
// request, and what it leaves out.
func TestNormalizeAPIs(t *testing.T) {
	t.Parallel()
	var items []responseItem
	for _, s := range []string{
		`{"type":"message","role":"developer","content":[{"type":"input_text","text":"instructions"}]}`,
		`{"type":"message","role":"user","content":[{"type":"input_text","text":"first prompt"}]}`,
		`{"type":"function_call","call_id":"c1","name":"exec_command","arguments":"{}"}`,
		`{"type":"function_call_output","call_id":"c1","output":"Chunk ID: 1a2b\nWall time: 0.3 seconds\nOutput:\n/ws/x\n"}`,
		`{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context><current_date>2026-01-01</current_date></environment_context>and more"}]}`,
	} {
		var it responseItem
		if err := json.Unmarshal([]byte(s), &it); err != nil {
			t.Fatal(err)
		}
		items = append(items, it)
	}
	if got, want := NormalizeResponses(items, "/ws"), "[tool_result] Output:\n${CWD}/x\nand more"; got != want {
		t.Errorf("NormalizeResponses = %q, want %q", got, want)
	}
	if got := NormalizeResponses(items[:2], "/ws"); got != "first prompt" {
		t.Errorf("NormalizeResponses of the first turn = %q", got)
	}
	contents := []geminiContent{{Role: "user", Parts: []geminiPart{{Text: "<session_context>Today is Monday</session_context>"}, {Text: "thinking", Thought: true},
		{FunctionResponse: &geminiResponse{ID: "x", Name: "run_shell_command", Response: map[string]any{"error": "Exit Code: 1\nBackground PIDs: 12\nin /ws"}}},
		{FunctionResponse: &geminiResponse{Name: "glob", Response: map[string]any{"files": []any{"a"}}}}}}}
	if got, want := NormalizeGemini(contents, "/ws"), "[tool_result error] Exit Code: 1\nin ${CWD}\n[tool_result] {\"files\":[\"a\"]}"; got != want {
		t.Errorf("NormalizeGemini = %q, want %q", got, want)
	}
}
