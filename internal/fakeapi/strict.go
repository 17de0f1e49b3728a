package fakeapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/agent-eval/agent-eval/internal/lazyre"
	"github.com/rogpeppe/go-internal/diff"
)

// Divergence is where a replayed agent asked what its recording does not
// hold: the main-loop turn (from 0) and a unified diff of the recorded
// request's last message against the one that came.
type Divergence struct {
	Turn int    `json:"turn"`
	Diff string `json:"diff"`
}

// reminderRE finds the <system-reminder> blocks Claude Code attaches to a
// user message: dates, file listings and todo states that change from run
// to run without the agent asking anything new.
var reminderRE = lazyre.New(`(?s)<system-reminder>.*?</system-reminder>`)

// Normalize is the text replay compares of a request's last message
// (content: a string or an array of blocks; cwd: the client's working
// directory, "" when unknown): its text blocks without system reminders
// and its tool results' text, one per line, the working directory written
// ${CWD}; tool_use ids, cache_control and images' bytes are left out.
func Normalize(content json.RawMessage, cwd string) string {
	var lines []string
	for _, b := range blocks(content) {
		var t string
		switch b.Type {
		case "text":
			t = reminderRE().ReplaceAllString(b.Text, "")
		case "tool_result":
			t = blockText(b.Content)
			if t == "" && len(b.Content) > 0 && b.Content[0] == '"' {
				_ = json.Unmarshal(b.Content, &t)
			}
			t = reminderRE().ReplaceAllString(t, "")
			prefix := "[tool_result] "
			if b.IsError {
				prefix = "[tool_result error] "
			}
			t = prefix + t
		case "image", "document":
			t = "[" + b.Type + "]"
		default:
			continue
		}
		if t = strings.TrimSpace(t); t != "" {
			lines = append(lines, t)
		}
	}
	return withCWDMark(strings.Join(lines, "\n"), cwd)
}

// diverge checks a main-loop request at turn n against a strict script:
// nil when the recording has the turn and asked the same, else the
// divergence. actual is the request's normalised last message.
func diverge(sc *Script, n int, actual string) *Divergence {
	if n >= len(sc.Turns) {
		return &Divergence{Turn: n, Diff: fmt.Sprintf("the recording ends after %d turns; the agent asked for turn %d:\n%s\n", len(sc.Turns), n, actual)}
	}
	rec := sc.Turns[n].Request
	if rec == nil || rec.Last == actual {
		return nil
	}
	d := diff.Diff("recorded", []byte(rec.Last+"\n"), "actual", []byte(actual+"\n"))
	return &Divergence{Turn: n, Diff: string(d)}
}

// noteDivergence keeps a script's first divergence and answers the request
// with a client error the agent CLIs do not retry, so the session ends at
// once; writeErr writes it in the shape of the request's API.
func (s *Server) noteDivergence(w http.ResponseWriter, name string, d *Divergence, writeErr func(http.ResponseWriter, APIError)) {
	s.mu.Lock()
	if s.divergences == nil {
		s.divergences = map[string]Divergence{}
	}
	if _, ok := s.divergences[name]; !ok {
		s.divergences[name] = *d
	}
	s.mu.Unlock()
	writeErr(w, APIError{Status: http.StatusBadRequest, Type: "invalid_request_error",
		Message: fmt.Sprintf("agent-eval replay: the request of turn %d is not the recorded one (the session diverged from its recording)", d.Turn)})
}

// Divergence is the first divergence of the script named name, when a
// strict server saw one.
func (s *Server) Divergence(name string) (Divergence, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.divergences[name]
	return d, ok
}

// codexContextRE finds the <environment_context> block Codex sends as a
// user message: the working directory, the date, the time zone and the
// sandbox's paths (the run's temporary folders among them).
var codexContextRE = lazyre.New(`(?s)<environment_context>.*?</environment_context>`)

// NormalizeResponses is the text replay compares of a Responses API
// request (Codex): what the client sent since the model's last answer,
// one entry per line: the user messages' text and each tool call's output
// marked [tool_result], without the volatile parts of Codex's tool
// output (volatileOutput); developer messages (the CLI's own
// instructions), Codex's environment context, ids and the model's own
// earlier items are left out, and the working directory is written
// ${CWD}.
func NormalizeResponses(items []responseItem, cwd string) string {
	from := 0
	for i, it := range items {
		if modelOutput(it) {
			from = i + 1
		}
	}
	var lines []string
	for _, it := range items[from:] {
		var t string
		switch it.Type {
		case "message":
			if it.Role != "user" {
				continue
			}
			t = codexContextRE().ReplaceAllString(itemText(it.Content), "")
		case "function_call_output", "custom_tool_call_output":
			out := itemText(it.Output)
			if out == "" {
				out = string(it.Output)
			}
			t = "[tool_result] " + volatileOutput(out)
		default:
			continue
		}
		if t = strings.TrimSpace(t); t != "" {
			lines = append(lines, t)
		}
	}
	return withCWDMark(strings.Join(lines, "\n"), cwd)
}

// geminiContextRE finds the <session_context> block the Gemini CLI puts
// before the first prompt: the date, the operating system, its temporary
// folder and a listing of the workspace.
var geminiContextRE = lazyre.New(`(?s)<session_context>.*?</session_context>`)

// NormalizeGemini is the text replay compares of a Gemini API request:
// its last content's text parts (thoughts and the CLI's session context
// left out) and function responses, one per line, a response marked
// [tool_result] (or [tool_result error]) and without the volatile parts
// of the CLI's tool output (volatileOutput); ids and names are left out,
// and the working directory is written ${CWD}.
func NormalizeGemini(contents []geminiContent, cwd string) string {
	if len(contents) == 0 {
		return ""
	}
	var lines []string
	for _, p := range contents[len(contents)-1].Parts {
		var t string
		switch r := p.FunctionResponse; {
		case r != nil && r.Response["error"] != nil:
			t = "[tool_result error] " + volatileOutput(textValue(r.Response["error"]))
		case r != nil && r.Response["output"] != nil:
			t = "[tool_result] " + volatileOutput(textValue(r.Response["output"]))
		case r != nil:
			t = "[tool_result] " + volatileOutput(textValue(r.Response))
		case p.FunctionCall != nil, p.Thought:
			continue
		default:
			t = geminiContextRE().ReplaceAllString(p.Text, "")
		}
		if t = strings.TrimSpace(t); t != "" {
			lines = append(lines, t)
		}
	}
	return withCWDMark(strings.Join(lines, "\n"), cwd)
}

// volatileRE finds the lines of agent CLIs' tool output that change from
// run to run however the same the call: Codex's chunk id and wall time,
// the Gemini CLI's process ids.
var volatileRE = lazyre.New(`(?m)^(?:Chunk ID|Wall time|Process Group PGID|Background PIDs): .*$\n?`)

// volatileOutput is tool output without its volatile lines.
func volatileOutput(s string) string { return volatileRE().ReplaceAllString(s, "") }

// withCWDMark writes the working directory cwd in s as ${CWD}.
func withCWDMark(s, cwd string) string {
	if cwd == "" {
		return s
	}
	return strings.ReplaceAll(s, cwd, "${CWD}")
}
