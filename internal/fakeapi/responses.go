package fakeapi

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/agent-eval/agent-eval/internal/lazyre"
)

// The OpenAI Responses API (POST /v1/responses), as the Codex CLI speaks it:
// the same scripts as the Messages API, answered as a stream of SSE events
// (response.created, response.output_item.added and .done per item,
// response.completed with usage). A script names tools in Claude Code's
// vocabulary; when the request offers no tool of that name, the fake calls
// the agent's own tool instead (nativeCall): Bash runs exec_command{cmd},
// Read runs cat, Write and Edit become an apply_patch. A script may name a
// native tool directly.

// ResponseFailed as a turn's error.type makes the fake answer 200 and then
// fail the stream with a response.failed event carrying the message,
// instead of answering the HTTP error status.
const ResponseFailed = "response.failed"

// responsesRequest is the part of a Responses API request the fake reads.
type responsesRequest struct {
	Model        string          `json:"model"`
	Stream       bool            `json:"stream"`
	Instructions json.RawMessage `json:"instructions"`
	Tools        []struct {
		Type string `json:"type"`
		Name string `json:"name"`
	} `json:"tools"`
	Input json.RawMessage `json:"input"`
	items []responseItem
}

// responseItem is one input or output item.
type responseItem struct {
	Type      string          `json:"type"`
	ID        string          `json:"id,omitempty"`
	Role      string          `json:"role,omitempty"`
	Status    string          `json:"status,omitempty"`
	Content   json.RawMessage `json:"content,omitempty"`
	Name      string          `json:"name,omitempty"`
	CallID    string          `json:"call_id,omitempty"`
	Arguments string          `json:"arguments,omitempty"`
	Input     string          `json:"input,omitempty"`
	Output    json.RawMessage `json:"output,omitempty"`
	Summary   []textPart      `json:"summary,omitempty"`
}

type textPart struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// parseInput reads the input: a string (one user message) or a list of
// items.
func (q *responsesRequest) parseInput() {
	raw := bytes.TrimSpace(q.Input)
	if len(raw) == 0 {
		return
	}
	if raw[0] == '"' {
		var s string
		_ = json.Unmarshal(raw, &s)
		c, _ := json.Marshal([]textPart{{Type: "input_text", Text: s}})
		q.items = []responseItem{{Type: "message", Role: "user", Content: c}}
		return
	}
	_ = json.Unmarshal(raw, &q.items)
}

// itemText is the text of a message item's content (a string or parts).
func itemText(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return ""
	}
	if raw[0] == '"' {
		var s string
		_ = json.Unmarshal(raw, &s)
		return s
	}
	var parts []textPart
	_ = json.Unmarshal(raw, &parts)
	var out []string
	for _, p := range parts {
		if p.Text != "" {
			out = append(out, p.Text)
		}
	}
	return strings.Join(out, "\n")
}

// modelOutput says whether an input item is something the model answered
// earlier (the history the client sends back).
func modelOutput(it responseItem) bool {
	switch it.Type {
	case "function_call", "custom_tool_call", "reasoning", "local_shell_call":
		return true
	case "message":
		return it.Role == "assistant"
	}
	return false
}

// turns counts the model's earlier answers: each run of consecutive model
// output items is one response.
func (q *responsesRequest) turns() int {
	n, in := 0, false
	for _, it := range q.items {
		out := modelOutput(it)
		if out && !in {
			n++
		}
		in = out
	}
	return n
}

func (q *responsesRequest) lastUser() string {
	var last string
	for _, it := range q.items {
		if it.Type == "message" && it.Role == "user" {
			last = itemText(it.Content)
		}
	}
	return last
}

// codexCWD finds the working directory in Codex's environment context.
var codexCWD = lazyre.New(`<cwd>([^<\n]+)</cwd>`)

func (q *responsesRequest) cwd() string {
	for _, it := range q.items {
		if it.Type == "message" && (it.Role == "user" || it.Role == "developer") {
			if m := codexCWD().FindStringSubmatch(itemText(it.Content)); m != nil {
				return strings.TrimSpace(m[1])
			}
		}
	}
	return ""
}

func (q *responsesRequest) toolResults() []ToolResult {
	var out []ToolResult
	for _, it := range q.items {
		if it.Type != "function_call_output" && it.Type != "custom_tool_call_output" {
			continue
		}
		content := itemText(it.Output)
		if content == "" {
			content = string(it.Output)
		}
		out = append(out, ToolResult{ToolUseID: it.CallID, Content: content})
	}
	return out
}

// offered maps each tool the request offers to its type (function,
// custom, ...).
func (q *responsesRequest) offered() map[string]string {
	m := map[string]string{}
	for _, t := range q.Tools {
		name := t.Name
		if name == "" {
			name = t.Type // web_search and the like have only a type
		}
		m[name] = t.Type
	}
	return m
}

