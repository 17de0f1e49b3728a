package fakeapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/agent-eval/agent-eval/internal/lazyre"
)

// ScriptHeader selects a named script per request. Claude Code sends it when
// ANTHROPIC_CUSTOM_HEADERS="X-Fake-Script: <name>", so one server serves many
// parallel runs, each with its own script.
const ScriptHeader = "X-Fake-Script"

// ScriptPrefix selects a named script by path too: a client whose base URL
// is <server>/s/<name> (ScriptURL) gets the script <name> when its request
// names none in the header. The base URL reaches processes whose
// environment Claude Code scrubbed of ANTHROPIC_CUSTOM_HEADERS, such as
// the hook answering AskUserQuestion under the sandbox.
const ScriptPrefix = "/s/"

// ScriptURL is the base URL that selects script name on the server at base.
func ScriptURL(base, name string) string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = url.PathEscape(p)
	}
	return strings.TrimSuffix(base, "/") + ScriptPrefix + strings.Join(parts, "/")
}

// Options configure a Server.
type Options struct {
	// Script answers requests that name no script. It is ignored when
	// ScriptFile is set.
	Script *Script
	// ScriptFile is read again on every request, so a test can change it
	// between runs.
	ScriptFile string
	// ScriptDir holds named scripts: the header value "x" loads
	// ScriptDir/x.yaml (or .yml, .json), read again on every request.
	ScriptDir string
	// Log, if set, gets one JSON line per request.
	Log io.Writer
	// Now stamps requests; time.Now when nil.
	Now func() time.Time
}

// Server is the fake. Its zero value is not usable; call New.
type Server struct {
	opts     Options
	mu       sync.Mutex
	scripts  map[string]*Script
	requests []Request
	// errorsServed counts the errors served per counted error turn (see
	// Turn.Count), keyed by script name, kind and turn.
	errorsServed map[string]int
	ln           net.Listener
	srv          *http.Server
}

// Request is one recorded request.
type Request struct {
	Time        time.Time         `json:"ts"`
	Method      string            `json:"method"`
	Path        string            `json:"path"`
	Headers     map[string]string `json:"headers"`
	Kind        string            `json:"kind"` // main, side, count_tokens, models, other
	Script      string            `json:"script,omitempty"`
	Turn        int               `json:"turn"`
	Model       string            `json:"model,omitempty"`
	Stream      bool              `json:"stream,omitempty"`
	ToolResults []ToolResult      `json:"tool_results,omitempty"`
	Status      int               `json:"status"`
	Body        json.RawMessage   `json:"body,omitempty"`
}

// ToolResult is a tool_result block the client sent back to the model.
type ToolResult struct {
	ToolUseID string `json:"tool_use_id"`
	Content   string `json:"content"`
	IsError   bool   `json:"is_error,omitempty"`
}

// New returns a server; serve it with Start or mount Handler yourself.
func New(opts Options) *Server {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Server{opts: opts, scripts: map[string]*Script{}, errorsServed: map[string]int{}}
}

// SetScript registers a named script, selected by the ScriptHeader.
func (s *Server) SetScript(name string, sc *Script) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.scripts[name] = sc
}

// Start serves on addr (default 127.0.0.1:0, a free loopback port) and
// returns the base URL to put in ANTHROPIC_BASE_URL.
func (s *Server) Start(addr string) (string, error) {
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", fmt.Errorf("fake api: listen: %w", err)
	}
	s.ln = ln
	s.srv = &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = s.srv.Serve(ln) }()
	return "http://" + ln.Addr().String(), nil
}

// Close stops a started server.
func (s *Server) Close() error {
	if s.srv == nil {
		return nil
	}
	return s.srv.Close()
}

// Requests returns a copy of every request recorded so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Handler is the HTTP handler of the fake.
func (s *Server) Handler() http.Handler {
	mux := s.routes()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The name runs up to the API path (/v1/…, or /messages… and
		// /models without /v1), so it may hold a slash (case/step):
		// clients unescape %2F when they join paths.
		if rest, ok := strings.CutPrefix(r.URL.Path, ScriptPrefix); ok {
			name, path := strings.TrimSuffix(rest, "/"), "/"
			if i := strings.LastIndex(rest, "/v1/"); i >= 0 {
				name, path = rest[:i], rest[i:]
			} else {
				for _, api := range []string{"/messages/count_tokens", "/messages", "/models"} {
					if before, ok := strings.CutSuffix(rest, api); ok {
						name, path = before, api
						break
					}
				}
			}
			if name != "" {
				if r.Header.Get(ScriptHeader) == "" {
					r.Header.Set(ScriptHeader, name)
				}
				r.URL.Path, r.URL.RawPath = path, ""
			}
		}
		mux.ServeHTTP(w, r)
	})
}

