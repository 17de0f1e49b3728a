package codex

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/agent-eval/agent-eval/internal/clip"
	"github.com/agent-eval/agent-eval/internal/hook"
	"github.com/agent-eval/agent-eval/internal/lazyre"
	"github.com/agent-eval/agent-eval/internal/runner"
	"github.com/agent-eval/agent-eval/internal/transcript"
)

// event is one line of codex exec --json.
type event struct {
	Type  string                    `json:"type"`
	Item  *item                     `json:"item"`
	Usage *usage                    `json:"usage"`
	Error *struct{ Message string } `json:"error"`
	// Message is a top-level error event's.
	Message string `json:"message"`
}

type item struct {
	ID               string          `json:"id"`
	Type             string          `json:"type"`
	Text             string          `json:"text"`
	Message          string          `json:"message"`
	Command          string          `json:"command"`
	AggregatedOutput string          `json:"aggregated_output"`
	ExitCode         *int            `json:"exit_code"`
	Status           string          `json:"status"`
	Changes          json.RawMessage `json:"changes"`
	Server           string          `json:"server"`
	Tool             string          `json:"tool"`
	Arguments        json.RawMessage `json:"arguments"`
	Query            string          `json:"query"`
}

type usage struct {
	InputTokens           int64 `json:"input_tokens"`
	CachedInputTokens     int64 `json:"cached_input_tokens"`
	CacheWriteInputTokens int64 `json:"cache_write_input_tokens"`
	OutputTokens          int64 `json:"output_tokens"`
}

// parser reads codex's events as they come. The transcript is written
// when the agent has ended, from the session's rollout (which holds every
// call, the refused ones too, with the ids the hook's ledger and the
// model saw); what --json said stands in for it when there is none.
type parser struct {
	emit     func(transcript.Event)
	events   []transcript.Event // from --json, the fallback
	text     string             // the last agent message
	failed   string             // turn.failed's message
	failedOK bool
	// completed counts turn.completed: the turns the model answered.
	completed int
	usage     transcript.Usage
	turns     int
	calls     map[string]bool // the items whose tool_call was written
}

func newParser(emit func(transcript.Event)) *parser {
	p := &parser{emit: emit, calls: map[string]bool{}}
	return p
}

func (p *parser) add(e transcript.Event) { p.events = append(p.events, e) }

// line reads one line of stdout; what is not an event is skipped.
func (p *parser) line(b []byte) {
	var e event
	if json.Unmarshal(b, &e) != nil {
		return
	}
	switch e.Type {
	case "item.started", "item.completed":
		if e.Item != nil {
			p.item(e.Type == "item.completed", *e.Item)
		}
	case "turn.completed":
		p.turns++
		p.completed++
		if u := e.Usage; u != nil {
			// OpenAI's input count includes the cached tokens.
			p.usage.Add(transcript.Usage{InputTokens: u.InputTokens - u.CachedInputTokens, OutputTokens: u.OutputTokens,
				CacheReadTokens: u.CachedInputTokens, CacheCreationTokens: u.CacheWriteInputTokens})
		}
	case "turn.failed":
		p.turns++
		p.failedOK = true
		if e.Error != nil {
			p.failed = e.Error.Message
		}
	case "error":
		if p.failed == "" {
			p.failed = e.Message
		}
	}
}

// item writes one item's transcript events: the model's text and
// reasoning when completed, a tool call when it starts (or completes
// unannounced), its result when it completes.
func (p *parser) item(done bool, it item) {
	switch it.Type {
	case "agent_message":
		if done {
			p.text = it.Text
			p.add(transcript.Event{Kind: transcript.KindText, Text: it.Text})
		}
		return
	case "reasoning":
		if done && it.Text != "" {
			p.add(transcript.Event{Kind: transcript.KindThinking, Text: it.Text})
		}
		return
	case "error", "todo_list":
		return // Codex's warnings (in stdout.log) and its plan
	}
	name, input := toolOf(it)
	if !p.calls[it.ID] {
		p.calls[it.ID] = true
		p.add(transcript.Event{Kind: transcript.KindToolCall, ToolUseID: it.ID, Tool: name, Input: input})
	}
	if done {
		failed := it.Status == "failed" || it.Status == "declined" || it.ExitCode != nil && *it.ExitCode != 0
		out := it.AggregatedOutput
		if out == "" && it.Type == "file_change" {
			out = string(it.Changes)
		}
		p.add(transcript.Event{Kind: transcript.KindToolResult, ToolUseID: it.ID, Text: out, IsError: failed})
	}
}

