package hook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/agent-eval/agent-eval/internal/intercept"
	"github.com/agent-eval/agent-eval/internal/lazyre"
)

// geminiDialect is Gemini CLI's BeforeTool hook: stdin holds tool_name,
// tool_input and cwd (no call id); a deny is {"decision":"deny",
// "reason":…} on stdout with exit 0, anything else nothing. Gemini runs a call whose hook exits with another code than 0 or 2,
// so the hook keeps to those two (a Go panic exits 2).
func geminiDialect() dialect {
	return dialect{decode: decodeGemini, respond: respondGemini, paths: fileToolCommand}
}

// geminiInput is the part of Gemini CLI's BeforeTool JSON the hook reads.
type geminiInput struct {
	Event     string         `json:"hook_event_name"`
	ToolName  string         `json:"tool_name"`
	ToolInput map[string]any `json:"tool_input"`
	CWD       string         `json:"cwd"`
}

// geminiPassThrough are Gemini tools that touch neither files nor the
// network nor processes of their own: they keep their names (a handler
// naming them, or "*", still gates them).
var geminiPassThrough = map[string]string{
	"write_todos":               "TodoWrite",
	"update_topic":              "update_topic",
	"enter_plan_mode":           "EnterPlanMode",
	"exit_plan_mode":            "ExitPlanMode",
	"list_background_processes": "list_background_processes",
	"read_background_output":    "read_background_output",
}

// decodeGemini translates a Gemini CLI call into Claude Code's tool names
// and inputs. A tool the harness does not know is an error, so the call is
// denied: its policy cannot tell what such a tool reads, writes or runs.
func decodeGemini(raw []byte) (Input, error) {
	var g geminiInput
	if err := json.NewDecoder(bytes.NewReader(raw)).Decode(&g); err != nil {
		return Input{}, err
	}
	if g.ToolName == "" {
		return Input{}, errors.New("no tool_name")
	}
	if g.Event != "" && g.Event != "BeforeTool" {
		return Input{ToolName: g.ToolName}, fmt.Errorf("event %s is not BeforeTool", g.Event)
	}
	name, input, err := GeminiCall(g.ToolName, g.ToolInput)
	in := Input{ToolName: name, ToolInput: input, CWD: g.CWD}
	if err != nil {
		return in, err
	}
	if d, _ := g.ToolInput["dir_path"].(string); d != "" && name == "Bash" {
		// The command runs there: the path layer judges it from there.
		in.CWD = geminiAbs(g.CWD, d)
	}
	return in, nil
}

// GeminiCall translates a Gemini CLI tool call (its name and arguments)
// into Claude Code's tool name and input, the vocabulary of the policy and
// of the runner-neutral transcript. A tool the harness does not know is an
// error (with the name unchanged): its policy cannot tell what such a tool
// reads, writes or runs.
func GeminiCall(tool string, args map[string]any) (string, map[string]any, error) {
	arg := func(k string) any { return args[k] }
	str := func(k string) string { s, _ := args[k].(string); return s }
	name, input := tool, args
	set := func(n string, kv ...any) {
		name, input = n, map[string]any{}
		for i := 0; i+1 < len(kv); i += 2 {
			if v := kv[i+1]; v != nil {
				input[kv[i].(string)] = v
			}
		}
	}
	switch tool {
	case "run_shell_command":
		set("Bash", "command", arg("command"), "description", arg("description"))
	case "read_file":
		set("Read", "file_path", arg("file_path"))
	case "read_many_files":
		set("Read", "paths", arg("paths"), "include", arg("include"))
	case "write_file":
		set("Write", "file_path", arg("file_path"), "content", arg("content"))
	case "replace":
		set("Edit", "file_path", arg("file_path"), "old_string", arg("old_string"), "new_string", arg("new_string"))
	case "glob":
		set("Glob", "pattern", arg("pattern"), "path", arg("dir_path"))
	case "grep_search", "search_file_content", "grep":
		glob := arg("include_pattern")
		if glob == nil {
			glob = arg("include")
		}
		set("Grep", "pattern", arg("pattern"), "path", arg("dir_path"), "glob", glob)
	case "list_directory":
		set("Glob", "pattern", "*", "path", arg("dir_path"))
	case "web_fetch":
		urls := geminiURLRE().FindAllString(str("prompt"), -1)
		if len(urls) != 1 {
			return tool, args, fmt.Errorf("web_fetch names %d URLs in its prompt; under the harness a fetch names exactly one, so that the one it fetches is the one judged", len(urls))
		}
		set("WebFetch", "url", strings.TrimRight(urls[0], ".,;:)]}'\""), "prompt", arg("prompt"))
	case "google_web_search":
		set("WebSearch", "query", arg("query"))
	case "invoke_agent":
		set("Agent", "subagent_type", arg("agent_name"), "prompt", arg("prompt"))
	case "activate_skill":
		set("Skill", "skill", arg("name"))
	default:
		if n, ok := geminiPassThrough[tool]; ok {
			return n, args, nil
		}
		if server, t, ok := geminiMCP(tool); ok {
			return "mcp__" + server + "__" + t, args, nil
		}
		return tool, args, fmt.Errorf("%s is not a Gemini CLI tool the harness knows, so its policy cannot tell what the call would do", tool)
	}
	return name, input, nil
}

