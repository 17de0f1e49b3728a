package rundir

import (
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/agent-eval/agent-eval/internal/atomicfile"
	"github.com/agent-eval/agent-eval/internal/transcript"
)

// EventsFile is a case's events.json (traces.events): its transcript as
// a JSON array of runner-neutral events, the shape agent-eval-harness's
// collect step writes for its judges and tools.
const EventsFile = "events.json"

// Events is the folder's events.json.
func (f CaseFolder) Events() string { return filepath.Join(f.Path, EventsFile) }

// Stderr is the folder's stderr.log.
func (f CaseFolder) Stderr() string { return filepath.Join(f.Path, StderrFile) }

// BatchFolder is a batch run's root as a case folder: its one agent run's
// logs, transcript and events.
func (d Dir) BatchFolder() CaseFolder { return CaseFolder(d) }

// Event is one entry of events.json. Type is assistant (the model's text,
// thinking or tool calls), tool_result, permission_denial, prompt, result
// or error.
type Event struct {
	Type      string          `json:"type"`
	Step      string          `json:"step,omitempty"`
	Text      string          `json:"text,omitempty"`
	Thinking  string          `json:"thinking,omitempty"`
	Tools     []EventTool     `json:"tools,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	ToolName  string          `json:"tool_name,omitempty"`
	Content   *string         `json:"content,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	IsError   bool            `json:"is_error,omitempty"`
	Model     string          `json:"model,omitempty"`
	Truncated bool            `json:"truncated,omitempty"`
}

// EventTool is one tool call of an assistant event.
type EventTool struct {
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

// EventsOf turns a transcript into events.json's entries: each text,
// thinking or tool call an assistant event, a tool result named by its
// call's tool.
func EventsOf(tr []transcript.Event) []Event {
	out := make([]Event, 0, len(tr))
	names := map[string]string{}
	for _, e := range tr {
		ev := Event{Step: e.Step, Model: e.Model, Truncated: e.Truncated}
		switch e.Kind {
		case transcript.KindText:
			ev.Type, ev.Text = "assistant", e.Text
		case transcript.KindThinking:
			ev.Type, ev.Thinking = "assistant", e.Text
		case transcript.KindToolCall:
			in := e.Input
			if len(in) == 0 {
				in = json.RawMessage("{}")
			}
			names[e.ToolUseID] = e.Tool
			ev.Type, ev.Tools = "assistant", []EventTool{{ID: e.ToolUseID, Name: e.Tool, Input: in}}
		case transcript.KindToolResult:
			text := e.Text
			ev.Type, ev.ToolUseID, ev.ToolName, ev.Content, ev.IsError = "tool_result", e.ToolUseID, names[e.ToolUseID], &text, e.IsError
		case transcript.KindDenial:
			ev.Type, ev.ToolUseID, ev.ToolName, ev.Input = "permission_denial", e.ToolUseID, e.Tool, e.Input
		case transcript.KindPrompt, transcript.KindResult, transcript.KindError:
			ev.Type, ev.Text, ev.IsError = string(e.Kind), e.Text, e.IsError
		default:
			continue
		}
		out = append(out, ev)
	}
	return out
}

// WriteEvents writes the folder's events.json from its transcript.jsonl
// ([] when it has none): the transcript is already redacted, and so is
// what is made of it.
func (f CaseFolder) WriteEvents() error {
	tr, err := readTranscript(f.Transcript(), filepath.Base(f.Path))
	if err != nil {
		return err
	}
	b, err := json.MarshalIndent(EventsOf(tr), "", "  ")
	if err != nil {
		return fmt.Errorf("encode %s: %w", EventsFile, err)
	}
	if err := atomicfile.Write(f.Events(), append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", f.Events(), err)
	}
	return nil
}
