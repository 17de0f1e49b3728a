package fakeapi

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
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
	"github.com/agent-eval/agent-eval/internal/redact"
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
	// Log, if set, gets one JSON line per request, written as the request
	// arrives, and the server keeps no copy: Requests and GET
	// /_fake/requests read the log back when it is an *os.File opened for
	// reading too (os.Create's), and list nothing otherwise. Without Log,
	// the server keeps every request in memory (for a test to inspect).
	// A logged line is redacted (internal/redact: credential patterns, and
	// the values Redactor knows) and compact: it holds the request's shape
	// (model, message count, tool names, size, the system prompt's
	// SHA-256), its tool results and its last message, what the model was
	// told that was new, but not the whole body unless LogBodies is set.
	Log io.Writer
	// LogBodies puts each request's whole body in the log (about 100 KB
	// per Claude Code request, most of it the same system prompt and tool
	// schemas every time).
	LogBodies bool
	// Redactor hides known secret values in the log; nil hides what
	// redact's patterns find.
	Redactor *redact.Redactor
	// Now stamps requests; time.Now when nil.
	Now func() time.Time
	// Strict replays recordings: a main-loop request must ask what the
	// script's turn recorded (Turn.Request, compared by Normalize), and
	// the turns must not run out; else the request gets a 400 and the
	// script's Divergence is kept.
	Strict bool
}

// Server is the fake. Its zero value is not usable; call New.
type Server struct {
	opts     Options
	mu       sync.Mutex
	scripts  map[string]*Script
	requests []Request // kept only without a Log
	logMu    sync.Mutex
	logStart int64 // the log's size when the server was made: its lines are after it
	// redacted caches the log's redaction of large message blocks (see
	// redactCached), redactedSize their total size.
	redacted     map[[32]byte][]byte
	redactedSize int
	// errorsServed counts the errors served per counted error turn (see
	// Turn.Count), keyed by script name, kind and turn.
	errorsServed map[string]int
	// divergences are the strict server's first divergence per script.
	divergences map[string]Divergence
	ln          net.Listener
	srv         *http.Server
}

