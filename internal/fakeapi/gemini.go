package fakeapi

// The Gemini API (generativelanguage v1beta) on the same server and with the
// same scripts as the Messages API, for the Gemini CLI
// (GOOGLE_GEMINI_BASE_URL): POST /v1beta/models/{model}:streamGenerateContent
// (?alt=sse), :generateContent and :countTokens. A script's tool uses name
// tools in Claude Code's vocabulary (Bash, Write, Read, …); a request that
// does not offer a function of that name gets the Gemini CLI's own tool
// (geminiNative), so one script plays the model for every runner.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/agent-eval/agent-eval/internal/lazyre"
)

// GeminiAPIPrefix is the path prefix of the Gemini API's model calls.
const GeminiAPIPrefix = "/v1beta/"

// geminiRequest is the part of a GenerateContentRequest the fake reads.
type geminiRequest struct {
	Contents []geminiContent `json:"contents"`
	Tools    []struct {
		FunctionDeclarations []struct {
			Name string `json:"name"`
		} `json:"functionDeclarations"`
	} `json:"tools"`
	SystemInstruction json.RawMessage `json:"systemInstruction"`
	GenerationConfig  struct {
		ResponseMimeType   string          `json:"responseMimeType"`
		ResponseJSONSchema json.RawMessage `json:"responseJsonSchema"`
		ResponseSchema     json.RawMessage `json:"responseSchema"`
	} `json:"generationConfig"`
}

type geminiContent struct {
	Role  string       `json:"role"`
	Parts []geminiPart `json:"parts"`
}

type geminiPart struct {
	Text             string          `json:"text,omitempty"`
	Thought          bool            `json:"thought,omitempty"`
	FunctionCall     *geminiCall     `json:"functionCall,omitempty"`
	FunctionResponse *geminiResponse `json:"functionResponse,omitempty"`
}

type geminiCall struct {
	ID   string         `json:"id,omitempty"`
	Name string         `json:"name"`
	Args map[string]any `json:"args"`
}

type geminiResponse struct {
	ID       string         `json:"id"`
	Name     string         `json:"name"`
	Response map[string]any `json:"response"`
}

// tools names the functions the request offers.
func (g *geminiRequest) tools() []string {
	var out []string
	for _, t := range g.Tools {
		for _, f := range t.FunctionDeclarations {
			out = append(out, f.Name)
		}
	}
	return out
}

// lastUserText is the text of the request's last user content.
func (g *geminiRequest) lastUserText() string {
	for i := len(g.Contents) - 1; i >= 0; i-- {
		if c := g.Contents[i]; c.Role == "user" || c.Role == "" {
			var parts []string
			for _, p := range c.Parts {
				if p.Text != "" {
					parts = append(parts, p.Text)
				}
			}
			if len(parts) > 0 {
				return strings.Join(parts, "\n")
			}
		}
	}
	return ""
}

// toolResults are the functionResponse parts of every user content.
func (g *geminiRequest) toolResults() []ToolResult {
	var out []ToolResult
	for _, c := range g.Contents {
		for _, p := range c.Parts {
			r := p.FunctionResponse
			if r == nil {
				continue
			}
			tr := ToolResult{ToolUseID: r.ID}
			if tr.ToolUseID == "" {
				tr.ToolUseID = r.Name
			}
			switch {
			case r.Response["error"] != nil:
				tr.IsError = true
				tr.Content = textValue(r.Response["error"])
			case r.Response["output"] != nil:
				tr.Content = textValue(r.Response["output"])
			default:
				tr.Content = textValue(r.Response)
			}
			out = append(out, tr)
		}
	}
	return out
}

