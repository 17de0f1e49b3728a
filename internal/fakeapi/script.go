// Package fakeapi is a scripted fake of the Anthropic Messages API for tests
// and offline smoke runs. It speaks the SSE sequence the real API sends, so
// the real Claude Code CLI and the official Go SDK both talk to it. It knows
// nothing about agent-eval: a script says, turn by turn, what the "model"
// answers.
package fakeapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"

	yaml "go.yaml.in/yaml/v3"
)

// Script is what the fake model answers. A main-loop request (one that
// offers tools) at turn n, the number of assistant messages it already
// holds, gets Turns[n]; past the end it gets AfterEnd. A request that offers
// no tools (a side call) gets Side.
type Script struct {
	Turns    []Turn `yaml:"turns" json:"turns"`
	AfterEnd *Turn  `yaml:"after_end" json:"after_end,omitempty"`
	Side     *Turn  `yaml:"side" json:"side,omitempty"`
	// Match answers by content: the first rule whose Contains occurs in the
	// request's last user message wins, before Turns, AfterEnd and Side.
	// Judges send one question per case, so a test scripts each case's
	// verdict by a word in its prompt.
	Match []Match `yaml:"match" json:"match,omitempty"`
}

// Match is a content rule of a script.
type Match struct {
	Contains string `yaml:"contains" json:"contains"`
	Turn     Turn   `yaml:"turn" json:"turn"`
}

// Turn is one answer. Blocks come out in the order thinking, text, tool uses.
type Turn struct {
	Thinking   string    `yaml:"thinking" json:"thinking,omitempty"`
	Text       string    `yaml:"text" json:"text,omitempty"`
	ToolUse    *ToolUse  `yaml:"tool_use" json:"tool_use,omitempty"`
	ToolUses   []ToolUse `yaml:"tool_uses" json:"tool_uses,omitempty"`
	StopReason string    `yaml:"stop_reason" json:"stop_reason,omitempty"` // default: tool_use when there are tool uses, else end_turn
	Error      *APIError `yaml:"error" json:"error,omitempty"`
	// Count limits Error to the first Count requests that reach this turn
	// (per script name, and per server: the fake counts them); later
	// requests get the turn's content, so a script can answer one 529 and
	// then succeed on the client's retry. Zero: the error every time.
	Count int `yaml:"count" json:"count,omitempty"`
	// Request is what a recording (run --record) saw the agent ask at this
	// turn. An ordinary script ignores it; a strict server (replay) answers
	// the turn only to a request that asks the same (see Normalize).
	Request *RecordedRequest `yaml:"request" json:"request,omitempty"`
}

// RecordedRequest is the part of a recorded request replay compares: the
// request's last message, normalised (Normalize).
type RecordedRequest struct {
	Last string `yaml:"last" json:"last"`
}

// ToolUse is one tool call the model makes. ID defaults to
// toolu_fake_<turn>_<index>.
type ToolUse struct {
	ID    string         `yaml:"id" json:"id,omitempty"`
	Name  string         `yaml:"name" json:"name"`
	Input map[string]any `yaml:"input" json:"input"`
}

// APIError makes the turn fail with an HTTP error.
type APIError struct {
	Status  int    `yaml:"status" json:"status"`
	Type    string `yaml:"type" json:"type"`
	Message string `yaml:"message" json:"message"`
}

var (
	defaultAfterEnd = Turn{Text: "done."}
	defaultSide     = Turn{Text: "ok"}
)

// mainTurn is the answer to a main-loop request at turn n: Turns[n], past
// the end AfterEnd.
func (s *Script) mainTurn(n int) Turn {
	switch {
	case n < len(s.Turns):
		return s.Turns[n]
	case s.AfterEnd != nil:
		return *s.AfterEnd
	}
	return defaultAfterEnd
}

// sideTurn is the answer to a side call: Side.
func (s *Script) sideTurn() Turn {
	if s.Side != nil {
		return *s.Side
	}
	return defaultSide
}

// ParseScript reads a script from YAML (or JSON). Unknown keys are errors, so
// a typo in a test script fails the test instead of changing it.
func ParseScript(data []byte) (*Script, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var s Script
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("parse script: %w", err)
	}
	for i, t := range s.Turns {
		if err := t.check(); err != nil {
			return nil, fmt.Errorf("parse script: turns[%d]: %w", i, err)
		}
	}
	for i, m := range s.Match {
		if m.Contains == "" {
			return nil, fmt.Errorf("parse script: match[%d]: contains is empty", i)
		}
		if err := m.Turn.check(); err != nil {
			return nil, fmt.Errorf("parse script: match[%d]: %w", i, err)
		}
	}
	for name, t := range map[string]*Turn{"after_end": s.AfterEnd, "side": s.Side} {
		if t != nil {
			if err := t.check(); err != nil {
				return nil, fmt.Errorf("parse script: %s: %w", name, err)
			}
		}
	}
	return &s, nil
}

// LoadScript reads a script file.
func LoadScript(path string) (*Script, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	s, err := ParseScript(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

func (t Turn) check() error {
	if t.Count < 0 {
		return fmt.Errorf("count must be positive, got %d", t.Count)
	}
	if t.Count > 0 {
		if t.Error == nil {
			return fmt.Errorf("count limits an error: the turn has no error")
		}
		if t.Error.Status < 400 || t.Error.Status > 599 {
			return fmt.Errorf("error.status must be an HTTP error status, got %d", t.Error.Status)
		}
		if !t.hasContent() {
			return fmt.Errorf("a turn with error and count needs what it answers once the errors are spent: text, thinking, tool_use or tool_uses")
		}
		return t.content().check()
	}
	if t.Error != nil {
		if t.Error.Status < 400 || t.Error.Status > 599 {
			return fmt.Errorf("error.status must be an HTTP error status, got %d", t.Error.Status)
		}
		return nil
	}
	if !t.hasContent() {
		return fmt.Errorf("a turn needs text, thinking, tool_use, tool_uses or error")
	}
	for _, u := range t.tools() {
		if u.Name == "" {
			return fmt.Errorf("a tool use needs a name")
		}
	}
	return nil
}

func (t Turn) hasContent() bool {
	return t.Text != "" || t.Thinking != "" || t.ToolUse != nil || len(t.ToolUses) > 0
}

// content is the turn without its error: what it answers once the errors
// are spent.
func (t Turn) content() Turn {
	t.Error, t.Count, t.Request = nil, 0, nil
	return t
}

func (t Turn) tools() []ToolUse {
	if t.ToolUse == nil {
		return t.ToolUses
	}
	return append([]ToolUse{*t.ToolUse}, t.ToolUses...)
}

// withCWD returns the turn with every ${CWD} replaced by cwd(), called
// only when the turn holds one.
func (t Turn) withCWD(cwd func() string) Turn {
	b, err := json.Marshal(t)
	if err != nil || !bytes.Contains(b, []byte("${CWD}")) {
		return t
	}
	esc, _ := json.Marshal(cwd())
	b = bytes.ReplaceAll(b, []byte("${CWD}"), esc[1:len(esc)-1])
	var out Turn
	if json.Unmarshal(b, &out) != nil {
		return t
	}
	return out
}
