package hook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/agent-eval/agent-eval/internal/intercept"
)

// Cursor's hook events that gate a call (Cursor's hooks documentation,
// https://cursor.com/docs/agent/hooks): each hands the hook a JSON object
// on stdin with hook_event_name, conversation_id, generation_id and
// workspace_roots, plus the event's own fields.
const (
	CursorShellEvent  = "beforeShellExecution" // command, cwd
	CursorReadEvent   = "beforeReadFile"       // file_path, content, attachments
	CursorMCPEvent    = "beforeMCPExecution"   // tool_name, tool_input, url or command
	CursorPromptEvent = "beforeSubmitPrompt"   // prompt, attachments: the canary's event
)

// cursorInput is the part of Cursor's hook stdin the dialect reads. The
// file's content (beforeReadFile) is never kept: it would carry what the
// deny protects into the decision's text.
type cursorInput struct {
	Event          string          `json:"hook_event_name"`
	WorkspaceRoots []string        `json:"workspace_roots"`
	Command        *string         `json:"command"`
	CWD            string          `json:"cwd"`
	FilePath       *string         `json:"file_path"`
	ToolName       string          `json:"tool_name"`
	ToolInput      json.RawMessage `json:"tool_input"`
}

// cursorDialect is Cursor's hooks.json events, decided as Claude Code's
// Bash (beforeShellExecution), Read (beforeReadFile) and mcp__ tools
// (beforeMCPExecution). A read goes through the path layer first, as
// cat of its file would: Cursor's own Read() denies match the path as
// spelled, not where its links lead.
func cursorDialect() dialect {
	return dialect{decode: decodeCursor, respond: respondCursor, paths: fileToolCommand}
}

// decodeCursor translates one of Cursor's before* events into Claude
// Code's tool name and input. Any other event, or one without the field it
// gates on, is an error (the call is denied).
func decodeCursor(raw []byte) (Input, error) {
	var c cursorInput
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&c); err != nil {
		return Input{}, err
	}
	in := Input{CWD: c.CWD}
	if in.CWD == "" && len(c.WorkspaceRoots) > 0 {
		in.CWD = c.WorkspaceRoots[0]
	}
	switch c.Event {
	case CursorShellEvent:
		if c.Command == nil || strings.TrimSpace(*c.Command) == "" {
			return in, errors.New("beforeShellExecution without a command")
		}
		in.ToolName, in.ToolInput = "Bash", map[string]any{"command": *c.Command}
	case CursorReadEvent:
		if c.FilePath == nil || *c.FilePath == "" {
			return in, errors.New("beforeReadFile without a file_path")
		}
		in.ToolName, in.ToolInput = "Read", map[string]any{"file_path": *c.FilePath}
	case CursorMCPEvent:
		if c.ToolName == "" {
			return in, errors.New("beforeMCPExecution without a tool_name")
		}
		in.ToolName = cursorMCPName(c.ToolName)
		args, err := cursorToolInput(c.ToolInput)
		if err != nil {
			return in, fmt.Errorf("beforeMCPExecution tool_input: %w", err)
		}
		in.ToolInput = args
	case "":
		return in, errors.New("no hook_event_name")
	default:
		return in, fmt.Errorf("hook_event_name %q is not an event the cursor dialect gates (%s, %s, %s)", c.Event, CursorShellEvent, CursorReadEvent, CursorMCPEvent)
	}
	return in, nil
}

// cursorMCPName names an MCP call as Claude Code does, mcp__SERVER__TOOL.
// Cursor's event names the tool only (and the server by its url or
// command): a tool_name already spelled mcp__…, or SERVER:TOOL as Cursor's
// Mcp(server:tool) permissions spell it, keeps its server; a bare tool
// becomes mcp__cursor__TOOL, which a handler pattern mcp__* still covers.
func cursorMCPName(tool string) string {
	if strings.HasPrefix(tool, "mcp__") {
		return tool
	}
	if server, name, ok := strings.Cut(tool, ":"); ok && server != "" && name != "" {
		return "mcp__" + server + "__" + name
	}
	return "mcp__cursor__" + tool
}

// cursorToolInput reads an MCP call's arguments: an object, or (as some of
// Cursor's versions send it) a string holding one.
func cursorToolInput(raw json.RawMessage) (map[string]any, error) {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return map[string]any{}, nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		raw = json.RawMessage(s)
		if strings.TrimSpace(s) == "" {
			return map[string]any{}, nil
		}
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	if m == nil {
		m = map[string]any{}
	}
	return m, nil
}

// cursorOutput is the decision in Cursor's shape: permission allow or
// deny, the message the user sees and the one the agent (the model) gets.
// Cursor's documentation spells the messages user_message and
// agent_message (its first hooks release userMessage and agentMessage):
// both spellings are written, so either reader gets the reason.
type cursorOutput struct {
	Permission        string `json:"permission"`
	UserMessage       string `json:"user_message,omitempty"`
	AgentMessage      string `json:"agent_message,omitempty"`
	UserMessageCamel  string `json:"userMessage,omitempty"`
	AgentMessageCamel string `json:"agentMessage,omitempty"`
}

// respondCursor writes the decision for Cursor: allow for a call the hook
// lets through (a pass too: Cursor reads a permission from every before*
// hook), deny with the reason otherwise. Cursor's hooks cannot rewrite a
// call's input, so a decision that would (an answered question) is denied.
// When not even that can be written, exit code 2 blocks the call.
func respondCursor(stdout, stderr io.Writer, _ Input, d intercept.Decision) int {
	for _, w := range d.Warnings {
		fmt.Fprintln(stderr, "agent-eval hook: warning:", w)
	}
	out := cursorOutput{Permission: "allow"}
	switch {
	case d.Kind == intercept.Pass || (d.Kind == intercept.Allow && d.UpdatedInput == nil):
	case d.Kind == intercept.Allow:
		reason := "agent-eval hook: Cursor's hooks cannot change a call's input, so the answered call is denied"
		out = cursorOutput{Permission: "deny", UserMessage: reason, AgentMessage: reason, UserMessageCamel: reason, AgentMessageCamel: reason}
	default:
		reason := d.Reason
		if reason == "" {
			reason = "agent-eval hook denied the call"
		}
		out = cursorOutput{Permission: "deny", UserMessage: reason, AgentMessage: reason, UserMessageCamel: reason, AgentMessageCamel: reason}
	}
	return writeAnswer(stdout, stderr, out, d.Reason)
}
