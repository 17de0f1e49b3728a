package stream

import (
	"encoding/json"

	"github.com/agent-eval/agent-eval/internal/transcript"
)

// eventLine holds the fields of a stream-json line that become transcript
// events.
type eventLine struct {
	Type    string `json:"type"`
	Message *struct {
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
	Result            *string  `json:"result"`
	IsError           bool     `json:"is_error"`
	PermissionDenials []Denial `json:"permission_denials"`
}

// Events returns the runner-neutral transcript events one stream-json
// line holds (none for lines of no interest or that are not JSON): the
// model's text, thinking and tool calls, tool results, denials and the
// final result.
func Events(line []byte) []transcript.Event {
	switch lineType(line) {
	case "", "assistant", "user", "result":
	default:
		return nil
	}
	var l eventLine
	if json.Unmarshal(line, &l) != nil {
		return nil
	}
	var out []transcript.Event
	switch l.Type {
	case "assistant", "user":
		if l.Message == nil {
			return nil
		}
		for _, b := range l.Message.Content {
			switch {
			case l.Type == "assistant" && b.Type == "text" && b.Text != "":
				out = append(out, transcript.Event{Kind: transcript.KindText, Text: b.Text, Model: l.Message.Model})
			case l.Type == "assistant" && b.Type == "thinking" && b.Thinking != "":
				out = append(out, transcript.Event{Kind: transcript.KindThinking, Text: b.Thinking, Model: l.Message.Model})
			case l.Type == "assistant" && b.Type == "tool_use":
				out = append(out, transcript.Event{Kind: transcript.KindToolCall, ToolUseID: b.ID, Tool: b.Name, Input: b.Input, Model: l.Message.Model})
			case l.Type == "user" && b.Type == "tool_result":
				out = append(out, transcript.Event{Kind: transcript.KindToolResult, ToolUseID: b.ToolUseID, Text: text(b.Content), IsError: b.IsError})
			}
		}
	case "result":
		for _, d := range l.PermissionDenials {
			out = append(out, transcript.Event{Kind: transcript.KindDenial, ToolUseID: d.ToolUseID, Tool: d.ToolName, Input: d.ToolInput})
		}
		ev := transcript.Event{Kind: transcript.KindResult, IsError: l.IsError}
		if l.Result != nil {
			ev.Text = *l.Result
		}
		out = append(out, ev)
	}
	return out
}
