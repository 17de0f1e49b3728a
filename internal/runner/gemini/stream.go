package gemini

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agent-eval/agent-eval/internal/hook"
	"github.com/agent-eval/agent-eval/internal/transcript"
)

// event is one line of Gemini CLI's -o stream-json.
type event struct {
	Type       string          `json:"type"`
	Model      string          `json:"model"`
	Role       string          `json:"role"`
	Content    string          `json:"content"`
	Delta      bool            `json:"delta"`
	ToolName   string          `json:"tool_name"`
	ToolID     string          `json:"tool_id"`
	Parameters json.RawMessage `json:"parameters"`
	Status     string          `json:"status"`
	Output     string          `json:"output"`
	Error      *struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
	Stats *stats `json:"stats"`
}

type stats struct {
	InputTokens  int64                 `json:"input_tokens"`
	OutputTokens int64                 `json:"output_tokens"`
	Cached       int64                 `json:"cached"`
	ToolCalls    int                   `json:"tool_calls"`
	Models       map[string]modelStats `json:"models"`
}

type modelStats struct {
	InputTokens  int64 `json:"input_tokens"`
	OutputTokens int64 `json:"output_tokens"`
	Cached       int64 `json:"cached"`
}

// usage is Gemini's count as the transcript's: input_tokens includes the
// cached part, which the transcript counts apart.
func usage(in, out, cached int64) transcript.Usage {
	return transcript.Usage{InputTokens: in - cached, OutputTokens: out, CacheReadTokens: cached}
}

// summary is what a stream reported.
type summary struct {
	model      string
	text       string
	isError    bool
	errMessage string
	usage      transcript.Usage
	perModel   map[string]transcript.ModelUsage
	turns      int
	denials    []transcript.Denial
	calls      []transcript.ToolCall
	result     bool // a result event came
}

// parser turns stream-json lines into transcript events and a summary.
type parser struct {
	emit     func(transcript.Event)
	excluded []string
	s        summary
	text     strings.Builder // the assistant's text since the last tool call
	inTurn   bool            // the assistant spoke since the last tool result
	byID     map[string]int  // tool_id → index in s.calls
}

func newParser(emit func(transcript.Event), excluded []string) *parser {
	return &parser{emit: emit, excluded: excluded, byID: map[string]int{}, s: summary{perModel: map[string]transcript.ModelUsage{}}}
}

// line reads one line of the stream; what is not JSON is ignored.
func (p *parser) line(b []byte) {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || b[0] != '{' {
		return
	}
	var e event
	if json.Unmarshal(b, &e) != nil {
		return
	}
	switch e.Type {
	case "init":
		if e.Model != "" && e.Model != "auto" {
			p.s.model = e.Model
		}
	case "message":
		if e.Role != "assistant" {
			return
		}
		p.turn()
		p.text.WriteString(e.Content)
	case "tool_use":
		p.flushText()
		p.turn()
		name, input := canonical(e.ToolName, e.Parameters)
		p.byID[e.ToolID] = len(p.s.calls)
		p.s.calls = append(p.s.calls, transcript.ToolCall{ID: e.ToolID, Name: name, Input: input})
		p.emit(transcript.Event{Kind: transcript.KindToolCall, ToolUseID: e.ToolID, Tool: name, Input: input, Model: p.s.model})
	case "tool_result":
		p.flushText()
		p.inTurn = false
		isErr := e.Status == "error"
		out := e.Output
		if out == "" && e.Error != nil {
			out = e.Error.Message
		}
		i, ok := p.byID[e.ToolID]
		if ok {
			c := &p.s.calls[i]
			c.Result, c.IsError, c.Returned = out, isErr, true
		}
		p.emit(transcript.Event{Kind: transcript.KindToolResult, ToolUseID: e.ToolID, Text: out, IsError: isErr})
		if ok && e.Error != nil && p.denied(e.Error.Type, p.s.calls[i]) {
			c := p.s.calls[i]
			p.s.denials = append(p.s.denials, transcript.Denial{ToolName: c.Name, ToolUseID: c.ID, ToolInput: c.Input})
			p.emit(transcript.Event{Kind: transcript.KindDenial, ToolUseID: c.ID, Tool: c.Name, Input: c.Input})
		}
	case "result":
		p.s.result = true
		if e.Status != "success" {
			p.s.isError = true
			if e.Error != nil {
				p.s.errMessage = e.Error.Message
			}
		}
		if st := e.Stats; st != nil {
			p.s.usage = usage(st.InputTokens, st.OutputTokens, st.Cached)
			for name, m := range st.Models {
				p.s.perModel[name] = transcript.ModelUsage{Usage: usage(m.InputTokens, m.OutputTokens, m.Cached)}
				if p.s.model == "" {
					p.s.model = name
				}
			}
		}
	case "error":
		if e.Error != nil {
			p.emit(transcript.Event{Kind: transcript.KindError, Text: e.Error.Message})
		}
	}
}

