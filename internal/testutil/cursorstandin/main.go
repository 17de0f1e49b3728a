// Command cursorstandin is a test-only stand-in for Cursor's CLI, cursor-agent,
// which cannot be installed on the machines the tests run on (it comes only
// from Cursor's download script). The tests build it with go build and put
// it on PATH as cursor-agent; nothing ships it.
//
// It does only what Cursor's documentation (and pages quoting it) says the
// CLI does, for what the cursor runner relies on; it proves nothing about
// the real CLI beyond that. Reproduced, with where it was read (stored
// copies, 2026-12):
//
//   - Print mode: `cursor-agent -p|--print [--output-format
//     text|json|stream-json] [--model M] [-f|--force] [--api-key K] PROMPT`,
//     the key from CURSOR_API_KEY otherwise; --force runs every call no
//     deny rule names. Cursor's CLI parameters as the cursor-agent manual
//     page lists them (linuxcommandlibrary.com/man/cursor) and Cursor's
//     headless docs as quoted by docs.use-bloom.dev/agents/cursor.
//   - Output: "Output format", https://cursor.com/docs/cli/reference/output-format
//     (the default is text; json is the result object alone; stream-json is
//     NDJSON with one line per assistant message, the whole message between
//     tool calls; on failure a non-zero exit, the error on stderr and no
//     terminal result event; the result event's type, subtype success,
//     is_error, duration_ms, duration_api_ms, result, session_id,
//     request_id). The other events as that page's examples are quoted by
//     pkg.go.dev/github.com/tigercosmos/codexmon/internal/agent/cursor:
//     system/init (apiKeySource, cwd, session_id, model, permissionMode),
//     user {message.content[{type: text}]}, assistant likewise, and
//     tool_call with subtype started/completed, call_id and
//     tool_call.{readToolCall|writeToolCall|shellToolCall}.{args, result}.
//     Argument names: readToolCall {path}, writeToolCall {path, fileText},
//     shellToolCall {command}; results {success: {...}}.
//   - Permissions: {"permissions": {"allow": [...], "deny": [...]}} in
//     ~/.cursor/cli-config.json and the project's .cursor/cli.json ("only
//     permissions can be configured at the project level"), patterns
//     Shell(command), Read(glob), Write(glob), WebFetch(domain),
//     Mcp(server:tool); deny wins. Cursor's CLI configuration and
//     permissions pages as quoted by developersdigest.tech/reference/cursor-cli/config-files
//     and skills.sh (update-cli-config); the grammar is also what
//     internal/permissions/cursor.go compiles to.
//   - Hooks: Cursor's hooks page (https://cursor.com/docs/agent/hooks) as
//     quoted by cupcake.eqtylab.io/reference/harnesses/cursor and the
//     cursor-hooks package's README: .cursor/hooks.json (and
//     ~/.cursor/hooks.json) {"version": 1, "hooks": {EVENT: [{"command":
//     ...}]}}; the command gets the event as JSON on stdin
//     (hook_event_name, conversation_id, generation_id, workspace_roots and
//     the event's fields) and answers JSON on stdout. beforeSubmitPrompt
//     {prompt, attachments} answers {"continue": bool}; beforeShellExecution
//     {command, cwd} and beforeReadFile {file_path, content, attachments}
//     answer {"permission": "allow"|"deny"|"ask", "user_message",
//     "agent_message"} (Cursor's first hooks release spelled them
//     userMessage and agentMessage: both are read).
//
// What those pages leave open, the stand-in decides as follows; the runner
// must not depend on it, and docs/runners/cursor.md says so: "ask" is a deny (print mode
// has nobody to ask); a hook that exits 2 blocks (Claude Code's
// convention); a hook that fails otherwise (a crash, a timeout, output that
// is not JSON) lets the action go on unless its entry says "failClosed":
// true, and its "timeout" is in seconds (both keys are seen in published
// hooks.json files, not on the pages read); a call a permission rule or a
// hook refused ends with a tool_call completed whose result is
// {"rejected": {"reason": ...}}, the reason being the tool result the
// model gets (the pages show success results only); hooks run with the
// folder holding .cursor as their cwd; a read is gated by cli.json before
// the file is opened, by beforeReadFile after.
//
// Test-only seam, not Cursor's: the model is asked through an Anthropic
// Messages API at $CURSOR_STANDIN_MODEL_URL (agent-eval's fake, which the
// cursor runner points it at under --fake-model) with the tools Bash,
// Read and Write, whose calls the stand-in runs itself as Cursor's shell,
// read and write tools.
package main

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"time"
)