func (s *Server) responses(w http.ResponseWriter, r *http.Request) {
	body, err := readBody(r)
	if err != nil {
		writeOpenAIError(w, APIError{Status: http.StatusBadRequest, Type: "invalid_request_error", Message: err.Error()})
		return
	}
	var req responsesRequest
	if err := json.Unmarshal(body, &req); err != nil {
		s.record(r, Request{Kind: "other", Status: http.StatusBadRequest, Body: safeJSON(body)})
		writeOpenAIError(w, APIError{Status: http.StatusBadRequest, Type: "invalid_request_error", Message: "fake api: body is not JSON: " + err.Error()})
		return
	}
	req.parseInput()
	rec := Request{Model: req.Model, Stream: req.Stream, ToolResults: req.toolResults(), Script: r.Header.Get(ScriptHeader),
		Bytes: len(body), Messages: len(req.items), Kind: "side"}
	if s.opts.Log == nil || s.opts.LogBodies {
		rec.Body = body
	}
	for _, t := range req.Tools {
		rec.Tools = append(rec.Tools, t.Name)
	}
	if len(req.Instructions) > 0 {
		sum := sha256.Sum256(req.Instructions)
		rec.SystemSHA256 = hex.EncodeToString(sum[:])
	}
	if n := len(req.items); n > 0 {
		rec.Last, _ = json.Marshal(req.items[n-1])
	}
	script, err := s.script(rec.Script)
	if err != nil {
		rec.Kind, rec.Status = "other", http.StatusInternalServerError
		s.record(r, rec)
		writeOpenAIError(w, APIError{Status: http.StatusInternalServerError, Type: "server_error", Message: "fake api: " + err.Error()})
		return
	}
	if len(req.Tools) > 0 {
		rec.Kind, rec.Turn = "main", req.turns()
	}
	if s.opts.Strict && rec.Kind == "main" {
		actual := s.opts.Redactor.String(NormalizeResponses(req.items, req.cwd()))
		if d := diverge(script, rec.Turn, actual); d != nil {
			rec.Status = http.StatusBadRequest
			s.record(r, rec)
			s.noteDivergence(w, rec.Script, d, writeOpenAIError)
			return
		}
	}
	turn := s.pick(script, &rec, req.lastUser, req.cwd)
	if turn.Error != nil && turn.Error.Type != ResponseFailed {
		rec.Status = turn.Error.Status
		s.record(r, rec)
		writeOpenAIError(w, *turn.Error)
		return
	}
	rec.Status = http.StatusOK
	resp := buildResponse(turn, rec.Turn, req.Model, len(body), req.offered())
	for _, it := range resp.Output {
		switch it.Type {
		case "function_call":
			var in map[string]any
			_ = json.Unmarshal([]byte(it.Arguments), &in)
			rec.ToolUses = append(rec.ToolUses, ToolUse{ID: it.CallID, Name: it.Name, Input: in})
		case "custom_tool_call":
			rec.ToolUses = append(rec.ToolUses, ToolUse{ID: it.CallID, Name: it.Name, Input: map[string]any{"input": it.Input}})
		}
	}
	s.record(r, rec)
	writeResponseSSE(w, resp, turn.Error)
}

// response is a Responses API response object.
type response struct {
	ID        string         `json:"id"`
	Object    string         `json:"object"`
	CreatedAt int64          `json:"created_at"`
	Status    string         `json:"status"`
	Model     string         `json:"model"`
	Output    []responseItem `json:"output"`
	Usage     *responseUsage `json:"usage,omitempty"`
	Error     any            `json:"error"`
}

type responseUsage struct {
	InputTokens         int            `json:"input_tokens"`
	InputTokensDetails  map[string]int `json:"input_tokens_details"`
	OutputTokens        int            `json:"output_tokens"`
	OutputTokensDetails map[string]int `json:"output_tokens_details"`
	TotalTokens         int            `json:"total_tokens"`
}

func buildResponse(t Turn, turn int, model string, reqSize int, offered map[string]string) response {
	if model == "" {
		model = "gpt-fake-1"
	}
	resp := response{ID: fmt.Sprintf("resp_fake_%d", turn), Object: "response", CreatedAt: 1767225600, Status: "completed",
		Model: model, Output: []responseItem{}}
	out, reasoning := 0, 0
	if t.Thinking != "" {
		resp.Output = append(resp.Output, responseItem{Type: "reasoning", ID: fmt.Sprintf("rs_fake_%d", turn),
			Summary: []textPart{{Type: "summary_text", Text: t.Thinking}}})
		reasoning = estimateTokens(len(t.Thinking))
	}
	if t.Text != "" {
		c, _ := json.Marshal([]textPart{{Type: "output_text", Text: t.Text}})
		resp.Output = append(resp.Output, responseItem{Type: "message", ID: fmt.Sprintf("msg_fake_%d", turn), Role: "assistant",
			Status: "completed", Content: c})
		out += estimateTokens(len(t.Text))
	}
	for i, u := range t.tools() {
		id := u.ID
		if id == "" {
			id = fmt.Sprintf("call_fake_%d_%d", turn, i)
		}
		it := nativeCall(u, offered)
		it.ID, it.CallID, it.Status = fmt.Sprintf("fc_fake_%d_%d", turn, i), id, "completed"
		resp.Output = append(resp.Output, it)
		out += 10
	}
	in := symbolicTokens(reqSize)
	resp.Usage = &responseUsage{InputTokens: in, InputTokensDetails: map[string]int{"cached_tokens": 0},
		OutputTokens: out + reasoning, OutputTokensDetails: map[string]int{"reasoning_tokens": reasoning}, TotalTokens: in + out + reasoning}
	return resp
}