// denied says whether a tool error is a denial: the policy engine's or the
// hook's (policy_violation), or a call of a tool the eval denied whole and
// tools.exclude removed.
func (p *parser) denied(errType string, c transcript.ToolCall) bool {
	if errType == "policy_violation" {
		return true
	}
	if errType != "tool_not_registered" {
		return false
	}
	for _, t := range p.excluded {
		if n, _ := canonical(t, nil); n == c.Name {
			return true
		}
	}
	return false
}

// turn counts a model turn when the assistant starts speaking (text or a
// tool call) after a tool result, or first.
func (p *parser) turn() {
	if !p.inTurn {
		p.inTurn = true
		p.s.turns++
	}
}

// flushText emits the assistant's text so far as one event; the last of
// them is the final answer.
func (p *parser) flushText() {
	if p.text.Len() == 0 {
		return
	}
	t := p.text.String()
	p.text.Reset()
	p.s.text = t
	p.emit(transcript.Event{Kind: transcript.KindText, Text: t, Model: p.s.model})
}

// finish ends the stream: the last text and the result event.
func (p *parser) finish() summary {
	last := p.text.Len() > 0
	p.flushText()
	if !last {
		// The answer is the text after the last tool call: none.
		if n := len(p.s.calls); n > 0 {
			p.s.text = ""
		}
	}
	if p.s.result {
		p.emit(transcript.Event{Kind: transcript.KindResult, Text: p.s.text, IsError: p.s.isError})
	}
	if p.s.denials == nil {
		p.s.denials = []transcript.Denial{}
	}
	return p.s
}

// canonical is a native call's tool name and input in Claude Code's
// vocabulary (the hook's translation), or as it came for a tool the
// translation does not know.
func canonical(tool string, params json.RawMessage) (string, json.RawMessage) {
	var args map[string]any
	if len(params) > 0 {
		_ = json.Unmarshal(params, &args)
	}
	name, input, err := hook.GeminiCall(tool, args)
	if err != nil || input == nil {
		return tool, params
	}
	b, err := json.Marshal(input)
	if err != nil {
		return name, params
	}
	return name, b
}

// apiStatuses are the HTTP statuses Gemini CLI's exit code (the status
// mod 256) is read as.
var apiStatuses = []int{400, 401, 403, 404, 408, 409, 413, 429, 499, 500, 502, 503, 504}

// apiStatus is the model API's HTTP status an exit code stands for (0 for
// a code that is none: the CLI's own fatal errors keep their codes).
func apiStatus(code int) int {
	switch code {
	case 0, 1, 41, 42, 44, 52, 53, 54, 55, 130:
		return 0
	}
	for _, status := range apiStatuses {
		if status%256 == code {
			return status
		}
	}
	return 0
}

// exitError says what a non-zero exit of Gemini CLI means: the exit code
// of an API error is its HTTP status mod 256, the others are the CLI's
// own fatal errors.
func exitError(code int, msg string) error {
	what := ""
	switch code {
	case 0, 1:
	case 41:
		what = "authentication failed (exit 41: no usable credentials, or the auth type in settings.json does not fit)"
	case 42:
		what = "the CLI rejected its input (exit 42)"
	case 44:
		what = "the CLI's sandbox could not start (exit 44)"
	case 52:
		what = "the CLI's configuration is invalid (exit 52)"
	case 53:
		what = "the session reached its turn limit (exit 53)"
	case 54:
		what = "a tool failed fatally (exit 54)"
	case 55:
		what = "the folder is not trusted (exit 55)"
	case 130:
		what = "the CLI was cancelled (exit 130)"
	default:
		if status := apiStatus(code); status != 0 {
			what = fmt.Sprintf("the model API answered HTTP %d (exit %d is the status mod 256)", status, code)
		}
	}
	switch {
	case what == "" && msg == "":
		return fmt.Errorf("gemini exited with code %d", code)
	case what == "":
		return fmt.Errorf("gemini exited with code %d: %s", code, oneLine(msg))
	case msg == "":
		return fmt.Errorf("gemini: %s", what)
	}
	return fmt.Errorf("gemini: %s: %s", what, oneLine(msg))
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 500 {
		s = s[:500] + "…"
	}
	return s
}
