package fakeapi

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agent-eval/agent-eval/internal/redact"
	yaml "go.yaml.in/yaml/v3"
)

// RecorderOptions configure a Recorder.
type RecorderOptions struct {
	// Upstream is the real API's base URL (https://api.anthropic.com,
	// https://api.openai.com/v1, https://generativelanguage.googleapis.com).
	Upstream string
	// StripPrefix is taken off each request's path before Upstream's path
	// is put in front: the agent reaches the Responses API at
	// <recorder>/v1/responses, and OpenAI's base URL holds the /v1.
	StripPrefix string
	// Auth sets the real credentials on a forwarded request: the agent
	// holds none (it is given the fake's), so the harness's never reach
	// the agent's world.
	Auth func(http.Header)
	// Redactor hides known secret values in the cassettes; nil hides what
	// redact's patterns find.
	Redactor *redact.Redactor
	// Transport forwards the requests; http.DefaultTransport when nil.
	Transport http.RoundTripper
}

// Recorder is a recording reverse proxy of the model APIs the fake
// speaks (the Messages API, OpenAI's Responses API, the Gemini API): it
// serves the fake's addresses (ScriptURL names a conversation, a case),
// forwards each request to the real API, streams the answer back as it
// comes, and keeps each conversation's answers as a Script the fake
// replays (Cassette).
type Recorder struct {
	opts  RecorderOptions
	up    *url.URL
	proxy *httputil.ReverseProxy
	mu    sync.Mutex
	tapes map[string]*tape
	srv   *http.Server
}

// tape is one conversation's recording.
type tape struct {
	turns map[int]Turn
	side  *Turn
}

// NewRecorder returns a recorder forwarding to opts.Upstream.
func NewRecorder(opts RecorderOptions) (*Recorder, error) {
	up, err := url.Parse(opts.Upstream)
	if err != nil || up.Scheme == "" || up.Host == "" {
		return nil, fmt.Errorf("record: upstream %q is not an absolute URL", opts.Upstream)
	}
	rc := &Recorder{opts: opts, up: up, tapes: map[string]*tape{}}
	rc.proxy = &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			if opts.StripPrefix != "" {
				if rest, ok := strings.CutPrefix(pr.Out.URL.Path, opts.StripPrefix); ok && (rest == "" || rest[0] == '/') {
					pr.Out.URL.Path, pr.Out.URL.RawPath = rest, ""
				}
			}
			pr.SetURL(up)
			pr.Out.Host = up.Host
			pr.Out.Header.Del(ScriptHeader)
			// The fake's placeholder key, however the agent's API carries
			// it, never goes upstream.
			for _, h := range []string{"X-Api-Key", "Authorization", "X-Goog-Api-Key"} {
				pr.Out.Header.Del(h)
			}
			if q := pr.Out.URL.Query(); q.Has("key") {
				q.Del("key")
				pr.Out.URL.RawQuery = q.Encode()
			}
			// The transport asks for gzip and undoes it itself, so what is
			// recorded is the text.
			pr.Out.Header.Del("Accept-Encoding")
			if opts.Auth != nil {
				opts.Auth(pr.Out.Header)
			}
		},
		FlushInterval: -1, // every chunk to the agent as it comes
		// The agent gets the failure as the API's own error, not a line in
		// the harness's log.
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			writeError(w, APIError{Status: http.StatusBadGateway, Type: "api_error", Message: "agent-eval record: forward to " + up.Host + ": " + err.Error()})
		},
		Transport: opts.Transport,
		ModifyResponse: func(resp *http.Response) error {
			if tap, ok := resp.Request.Context().Value(tapKey{}).(func(*http.Response, []byte)); ok {
				resp.Body = &captureBody{ReadCloser: resp.Body, done: func(b []byte) { tap(resp, b) }}
			}
			return nil
		},
	}
	return rc, nil
}

type tapKey struct{}