// geminiMCP splits an MCP tool's name as Gemini CLI spells it
// (mcp_<server>_<tool>, or <server>__<tool>).
func geminiMCP(name string) (server, tool string, ok bool) {
	if rest, found := strings.CutPrefix(name, "mcp__"); found {
		server, tool, ok = strings.Cut(rest, "__")
		return server, tool, ok && server != "" && tool != ""
	}
	if rest, found := strings.CutPrefix(name, "mcp_"); found {
		server, tool, ok = strings.Cut(rest, "_")
		return server, tool, ok && server != "" && tool != ""
	}
	server, tool, ok = strings.Cut(name, "__")
	return server, tool, ok && server != "" && tool != ""
}

// geminiURLRE finds the URLs of a web_fetch prompt.
var geminiURLRE = lazyre.New(`https?://[^\s<>"']+`)

func geminiAbs(cwd, p string) string {
	if filepath.IsAbs(p) || cwd == "" {
		return filepath.Clean(p)
	}
	return filepath.Join(cwd, p)
}

// fileToolCommand is a shell command that reads what a file tool's call reads
// (or writes what it writes), for the path layer, which judges commands: a
// denied path stays denied to read_file and grep (Gemini CLI) and to
// beforeReadFile (Cursor) however it is spelled, as to cat and grep. "" for a call that names no path.
func fileToolCommand(in Input) string {
	q := intercept.ShellQuote
	s := func(k string) string { v, _ := in.ToolInput[k].(string); return v }
	dir := func() string {
		if d := s("path"); d != "" {
			return d
		}
		return "."
	}
	switch in.ToolName {
	case "Read":
		if p := s("file_path"); p != "" {
			return "cat -- " + q(p)
		}
		// read_many_files: paths and include are glob patterns (with
		// **), which the path layer's globbing does not expand as Gemini
		// does; a pattern is judged as a read of the whole tree under its
		// literal part, so one that could reach a denied path is denied.
		var cmd string
		for _, k := range []string{"paths", "include"} {
			ps, _ := in.ToolInput[k].([]any)
			for _, p := range ps {
				ps := fmt.Sprint(p)
				if root, ok := globRoot(ps); ok {
					cmd += "grep -r -- x " + q(root) + "; "
				} else {
					cmd += "cat -- " + q(ps) + "; "
				}
			}
		}
		if cmd != "" {
			return strings.TrimSuffix(cmd, "; ")
		}
	case "Write", "Edit":
		if p := s("file_path"); p != "" {
			return "cat -- " + q(p) + " > " + q(p)
		}
	case "Glob":
		return "ls -R -- " + q(dir())
	case "Grep":
		return "grep -r -- x " + q(dir())
	}
	return ""
}

// globRoot returns the directory a glob pattern searches from, its part
// before the first element with a glob character ("." when it starts with
// one), and whether the pattern has one at all.
func globRoot(p string) (string, bool) {
	if !strings.ContainsAny(p, "*?[{") {
		return "", false
	}
	var lit []string
	for _, el := range strings.Split(filepath.ToSlash(p), "/") {
		if strings.ContainsAny(el, "*?[{") {
			break
		}
		lit = append(lit, el)
	}
	root := strings.Join(lit, "/")
	switch {
	case root == "" && strings.HasPrefix(p, "/"):
		return "/", true
	case root == "":
		return ".", true
	}
	return root, true
}

// respondGemini writes the decision in Gemini CLI's shape. An allow is
// written as a pass (nothing): Gemini runs BeforeTool hooks before its
// policy engine, and a hook's allow must not wave a call past the eval's
// compiled deny rules.
func respondGemini(stdout, stderr io.Writer, _ Input, d intercept.Decision) int {
	for _, w := range d.Warnings {
		fmt.Fprintln(stderr, "agent-eval hook: warning:", w)
	}
	if d.Kind != intercept.Deny {
		return ExitOK
	}
	reason := d.Reason
	if reason == "" {
		reason = "Blocked by eval harness"
	}
	b, err := json.Marshal(map[string]string{"decision": "deny", "reason": reason})
	if err == nil {
		_, err = stdout.Write(append(b, '\n'))
	}
	if err != nil {
		// Exit 2 blocks the call too, with stderr as the reason.
		fmt.Fprintln(stderr, "agent-eval hook: "+strings.TrimSpace(reason))
		return ExitBlock
	}
	return ExitOK
}