// lastStatus finds the HTTP status in Codex's message for a failed turn
// ("exceeded retry limit, last status: 429 Too Many Requests", "unexpected
// status 400 Bad Request: ...").
var lastStatus = lazyre.New(`\bstatus:? (\d{3})\b`)

// failure says why a failed turn failed, as far as Codex's message tells:
// the API's status when it names one; else, when the model never answered
// (no turn completed, no message, no tool call), an infrastructure failure
// — Codex words a 5xx it gave up on as "high demand" with no status —
// unless the message is the API's error body naming another type than
// server_error (a 400's invalid_request_error is the request's fault).
func (p *parser) failure(out *runner.Result) {
	if m := lastStatus().FindStringSubmatch(p.failed); m != nil {
		out.APIErrorStatus, _ = strconv.Atoi(m[1])
		return
	}
	// Codex passes an error body it will not retry through as it came:
	// the API's own type says whose fault it was.
	var body struct {
		Error struct{ Type, Code string } `json:"error"`
	}
	if json.Unmarshal([]byte(p.failed), &body) == nil && (body.Error.Type != "" || body.Error.Code != "") {
		if body.Error.Type != "server_error" && body.Error.Code != "server_error" {
			return
		}
	}
	if p.completed == 0 && p.text == "" && len(p.calls) == 0 {
		out.InfraError = "Codex's first turn failed before the model answered: " + clip.String(out.Redactor.String(p.failed), 200)
	}
}

// toolOf names an item's call in Claude Code's vocabulary where there is
// one (a shell command is Bash{command}), else by Codex's item type.
func toolOf(it item) (string, json.RawMessage) {
	var v any
	name := it.Type
	switch it.Type {
	case "command_execution":
		name, v = "Bash", map[string]string{"command": unwrapShell(it.Command)}
	case "file_change":
		name, v = "apply_patch", map[string]json.RawMessage{"changes": it.Changes}
	case "mcp_tool_call":
		name, v = "mcp__"+it.Server+"__"+it.Tool, it.Arguments
	case "web_search":
		name, v = "WebSearch", map[string]string{"query": it.Query}
	default:
		v = map[string]string{}
	}
	b, _ := json.Marshal(v)
	return name, b
}

// unwrapShell is the command Codex ran through `/bin/bash -lc '<command>'`.
func unwrapShell(cmd string) string {
	for _, sh := range []string{"/bin/bash -lc ", "bash -lc ", "/bin/sh -c ", "/bin/zsh -lc "} {
		rest, ok := strings.CutPrefix(cmd, sh)
		if !ok || len(rest) < 2 || rest[0] != rest[len(rest)-1] || rest[0] != '\'' && rest[0] != '"' {
			continue
		}
		body := rest[1 : len(rest)-1]
		switch rest[0] {
		case '\'':
			if !strings.Contains(strings.ReplaceAll(body, `'\''`, ""), "'") {
				return strings.ReplaceAll(body, `'\''`, "'")
			}
		case '"':
			if !strings.ContainsAny(body, "\"$`") && !strings.Contains(body, `\\`) {
				return body // a backslash before anything but \ stays as it is
			}
		}
	}
	return cmd
}

// rollout is what one session's rollout file says: the model's text and
// reasoning and every call it made with its output, in order; the model;
// how many responses it gave.
type rollout struct {
	entries   []entry
	calls     map[string]int // call id → its entry
	model     string
	responses int
}

// entry is one thing the model said or did: text (Kind text or thinking)
// or a call (Kind tool_call) with its output once it came.
type entry struct {
	kind transcript.Kind
	text string
	call call
}

type call struct {
	id, name string
	input    json.RawMessage // as Claude Code names it
	output   string
	returned bool
}