// Request is one recorded request: a line of the log.
type Request struct {
	Time    time.Time         `json:"ts"`
	Method  string            `json:"method"`
	Path    string            `json:"path"`
	Headers map[string]string `json:"headers"`
	Kind    string            `json:"kind"` // main, side, count_tokens, models, other
	Script  string            `json:"script,omitempty"`
	Turn    int               `json:"turn"`
	Model   string            `json:"model,omitempty"`
	Stream  bool              `json:"stream,omitempty"`
	// Bytes is the size of the request body.
	Bytes int `json:"bytes,omitempty"`
	// Messages is the number of messages the request holds; Tools names
	// the tools it offers; SystemSHA256 is the hex SHA-256 of its system
	// field as sent (equal hashes: the same system prompt).
	Messages     int      `json:"messages,omitempty"`
	Tools        []string `json:"tools,omitempty"`
	SystemSHA256 string   `json:"system_sha256,omitempty"`
	// ToolResults are the tool_result blocks of every user message.
	ToolResults []ToolResult `json:"tool_results,omitempty"`
	// Last is the content of the request's last message as sent: the
	// prompt on the first turn, the tool results of the turn before after
	// that, with any system reminders the client attached.
	Last json.RawMessage `json:"last,omitempty"`
	// ToolUses are the tool calls the fake answered with.
	ToolUses []ToolUse `json:"tool_uses,omitempty"`
	Status   int       `json:"status"`
	// Auth fingerprints the credential the request carried: "bearer ",
	// "x-api-key " or "x-goog-api-key " and the first 12 hex digits of the SHA-256 of its value,
	// so a test can tell which key reached the fake without the key being
	// recorded.
	Auth string `json:"auth,omitempty"`
	// Body is the whole request body: always kept in memory, logged only
	// with Options.LogBodies.
	Body json.RawMessage `json:"body,omitempty"`
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
	s := &Server{opts: opts, scripts: map[string]*Script{}, errorsServed: map[string]int{}}
	if rl, ok := opts.Log.(readableLog); ok {
		if st, err := rl.Stat(); err == nil {
			s.logStart = st.Size()
		}
	}
	return s
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

// Requests returns every request recorded so far: a copy of those kept
// in memory, or, with a Log, the log read back (nil when it cannot be).
func (s *Server) Requests() []Request {
	if s.opts.Log == nil {
		s.mu.Lock()
		defer s.mu.Unlock()
		return append([]Request(nil), s.requests...)
	}
	r, err := s.logReader()
	if err != nil {
		return nil
	}
	reqs, err := ReadLog(r)
	if err != nil {
		return nil
	}
	return reqs
}

// readableLog is a log the server can read back: an *os.File opened for
// reading and writing.
type readableLog interface {
	io.ReaderAt
	Stat() (os.FileInfo, error)
}

// logReader reads the log as it stood when called: every line this server
// wrote so far, whole (a line is written under logMu in one call), and not
// what the file held before (fake-model --log appends).
func (s *Server) logReader() (io.Reader, error) {
	rl, ok := s.opts.Log.(readableLog)
	if !ok {
		return nil, fmt.Errorf("fake api: the request log cannot be read back")
	}
	s.logMu.Lock()
	st, err := rl.Stat()
	s.logMu.Unlock()
	if err != nil {
		return nil, fmt.Errorf("fake api: reading the request log: %w", err)
	}
	return io.NewSectionReader(rl, s.logStart, st.Size()-s.logStart), nil
}

// ReadLog reads a request log (fake_model_requests.jsonl): one Request per
// line.
func ReadLog(r io.Reader) ([]Request, error) {
	var out []Request
	br := bufio.NewReader(r)
	for n := 1; ; n++ {
		line, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			var req Request
			if jerr := json.Unmarshal(line, &req); jerr != nil {
				return out, fmt.Errorf("fake api: request log line %d: %w", n, jerr)
			}
			out = append(out, req)
		}
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, fmt.Errorf("fake api: reading the request log: %w", err)
		}
	}
}

// serveRequests answers GET /_fake/requests with a JSON array of the
// requests, streamed from the log when there is one.
func (s *Server) serveRequests(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	if s.opts.Log == nil {
		_ = json.NewEncoder(w).Encode(s.Requests())
		return
	}
	r, err := s.logReader()
	if err != nil {
		writeError(w, APIError{Status: http.StatusNotImplemented, Type: "api_error", Message: err.Error()})
		return
	}
	br := bufio.NewReader(r)
	_, _ = io.WriteString(w, "[")
	sep := ""
	for {
		line, err := br.ReadBytes('\n')
		if line = bytes.TrimSpace(line); len(line) > 0 {
			_, _ = io.WriteString(w, sep)
			_, _ = w.Write(line)
			sep = ",\n"
		}
		if err != nil {
			break
		}
	}
	_, _ = io.WriteString(w, "]\n")
}

// Handler is the HTTP handler of the fake.
func (s *Server) Handler() http.Handler {
	mux := s.routes()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		nameFromPath(r)
		mux.ServeHTTP(w, r)
	})
}