func textValue(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// geminiCWDRE finds the workspace in the Gemini CLI's session context
// ("- **Workspace Directories:**\n  - <dir>").
var geminiCWDRE = lazyre.New(`Workspace Directories:\*\*\s*\n\s*- ([^\n]+)`)

func (g *geminiRequest) cwd() string {
	for _, c := range g.Contents {
		for _, p := range c.Parts {
			if sub := geminiCWDRE().FindStringSubmatch(p.Text); sub != nil {
				return strings.TrimSpace(sub[1])
			}
		}
	}
	return ""
}

// geminiNative maps a script's tool use in Claude Code's vocabulary to the
// Gemini CLI's tool when the request does not offer the script's name.
func geminiNative(u ToolUse, offered []string) ToolUse {
	has := func(n string) bool {
		for _, o := range offered {
			if o == n {
				return true
			}
		}
		return false
	}
	if has(u.Name) {
		return u
	}
	in := u.Input
	str := func(k string) any { return in[k] }
	out := u
	switch u.Name {
	case "Bash":
		out.Name, out.Input = "run_shell_command", map[string]any{"command": str("command")}
		if d, ok := in["description"]; ok {
			out.Input["description"] = d
		}
	case "Write":
		out.Name, out.Input = "write_file", map[string]any{"file_path": str("file_path"), "content": str("content")}
	case "Read":
		out.Name, out.Input = "read_file", map[string]any{"file_path": str("file_path")}
	case "Edit":
		out.Name, out.Input = "replace", map[string]any{"file_path": str("file_path"), "old_string": str("old_string"), "new_string": str("new_string")}
	case "Glob":
		out.Name, out.Input = "glob", map[string]any{"pattern": str("pattern")}
		if p, ok := in["path"]; ok {
			out.Input["dir_path"] = p
		}
	case "Grep":
		out.Name, out.Input = "grep_search", map[string]any{"pattern": str("pattern")}
		if p, ok := in["path"]; ok {
			out.Input["dir_path"] = p
		}
	case "WebFetch":
		prompt := fmt.Sprint(str("url"))
		if p, ok := in["prompt"].(string); ok && p != "" {
			prompt += " " + p
		}
		out.Name, out.Input = "web_fetch", map[string]any{"prompt": prompt}
	}
	return out
}

// geminiCall answers POST /v1beta/models/{model}:{method}.
func (s *Server) gemini(w http.ResponseWriter, r *http.Request) {
	model, method, _ := strings.Cut(r.PathValue("call"), ":")
	body, err := readBody(r)
	if err != nil {
		writeGeminiError(w, APIError{Status: http.StatusBadRequest, Message: err.Error()})
		return
	}
	var req geminiRequest
	if err := json.Unmarshal(body, &req); err != nil {
		s.record(r, Request{Kind: "other", Status: http.StatusBadRequest, Body: safeJSON(body)})
		writeGeminiError(w, APIError{Status: http.StatusBadRequest, Message: "fake api: body is not JSON: " + err.Error()})
		return
	}
	rec := Request{Model: model, Stream: method == "streamGenerateContent", Script: r.Header.Get(ScriptHeader),
		Bytes: len(body), Messages: len(req.Contents), Tools: req.tools(), ToolResults: req.toolResults()}
	if s.opts.Log == nil || s.opts.LogBodies {
		rec.Body = body
	}
	if len(req.SystemInstruction) > 0 {
		rec.SystemSHA256 = sha256Hex(req.SystemInstruction)
	}
	if n := len(req.Contents); n > 0 {
		rec.Last, _ = json.Marshal(req.Contents[n-1].Parts)
	}
	switch method {
	case "countTokens":
		rec.Kind, rec.Status = "count_tokens", http.StatusOK
		s.record(r, rec)
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]int{"totalTokens": estimateTokens(len(body))})
		return
	case "generateContent", "streamGenerateContent":
	default:
		rec.Kind, rec.Status = "other", http.StatusNotFound
		s.record(r, rec)
		writeGeminiError(w, APIError{Status: http.StatusNotFound, Message: "fake api: no method " + method})
		return
	}
	script, err := s.script(rec.Script)
	if err != nil {
		rec.Kind, rec.Status = "other", http.StatusInternalServerError
		s.record(r, rec)
		writeGeminiError(w, APIError{Status: http.StatusInternalServerError, Message: "fake api: " + err.Error()})
		return
	}
	schema := req.GenerationConfig.ResponseJSONSchema
	if len(schema) == 0 {
		schema = req.GenerationConfig.ResponseSchema
	}
	var turn Turn
	switch {
	case len(rec.Tools) > 0:
		rec.Kind = "main"
		for _, c := range req.Contents {
			if c.Role == "model" {
				rec.Turn++
			}
		}
		turn = script.mainTurn(rec.Turn)
	case len(schema) > 0:
		// A structured side call (the CLI's model routing, its
		// next-speaker check): an object its schema accepts.
		rec.Kind = "side"
		turn = Turn{Text: string(schemaExample(schema))}
	default:
		rec.Kind = "side"
		turn = script.sideTurn()
	}
	if s.opts.Strict && rec.Kind == "main" {
		actual := s.opts.Redactor.String(NormalizeGemini(req.Contents, req.cwd()))
		if d := diverge(script, rec.Turn, actual); d != nil {
			rec.Status = http.StatusBadRequest
			s.record(r, rec)
			s.noteDivergence(w, rec.Script, d, writeGeminiError)
			return
		}
	}
	key := fmt.Sprintf("%q %s %d", rec.Script, rec.Kind, rec.Turn)
	if i, m, ok := script.matchText(req.lastUserText()); ok && (rec.Kind == "main" || len(schema) == 0) {
		turn, key = m.Turn, fmt.Sprintf("%q match %d", rec.Script, i)
	}
	turn = s.play(turn, key, req.cwd)
	if turn.Error != nil {
		rec.Status = turn.Error.Status
		s.record(r, rec)
		writeGeminiError(w, *turn.Error)
		return
	}
	rec.Status = http.StatusOK
	parts := []map[string]any{}
	out := 0
	if turn.Thinking != "" {
		parts = append(parts, map[string]any{"text": turn.Thinking, "thought": true})
		out += estimateTokens(len(turn.Thinking))
	}
	if turn.Text != "" {
		parts = append(parts, map[string]any{"text": turn.Text})
		out += estimateTokens(len(turn.Text))
	}
	for i, u := range turn.tools() {
		u = geminiNative(u, rec.Tools)
		if u.ID == "" {
			u.ID = fmt.Sprintf("call_fake_%d_%d", rec.Turn, i)
		}
		if u.Input == nil {
			u.Input = map[string]any{}
		}
		rec.ToolUses = append(rec.ToolUses, u)
		parts = append(parts, map[string]any{"functionCall": map[string]any{"id": u.ID, "name": u.Name, "args": u.Input}})
		out += 10
	}
	s.record(r, rec)
	in := symbolicTokens(len(body))
	resp := geminiAnswer{Parts: parts, Model: model, Usage: map[string]int{"promptTokenCount": in, "candidatesTokenCount": out,
		"totalTokenCount": in + out}, FinishReason: "STOP"}
	if turn.StopReason == "max_tokens" {
		resp.FinishReason = "MAX_TOKENS"
	}
	if rec.Stream {
		writeGeminiSSE(w, resp)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(resp.chunk(parts, true))
}