// ModelURLEnv is the test-only seam: the Messages API the stand-in asks.
const ModelURLEnv = "CURSOR_STANDIN_MODEL_URL"

type options struct {
	print  bool
	format string
	model  string
	force  bool
	apiKey string
	prompt string
}

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	o, err := parseArgs(args)
	if err != nil {
		fmt.Fprintln(stderr, "error:", err)
		return 1
	}
	if o.prompt == "--version" {
		fmt.Fprintln(stdout, "cursor-agent stand-in (agent-eval tests)")
		return 0
	}
	if !o.print {
		fmt.Fprintln(stderr, "error: the stand-in runs only in print mode (-p)")
		return 1
	}
	if o.apiKey == "" {
		o.apiKey = os.Getenv("CURSOR_API_KEY")
	}
	if o.apiKey == "" {
		fmt.Fprintln(stderr, "error: authentication required: set CURSOR_API_KEY or pass --api-key")
		return 1
	}
	cwd, err := os.Getwd()
	if err != nil {
		fmt.Fprintln(stderr, "error:", err)
		return 1
	}
	a, err := newAgent(o, cwd, stdout)
	if err != nil {
		fmt.Fprintln(stderr, "error:", err)
		return 1
	}
	if err := a.run(); err != nil {
		fmt.Fprintln(stderr, "error:", err)
		return 1
	}
	return 0
}

func parseArgs(args []string) (options, error) {
	o := options{format: "text"}
	var rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		value := func() (string, error) {
			if k, v, ok := strings.Cut(a, "="); ok && strings.HasPrefix(k, "--") {
				return v, nil
			}
			if i+1 >= len(args) {
				return "", fmt.Errorf("%s needs a value", a)
			}
			i++
			return args[i], nil
		}
		var err error
		switch name, _, _ := strings.Cut(a, "="); name {
		case "-p", "--print":
			o.print = true
		case "-f", "--force":
			o.force = true
		case "--output-format":
			o.format, err = value()
		case "--model", "-m":
			o.model, err = value()
		case "--api-key":
			o.apiKey, err = value()
		case "-v", "--version":
			o.prompt = "--version"
			return o, nil
		default:
			if strings.HasPrefix(a, "-") && len(a) > 1 {
				return o, fmt.Errorf("unknown option %s", a)
			}
			rest = append(rest, a)
		}
		if err != nil {
			return o, err
		}
	}
	switch o.format {
	case "text", "json", "stream-json":
	default:
		return o, fmt.Errorf("--output-format %q: text, json or stream-json", o.format)
	}
	o.prompt = strings.Join(rest, " ")
	if o.prompt == "" {
		return o, errors.New("no prompt")
	}
	return o, nil
}

// agent is one print-mode session.
type agent struct {
	o        options
	cwd      string
	w        io.Writer
	out      *json.Encoder
	session  string
	start    time.Time
	apiTime  time.Duration
	allow    []string
	deny     []string
	hooks    []hookEntry
	messages []map[string]any
	text     []string // every assistant message, for the result
}

func newAgent(o options, cwd string, stdout io.Writer) (*agent, error) {
	a := &agent{o: o, cwd: cwd, w: stdout, out: json.NewEncoder(stdout), session: newID(), start: time.Now()}
	a.out.SetEscapeHTML(false)
	home, _ := os.UserHomeDir()
	for _, p := range []string{filepath.Join(home, ".cursor", "cli-config.json"), filepath.Join(cwd, ".cursor", "cli.json")} {
		allow, deny, err := readPermissions(p)
		if err != nil {
			return nil, err
		}
		a.allow, a.deny = append(a.allow, allow...), append(a.deny, deny...)
	}
	for _, h := range []struct{ file, dir string }{{filepath.Join(home, ".cursor", "hooks.json"), filepath.Join(home, ".cursor")}, {filepath.Join(cwd, ".cursor", "hooks.json"), cwd}} {
		entries, err := readHooks(h.file, h.dir)
		if err != nil {
			return nil, err
		}
		a.hooks = append(a.hooks, entries...)
	}
	return a, nil
}

