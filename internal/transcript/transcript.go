// Package transcript is what an agent did, in a form no runner owns: tool
// calls and their results, denials, usage, and a case's transcript.jsonl —
// the conversation as events that scoring and the report read without
// knowing which agent CLI produced them. It does no I/O beyond the reader
// and writer it is given.
package transcript

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"unicode/utf8"
)

// Denial is one call the agent's permission layer refused (Claude Code's
// permission_denials entry).
type Denial struct {
	ToolName  string          `json:"tool_name"`
	ToolUseID string          `json:"tool_use_id"`
	ToolInput json.RawMessage `json:"tool_input"`
	// Reason is why the call was refused, where the agent says (the codex
	// runner reads it from the call's output).
	Reason string `json:"reason,omitempty"`
}

// Usage counts tokens.
type Usage struct {
	InputTokens         int64 `json:"input_tokens"`
	OutputTokens        int64 `json:"output_tokens"`
	CacheReadTokens     int64 `json:"cache_read_input_tokens"`
	CacheCreationTokens int64 `json:"cache_creation_input_tokens"`
}

// Add adds o's tokens to u.
func (u *Usage) Add(o Usage) {
	u.InputTokens += o.InputTokens
	u.OutputTokens += o.OutputTokens
	u.CacheReadTokens += o.CacheReadTokens
	u.CacheCreationTokens += o.CacheCreationTokens
}

// ModelUsage is one model's share of a run.
type ModelUsage struct {
	Usage
	CostUSD float64 `json:"cost_usd"`
}

// AddPerModel adds every model's usage in from to to.
func AddPerModel(to, from map[string]ModelUsage) {
	for name, u := range from {
		t := to[name]
		t.Usage.Add(u.Usage)
		t.CostUSD += u.CostUSD
		to[name] = t
	}
}

// ToolCall is one tool call the model made, with its result when it came.
type ToolCall struct {
	ID      string          `json:"id"`
	Name    string          `json:"name"`
	Input   json.RawMessage `json:"input"`
	Result  string          `json:"result,omitempty"`
	IsError bool            `json:"is_error,omitempty"`
	// Returned: the call's result came (IsError says how it ended).
	Returned bool `json:"returned,omitempty"`
}

// Kind is the kind of a transcript event.
type Kind string

// The kinds of event.
const (
	KindPrompt     Kind = "prompt"      // what the agent was asked (Text)
	KindText       Kind = "text"        // the model's text (Text)
	KindThinking   Kind = "thinking"    // the model's visible reasoning (Text)
	KindToolCall   Kind = "tool_call"   // ToolUseID, Tool, Input
	KindToolResult Kind = "tool_result" // ToolUseID, Text, IsError
	KindDenial     Kind = "denial"      // a permission denial: ToolUseID, Tool, Input
	KindResult     Kind = "result"      // the agent's final answer (Text, IsError)
	KindError      Kind = "error"       // the runner's own error (Text)
)

// Event is one line of transcript.jsonl.
type Event struct {
	Kind Kind `json:"kind"`
	// Step is the pipeline step the event belongs to ("" outside pipelines).
	Step      string          `json:"step,omitempty"`
	Text      string          `json:"text,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	Tool      string          `json:"tool,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	IsError   bool            `json:"is_error,omitempty"`
	Model     string          `json:"model,omitempty"`
	// Truncated: Text was longer than MaxText and was cut.
	Truncated bool `json:"truncated,omitempty"`
}

// MaxText bounds an event's text (a tool result can be megabytes); the
// full text stays in the runner's own log.
const MaxText = 64 << 10

// Writer appends events to a transcript.jsonl. It is safe for concurrent use.
type Writer struct {
	mu  sync.Mutex
	w   *bufio.Writer
	err error
}

// NewWriter writes events to w; call Flush when done.
func NewWriter(w io.Writer) *Writer { return &Writer{w: bufio.NewWriter(w)} }

// Write appends one event, its text clipped to MaxText.
func (t *Writer) Write(e Event) {
	if len(e.Text) > MaxText {
		cut := MaxText
		for cut > 0 && !utf8.RuneStart(e.Text[cut]) {
			cut--
		}
		e.Text, e.Truncated = e.Text[:cut], true
	}
	b, err := json.Marshal(e)
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.err != nil {
		return
	}
	if err != nil {
		t.err = fmt.Errorf("encode a transcript event: %w", err)
		return
	}
	if _, err := t.w.Write(append(b, '\n')); err != nil {
		t.err = fmt.Errorf("write the transcript: %w", err)
	}
}

// Flush writes what is buffered and returns the first error met.
func (t *Writer) Flush() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := t.w.Flush(); err != nil && t.err == nil {
		t.err = fmt.Errorf("write the transcript: %w", err)
	}
	return t.err
}

// Read reads a whole transcript.jsonl. A line that is not an event (a
// truncated last line after a crash) is skipped and counted.
func Read(r io.Reader) (events []Event, skipped int, err error) {
	br := bufio.NewReaderSize(r, 256<<10)
	for {
		line, rerr := br.ReadBytes('\n')
		if len(line) > 0 {
			var e Event
			if json.Unmarshal(line, &e) == nil && e.Kind != "" {
				events = append(events, e)
			} else if len(line) > 1 {
				skipped++
			}
		}
		if errors.Is(rerr, io.EOF) {
			return events, skipped, nil
		}
		if rerr != nil {
			return events, skipped, fmt.Errorf("read the transcript: %w", rerr)
		}
	}
}