// geminiAnswer is one scripted answer, sent whole or as a stream.
type geminiAnswer struct {
	Parts        []map[string]any
	Model        string
	Usage        map[string]int
	FinishReason string
}

// chunk is one GenerateContentResponse carrying parts; the last one has
// the finish reason and the usage.
func (a geminiAnswer) chunk(parts []map[string]any, last bool) map[string]any {
	cand := map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "index": 0}
	out := map[string]any{"candidates": []any{cand}, "modelVersion": a.Model, "responseId": "resp_fake"}
	if last {
		cand["finishReason"] = a.FinishReason
		out["usageMetadata"] = a.Usage
	}
	return out
}

// writeGeminiSSE streams the answer as the API does with alt=sse: text in
// several chunks, each function call in one, the finish reason and usage
// on the last; the body goes out whole, with a Content-Length.
func writeGeminiSSE(w http.ResponseWriter, a geminiAnswer) {
	var b bytes.Buffer
	event := func(v any) {
		j, _ := json.Marshal(v)
		fmt.Fprintf(&b, "data: %s\r\n\r\n", j)
	}
	var chunks [][]map[string]any
	for _, p := range a.Parts {
		if t, ok := p["text"].(string); ok {
			for _, c := range chunksOf(t, 24) {
				q := map[string]any{"text": c}
				if p["thought"] == true {
					q["thought"] = true
				}
				chunks = append(chunks, []map[string]any{q})
			}
			continue
		}
		chunks = append(chunks, []map[string]any{p})
	}
	if len(chunks) == 0 {
		chunks = append(chunks, []map[string]any{})
	}
	for i, c := range chunks {
		event(a.chunk(c, i == len(chunks)-1))
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("Content-Length", strconv.Itoa(b.Len()))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(b.Bytes())
}

// chunksOf is chunks, with an empty text kept as one chunk.
func chunksOf(s string, n int) []string {
	if s == "" {
		return []string{""}
	}
	return chunks(s, n)
}

// geminiStatus is the API's status word for an HTTP status.
func geminiStatus(code int) string {
	switch code {
	case http.StatusBadRequest:
		return "INVALID_ARGUMENT"
	case http.StatusUnauthorized:
		return "UNAUTHENTICATED"
	case http.StatusForbidden:
		return "PERMISSION_DENIED"
	case http.StatusNotFound:
		return "NOT_FOUND"
	case http.StatusTooManyRequests:
		return "RESOURCE_EXHAUSTED"
	case http.StatusServiceUnavailable, 529:
		return "UNAVAILABLE"
	case http.StatusGatewayTimeout:
		return "DEADLINE_EXCEEDED"
	}
	return "INTERNAL"
}

// writeGeminiError answers with the Gemini API's error shape.
func writeGeminiError(w http.ResponseWriter, e APIError) {
	status := e.Type
	if status == "" || strings.Contains(status, "_error") {
		status = geminiStatus(e.Status) // a Messages-API type (api_error) in a shared script
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(e.Status)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"code": e.Status, "message": e.Message, "status": status}})
}

