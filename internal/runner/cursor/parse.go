package cursor

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"

	"github.com/agent-eval/agent-eval/internal/transcript"
)

// The stream-json events of `cursor-agent -p --output-format stream-json`
// (Cursor's "Output format" page): system/init, user, assistant, tool_call
// started/completed and the terminal result.
type event struct {
	Type     string          `json:"type"`
	Subtype  string          `json:"subtype"`
	Model    string          `json:"model"`
	Message  *message        `json:"message"`
	CallID   string          `json:"call_id"`
	ToolCall json.RawMessage `json:"tool_call"`
	Result   *string         `json:"result"`
	IsError  bool            `json:"is_error"`
	// Usage is not on the documentation's result event; it is read when
	// present (camelCase token counts, as some versions print them).
	Usage *struct {
		InputTokens      int64 `json:"inputTokens"`
		OutputTokens     int64 `json:"outputTokens"`
		CacheReadTokens  int64 `json:"cacheReadTokens"`
		CacheWriteTokens int64 `json:"cacheWriteTokens"`
	} `json:"usage"`
}

type message struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
}

// summary is what the stream said.
type summary struct {
	Model     string
	Text      string
	IsError   bool
	HasResult bool
	Usage     transcript.Usage
	NumTurns  int
	ToolCalls []transcript.ToolCall
	// Denials are the calls whose completion says they were refused.
	Denials []transcript.Denial
}

// parser reads the stream line by line and emits transcript events.
type parser struct {
	emit  func(transcript.Event)
	s     summary
	calls map[string]int // call_id → index in s.ToolCalls
	texts []string
}

func newParser(emit func(transcript.Event)) *parser {
	if emit == nil {
		emit = func(transcript.Event) {}
	}
	return &parser{emit: emit, calls: map[string]int{}, s: summary{ToolCalls: []transcript.ToolCall{}, Denials: []transcript.Denial{}}}
}

// Line feeds one line of stdout; lines that are not events are skipped.
func (p *parser) Line(line []byte) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 || line[0] != '{' {
		return
	}
	var e event
	if json.Unmarshal(line, &e) != nil {
		return
	}
	switch e.Type {
	case "system":
		if e.Subtype == "init" && e.Model != "" {
			p.s.Model = e.Model
		}
	case "assistant":
		if e.Message == nil {
			return
		}
		var text strings.Builder
		for _, c := range e.Message.Content {
			if c.Type == "text" {
				text.WriteString(c.Text)
			}
		}
		p.s.NumTurns++
		if text.Len() > 0 {
			p.texts = append(p.texts, text.String())
			p.emit(transcript.Event{Kind: transcript.KindText, Text: text.String(), Model: p.s.Model})
		}
	case "tool_call":
		p.toolCall(e)
	case "result":
		p.s.HasResult = true
		p.s.IsError = e.IsError || (e.Subtype != "" && e.Subtype != "success")
		if e.Result != nil {
			p.s.Text = *e.Result
		}
		if e.Usage != nil {
			p.s.Usage = transcript.Usage{InputTokens: e.Usage.InputTokens, OutputTokens: e.Usage.OutputTokens,
				CacheReadTokens: e.Usage.CacheReadTokens, CacheCreationTokens: e.Usage.CacheWriteTokens}
		}
	}
}