func newID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	h := hex.EncodeToString(b)
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

func (a *agent) emit(v map[string]any) {
	if a.o.format != "stream-json" {
		return
	}
	v["session_id"] = a.session
	_ = a.out.Encode(v)
}

func (a *agent) model() string {
	if a.o.model != "" {
		return a.o.model
	}
	return "auto"
}

func (a *agent) run() error {
	if blocked, msg := a.submitPrompt(); blocked {
		return fmt.Errorf("the prompt was blocked by a beforeSubmitPrompt hook%s", msg)
	}
	a.emit(map[string]any{"type": "system", "subtype": "init", "apiKeySource": "env", "cwd": a.cwd, "model": a.model(), "permissionMode": "default"})
	a.emit(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": a.o.prompt}}}})
	a.messages = append(a.messages, map[string]any{"role": "user", "content": a.o.prompt})
	for turn := 0; turn < 100; turn++ {
		resp, err := a.ask()
		if err != nil {
			return err
		}
		var text []string
		var uses []toolUse
		for _, b := range resp.Content {
			switch b.Type {
			case "text":
				if b.Text != "" {
					text = append(text, b.Text)
				}
			case "tool_use":
				uses = append(uses, toolUse{ID: b.ID, Name: b.Name, Input: b.Input})
			}
		}
		a.messages = append(a.messages, map[string]any{"role": "assistant", "content": resp.Content})
		if len(text) > 0 {
			t := strings.Join(text, "")
			a.text = append(a.text, t)
			a.emit(map[string]any{"type": "assistant", "message": map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "text", "text": t}}}})
		}
		if len(uses) == 0 {
			return a.finish()
		}
		var results []any
		for _, u := range uses {
			content, isErr := a.call(u)
			results = append(results, map[string]any{"type": "tool_result", "tool_use_id": u.ID, "content": content, "is_error": isErr})
		}
		a.messages = append(a.messages, map[string]any{"role": "user", "content": results})
	}
	return errors.New("too many turns")
}

func (a *agent) finish() error {
	res := map[string]any{"type": "result", "subtype": "success", "is_error": false,
		"duration_ms": time.Since(a.start).Milliseconds(), "duration_api_ms": a.apiTime.Milliseconds(),
		"result": strings.Join(a.text, ""), "request_id": newID()}
	switch a.o.format {
	case "stream-json":
		a.emit(res)
	case "json":
		res["session_id"] = a.session
		return a.out.Encode(res)
	default:
		_, err := fmt.Fprintln(a.w, res["result"])
		return err
	}
	return nil
}

type contentBlock struct {
	Type  string         `json:"type"`
	Text  string         `json:"text,omitempty"`
	ID    string         `json:"id,omitempty"`
	Name  string         `json:"name,omitempty"`
	Input map[string]any `json:"input,omitempty"`
}

type toolUse struct {
	ID, Name string
	Input    map[string]any
}

var tools = []any{
	map[string]any{"name": "Bash", "description": "Run a shell command in the workspace.", "input_schema": map[string]any{"type": "object", "properties": map[string]any{"command": map[string]any{"type": "string"}}, "required": []string{"command"}}},
	map[string]any{"name": "Read", "description": "Read a file.", "input_schema": map[string]any{"type": "object", "properties": map[string]any{"file_path": map[string]any{"type": "string"}}, "required": []string{"file_path"}}},
	map[string]any{"name": "Write", "description": "Write a file.", "input_schema": map[string]any{"type": "object", "properties": map[string]any{"file_path": map[string]any{"type": "string"}, "content": map[string]any{"type": "string"}}, "required": []string{"file_path", "content"}}},
}

// ask sends the conversation to the model (the test-only seam).
func (a *agent) ask() (*struct{ Content []contentBlock }, error) {
	base := os.Getenv(ModelURLEnv)
	if base == "" {
		return nil, errors.New("the stand-in has no model: " + ModelURLEnv + " is not set")
	}
	body, _ := json.Marshal(map[string]any{"model": a.model(), "max_tokens": 4096, "tools": tools, "messages": a.messages,
		"system": "You are Cursor's agent, run headless.\nWorking directory: " + a.cwd})
	req, err := http.NewRequest(http.MethodPost, strings.TrimSuffix(base, "/")+"/v1/messages", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("x-api-key", a.o.apiKey)
	req.Header.Set("anthropic-version", "2023-06-01")
	t0 := time.Now()
	resp, err := http.DefaultClient.Do(req)
	a.apiTime += time.Since(t0)
	if err != nil {
		return nil, fmt.Errorf("model request: %w", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 32<<20))
	if err != nil {
		return nil, fmt.Errorf("model response: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		var e struct {
			Error struct{ Type, Message string } `json:"error"`
		}
		_ = json.Unmarshal(b, &e)
		return nil, fmt.Errorf("model request failed: %d %s: %s", resp.StatusCode, e.Error.Type, e.Error.Message)
	}
	var out struct{ Content []contentBlock }
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, fmt.Errorf("model response: %w", err)
	}
	return &out, nil
}