// nameFromPath takes a script name the request's path starts with
// (ScriptPrefix) into its ScriptHeader, unless the header names one, and
// leaves the API path.
func nameFromPath(r *http.Request) {
	// The name runs up to the API path (/v1/…, or /messages… and
	// /models without /v1), so it may hold a slash (case/step):
	// clients unescape %2F when they join paths.
	if rest, ok := strings.CutPrefix(r.URL.Path, ScriptPrefix); ok {
		name, path := strings.TrimSuffix(rest, "/"), "/"
		if i := apiIndex(rest); i >= 0 {
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
}

// apiIndex is where the API path starts in what follows ScriptPrefix: the
// last /v1/ (the Messages API) or /v1beta/ (the Gemini API), or -1.
func apiIndex(rest string) int {
	return max(strings.LastIndex(rest, "/v1/"), strings.LastIndex(rest, GeminiAPIPrefix))
}

func (s *Server) routes() *http.ServeMux {
	mux := http.NewServeMux()
	// Without /v1 too: OpenCode's anthropic provider appends /messages to
	// ANTHROPIC_BASE_URL, which Claude Code wants without /v1.
	for _, v := range []string{"/v1", ""} {
		mux.HandleFunc("POST "+v+"/messages", s.messages)
		mux.HandleFunc("POST "+v+"/messages/count_tokens", s.countTokens)
		mux.HandleFunc("GET "+v+"/models", s.models)
		mux.HandleFunc("POST "+v+"/responses", s.responses) // OpenAI's Responses API (responses.go)
	}
	mux.HandleFunc("POST "+GeminiAPIPrefix+"models/{call}", s.gemini)
	mux.HandleFunc("GET /_fake/requests", s.serveRequests)
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
// decodes loosely: unknown fields and role "system" messages are fine. The
// body is decoded once; each user message's content once more, lazily
// (parsed), and only the tools' names are kept.
type messagesRequest struct {
	Model  string          `json:"model"`
	Stream bool            `json:"stream"`
	System json.RawMessage `json:"system"`
	Tools  []struct {
		Name string `json:"name"`
	} `json:"tools"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	parsed [][]contentBlock // parsed[i]: the blocks of Messages[i], once read
}

// content returns the blocks of message i, parsing them the first time.
func (m *messagesRequest) content(i int) []contentBlock {
	if m.parsed == nil {
		m.parsed = make([][]contentBlock, len(m.Messages))
	}
	if m.parsed[i] == nil {
		m.parsed[i] = blocks(m.Messages[i].Content)
		if m.parsed[i] == nil {
			m.parsed[i] = []contentBlock{}
		}
	}
	return m.parsed[i]
}

type contentBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

// blocks parses content, a string or an array of blocks, with one decode.
func blocks(raw json.RawMessage) []contentBlock {
	raw = bytes.TrimLeft(raw, " \t\r\n")
	if len(raw) == 0 {
		return nil
	}
	switch raw[0] {
	case '"':
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return []contentBlock{{Type: "text", Text: s}}
		}
	case '[':
		var bs []contentBlock
		_ = json.Unmarshal(raw, &bs)
		return bs
	}
	return nil
}

func textOf(bs []contentBlock) string {
	var parts []string
	for _, b := range bs {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func blockText(raw json.RawMessage) string { return textOf(blocks(raw)) }

// cwdRE finds the working directory in Claude Code's environment section
// ("Primary working directory: …") or OpenCode's ("<env>\n  Working
// directory: …").
var cwdRE = lazyre.New(`(?m)(?:Primary working directory|^[ \t]*Working directory): ([^\n]+)`)

// cwd finds the client's working directory in the environment section
// Claude Code (or OpenCode) sends: in the system prompt, a role "system" message, or a
// <system-reminder> inside the first user message, depending on the setup.
func (m *messagesRequest) cwd() string {
	find := func(t string) string {
		if sub := cwdRE().FindStringSubmatch(t); sub != nil {
			return strings.TrimSpace(sub[1])
		}
		return ""
	}
	if cwd := find(blockText(m.System)); cwd != "" {
		return cwd
	}
	for i, msg := range m.Messages {
		if msg.Role == "system" || msg.Role == "user" {
			if cwd := find(textOf(m.content(i))); cwd != "" {
				return cwd
			}
		}
	}
	return ""
}

func (m *messagesRequest) toolResults() []ToolResult {
	var out []ToolResult
	for i, msg := range m.Messages {
		// Most user messages hold no tool result: skip parsing them.
		if msg.Role != "user" || !bytes.Contains(msg.Content, []byte(`"tool_result"`)) {
			continue
		}
		for _, b := range m.content(i) {
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
	body, err := readBody(r)
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
	rec := Request{Model: req.Model, Stream: req.Stream, ToolResults: req.toolResults(), Script: r.Header.Get(ScriptHeader),
		Bytes: len(body), Messages: len(req.Messages)}
	// The body decoded, so it is valid JSON: kept as it came.
	if s.opts.Log == nil || s.opts.LogBodies {
		rec.Body = body
	}
	for _, t := range req.Tools {
		rec.Tools = append(rec.Tools, t.Name)
	}
	if len(req.System) > 0 {
		rec.SystemSHA256 = sha256Hex(req.System)
	}
	if n := len(req.Messages); n > 0 {
		rec.Last = req.Messages[n-1].Content
	}
	script, err := s.script(rec.Script)
	if err != nil {
		rec.Kind, rec.Status = "other", http.StatusInternalServerError
		s.record(r, rec)
		writeError(w, APIError{Status: http.StatusInternalServerError, Type: "api_error", Message: "fake api: " + err.Error()})
		return
	}
	if len(req.Tools) > 0 {
		rec.Kind = "main"
		for _, m := range req.Messages {
			if m.Role == "assistant" {
				rec.Turn++
			}
		}
	} else {
		rec.Kind = "side"
	}
	if s.opts.Strict && rec.Kind == "main" {
		var last json.RawMessage
		if n := len(req.Messages); n > 0 {
			last = req.Messages[n-1].Content
		}
		actual := s.opts.Redactor.String(Normalize(last, req.cwd()))
		if d := diverge(script, rec.Turn, actual); d != nil {
			rec.Status = http.StatusBadRequest
			s.record(r, rec)
			s.noteDivergence(w, rec.Script, d, writeError)
			return
		}
	}
	turn := s.pick(script, &rec, req.lastUser, req.cwd)
	if turn.Error != nil {
		rec.Status = turn.Error.Status
		s.record(r, rec)
		writeError(w, *turn.Error)
		return
	}
	rec.Status = http.StatusOK
	msg := buildMessage(turn, rec.Turn, req.Model, len(body))
	for _, b := range msg.Content {
		if b.Type == "tool_use" {
			rec.ToolUses = append(rec.ToolUses, ToolUse{ID: b.ID, Name: b.Name, Input: b.Input})
		}
	}
	s.record(r, rec)
	if req.Stream {
		writeSSE(w, msg)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(msg)
}

// play is the turn as the fake answers it: a counted error spent (key
// counts it) and ${CWD} filled in from cwd.
func (s *Server) play(turn Turn, key string, cwd func() string) Turn {
	return s.spendError(turn, key).withCWD(cwd)
}

// pick is the turn of script that answers rec (its Kind, Turn and
// Script set): a content rule matching the last user message, else the
// main loop's turn or the side answer; played (play).
func (s *Server) pick(script *Script, rec *Request, lastUser, cwd func() string) Turn {
	turn := script.sideTurn()
	if rec.Kind == "main" {
		turn = script.mainTurn(rec.Turn)
	}
	key := fmt.Sprintf("%q %s %d", rec.Script, rec.Kind, rec.Turn)
	if i, m, ok := script.match(lastUser); ok {
		turn, key = m.Turn, fmt.Sprintf("%q match %d", rec.Script, i)
	}
	return s.play(turn, key, cwd)
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
	body, _ := readBody(r)
	rec := Request{Kind: "count_tokens", Status: http.StatusOK, Bytes: len(body)}
	if s.opts.Log == nil || s.opts.LogBodies {
		rec.Body = safeJSON(body)
	}
	s.record(r, rec)
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

// authPrint is Request.Auth for a request's headers ("" without a
// credential).
func authPrint(h http.Header) string {
	kind, v := "x-api-key", h.Get("X-Api-Key")
	if v == "" {
		kind, v = "x-goog-api-key", h.Get("X-Goog-Api-Key") // the Gemini API's
	}
	if v == "" {
		kind, v = "bearer", strings.TrimPrefix(h.Get("Authorization"), "Bearer ")
	}
	if v == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(v))
	return kind + " " + hex.EncodeToString(sum[:6])
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
	rec.Auth = authPrint(r.Header)
	if s.opts.Log == nil {
		s.mu.Lock()
		s.requests = append(s.requests, rec)
		s.mu.Unlock()
		return
	}
	if !s.opts.LogBodies {
		rec.Body = nil
	}
	// The last message is redacted on its own, block by block, through a
	// cache: on the first turn it is mostly the system reminders Claude
	// Code sends every case alike (~17 KB), and redaction is regexp work.
	last := s.redactBlocks(rec.Last)
	rec.Last = nil
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(rec); err != nil {
		// Only a body that decoded but does not re-encode gets here.
		rec.Body = nil
		buf.Reset()
		if enc.Encode(rec) != nil {
			return
		}
	}
	line := s.opts.Redactor.JSON(buf.Bytes())
	if obj := bytes.TrimSuffix(line, []byte("\n")); len(last) > 0 && bytes.HasSuffix(obj, []byte("}")) {
		// {…}\n becomes {…,"last":…}\n.
		line = append(append(append(obj[:len(obj)-1:len(obj)-1], `,"last":`...), last...), "}\n"...)
	}
	s.logMu.Lock()
	_, _ = s.opts.Log.Write(line)
	s.logMu.Unlock()
}

// redactBlocks redacts a message's content (a string or an array of
// blocks) for the log, each block once per server: a block seen before
// gets its cached redaction. It returns compact JSON, or nil.
func (s *Server) redactBlocks(raw json.RawMessage) []byte {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil
	}
	var elems []json.RawMessage
	if raw[0] != '[' || json.Unmarshal(raw, &elems) != nil {
		elems = []json.RawMessage{raw}
	}
	var out bytes.Buffer
	if raw[0] == '[' {
		out.WriteByte('[')
	}
	for i, e := range elems {
		if i > 0 {
			out.WriteByte(',')
		}
		if err := json.Compact(&out, s.redactCached(e)); err != nil {
			return nil
		}
	}
	if raw[0] == '[' {
		out.WriteByte(']')
	}
	return out.Bytes()
}

// redactCacheMax bounds the redaction cache; past it, the cache restarts.
const redactCacheMax = 8 << 20

// redactCached is Redactor.JSON(doc), remembered by doc's hash for docs of
// 512 bytes or more.
func (s *Server) redactCached(doc []byte) []byte {
	if len(doc) < 512 {
		return s.opts.Redactor.JSON(doc)
	}
	key := sha256.Sum256(doc)
	s.mu.Lock()
	red, ok := s.redacted[key]
	s.mu.Unlock()
	if ok {
		return red
	}
	red = s.opts.Redactor.JSON(doc)
	s.mu.Lock()
	if s.redactedSize+len(red) > redactCacheMax {
		s.redacted, s.redactedSize = nil, 0
	}
	if s.redacted == nil {
		s.redacted = map[[32]byte][]byte{}
	}
	s.redacted[key] = red
	s.redactedSize += len(red)
	s.mu.Unlock()
	return red
}

// maxBody caps what the fake reads of a request.
const maxBody = 64 << 20

// readBody reads a request body in one allocation when its length is
// known.
func readBody(r *http.Request) ([]byte, error) {
	if n := r.ContentLength; n > 0 && n <= maxBody {
		buf := make([]byte, n)
		if _, err := io.ReadFull(r.Body, buf); err != nil {
			return nil, err
		}
		return buf, nil
	}
	return io.ReadAll(io.LimitReader(r.Body, maxBody))
}

func safeJSON(b []byte) json.RawMessage {
	if json.Valid(b) {
		return bytes.Clone(b)
	}
	return nil
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
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