func (s *Server) routes() *http.ServeMux {
	mux := http.NewServeMux()
	// Without /v1 too: OpenCode's anthropic provider appends /messages to
	// ANTHROPIC_BASE_URL, which Claude Code wants without /v1.
	for _, v := range []string{"/v1", ""} {
		mux.HandleFunc("POST "+v+"/messages", s.messages)
		mux.HandleFunc("POST "+v+"/messages/count_tokens", s.countTokens)
		mux.HandleFunc("GET "+v+"/models", s.models)
	}
	mux.HandleFunc("GET /_fake/requests", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(s.Requests())
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/" && (r.Method == http.MethodHead || r.Method == http.MethodGet) {
			s.record(r, Request{Kind: "other", Status: http.StatusOK})
			w.WriteHeader(http.StatusOK)
			return
		}
		s.record(r, Request{Kind: "other", Status: http.StatusNotFound})
		writeError(w, APIError{Status: http.StatusNotFound, Type: "not_found_error", Message: "fake api: no route for " + r.Method + " " + r.URL.Path})
	})
	return mux
}

// messagesRequest is the part of a Messages API request the fake reads. It
// decodes loosely: unknown fields and role "system" messages are fine.
type messagesRequest struct {
	Model    string            `json:"model"`
	Stream   bool              `json:"stream"`
	System   json.RawMessage   `json:"system"`
	Tools    []json.RawMessage `json:"tools"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
}

type contentBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

func blocks(raw json.RawMessage) []contentBlock {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []contentBlock{{Type: "text", Text: s}}
	}
	var bs []contentBlock
	_ = json.Unmarshal(raw, &bs)
	return bs
}

func blockText(raw json.RawMessage) string {
	var parts []string
	for _, b := range blocks(raw) {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// cwdRE finds the working directory in Claude Code's environment section
// ("Primary working directory: …") or OpenCode's ("<env>\n  Working
// directory: …").
var cwdRE = lazyre.New(`(?m)(?:Primary working directory|^[ \t]*Working directory): ([^\n]+)`)

// cwd finds the client's working directory in the environment section
// Claude Code (or OpenCode) sends: in the system prompt, a role "system" message, or a
// <system-reminder> inside the first user message, depending on the setup.
func (m *messagesRequest) cwd() string {
	texts := []string{blockText(m.System)}
	for _, msg := range m.Messages {
		if msg.Role == "system" || msg.Role == "user" {
			texts = append(texts, blockText(msg.Content))
		}
	}
	for _, t := range texts {
		if sub := cwdRE().FindStringSubmatch(t); sub != nil {
			return strings.TrimSpace(sub[1])
		}
	}
	return ""
}

func (m *messagesRequest) toolResults() []ToolResult {
	var out []ToolResult
	for _, msg := range m.Messages {
		if msg.Role != "user" {
			continue
		}
		for _, b := range blocks(msg.Content) {
			if b.Type == "tool_result" {
				content := blockText(b.Content)
				if content == "" {
					content = string(b.Content)
				}
				out = append(out, ToolResult{ToolUseID: b.ToolUseID, Content: content, IsError: b.IsError})
			}
		}
	}
	return out
}

func (s *Server) messages(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	if err != nil {
		writeError(w, APIError{Status: http.StatusBadRequest, Type: "invalid_request_error", Message: err.Error()})
		return
	}
	var req messagesRequest
	if err := json.Unmarshal(body, &req); err != nil {
		s.record(r, Request{Kind: "other", Status: http.StatusBadRequest, Body: safeJSON(body)})
		writeError(w, APIError{Status: http.StatusBadRequest, Type: "invalid_request_error", Message: "fake api: body is not JSON: " + err.Error()})
		return
	}
	rec := Request{Model: req.Model, Stream: req.Stream, ToolResults: req.toolResults(), Body: safeJSON(body), Script: r.Header.Get(ScriptHeader)}
	script, err := s.script(rec.Script)
	if err != nil {
		rec.Kind, rec.Status = "other", http.StatusInternalServerError
		s.record(r, rec)
		writeError(w, APIError{Status: http.StatusInternalServerError, Type: "api_error", Message: "fake api: " + err.Error()})
		return
	}
	var turn Turn
	if len(req.Tools) > 0 {
		rec.Kind = "main"
		for _, m := range req.Messages {
			if m.Role == "assistant" {
				rec.Turn++
			}
		}
		switch {
		case rec.Turn < len(script.Turns):
			turn = script.Turns[rec.Turn]
		case script.AfterEnd != nil:
			turn = *script.AfterEnd
		default:
			turn = defaultAfterEnd
		}
	} else {
		rec.Kind = "side"
		turn = defaultSide
		if script.Side != nil {
			turn = *script.Side
		}
	}
	key := fmt.Sprintf("%q %s %d", rec.Script, rec.Kind, rec.Turn)
	if i, m, ok := req.match(script); ok {
		turn, key = m.Turn, fmt.Sprintf("%q match %d", rec.Script, i)
	}
	turn = s.spendError(turn, key)
	turn = turn.withCWD(req.cwd())
	if turn.Error != nil {
		rec.Status = turn.Error.Status
		s.record(r, rec)
		writeError(w, *turn.Error)
		return
	}
	rec.Status = http.StatusOK
	s.record(r, rec)
	msg := buildMessage(turn, rec.Turn, req.Model, len(body))
	if req.Stream {
		writeSSE(w, msg)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(msg)
}

// spendError applies a counted error turn: its error while fewer than
// Count have been served under key, then its content. The count and the
// check happen under one lock, so parallel retries never get more errors
// than the script says.
func (s *Server) spendError(turn Turn, key string) Turn {
	if turn.Error == nil || turn.Count == 0 {
		return turn
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.errorsServed[key] < turn.Count {
		s.errorsServed[key]++
		return turn
	}
	return turn.content()
}

func (s *Server) countTokens(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	s.record(r, Request{Kind: "count_tokens", Status: http.StatusOK, Body: safeJSON(body)})
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]int{"input_tokens": estimateTokens(len(body))})
}

func (s *Server) models(w http.ResponseWriter, r *http.Request) {
	s.record(r, Request{Kind: "models", Status: http.StatusOK})
	w.Header().Set("Content-Type", "application/json")
	model := map[string]any{"type": "model", "id": "claude-fake-1", "display_name": "Fake model", "created_at": "2026-01-01T00:00:00Z"}
	_ = json.NewEncoder(w).Encode(map[string]any{"data": []any{model}, "has_more": false, "first_id": "claude-fake-1", "last_id": "claude-fake-1"})
}

// script picks the script for a request: the named one when the header
// names one, else the default.
func (s *Server) script(name string) (*Script, error) {
	s.mu.Lock()
	named, ok := s.scripts[name]
	s.mu.Unlock()
	switch {
	case name != "" && ok:
		return named, nil
	case name != "" && s.opts.ScriptDir != "":
		if strings.ContainsAny(name, `/\`) || strings.HasPrefix(name, ".") {
			return nil, fmt.Errorf("script name %q is not a plain name", name)
		}
		for _, ext := range []string{".yaml", ".yml", ".json"} {
			p := filepath.Join(s.opts.ScriptDir, name+ext)
			if _, err := os.Stat(p); err == nil {
				return LoadScript(p)
			}
		}
		return nil, fmt.Errorf("no script %q in %s", name, s.opts.ScriptDir)
	case name != "":
		return nil, fmt.Errorf("no script named %q", name)
	case s.opts.ScriptFile != "":
		return LoadScript(s.opts.ScriptFile)
	case s.opts.Script != nil:
		return s.opts.Script, nil
	}
	return &Script{}, nil
}

// secretHeader matches header names whose values are never recorded.
var secretHeader = lazyre.New(`(?i)key|token|auth|cookie|secret|password`)

func (s *Server) record(r *http.Request, rec Request) {
	rec.Time = s.opts.Now().UTC()
	rec.Method, rec.Path = r.Method, r.URL.Path
	rec.Headers = map[string]string{}
	for k, v := range r.Header {
		if secretHeader().MatchString(k) {
			rec.Headers[k] = "[redacted]"
			continue
		}
		rec.Headers[k] = strings.Join(v, ", ")
	}
	s.mu.Lock()
	s.requests = append(s.requests, rec)
	s.mu.Unlock()
	if s.opts.Log != nil {
		line, err := json.Marshal(rec)
		if err == nil {
			s.mu.Lock()
			_, _ = s.opts.Log.Write(append(line, '\n'))
			s.mu.Unlock()
		}
	}
}

func safeJSON(b []byte) json.RawMessage {
	if json.Valid(b) {
		return bytes.Clone(b)
	}
	return nil
}

func estimateTokens(n int) int { return n/4 + 1 }

func writeError(w http.ResponseWriter, e APIError) {
	typ := e.Type
	if typ == "" {
		typ = "api_error"
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("request-id", "req_fake_error")
	w.WriteHeader(e.Status)
	_ = json.NewEncoder(w).Encode(map[string]any{"type": "error", "error": map[string]string{"type": typ, "message": e.Message}})
}
