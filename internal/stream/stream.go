// Package stream parses Claude Code's stream-json output (--output-format
// stream-json --verbose) line by line, in constant memory per line, and
// tolerates lines that are not JSON. It does no other I/O.
package stream

import (
	"bytes"
	"encoding/json"
	"sort"

	"github.com/agent-eval/agent-eval/internal/transcript"
)

// The runner-neutral types live in package transcript; these names keep
// the parser's callers short.
type (
	Denial     = transcript.Denial
	Usage      = transcript.Usage
	ModelUsage = transcript.ModelUsage
	ToolCall   = transcript.ToolCall
)

// Summary is what a run's stream says.
type Summary struct {
	Model          string                `json:"model,omitempty"`
	SessionID      string                `json:"session_id,omitempty"`
	CostUSD        float64               `json:"cost_usd"`
	Usage          Usage                 `json:"token_usage"`
	PerModel       map[string]ModelUsage `json:"per_model_usage"`
	NumTurns       int                   `json:"num_turns"`
	ToolCalls      []ToolCall            `json:"tool_calls"`
	Denials        []Denial              `json:"permission_denials"`
	Result         string                `json:"result,omitempty"`
	IsError        bool                  `json:"is_error"`
	Subtype        string                `json:"subtype,omitempty"`
	APIErrorStatus int                   `json:"api_error_status,omitempty"`
	ResultEvents   int                   `json:"result_events"`
	JunkLines      int                   `json:"junk_lines"`
}

// event holds the fields of any stream-json line the parser reads.
type event struct {
	Type      string `json:"type"`
	Subtype   string `json:"subtype"`
	Model     string `json:"model"`
	SessionID string `json:"session_id"`
	Message   *struct {
		ID      string `json:"id"`
		Model   string `json:"model"`
		Content []struct {
			Type      string          `json:"type"`
			Text      string          `json:"text"`
			Thinking  string          `json:"thinking"`
			ID        string          `json:"id"`
			Name      string          `json:"name"`
			Input     json.RawMessage `json:"input"`
			ToolUseID string          `json:"tool_use_id"`
			Content   json.RawMessage `json:"content"`
			IsError   bool            `json:"is_error"`
		} `json:"content"`
	} `json:"message"`
	// result events
	TotalCostUSD      *float64 `json:"total_cost_usd"`
	Usage             *Usage   `json:"usage"`
	Result            *string  `json:"result"`
	IsError           bool     `json:"is_error"`
	APIErrorStatus    *int     `json:"api_error_status"`
	PermissionDenials []Denial `json:"permission_denials"`
	ModelUsage        map[string]struct {
		InputTokens              int64   `json:"inputTokens"`
		OutputTokens             int64   `json:"outputTokens"`
		CacheReadInputTokens     int64   `json:"cacheReadInputTokens"`
		CacheCreationInputTokens int64   `json:"cacheCreationInputTokens"`
		CostUSD                  float64 `json:"costUSD"`
	} `json:"modelUsage"`
}

// Parser accumulates a stream one line at a time.
type Parser struct {
	// OnEvent, when set, receives the stream's runner-neutral transcript
	// events as they are read (Step left for the caller to fill).
	OnEvent  func(transcript.Event)
	s        Summary
	turns    map[string]bool
	calls    map[string]int // tool_use id → index in ToolCalls
	denied   map[string]bool
	perModel map[string]ModelUsage
}

// NewParser returns an empty parser.
func NewParser() *Parser {
	return &Parser{turns: map[string]bool{}, calls: map[string]int{}, denied: map[string]bool{}, perModel: map[string]ModelUsage{}}
}

var (
	typeAssistant = []byte(`"type":"assistant"`)
	typeUser      = []byte(`"type":"user"`)
	typeResult    = []byte(`"type":"result"`)
	typeSystem    = []byte(`"type":"system"`)
)