// toolCall reads a tool_call event: {"<kind>ToolCall": {"args": …,
// "result": …}}, the kind being shell, read, write, edit, … or a generic
// function {name, arguments}.
func (p *parser) toolCall(e event) {
	var byKind map[string]struct {
		Args      json.RawMessage            `json:"args"`
		Result    map[string]json.RawMessage `json:"result"`
		Name      string                     `json:"name"`
		Arguments json.RawMessage            `json:"arguments"`
	}
	if json.Unmarshal(e.ToolCall, &byKind) != nil || len(byKind) == 0 {
		return
	}
	kinds := make([]string, 0, len(byKind))
	for k := range byKind {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	kind := kinds[0]
	c := byKind[kind]
	name, input := toolName(kind, c.Name), c.Args
	if kind == "function" && len(c.Arguments) > 0 {
		input = c.Arguments
	}
	input = canonicalInput(name, input)
	switch e.Subtype {
	case "started":
		if _, seen := p.calls[e.CallID]; seen {
			return
		}
		p.calls[e.CallID] = len(p.s.ToolCalls)
		p.s.ToolCalls = append(p.s.ToolCalls, transcript.ToolCall{ID: e.CallID, Name: name, Input: input})
		p.emit(transcript.Event{Kind: transcript.KindToolCall, ToolUseID: e.CallID, Tool: name, Input: input})
	case "completed":
		i, seen := p.calls[e.CallID]
		if !seen {
			i = len(p.s.ToolCalls)
			p.calls[e.CallID] = i
			p.s.ToolCalls = append(p.s.ToolCalls, transcript.ToolCall{ID: e.CallID, Name: name, Input: input})
			p.emit(transcript.Event{Kind: transcript.KindToolCall, ToolUseID: e.CallID, Tool: name, Input: input})
		}
		text, isErr, denied := resultText(c.Result)
		tc := &p.s.ToolCalls[i]
		tc.Result, tc.IsError, tc.Returned = text, isErr, true
		if denied {
			p.s.Denials = append(p.s.Denials, transcript.Denial{ToolName: name, ToolUseID: e.CallID, ToolInput: input})
			p.emit(transcript.Event{Kind: transcript.KindDenial, ToolUseID: e.CallID, Tool: name, Input: input})
		}
		p.emit(transcript.Event{Kind: transcript.KindToolResult, ToolUseID: e.CallID, Text: text, IsError: isErr})
	}
}

// toolName names a Cursor tool call in Claude Code's vocabulary where
// there is a counterpart, so judges and the report read every runner's
// calls alike; other kinds keep Cursor's name without the ToolCall suffix.
func toolName(kind, function string) string {
	switch kind {
	case "shellToolCall":
		return "Bash"
	case "readToolCall":
		return "Read"
	case "writeToolCall":
		return "Write"
	case "editToolCall":
		return "Edit"
	case "grepToolCall":
		return "Grep"
	case "globToolCall":
		return "Glob"
	case "function":
		if function != "" {
			return function
		}
	}
	return strings.TrimSuffix(kind, "ToolCall")
}

// canonicalInput spells a call's arguments as Claude Code's tools take
// them (command, file_path, content), keeping Cursor's own fields beside.
func canonicalInput(name string, args json.RawMessage) json.RawMessage {
	var m map[string]any
	if json.Unmarshal(args, &m) != nil || m == nil {
		if len(args) == 0 {
			return json.RawMessage("{}")
		}
		return args
	}
	rename := func(from, to string) {
		if v, ok := m[from]; ok {
			if _, has := m[to]; !has {
				m[to] = v
			}
			delete(m, from)
		}
	}
	switch name {
	case "Read", "Write", "Edit":
		rename("path", "file_path")
		rename("fileText", "content")
	}
	b, err := json.Marshal(m)
	if err != nil {
		return args
	}
	return b
}

// resultText reads a completed call's result: success, or anything else
// (an error, a failure, a refusal) as an error; rejected and
// permissionDenied are refusals.
func resultText(result map[string]json.RawMessage) (text string, isErr, denied bool) {
	if len(result) == 0 {
		return "", false, false
	}
	if ok, found := result["success"]; found {
		return flatten(ok), false, false
	}
	keys := make([]string, 0, len(result))
	for k := range result {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if k == "rejected" || k == "permissionDenied" {
			return flatten(result[k]), true, true
		}
	}
	return flatten(result[keys[0]]), true, false
}

// flatten is a result's text: its output fields when it has them, else
// its JSON.
func flatten(raw json.RawMessage) string {
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s
		}
		return string(raw)
	}
	var parts []string
	for _, k := range []string{"content", "stdout", "stderr", "reason", "errorMessage", "message"} {
		if s, _ := m[k].(string); s != "" {
			parts = append(parts, s)
		}
	}
	if len(parts) > 0 {
		return strings.Join(parts, "\n")
	}
	return string(raw)
}

// finish returns the summary, writing the result event (the stream's, or
// one made of the last assistant message when the agent printed none).
func (p *parser) finish(failure string) summary {
	s := p.s
	if !s.HasResult {
		s.IsError = true
		if s.Text == "" && len(p.texts) > 0 {
			s.Text = p.texts[len(p.texts)-1]
		}
		if s.Text == "" {
			s.Text = failure
		}
		if failure != "" {
			p.emit(transcript.Event{Kind: transcript.KindError, Text: failure})
		}
	}
	p.emit(transcript.Event{Kind: transcript.KindResult, Text: s.Text, IsError: s.IsError})
	return s
}