// captureBody copies what the client reads and hands it to done once,
// at the end or at Close.
type captureBody struct {
	io.ReadCloser
	buf  bytes.Buffer
	once sync.Once
	done func([]byte)
}

func (c *captureBody) Read(p []byte) (int, error) {
	n, err := c.ReadCloser.Read(p)
	c.buf.Write(p[:n])
	if err == io.EOF {
		c.once.Do(func() { c.done(c.buf.Bytes()) })
	}
	return n, err
}

func (c *captureBody) Close() error {
	c.once.Do(func() { c.done(c.buf.Bytes()) })
	return c.ReadCloser.Close()
}

// Start serves on a free loopback port and returns the base URL.
func (rc *Recorder) Start() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("record: listen: %w", err)
	}
	rc.srv = &http.Server{Handler: rc.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = rc.srv.Serve(ln) }()
	return "http://" + ln.Addr().String(), nil
}

// Close stops a started recorder.
func (rc *Recorder) Close() error {
	if rc.srv == nil {
		return nil
	}
	return rc.srv.Close()
}

// Handler forwards every request; a model call (Messages, Responses or
// Gemini API) is recorded.
func (rc *Recorder) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		nameFromPath(r)
		name := r.Header.Get(ScriptHeader)
		read := modelCall(r)
		if read == nil {
			rc.proxy.ServeHTTP(w, r)
			return
		}
		body, err := readBody(r)
		if err != nil {
			writeError(w, APIError{Status: http.StatusBadRequest, Type: "invalid_request_error", Message: "record: read the request: " + err.Error()})
			return
		}
		r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
		call, ok := read(body)
		if !ok {
			rc.proxy.ServeHTTP(w, r)
			return
		}
		tap := func(resp *http.Response, got []byte) {
			t, ok := call.answer(resp, got)
			if !ok {
				return
			}
			t = t.withoutCWD(call.cwd)
			if call.main {
				t.Request = &RecordedRequest{Last: call.last}
			}
			rc.keep(name, call.main, call.turn, t)
		}
		ctx := r.Context()
		rc.proxy.ServeHTTP(w, r.WithContext(contextWith(ctx, tap)))
	})
}

// recordedCall is what the recorder reads of a model request: whether it
// is a main-loop call (it offers tools) and at which turn, its last
// message normalised as strict replay compares it, the client's working
// directory ("" when unknown), and how its API's answer reads as a turn.
type recordedCall struct {
	main   bool
	turn   int
	last   string
	cwd    string
	answer func(*http.Response, []byte) (Turn, bool)
}

// modelCall is the reader of r's body when r is a model call the
// recorder records, else nil: the Messages API's POST …/messages, the
// Responses API's POST …/responses, the Gemini API's POST
// /v1beta/models/{model}:generateContent or :streamGenerateContent.
func modelCall(r *http.Request) func([]byte) (recordedCall, bool) {
	if r.Method != http.MethodPost {
		return nil
	}
	p := r.URL.Path
	switch {
	case strings.HasSuffix(p, "/messages"):
		return messagesCall
	case strings.HasSuffix(p, "/responses"):
		return responsesCall
	case strings.HasPrefix(p, GeminiAPIPrefix+"models/"):
		switch _, method, _ := strings.Cut(p, ":"); method {
		case "generateContent", "streamGenerateContent":
			return geminiRequestCall
		}
	}
	return nil
}

// messagesCall reads a Messages API request.
func messagesCall(body []byte) (recordedCall, bool) {
	var req messagesRequest
	if json.Unmarshal(body, &req) != nil {
		return recordedCall{}, false
	}
	c := recordedCall{main: len(req.Tools) > 0, cwd: req.cwd(), answer: answerTurn}
	for _, m := range req.Messages {
		if m.Role == "assistant" {
			c.turn++
		}
	}
	if n := len(req.Messages); n > 0 && c.main {
		c.last = Normalize(req.Messages[n-1].Content, c.cwd)
	}
	return c, true
}