// call runs one tool call as Cursor's shell, read or write tool, after the
// permissions and the hooks, and returns what the model gets.
func (a *agent) call(u toolUse) (string, bool) {
	str := func(k string) string { s, _ := u.Input[k].(string); return s }
	var kind, key string
	var args map[string]any
	switch u.Name {
	case "Bash", "Shell":
		kind, key = "shellToolCall", "command"
		args = map[string]any{"command": str("command")}
	case "Read":
		kind, key = "readToolCall", "read"
		args = map[string]any{"path": str("file_path")}
	case "Write":
		kind, key = "writeToolCall", "write"
		args = map[string]any{"path": str("file_path"), "fileText": str("content")}
	default:
		return "unknown tool " + u.Name, true
	}
	a.emit(map[string]any{"type": "tool_call", "subtype": "started", "call_id": u.ID, "tool_call": map[string]any{kind: map[string]any{"args": args}}})
	completed := func(result map[string]any) {
		a.emit(map[string]any{"type": "tool_call", "subtype": "completed", "call_id": u.ID, "tool_call": map[string]any{kind: map[string]any{"args": args, "result": result}}})
	}
	reject := func(reason string) (string, bool) {
		completed(map[string]any{"rejected": map[string]any{"reason": reason}})
		return reason, true
	}
	switch key {
	case "command":
		cmd := str("command")
		if why := a.shellPermission(cmd); why != "" {
			return reject(why)
		}
		if why := a.gate("beforeShellExecution", map[string]any{"command": cmd, "cwd": a.cwd}); why != "" {
			return reject(why)
		}
		stdout, stderr, code := a.shell(cmd)
		result := map[string]any{"stdout": stdout, "stderr": stderr, "exitCode": code}
		if code != 0 {
			completed(map[string]any{"failure": result})
			return fmt.Sprintf("exit code %d\n%s%s", code, stdout, stderr), true
		}
		completed(map[string]any{"success": result})
		return stdout + stderr, false
	case "read":
		p := a.abs(str("file_path"))
		if why := a.pathPermission("Read", p); why != "" {
			return reject(why)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			completed(map[string]any{"error": map[string]any{"errorMessage": err.Error()}})
			return err.Error(), true
		}
		if why := a.gate("beforeReadFile", map[string]any{"file_path": p, "content": string(b), "attachments": []any{}}); why != "" {
			return reject(why)
		}
		completed(map[string]any{"success": map[string]any{"content": string(b), "isEmpty": len(b) == 0, "totalLines": strings.Count(string(b), "\n"), "totalChars": len(b)}})
		return string(b), false
	default:
		p := a.abs(str("file_path"))
		if why := a.pathPermission("Write", p); why != "" {
			return reject(why)
		}
		content := str("content")
		err := os.MkdirAll(filepath.Dir(p), 0o755)
		if err == nil {
			err = os.WriteFile(p, []byte(content), 0o644)
		}
		if err != nil {
			completed(map[string]any{"error": map[string]any{"errorMessage": err.Error()}})
			return err.Error(), true
		}
		completed(map[string]any{"success": map[string]any{"path": p, "linesCreated": strings.Count(content, "\n") + 1, "fileSize": len(content)}})
		return "wrote " + p, false
	}
}

func (a *agent) abs(p string) string {
	if p == "" {
		return a.cwd
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(a.cwd, p)
	}
	return filepath.Clean(p)
}

func (a *agent) shell(cmd string) (string, string, int) {
	c := exec.Command("/bin/sh", "-c", cmd)
	c.Dir = a.cwd
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	err := c.Run()
	code := 0
	if err != nil {
		code = -1
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else {
			errb.WriteString(err.Error())
		}
	}
	return out.String(), errb.String(), code
}