// nativeCall is the output item that makes the call u on a client offering
// the tools offered (name → type): u itself when offered (a custom tool
// takes input.input as its freeform text), else Claude Code's tool mapped
// onto Codex's: Bash → exec_command{cmd}, Read → exec_command cat, Write →
// apply_patch adding the file, Edit → apply_patch replacing old_string by
// new_string. Anything else is called by its own name.
func nativeCall(u ToolUse, offered map[string]string) responseItem {
	str := func(k string) string { s, _ := u.Input[k].(string); return s }
	if typ, ok := offered[u.Name]; ok {
		if typ == "custom" {
			return responseItem{Type: "custom_tool_call", Name: u.Name, Input: str("input")}
		}
		return functionCall(u.Name, u.Input)
	}
	_, patch := offered["apply_patch"]
	switch {
	case u.Name == "Bash":
		return functionCall("exec_command", map[string]any{"cmd": str("command")})
	case u.Name == "Read":
		return functionCall("exec_command", map[string]any{"cmd": "cat " + shellQuote(str("file_path"))})
	case u.Name == "Write" && patch:
		return responseItem{Type: "custom_tool_call", Name: "apply_patch",
			Input: "*** Begin Patch\n*** Add File: " + str("file_path") + "\n" + prefixLines("+", str("content")) + "*** End Patch\n"}
	case u.Name == "Edit" && patch:
		return responseItem{Type: "custom_tool_call", Name: "apply_patch",
			Input: "*** Begin Patch\n*** Update File: " + str("file_path") + "\n@@\n" + prefixLines("-", str("old_string")) +
				prefixLines("+", str("new_string")) + "*** End Patch\n"}
	}
	return functionCall(u.Name, u.Input)
}

func functionCall(name string, input map[string]any) responseItem {
	if input == nil {
		input = map[string]any{}
	}
	b, _ := json.Marshal(input)
	return responseItem{Type: "function_call", Name: name, Arguments: string(b)}
}

// prefixLines puts p before every line of s, each ending in a newline.
func prefixLines(p, s string) string {
	if s == "" {
		return ""
	}
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimSuffix(s, "\n"), "\n") {
		b.WriteString(p + l + "\n")
	}
	return b.String()
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '_' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// writeResponseSSE sends resp as the Responses API streams it; failed, when
// set, ends the stream with response.failed instead of response.completed.
func writeResponseSSE(w http.ResponseWriter, resp response, failed *APIError) {
	var b bytes.Buffer
	seq := 0
	event := func(name string, data map[string]any) {
		data["type"], data["sequence_number"] = name, seq
		seq++
		j, _ := json.Marshal(data)
		fmt.Fprintf(&b, "event: %s\ndata: %s\n\n", name, j)
	}
	start := resp
	start.Status, start.Output, start.Usage = "in_progress", []responseItem{}, nil
	event("response.created", map[string]any{"response": start})
	if failed != nil {
		end := start
		end.Status = "failed"
		end.Error = map[string]string{"code": "server_error", "message": failed.Message}
		event(ResponseFailed, map[string]any{"response": end})
	} else {
		for i, it := range resp.Output {
			added := it
			added.Status = "in_progress"
			if it.Type == "message" {
				added.Content = json.RawMessage("[]")
			}
			event("response.output_item.added", map[string]any{"output_index": i, "item": added})
			if it.Type == "message" {
				text := itemText(it.Content)
				for _, c := range chunks(text, 24) {
					event("response.output_text.delta", map[string]any{"output_index": i, "item_id": it.ID, "content_index": 0, "delta": c})
				}
				event("response.output_text.done", map[string]any{"output_index": i, "item_id": it.ID, "content_index": 0, "text": text})
			}
			event("response.output_item.done", map[string]any{"output_index": i, "item": it})
		}
		event("response.completed", map[string]any{"response": resp})
	}
	writeEventStream(w, "x-request-id", "req_"+resp.ID, b.Bytes())
}

// writeOpenAIError answers an HTTP error in OpenAI's shape.
func writeOpenAIError(w http.ResponseWriter, e APIError) {
	typ := e.Type
	switch {
	case typ != "":
	case e.Status == http.StatusTooManyRequests:
		typ = "rate_limit_exceeded"
	case e.Status >= 400 && e.Status < 500:
		typ = "invalid_request_error"
	default:
		typ = "server_error"
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("x-request-id", "req_fake_error")
	w.WriteHeader(e.Status)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"type": typ, "code": typ, "message": e.Message, "param": nil}})
}