// Line feeds one line.
func (p *Parser) Line(line []byte) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return
	}
	if line[0] != '{' {
		p.s.JunkLines++
		return
	}
	// The event type is read from the line's start when it is there (Claude
	// Code writes "type" first on most lines), so lines of no interest
	// (stream events, hook events, ...) are skipped without decoding them.
	typ := lineType(line)
	switch {
	case typ == "user" && len(line) > fastUserLine:
		p.userFast(line)
		return
	case typ != "" && typ != "assistant" && typ != "user" && typ != "result" && typ != "system":
		return
	case typ == "" && !bytes.Contains(line, typeAssistant) && !bytes.Contains(line, typeUser) &&
		!bytes.Contains(line, typeResult) && !bytes.Contains(line, typeSystem):
		return
	}
	var ev event
	if err := json.Unmarshal(line, &ev); err != nil {
		p.s.JunkLines++
		return
	}
	switch ev.Type {
	case "system":
		if ev.Subtype == "init" {
			if ev.Model != "" {
				p.s.Model = ev.Model
			}
			p.s.SessionID = ev.SessionID
		}
	case "assistant":
		if ev.Message == nil {
			return
		}
		if ev.Message.ID != "" {
			p.turns[ev.Message.ID] = true
		}
		if ev.Message.Model != "" {
			p.s.Model = ev.Message.Model
		}
		for _, b := range ev.Message.Content {
			switch b.Type {
			case "tool_use":
				if _, seen := p.calls[b.ID]; !seen {
					p.calls[b.ID] = len(p.s.ToolCalls)
					p.s.ToolCalls = append(p.s.ToolCalls, ToolCall{ID: b.ID, Name: b.Name, Input: b.Input})
					p.emit(transcript.Event{Kind: transcript.KindToolCall, ToolUseID: b.ID, Tool: b.Name, Input: b.Input, Model: p.s.Model})
				}
			case "text":
				if b.Text != "" {
					p.emit(transcript.Event{Kind: transcript.KindText, Text: b.Text, Model: p.s.Model})
				}
			case "thinking":
				if b.Thinking != "" {
					p.emit(transcript.Event{Kind: transcript.KindThinking, Text: b.Thinking, Model: p.s.Model})
				}
			}
		}
	case "user":
		if ev.Message == nil {
			return
		}
		for _, b := range ev.Message.Content {
			if b.Type != "tool_result" {
				continue
			}
			t := text(b.Content)
			if i, ok := p.calls[b.ToolUseID]; ok {
				p.s.ToolCalls[i].Result = t
				p.s.ToolCalls[i].IsError = b.IsError
				p.s.ToolCalls[i].Returned = true
			}
			p.emit(transcript.Event{Kind: transcript.KindToolResult, ToolUseID: b.ToolUseID, Text: t, IsError: b.IsError})
		}
	case "result":
		p.s.ResultEvents++
		p.s.Subtype, p.s.IsError = ev.Subtype, ev.IsError
		if ev.Result != nil {
			p.s.Result = *ev.Result
		}
		if ev.TotalCostUSD != nil {
			p.s.CostUSD += *ev.TotalCostUSD
		}
		if ev.Usage != nil {
			p.s.Usage.Add(*ev.Usage)
		}
		if ev.APIErrorStatus != nil {
			p.s.APIErrorStatus = *ev.APIErrorStatus
		}
		for name, m := range ev.ModelUsage {
			u := p.perModel[name]
			u.Add(Usage{InputTokens: m.InputTokens, OutputTokens: m.OutputTokens, CacheReadTokens: m.CacheReadInputTokens, CacheCreationTokens: m.CacheCreationInputTokens})
			u.CostUSD += m.CostUSD
			p.perModel[name] = u
		}
		for _, d := range ev.PermissionDenials {
			key := d.ToolUseID
			if key == "" {
				key = d.ToolName + string(d.ToolInput)
			}
			if !p.denied[key] {
				p.denied[key] = true
				p.s.Denials = append(p.s.Denials, d)
				p.emit(transcript.Event{Kind: transcript.KindDenial, ToolUseID: d.ToolUseID, Tool: d.ToolName, Input: d.ToolInput})
			}
		}
		// The denials (which the result event lists) come before the final
		// answer: a transcript ends on the result.
		if ev.Result != nil {
			p.emit(transcript.Event{Kind: transcript.KindResult, Text: *ev.Result, IsError: ev.IsError, Model: p.s.Model})
		}
	}
}