// keep stores an answer: a success replaces an error of the same turn
// (the agent's retry succeeded), never the other way.
func (rc *Recorder) keep(name string, main bool, turn int, t Turn) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	tp := rc.tapes[name]
	if tp == nil {
		tp = &tape{turns: map[int]Turn{}}
		rc.tapes[name] = tp
	}
	if !main {
		if tp.side == nil || tp.side.Error != nil {
			tp.side = &t
		}
		return
	}
	if old, ok := tp.turns[turn]; ok && old.Error == nil && t.Error != nil {
		return
	}
	tp.turns[turn] = t
}

// Names are the conversations recorded, sorted.
func (rc *Recorder) Names() []string {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return slices.Sorted(maps.Keys(rc.tapes))
}

// Script is conversation name's recording as a fake script, redacted: its
// main-loop turns in order (a turn never answered is a 500 naming it) and
// its first side answer.
func (rc *Recorder) Script(name string) *Script {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	sc := &Script{}
	tp := rc.tapes[name]
	if tp == nil {
		return sc
	}
	n := -1
	for k := range tp.turns {
		n = max(n, k)
	}
	for i := 0; i <= n; i++ {
		t, ok := tp.turns[i]
		if !ok {
			t = Turn{Error: &APIError{Status: 500, Type: "api_error", Message: fmt.Sprintf("agent-eval record: turn %d was not recorded", i)}}
		}
		sc.Turns = append(sc.Turns, rc.redactTurn(t))
	}
	if tp.side != nil {
		t := rc.redactTurn(*tp.side)
		sc.Side = &t
	}
	return sc
}

// redactTurn hides secrets in every string of t.
func (rc *Recorder) redactTurn(t Turn) Turn {
	b, err := json.Marshal(t)
	if err != nil {
		return t
	}
	var out Turn
	if json.Unmarshal(rc.opts.Redactor.JSON(b), &out) != nil {
		return t
	}
	return out
}

// Cassette is conversation name's recording as the YAML of a fake script
// (cassette.yaml), which the fake reads as it reads fake_model.yaml.
func (rc *Recorder) Cassette(name string) ([]byte, error) {
	return MarshalScript(rc.Script(name))
}

// MarshalScript writes a script as YAML, leaving out empty fields.
func MarshalScript(sc *Script) ([]byte, error) {
	b, err := json.Marshal(sc)
	if err != nil {
		return nil, fmt.Errorf("write the script: %w", err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, fmt.Errorf("write the script: %w", err)
	}
	var buf bytes.Buffer
	buf.WriteString("# Recorded by agent-eval run --record: the fake model's script of this case\n# (agent-eval fake-model --help); edit it, or replay it with run --replay.\n")
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("write the script: %w", err)
	}
	return buf.Bytes(), enc.Close()
}

// withoutCWD writes the client's working directory as ${CWD}, which the
// fake fills in with the replaying client's.
func (t Turn) withoutCWD(cwd string) Turn {
	if cwd == "" {
		return t
	}
	b, err := json.Marshal(t)
	if err != nil {
		return t
	}
	esc, _ := json.Marshal(cwd)
	esc = esc[1 : len(esc)-1]
	if !bytes.Contains(b, esc) {
		return t
	}
	var out Turn
	if json.Unmarshal(bytes.ReplaceAll(b, esc, []byte("${CWD}")), &out) != nil {
		return t
	}
	return out
}

// answerTurn reads a Messages API answer (JSON or SSE) as a script turn;
// false when it holds nothing to replay.
func answerTurn(resp *http.Response, body []byte) (Turn, bool) {
	if resp.StatusCode >= 400 {
		return errorTurn(resp, body), true
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		return sseTurn(body)
	}
	var msg struct {
		Content    []answerBlock `json:"content"`
		StopReason string        `json:"stop_reason"`
	}
	if json.Unmarshal(body, &msg) != nil {
		return Turn{}, false
	}
	return turnOf(msg.Content, msg.StopReason)
}

