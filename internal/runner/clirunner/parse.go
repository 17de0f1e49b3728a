package clirunner

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/agent-eval/agent-eval/internal/stream"
	"github.com/agent-eval/agent-eval/internal/transcript"
)

// Format is a stdout stream the runner recognises.
type Format string

// The formats.
const (
	FormatNone       Format = ""            // not recognised: stdout is kept, not parsed
	FormatStreamJSON Format = "stream-json" // Claude Code's --output-format stream-json
	FormatOpenCode   Format = "opencode"    // OpenCode's run --format json events
)

// Summary is what a recognised stream says.
type Summary struct {
	// Format is the stream recognised on stdout ("" when none).
	Format    Format
	Model     string
	Text      string // the final answer
	IsError   bool   // the agent ended on an error
	CostUSD   float64
	Usage     transcript.Usage
	PerModel  map[string]transcript.ModelUsage
	NumTurns  int
	ToolCalls []transcript.ToolCall
	Denials   []transcript.Denial
}

// Parser recognises the stream from its first JSON line and parses it line
// by line, writing transcript events as they come.
type Parser struct {
	format Format
	emit   func(transcript.Event)
	claude *stream.Parser
	oc     *openCode
}

// NewParser returns a parser that passes each transcript event to emit
// (nil: dropped).
func NewParser(emit func(transcript.Event)) *Parser {
	if emit == nil {
		emit = func(transcript.Event) {}
	}
	return &Parser{emit: emit}
}

// Line feeds one line of stdout. Lines that are not JSON (a wrapper's own
// messages, stderr merged in) are skipped.
func (p *Parser) Line(line []byte) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 || line[0] != '{' {
		return
	}
	if p.format == FormatNone {
		p.format = recognise(line)
		switch p.format {
		case FormatStreamJSON:
			p.claude = stream.NewParser()
			p.claude.OnEvent = p.emit
		case FormatOpenCode:
			p.oc = newOpenCode()
		default:
			return
		}
	}
	switch p.format {
	case FormatStreamJSON:
		p.claude.Line(line)
	case FormatOpenCode:
		p.oc.line(line, p.emit)
	}
}

// recognise names the format a JSON line belongs to, or FormatNone.
func recognise(line []byte) Format {
	var probe struct {
		Type      string          `json:"type"`
		SessionID string          `json:"session_id"`
		OCSession string          `json:"sessionID"`
		Message   json.RawMessage `json:"message"`
		Part      json.RawMessage `json:"part"`
		Error     json.RawMessage `json:"error"`
	}
	if json.Unmarshal(line, &probe) != nil {
		return FormatNone
	}
	switch {
	case probe.OCSession != "" && (probe.Part != nil || probe.Error != nil):
		return FormatOpenCode
	case probe.SessionID != "" && (probe.Type == "system" || probe.Type == "assistant" || probe.Type == "user" || probe.Type == "result"):
		return FormatStreamJSON
	case probe.Type == "assistant" && probe.Message != nil:
		return FormatStreamJSON
	}
	return FormatNone
}

// Summary returns what was read so far (Format "" when nothing was
// recognised).
func (p *Parser) Summary() Summary {
	switch p.format {
	case FormatStreamJSON:
		s := p.claude.Summary()
		return Summary{Format: p.format, Model: s.Model, Text: s.Result, IsError: s.IsError, CostUSD: s.CostUSD,
			Usage: s.Usage, PerModel: s.PerModel, NumTurns: s.NumTurns, ToolCalls: s.ToolCalls, Denials: s.Denials}
	case FormatOpenCode:
		return p.oc.summary()
	}
	return Summary{ToolCalls: []transcript.ToolCall{}, Denials: []transcript.Denial{}}
}

// Finish writes the closing result event of a stream that has none of its
// own (OpenCode's), once the agent has ended.
func (p *Parser) Finish() {
	if p.format == FormatOpenCode {
		s := p.oc.summary()
		p.emit(transcript.Event{Kind: transcript.KindResult, Text: s.Text, IsError: s.IsError})
	}
}

// openCode parses `opencode run --format json`: one JSON object per line,
// {type, timestamp, sessionID, part | error}. Types seen (1.18.33):
// step_start; text {part.text}; reasoning {part.text}; tool_use
// {part.tool, part.callID, part.state{status completed|error, input,
// output, error}}; step_finish {part.reason, part.tokens{input, output,
// reasoning, cache{read, write}}, part.cost}; error {error{name,
// data{message}}}.
type openCode struct {
	s        Summary
	calls    map[string]int
	lastText string
	stepText string
}