// fastUserLine is the size above which a user line (tool results, possibly
// huge) is scanned for its tool_use_ids instead of decoded.
const fastUserLine = 4 << 10

var (
	typePrefix  = []byte(`{"type":"`)
	toolUseIDKy = []byte(`"tool_use_id":"`)
	isErrorKey  = []byte(`"is_error":`)
)

// lineType returns the type a line starts with, or "" when it does not
// start with its type.
func lineType(line []byte) string {
	if !bytes.HasPrefix(line, typePrefix) {
		return ""
	}
	rest := line[len(typePrefix):]
	end := bytes.IndexByte(rest, '"')
	if end < 0 || end > 32 {
		return ""
	}
	return string(rest[:end])
}

// userFast records the tool results of a large user line without decoding
// it: only the ids and error flags are read, the content stays in
// stdout.log. Key sequences such as "tool_use_id":" cannot occur inside a
// JSON string (a quote there is escaped), so matching them is structural.
// Claude Code writes is_error before tool_use_id in a tool_result.
func (p *Parser) userFast(line []byte) {
	prev := 0
	for {
		i := bytes.Index(line[prev:], toolUseIDKy)
		if i < 0 {
			return
		}
		start := prev + i + len(toolUseIDKy)
		end := bytes.IndexByte(line[start:], '"')
		if end < 0 {
			return
		}
		id := line[start : start+end]
		isErr := false
		if j := bytes.LastIndex(line[prev:prev+i], isErrorKey); j >= 0 {
			isErr = bytes.HasPrefix(line[prev+j+len(isErrorKey):], []byte("true"))
		}
		if k, ok := p.calls[string(id)]; ok {
			p.s.ToolCalls[k].IsError = isErr
			p.s.ToolCalls[k].Returned = true
		}
		// The result's text is decoded only up to the transcript's bound
		// (stdout.log has all of it); the event says it was cut.
		if p.OnEvent != nil {
			text := clippedContent(line[prev : prev+i])
			p.emit(transcript.Event{Kind: transcript.KindToolResult, ToolUseID: string(id), IsError: isErr, Text: text, Truncated: true})
		}
		prev = start + end
	}
}

var contentKey = []byte(`"content":"`)

// clippedContent decodes the start of the last string-valued "content" in
// b (a tool_result's text before its tool_use_id), at most about
// transcript.MaxText bytes of it, cut between escapes; "" when there is
// none or it will not decode.
func clippedContent(b []byte) string {
	j := bytes.LastIndex(b, contentKey)
	if j < 0 {
		return ""
	}
	raw := b[j+len(contentKey)-1:] // from the opening quote
	end := 1                       // past the last whole character
	for end < len(raw) && end < transcript.MaxText {
		c := raw[end]
		if c == '"' {
			break
		}
		n := 1
		if c == '\\' {
			n = 2
			if end+1 < len(raw) && raw[end+1] == 'u' {
				n = 6
			}
		}
		if end+n > len(raw) {
			break
		}
		end += n
	}
	// A copy: raw is the line being parsed.
	str := append(bytes.Clone(raw[:end]), '"')
	var out string
	if json.Unmarshal(str, &out) != nil {
		return ""
	}
	return out
}

func (p *Parser) emit(e transcript.Event) {
	if p.OnEvent != nil {
		p.OnEvent(e)
	}
}

// Summary returns what was read so far.
func (p *Parser) Summary() *Summary {
	s := p.s
	s.NumTurns = len(p.turns)
	s.PerModel = map[string]ModelUsage{}
	var sum float64
	names := make([]string, 0, len(p.perModel))
	for n := range p.perModel {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		s.PerModel[n] = p.perModel[n]
		sum += p.perModel[n].CostUSD
	}
	if sum > s.CostUSD {
		s.CostUSD = sum // the reported total can miss subagent models
	}
	if s.Denials == nil {
		s.Denials = []Denial{}
	}
	if s.ToolCalls == nil {
		s.ToolCalls = []ToolCall{}
	}
	return &s
}

func text(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &blocks) == nil {
		var b bytes.Buffer
		for _, bl := range blocks {
			b.WriteString(bl.Text)
		}
		return b.String()
	}
	return string(raw)
}