// readPermissions reads a permissions document; a missing file has none.
func readPermissions(p string) (allow, deny []string, err error) {
	b, err := os.ReadFile(p)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	var doc struct {
		Permissions struct {
			Allow []string `json:"allow"`
			Deny  []string `json:"deny"`
		} `json:"permissions"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", p, err)
	}
	return doc.Permissions.Allow, doc.Permissions.Deny, nil
}

// shellPermission says why a command is refused ("" when it may run): a
// deny rule names one of its commands, or (without --force) an allow rule
// names not every one.
func (a *agent) shellPermission(cmd string) string {
	parts := shellParts(cmd)
	for _, part := range parts {
		for _, r := range a.deny {
			if shellRule(r, part) {
				return fmt.Sprintf("Permission denied: %s is denied by %s", part, r)
			}
		}
	}
	if a.o.force {
		return ""
	}
	for _, part := range parts {
		allowed := false
		for _, r := range a.allow {
			allowed = allowed || shellRule(r, part)
		}
		if !allowed {
			return fmt.Sprintf("Permission denied: %s is not allowed (no allow rule names it)", part)
		}
	}
	return ""
}

// shellParts splits a command line at its operators.
func shellParts(cmd string) []string {
	f := func(r rune) bool { return r == ';' || r == '|' || r == '&' || r == '\n' }
	var out []string
	for _, p := range strings.FieldsFunc(cmd, f) {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// shellRule matches Shell(base) or Shell(base:args) against one command.
func shellRule(rule, part string) bool {
	inner, ok := strings.CutPrefix(rule, "Shell(")
	if !ok || !strings.HasSuffix(inner, ")") {
		return false
	}
	inner = strings.TrimSuffix(inner, ")")
	if inner == "*" || inner == "**" {
		return true
	}
	base, args, hasArgs := strings.Cut(inner, ":")
	words := strings.Fields(part)
	if len(words) == 0 || path.Base(words[0]) != base {
		return false
	}
	if !hasArgs || args == "*" || args == "**" {
		return true
	}
	rest := strings.Join(words[1:], " ")
	return rest == args || strings.HasPrefix(rest, strings.TrimSuffix(args, "*"))
}

// pathPermission says why a read or write of p is refused ("" when it may
// go on). The path is judged as written (cleaned) and with its links
// resolved: a deny on either refuses.
func (a *agent) pathPermission(kind, p string) string {
	spellings := []string{p}
	if r, err := resolve(p); err == nil && r != p {
		spellings = append(spellings, r)
	}
	root, err := filepath.EvalSymlinks(a.cwd)
	if err != nil {
		root = a.cwd
	}
	for _, s := range spellings {
		for _, r := range a.deny {
			if pathRule(kind, r, s, a.cwd) || pathRule(kind, r, s, root) {
				return fmt.Sprintf("Permission denied: %s of %s is denied by %s", strings.ToLower(kind), s, r)
			}
		}
	}
	if a.o.force {
		return ""
	}
	for _, r := range a.allow {
		if pathRule(kind, r, p, a.cwd) {
			return ""
		}
	}
	return fmt.Sprintf("Permission denied: %s of %s is not allowed (no allow rule names it)", strings.ToLower(kind), p)
}

// resolve resolves the links of p's longest existing prefix.
func resolve(p string) (string, error) {
	dir, rest := p, ""
	for {
		if r, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(r, rest), nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return p, nil
		}
		rest = filepath.Join(filepath.Base(dir), rest)
		dir = parent
	}
}

// pathRule matches Read(glob) or Write(glob), relative to root when not
// absolute.
func pathRule(kind, rule, p, root string) bool {
	inner, ok := strings.CutPrefix(rule, kind+"(")
	if !ok || !strings.HasSuffix(inner, ")") {
		return false
	}
	glob := strings.TrimSuffix(inner, ")")
	if strings.HasPrefix(glob, "~/") {
		home, _ := os.UserHomeDir()
		glob = filepath.Join(home, glob[2:])
	}
	if !filepath.IsAbs(glob) {
		glob = filepath.Join(root, glob)
	}
	return globMatch(strings.Split(filepath.ToSlash(glob), "/"), strings.Split(filepath.ToSlash(p), "/"))
}

// globMatch matches path segments, ** matching any number of them.
func globMatch(pat, segs []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			for i := 0; i <= len(segs); i++ {
				if globMatch(pat[1:], segs[i:]) {
					return true
				}
			}
			return false
		}
		if len(segs) == 0 {
			return false
		}
		if ok, _ := path.Match(pat[0], segs[0]); !ok {
			return false
		}
		pat, segs = pat[1:], segs[1:]
	}
	return len(segs) == 0
}

// hookEntry is one command of a hooks.json.
type hookEntry struct {
	event, command, dir string
	failClosed          bool
	timeout             time.Duration
}

func readHooks(file, dir string) ([]hookEntry, error) {
	b, err := os.ReadFile(file)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var doc struct {
		Version int `json:"version"`
		Hooks   map[string][]struct {
			Command    string  `json:"command"`
			FailClosed bool    `json:"failClosed"`
			Timeout    float64 `json:"timeout"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	var out []hookEntry
	for event, list := range doc.Hooks {
		for _, h := range list {
			t := time.Duration(h.Timeout * float64(time.Second))
			if t <= 0 {
				t = 60 * time.Second
			}
			out = append(out, hookEntry{event: event, command: h.Command, dir: dir, failClosed: h.FailClosed, timeout: t})
		}
	}
	return out, nil
}

// runHook runs one hook command with the event on stdin; it returns the
// decoded answer, or failed (a crash, a timeout, an answer that is not
// JSON) or blocked (exit code 2).
func (a *agent) runHook(h hookEntry, event string, fields map[string]any) (answer map[string]any, blocked, failed bool, stderr string) {
	in := map[string]any{"hook_event_name": event, "conversation_id": a.session, "generation_id": newID(), "workspace_roots": []string{a.cwd}}
	for k, v := range fields {
		in[k] = v
	}
	body, _ := json.Marshal(in)
	c := exec.Command("/bin/sh", "-c", h.command)
	c.Dir = h.dir
	c.Stdin = bytes.NewReader(body)
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	if err := c.Start(); err != nil {
		return nil, false, true, err.Error()
	}
	done := make(chan error, 1)
	go func() { done <- c.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(h.timeout):
		_ = c.Process.Kill()
		<-done
		return nil, false, true, "timed out"
	}
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.ExitCode() == 2 {
			return nil, true, false, errb.String()
		}
		return nil, false, true, errb.String()
	}
	if len(bytes.TrimSpace(out.Bytes())) == 0 {
		return map[string]any{}, false, false, ""
	}
	if err := json.NewDecoder(bufio.NewReader(&out)).Decode(&answer); err != nil {
		return nil, false, true, "invalid hook output: " + err.Error()
	}
	return answer, false, false, ""
}