// errorTurn is an HTTP error answer as an error turn: the type and
// message of its {"error": {…}} body (the Messages API's shape and
// OpenAI's; the Gemini API's status word stands for the type), else the
// body's text.
func errorTurn(resp *http.Response, body []byte) Turn {
	e := APIError{Status: resp.StatusCode, Type: "api_error", Message: strings.TrimSpace(string(body))}
	var env struct {
		Error struct{ Type, Status, Message string } `json:"error"`
	}
	if json.Unmarshal(body, &env) == nil && env.Error.Message != "" {
		e.Type, e.Message = cmp.Or(env.Error.Type, env.Error.Status, e.Type), env.Error.Message
	}
	return Turn{Error: &e}
}

// answerBlock is a content block of a model's answer.
type answerBlock struct {
	Type     string         `json:"type"`
	Text     string         `json:"text"`
	Thinking string         `json:"thinking"`
	ID       string         `json:"id"`
	Name     string         `json:"name"`
	Input    map[string]any `json:"input"`
}

// turnOf is an answer's blocks as a script turn; false when it holds
// nothing to replay.
func turnOf(bs []answerBlock, stop string) (Turn, bool) {
	t := Turn{StopReason: stop}
	for _, b := range bs {
		switch b.Type {
		case "text":
			t.Text += b.Text
		case "thinking":
			t.Thinking += b.Thinking
		case "tool_use":
			t.ToolUses = append(t.ToolUses, ToolUse{ID: b.ID, Name: b.Name, Input: nonNil(b.Input)})
		}
	}
	return t, t.hasContent()
}

// sseTurn reads a streamed answer: its blocks' starts and deltas, and the
// stop reason of its message_delta.
func sseTurn(body []byte) (Turn, bool) {
	var bs []answerBlock
	var partial []string // each tool_use block's input, as streamed
	at := func(i int) *answerBlock {
		for len(bs) <= i {
			bs = append(bs, answerBlock{})
			partial = append(partial, "")
		}
		return &bs[i]
	}
	stop := ""
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data:")
		if !ok {
			continue
		}
		var ev struct {
			Type         string `json:"type"`
			Index        int    `json:"index"`
			ContentBlock struct {
				Type, Text, Thinking, ID, Name string
			} `json:"content_block"`
			Delta struct {
				Type        string `json:"type"`
				Text        string `json:"text"`
				Thinking    string `json:"thinking"`
				PartialJSON string `json:"partial_json"`
				StopReason  string `json:"stop_reason"`
			} `json:"delta"`
		}
		if json.Unmarshal([]byte(strings.TrimSpace(data)), &ev) != nil {
			continue
		}
		switch ev.Type {
		case "content_block_start":
			if ev.Index < 0 || ev.Index >= maxBlocks {
				continue
			}
			b := at(ev.Index)
			b.Type, b.Text, b.Thinking, b.ID, b.Name = ev.ContentBlock.Type, ev.ContentBlock.Text, ev.ContentBlock.Thinking, ev.ContentBlock.ID, ev.ContentBlock.Name
		case "content_block_delta":
			if ev.Index < 0 || ev.Index >= maxBlocks {
				continue
			}
			b := at(ev.Index)
			b.Text += ev.Delta.Text
			b.Thinking += ev.Delta.Thinking
			partial[ev.Index] += ev.Delta.PartialJSON
		case "message_delta":
			if ev.Delta.StopReason != "" {
				stop = ev.Delta.StopReason
			}
		}
	}
	for i := range bs {
		if bs[i].Type == "tool_use" && partial[i] != "" {
			_ = json.Unmarshal([]byte(partial[i]), &bs[i].Input)
		}
	}
	return turnOf(bs, stop)
}

// maxBlocks bounds the content blocks of an answer the recorder reads.
const maxBlocks = 4096

func nonNil(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

func contextWith(ctx context.Context, tap func(*http.Response, []byte)) context.Context {
	return context.WithValue(ctx, tapKey{}, tap)
}