func newOpenCode() *openCode {
	return &openCode{s: Summary{Format: FormatOpenCode, ToolCalls: []transcript.ToolCall{}, Denials: []transcript.Denial{}}, calls: map[string]int{}}
}

type ocEvent struct {
	Type string `json:"type"`
	Part struct {
		Type   string `json:"type"`
		Text   string `json:"text"`
		Tool   string `json:"tool"`
		CallID string `json:"callID"`
		State  struct {
			Status string          `json:"status"`
			Input  json.RawMessage `json:"input"`
			Output string          `json:"output"`
			Error  string          `json:"error"`
		} `json:"state"`
		Reason string `json:"reason"`
		Tokens *struct {
			Input  int64 `json:"input"`
			Output int64 `json:"output"`
			Cache  struct {
				Read  int64 `json:"read"`
				Write int64 `json:"write"`
			} `json:"cache"`
		} `json:"tokens"`
		Cost float64 `json:"cost"`
	} `json:"part"`
	Error *struct {
		Name string `json:"name"`
		Data struct {
			Message string `json:"message"`
		} `json:"data"`
	} `json:"error"`
}

// rejected is how OpenCode words a tool call its permission rules refused.
const rejected = "rejected permission"

func (o *openCode) line(line []byte, emit func(transcript.Event)) {
	var ev ocEvent
	if json.Unmarshal(line, &ev) != nil {
		return
	}
	switch ev.Type {
	case "step_start":
		o.stepText = ""
	case "text":
		if ev.Part.Text != "" {
			o.stepText += ev.Part.Text
			emit(transcript.Event{Kind: transcript.KindText, Text: ev.Part.Text})
		}
	case "reasoning":
		if ev.Part.Text != "" {
			emit(transcript.Event{Kind: transcript.KindThinking, Text: ev.Part.Text})
		}
	case "tool_use":
		p := ev.Part
		if _, seen := o.calls[p.CallID]; !seen {
			o.calls[p.CallID] = len(o.s.ToolCalls)
			o.s.ToolCalls = append(o.s.ToolCalls, transcript.ToolCall{ID: p.CallID, Name: p.Tool, Input: p.State.Input})
			emit(transcript.Event{Kind: transcript.KindToolCall, ToolUseID: p.CallID, Tool: p.Tool, Input: p.State.Input})
		}
		c := &o.s.ToolCalls[o.calls[p.CallID]]
		switch p.State.Status {
		case "completed":
			c.Result, c.Returned = p.State.Output, true
			emit(transcript.Event{Kind: transcript.KindToolResult, ToolUseID: p.CallID, Text: p.State.Output})
		case "error":
			c.Result, c.IsError, c.Returned = p.State.Error, true, true
			if strings.Contains(p.State.Error, rejected) {
				o.s.Denials = append(o.s.Denials, transcript.Denial{ToolName: p.Tool, ToolUseID: p.CallID, ToolInput: p.State.Input})
				emit(transcript.Event{Kind: transcript.KindDenial, ToolUseID: p.CallID, Tool: p.Tool, Input: p.State.Input})
			}
			emit(transcript.Event{Kind: transcript.KindToolResult, ToolUseID: p.CallID, Text: p.State.Error, IsError: true})
		}
	case "step_finish":
		o.s.NumTurns++
		if t := ev.Part.Tokens; t != nil {
			// Input excludes the cache, as the Messages API's does (upstream's
			// wrapper adds cache.read to it); reasoning is left out as
			// upstream does.
			o.s.Usage.Add(transcript.Usage{InputTokens: t.Input, OutputTokens: t.Output,
				CacheReadTokens: t.Cache.Read, CacheCreationTokens: t.Cache.Write})
		}
		o.s.CostUSD += ev.Part.Cost
		if o.stepText != "" {
			o.lastText = o.stepText
		}
	case "error":
		o.s.IsError = true
		if ev.Error != nil {
			msg := ev.Error.Data.Message
			if msg == "" {
				msg = ev.Error.Name
			}
			o.lastText = msg
		}
	}
}

func (o *openCode) summary() Summary {
	s := o.s
	s.Text = o.lastText
	s.ToolCalls = append([]transcript.ToolCall{}, o.s.ToolCalls...)
	s.Denials = append([]transcript.Denial{}, o.s.Denials...)
	return s
}