// rollouts lists the rollout files under dir.
func rollouts(dir string) []string {
	var out []string
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasPrefix(d.Name(), "rollout-") && strings.HasSuffix(d.Name(), ".jsonl") {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// readRollouts reads the rollout files under dir that are not in before.
func readRollouts(dir string, before []string) (rollout, error) {
	r := rollout{calls: map[string]int{}}
	for _, p := range rollouts(dir) {
		if slices.Contains(before, p) {
			continue
		}
		if err := r.read(p); err != nil {
			return r, err
		}
	}
	return r, nil
}

func (r *rollout) read(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("read the session's rollout: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var line struct {
			Type    string `json:"type"`
			Payload struct {
				Type      string          `json:"type"`
				Role      string          `json:"role"`
				Content   json.RawMessage `json:"content"`
				Summary   json.RawMessage `json:"summary"`
				Name      string          `json:"name"`
				Arguments string          `json:"arguments"`
				Input     string          `json:"input"`
				CallID    string          `json:"call_id"`
				Output    json.RawMessage `json:"output"`
				Model     string          `json:"model"`
			} `json:"payload"`
		}
		if json.Unmarshal(sc.Bytes(), &line) != nil {
			continue
		}
		pl := line.Payload
		switch {
		case line.Type == "turn_context" && pl.Model != "":
			r.model = pl.Model
		case line.Type == "token_usage_record":
			r.responses++
		case line.Type != "response_item":
		case pl.Type == "message" && pl.Role == "assistant":
			if t := outputText(pl.Content); t != "" {
				r.entries = append(r.entries, entry{kind: transcript.KindText, text: t})
			}
		case pl.Type == "reasoning":
			if t := outputText(pl.Summary); t != "" && t != "null" && t != "[]" {
				r.entries = append(r.entries, entry{kind: transcript.KindThinking, text: t})
			}
		case pl.Type == "function_call" || pl.Type == "custom_tool_call":
			name, input := nativeTool(pl.Name, pl.Arguments, pl.Input)
			r.calls[pl.CallID] = len(r.entries)
			r.entries = append(r.entries, entry{kind: transcript.KindToolCall, call: call{id: pl.CallID, name: name, input: input}})
		case pl.Type == "function_call_output" || pl.Type == "custom_tool_call_output":
			if i, ok := r.calls[pl.CallID]; ok {
				r.entries[i].call.output, r.entries[i].call.returned = outputText(pl.Output), true
			}
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read the session's rollout: %w", err)
	}
	return nil
}

// nativeTool names a call of Codex's tools in Claude Code's vocabulary
// where there is one: exec_command{cmd} is Bash{command}, a one-file
// apply_patch a Write or an Edit, as the hook sees them.
func nativeTool(name, arguments, input string) (string, json.RawMessage) {
	if name == "exec_command" || name == "shell" {
		var a struct {
			Cmd     string   `json:"cmd"`
			Command []string `json:"command"`
		}
		_ = json.Unmarshal([]byte(arguments), &a)
		if a.Cmd == "" && len(a.Command) > 0 {
			a.Cmd = strings.Join(a.Command, " ")
		}
		b, _ := json.Marshal(map[string]string{"command": a.Cmd})
		return "Bash", b
	}
	if name == "apply_patch" && arguments == "" {
		if tool, in, ok := hook.PatchCall(input); ok {
			b, _ := json.Marshal(in)
			return tool, b // a one-file patch is a Write or an Edit
		}
	}
	if arguments == "" {
		b, _ := json.Marshal(map[string]string{"input": input})
		return name, b
	}
	if !json.Valid([]byte(arguments)) {
		b, _ := json.Marshal(map[string]string{"arguments": arguments})
		return name, b
	}
	return name, json.RawMessage(arguments)
}

// outputText is a call output's text: a string, or content parts.
func outputText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) == nil {
		var out []string
		for _, p := range parts {
			out = append(out, p.Text)
		}
		return strings.Join(out, "\n")
	}
	return string(raw)
}

// The outputs of a refused call: the hook's deny, an exec-policy rule's.
var (
	hookDenied   = lazyre.New(`(?s)blocked by PreToolUse hook: (.*?)(?:\. Command: .*)?$`)
	policyDenied = lazyre.New("(?s)rejected: (.*?)\\\\?\"\\)")
	exitCode     = lazyre.New(`(?m)^(?:Process exited with code|Exit code:) (\d+)$`)
)