// schemaExample is a JSON value the JSON schema accepts: each required
// property (every one when none is marked) filled with a placeholder of its
// type, an enum's first value.
func schemaExample(raw json.RawMessage) json.RawMessage {
	var sch map[string]any
	if json.Unmarshal(raw, &sch) != nil {
		return json.RawMessage(`{}`)
	}
	b, err := json.Marshal(example(sch, 0))
	if err != nil {
		return json.RawMessage(`{}`)
	}
	return b
}

func example(sch map[string]any, depth int) any {
	if enum, ok := sch["enum"].([]any); ok && len(enum) > 0 {
		return enum[0]
	}
	typ, _ := sch["type"].(string)
	if ts, ok := sch["type"].([]any); ok && len(ts) > 0 {
		typ, _ = ts[0].(string)
	}
	switch strings.ToLower(typ) {
	case "string":
		return "fake"
	case "number", "integer":
		return 1
	case "boolean":
		return false
	case "array":
		return []any{}
	}
	props, _ := sch["properties"].(map[string]any)
	out := map[string]any{}
	if depth > 8 {
		return out
	}
	required := map[string]bool{}
	if req, ok := sch["required"].([]any); ok {
		for _, r := range req {
			if s, ok := r.(string); ok {
				required[s] = true
			}
		}
	}
	for k, v := range props {
		p, _ := v.(map[string]any)
		if len(required) == 0 || required[k] {
			out[k] = example(p, depth+1)
		}
	}
	return out
}