// gate runs the event's hooks; it returns why the action is refused, or "".
func (a *agent) gate(event string, fields map[string]any) string {
	for _, h := range a.hooks {
		if h.event != event {
			continue
		}
		answer, blocked, failed, stderr := a.runHook(h, event, fields)
		switch {
		case blocked:
			return "Blocked by hook: " + strings.TrimSpace(stderr)
		case failed && h.failClosed:
			return "Blocked: the hook failed (" + strings.TrimSpace(stderr) + ")"
		case failed:
			continue
		}
		perm, _ := answer["permission"].(string)
		if perm == "deny" || perm == "ask" {
			msg := firstString(answer, "agent_message", "agentMessage", "user_message", "userMessage")
			if msg == "" {
				msg = "denied by a " + event + " hook"
			}
			return msg
		}
	}
	return ""
}

// submitPrompt runs beforeSubmitPrompt; continue false blocks the prompt.
func (a *agent) submitPrompt() (bool, string) {
	for _, h := range a.hooks {
		if h.event != "beforeSubmitPrompt" {
			continue
		}
		answer, blocked, failed, stderr := a.runHook(h, h.event, map[string]any{"prompt": a.o.prompt, "attachments": []any{}})
		if blocked || (failed && h.failClosed) {
			return true, ": " + strings.TrimSpace(stderr)
		}
		if c, ok := answer["continue"].(bool); ok && !c {
			return true, ""
		}
	}
	return false, ""
}

func firstString(m map[string]any, keys ...string) string {
	for _, k := range keys {
		if s, _ := m[k].(string); s != "" {
			return s
		}
	}
	return ""
}