// denialReason says why a call was refused, from its output; "" when it
// was not.
func denialReason(output string) string {
	if m := hookDenied().FindStringSubmatch(output); m != nil {
		return "PreToolUse hook: " + strings.TrimSpace(m[1])
	}
	if rest, ok := strings.CutPrefix(output, "patch rejected: "); ok {
		return "sandbox: patch rejected: " + strings.TrimSpace(rest)
	}
	if strings.Contains(output, "Rejected(") {
		if m := policyDenied().FindStringSubmatch(output); m != nil {
			return "exec policy: " + strings.TrimSpace(m[1])
		}
		return "exec policy: " + output
	}
	return ""
}

// sandboxRefusal is how a command's access to a path the sandbox denies
// fails: the denied folder is a file (it did not exist), or unreadable.
var sandboxRefusal = lazyre.New(`(?m)^.*: (?:Permission denied|Not a directory|Read-only file system|Operation not permitted)(?: \(os error \d+\))?$`)

// sandboxDenial is the sandbox's refusal of a denied path in a command's
// output: the first error line naming one of the denied paths (absolute,
// or as its last elements); "" when there is none.
func sandboxDenial(output string, denied []string) string {
	for _, line := range sandboxRefusal().FindAllString(output, -1) {
		for _, d := range denied {
			if strings.Contains(line, d) || strings.Contains(line, filepath.Base(d)+"/") || strings.Contains(line, " "+filepath.Base(d)+":") {
				return "sandbox: " + line
			}
		}
	}
	return ""
}

// finish completes the result when the agent has ended: the final answer,
// usage, the calls and their denials (every refusal: the hook's, an
// exec-policy rule's, the sandbox's on a denied path), and the transcript,
// from the rollout where there is one.
func (p *parser) finish(out *runner.Result, roll rollout, model string, denied []string) {
	if roll.model != "" {
		model = roll.model
	}
	out.Model, out.Text, out.Usage = model, p.text, p.usage
	out.NumTurns = roll.responses
	if out.NumTurns == 0 {
		out.NumTurns = p.turns
	}
	if p.failedOK {
		out.IsError, out.Text = true, p.failed
		if out.ExitCode == 0 {
			out.ExitCode = 1
		}
		p.failure(out)
	}
	if model != "" {
		out.PerModel = map[string]transcript.ModelUsage{model: {Usage: p.usage}}
	}
	if len(roll.entries) == 0 {
		for _, e := range p.events {
			p.emit(e)
		}
	}
	for _, e := range roll.entries {
		if e.kind != transcript.KindToolCall {
			p.emit(transcript.Event{Kind: e.kind, Text: e.text})
			continue
		}
		c := e.call
		tc := transcript.ToolCall{ID: c.id, Name: c.name, Input: c.input, Result: c.output, Returned: c.returned}
		p.emit(transcript.Event{Kind: transcript.KindToolCall, ToolUseID: c.id, Tool: c.name, Input: c.input})
		if !c.returned {
			out.ToolCalls = append(out.ToolCalls, tc)
			continue
		}
		reason := denialReason(c.output)
		if reason == "" {
			reason = sandboxDenial(c.output, denied)
		}
		if m := exitCode().FindStringSubmatch(c.output); m != nil && m[1] != "0" {
			tc.IsError = true
		}
		if reason != "" {
			tc.IsError = true
			out.Denials = append(out.Denials, transcript.Denial{ToolName: c.name, ToolUseID: c.id, ToolInput: c.input, Reason: reason})
			p.emit(transcript.Event{Kind: transcript.KindDenial, ToolUseID: c.id, Tool: c.name, Input: c.input, Text: reason})
		}
		p.emit(transcript.Event{Kind: transcript.KindToolResult, ToolUseID: c.id, Text: c.output, IsError: tc.IsError})
		out.ToolCalls = append(out.ToolCalls, tc)
	}
	p.emit(transcript.Event{Kind: transcript.KindResult, Text: out.Text, IsError: out.IsError, Model: model})
}
