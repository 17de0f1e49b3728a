// Package cursor runs Cursor's CLI (runner.type cursor) headless, as
// Cursor's documentation describes it: `cursor-agent -p --output-format
// stream-json [--model M] [--force] PROMPT` in the workspace, with
// CURSOR_API_KEY and a home of its own per case. Each workspace gets
// .cursor/cli.json (the eval's permissions, compiled by
// permissions.PlanCursor) and, when the hook has something to gate,
// .cursor/hooks.json running `agent-eval hook --dialect cursor` on
// beforeShellExecution, beforeReadFile and beforeMCPExecution, and the
// canary on beforeSubmitPrompt. The stream-json events become the
// transcript and the result; denials are the calls the stream says were
// refused and the hook's deny decisions.
//
// The real CLI could not be installed where this was written: the runner
// is tested against a stand-in (internal/testutil/cursorstandin) that does only what the
// documentation states. docs/runners/cursor.md says what that leaves
// unverified.
package cursor

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agent-eval/agent-eval/internal/agentproc"
	"github.com/agent-eval/agent-eval/internal/atomicfile"
	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/fakeapi"
	"github.com/agent-eval/agent-eval/internal/hook"
	"github.com/agent-eval/agent-eval/internal/intercept"
	"github.com/agent-eval/agent-eval/internal/lifecycle"
	"github.com/agent-eval/agent-eval/internal/llm"
	"github.com/agent-eval/agent-eval/internal/permissions"
	"github.com/agent-eval/agent-eval/internal/redact"
	"github.com/agent-eval/agent-eval/internal/rundir"
	"github.com/agent-eval/agent-eval/internal/runner"
	"github.com/agent-eval/agent-eval/internal/transcript"
	"github.com/agent-eval/agent-eval/internal/workspace"
)

// DefaultBinary is the CLI's name when neither --agent-bin nor
// runner.settings.binary names it.
const DefaultBinary = "cursor-agent"

// ModelURLEnv is a test-only seam, not Cursor's: under --fake-model the
// runner sets it to the fake Messages API (the invocation's script), for
// the stand-in CLI the tests run in place of Cursor's. The real CLI
// ignores it (and cannot talk to the fake).
const ModelURLEnv = "CURSOR_STANDIN_MODEL_URL"

// HooksPath is where Cursor reads a project's hooks.
const HooksPath = ".cursor/hooks.json"

// New returns the cursor runner.
func New() runner.Runner { return cursorRunner{} }

type cursorRunner struct{}

// Capabilities: Cursor's hooks gate shell commands, file reads and MCP
// calls (Interception), its cli.json takes the permissions; it has no
// questions for the hook to answer and no OS sandbox the runner turns on.
func (cursorRunner) Capabilities() runner.Capabilities {
	return runner.Capabilities{Interception: true, NativePermissions: true, Batch: true, Steps: true}
}

type started struct {
	s       runner.RunSetup
	bin     string
	version string
}

// Start finds the CLI and says what the eval asks that Cursor cannot do.
func (cursorRunner) Start(ctx context.Context, s runner.RunSetup) (runner.Agent, error) {
	if s.Eval == nil {
		return nil, errors.New("start the cursor runner: no eval")
	}
	r := &started{s: s}
	if r.s.Warn == nil {
		r.s.Warn = func(string) {}
	}
	bin, err := agentBinary(s.Eval, s.AgentBin)
	if err != nil {
		return nil, err
	}
	r.bin = bin
	if s.FakeModelURL == "" && os.Getenv("CURSOR_API_KEY") == "" && config.ResolveEnv(s.Eval.Runner.Env, os.LookupEnv)["CURSOR_API_KEY"] == "" {
		r.s.Warn("CURSOR_API_KEY is not set, so Cursor's CLI has no credentials and every case will fail: a cursor-agent login is not used under agent-eval (each case has a home of its own)")
	}
	if s.Eval.Runner.Effort != "" {
		r.s.Warn("runner.effort is ignored by the cursor runner: Cursor's CLI has no effort setting (pick a model instead)")
	}
	if s.Handlers != nil && slices.ContainsFunc(s.Handlers.Handlers, intercept.AnswersQuestions) {
		r.s.Warn("inputs.tools answers questions, but Cursor's CLI has no question tool for the hook to answer: those handlers do nothing under the cursor runner")
	}
	r.version = runner.AgentVersion(ctx, bin)
	return r, nil
}

func (r *started) Agent() (string, string) { return string(runner.TypeCursor), r.version }

// Bin is the CLI the run uses.
func (r *started) Bin() string { return r.bin }

func (r *started) Close() error { return nil }

// agentBinary is --agent-bin, runner.settings.binary or cursor-agent, on
// PATH.
func agentBinary(ev *config.Eval, flag string) (string, error) {
	return runner.AgentBinary(ev, flag, DefaultBinary, "install Cursor's CLI with Cursor's installer")
}

// session is one prepared workspace.
type session struct {
	r        *started
	w        runner.Workspace
	home     string
	ownHome  bool // home was made for the session (removed on Close)
	restores []func() error
}

// Prepare writes the workspace's .cursor/cli.json and .cursor/hooks.json,
// the hook's tool_handlers.yaml, and the agent's home with
// runner.settings as its ~/.cursor/cli-config.json.
func (r *started) Prepare(_ context.Context, w runner.Workspace) (runner.Session, error) {
	s := &session{r: r, w: w}
	var err error
	if s.home, s.ownHome, err = r.home(w.Dir); err != nil {
		return s, err
	}
	if err := r.writePermissions(s, w.Dir); err != nil {
		return s, err
	}
	if err := r.writeHooks(s, w); err != nil {
		return s, err
	}
	if err := r.writeHomeConfig(s.home); err != nil {
		return s, err
	}
	return s, nil
}

// home is the agent's home: the workspace's slot of the private root, or
// (a workspace outside it) a folder made for the session; never the
// user's.
func (r *started) home(ws string) (string, bool, error) {
	home := workspace.HomeDir(ws)
	if r.s.WorkspaceRoot != "" && filepath.Dir(home) == filepath.Clean(r.s.WorkspaceRoot) {
		if st, err := os.Stat(home); err == nil && st.IsDir() {
			return home, false, os.MkdirAll(filepath.Join(home, ".tmp"), 0o700)
		}
	}
	parent := r.s.Private
	if parent == "" {
		parent = filepath.Dir(filepath.Clean(ws))
	}
	dir, err := os.MkdirTemp(parent, "agent-eval-cursor-home-")
	if err != nil {
		return "", false, fmt.Errorf("make the agent's home: %w", err)
	}
	return dir, true, os.MkdirAll(filepath.Join(dir, ".tmp"), 0o700)
}

// protectedDenies keep the agent's write tool off the harness's files
// (and, added per session, off its home's .cursor: cli-config.json there
// is permissions too, read again by each step).
var protectedDenies = []string{"Write(.cursor/**)", "Write(" + hook.HandlersFile + ")", "Write(" + hook.LedgerFile + ")"}

// writePermissions writes .cursor/cli.json: eval.yaml's permissions and
// the harness's own denies, merged with the workspace's own file.
func (r *started) writePermissions(s *session, ws string) error {
	existing, err := permissions.ReadCursorConfig(ws)
	if err != nil {
		return err
	}
	deny := slices.Clone(r.s.Eval.Permissions.Deny)
	for _, p := range append(slices.Clone(protectedDenies), "Write("+filepath.Join(s.home, ".cursor")+"/**)") {
		deny = append(deny, config.PermissionRule{Pattern: p})
	}
	plan, err := permissions.PlanCursor(r.s.Eval.Permissions.Allow, deny, existing)
	if err != nil {
		return &runner.ConfigError{Err: fmt.Errorf("permissions: %w", err)}
	}
	for _, w := range plan.Warnings {
		r.s.Warn("permissions: " + w)
	}
	restore, err := permissions.WriteCursorConfig(ws, plan.Config)
	if err != nil {
		return fmt.Errorf("write %s: %w", permissions.CursorConfigPath, err)
	}
	s.restores = append(s.restores, restore)
	return nil
}

// HiddenReason is the reason the hook names for the harness's own files.
const HiddenReason = "the harness's own files (.cursor, ~/.cursor, tool_handlers.yaml, hook_decisions.jsonl) are not the agent's to read or change"

// hookFile is the workspace's tool_handlers.yaml: the compiled handlers
// with the case's answers and the denied paths (the hook's path layer
// checks every shell command for them; cli.json's Read and Write denies
// cover Cursor's file tools), plus the harness's own files; nil when the
// hook has nothing to gate.
func (r *started) hookFile(ws, home string, overrides map[string]string) *intercept.File {
	var f intercept.File
	if r.s.Handlers != nil {
		f = intercept.WithCaseOverrides(*r.s.Handlers, overrides)
	}
	f.Root = ws
	f.DeniedPaths = permissions.HookDeniedPaths(r.s.Permissions.Deny)
	f.DeniedPathReasons = redact.Map(permissions.HookDeniedPathReasons(r.s.Permissions, f.DeniedPaths))
	if r.s.Handlers == nil && len(f.DeniedPaths) == 0 {
		return nil
	}
	f.AddDeniedPaths(HiddenReason, ".cursor/**", hook.HandlersFile, hook.LedgerFile, filepath.Join(home, ".cursor")+"/**")
	if f.Handlers == nil {
		f.Handlers = []intercept.Handler{}
	}
	return &f
}

// Events are the hooks.json events the runner wires to the gate.
var Events = []string{hook.CursorShellEvent, hook.CursorReadEvent, hook.CursorMCPEvent}

// writeHooks writes tool_handlers.yaml and .cursor/hooks.json (the gate on
// every before* event that decides a call, the canary on
// beforeSubmitPrompt), merged with the workspace's own hooks.json.
func (r *started) writeHooks(s *session, w runner.Workspace) error {
	f := r.hookFile(w.Dir, s.home, w.Overrides)
	if f == nil {
		return nil
	}
	b, digest, err := workspace.MarshalHandlers(*f)
	if err != nil {
		return err
	}
	handlers := filepath.Join(w.Dir, hook.HandlersFile)
	if err := os.WriteFile(handlers, b, 0o644); err != nil {
		return fmt.Errorf("write the hook's handlers: %w", err)
	}
	q := intercept.ShellQuote
	gate := q(r.s.HarnessBin) + " hook --handlers " + q(handlers) + " --sha256 " + digest + " --dialect " + hook.DialectCursor
	canary := q(r.s.HarnessBin) + " hook --canary " + hook.CursorPromptEvent + " --handlers " + q(handlers) + " --dialect " + hook.DialectCursor
	doc, restore, err := readHooks(w.Dir)
	if err != nil {
		return err
	}
	s.restores = append(s.restores, restore)
	hooks, _ := doc["hooks"].(map[string]any)
	if hooks == nil {
		hooks = map[string]any{}
	}
	add := func(event, command string) {
		entry := map[string]any{"command": command, "timeout": hook.TimeoutSeconds, "failClosed": true}
		list, _ := hooks[event].([]any)
		hooks[event] = append([]any{entry}, list...)
	}
	for _, e := range Events {
		add(e, gate)
	}
	add(hook.CursorPromptEvent, canary)
	doc["version"] = 1
	doc["hooks"] = hooks
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.Write(filepath.Join(w.Dir, HooksPath), append(out, '\n'), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", HooksPath, err)
	}
	return nil
}

// readHooks reads the workspace's own .cursor/hooks.json (an empty
// document when there is none; a link or a non-regular file is refused)
// and returns a function putting it back as it was.
func readHooks(ws string) (map[string]any, func() error, error) {
	path := filepath.Join(ws, HooksPath)
	if err := permissions.CheckCursorDir(ws); err != nil {
		return nil, nil, err
	}
	orig, mode, err := permissions.ReadRegular(path)
	if err != nil {
		return nil, nil, err
	}
	// What the agent left is never followed: a .cursor it turned into a
	// link is refused, not written through.
	checked := func(put func() error) func() error {
		return func() error {
			if err := permissions.CheckCursorDir(ws); err != nil {
				return fmt.Errorf("restore %s: %w", HooksPath, err)
			}
			return put()
		}
	}
	if orig == nil {
		return map[string]any{}, checked(func() error {
			if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
			return nil
		}), nil
	}
	var doc map[string]any
	if err := json.Unmarshal(orig, &doc); err != nil || doc == nil {
		return nil, nil, fmt.Errorf("%s is not a JSON object", HooksPath)
	}
	return doc, checked(func() error { return atomicfile.Write(path, orig, mode) }), nil
}

// writeHomeConfig writes runner.settings (but binary) as the agent's
// ~/.cursor/cli-config.json.
func (r *started) writeHomeConfig(home string) error {
	extra := map[string]any{}
	for k, v := range r.s.Eval.Runner.Settings {
		if k != "binary" {
			extra[k] = v
		}
	}
	if len(extra) == 0 {
		return nil
	}
	doc := workspace.DeepMerge(map[string]any{"version": 1}, extra)
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return fmt.Errorf("runner.settings: %w", err)
	}
	if err := os.MkdirAll(filepath.Join(home, ".cursor"), 0o700); err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(home, ".cursor", "cli-config.json"), append(b, '\n'), 0o600)
}

// Close puts back the workspace's own .cursor files and removes a home
// made for the session.
func (s *session) Close() error {
	var errs []error
	for i := len(s.restores) - 1; i >= 0; i-- {
		errs = append(errs, s.restores[i]())
	}
	s.restores = nil
	if s.ownHome && s.home != "" {
		errs = append(errs, os.RemoveAll(s.home))
	}
	return errors.Join(errs...)
}

// envAllowlist are the only variables taken from the caller's environment.
var envAllowlist = []string{"PATH", "USER", "SHELL", "LANG", "LC_ALL", "TERM", "CURSOR_API_KEY"}

// env is the agent's environment: the allowlisted caller variables,
// execution.env, runner.env (the step's runner's too), the invocation's
// (lifecycle hooks' outputs, a step's env), the agent's home and temp
// folder, and under --fake-model the stand-in's model (ModelURLEnv).
func (s *session) env(in runner.Invocation) []string {
	ev := s.r.s.Eval
	var base []string
	for _, k := range envAllowlist {
		if v, ok := os.LookupEnv(k); ok {
			base = append(base, k+"="+v)
		}
	}
	layers := []map[string]string{config.ResolveEnv(ev.Execution.Env, os.LookupEnv), config.ResolveEnv(ev.Runner.Env, os.LookupEnv)}
	if in.Runner != nil {
		layers = append(layers, config.ResolveEnv(in.Runner.Env, os.LookupEnv))
	}
	layers = append(layers, in.Env)
	env := lifecycle.Environ(base, map[string]string{"HOME": s.home, "TMPDIR": filepath.Join(s.home, ".tmp")})
	for _, l := range layers {
		env = lifecycle.Environ(env, l)
	}
	if s.r.s.FakeModelURL != "" {
		env = lifecycle.Environ(env, map[string]string{ModelURLEnv: fakeapi.ScriptURL(s.r.s.FakeModelURL, in.Name),
			"CURSOR_API_KEY": "fake-model", llm.FakeModelEnv: "1"})
	}
	return env
}

// args is the command line after the program.
func (s *session) args(prompt string) []string {
	a := []string{"-p", "--output-format", "stream-json"}
	if m := s.r.s.Model; m != "" {
		a = append(a, "--model", m)
	}
	if len(s.r.s.Eval.Permissions.Allow) == 0 {
		// No allow list: every call runs unless cli.json denies it. With
		// one, print mode runs what it allows.
		a = append(a, "--force")
	}
	return append(a, prompt)
}

// Invoke runs the CLI once in the session's workspace.
func (s *session) Invoke(ctx context.Context, in runner.Invocation) runner.Result {
	env := s.env(in)
	red := redact.FromEnviron(env)
	if in.NewRedactor != nil {
		red = in.NewRedactor(env)
	}
	stdout, stderr := red.JSONWriter(orDiscard(in.Stdout)), red.Writer(orDiscard(in.Stderr))
	tail := &tailWriter{max: 4 << 10}
	emit := func(e transcript.Event) {
		if in.Transcript != nil {
			e.Step = in.Step
			in.Transcript.Write(e)
		}
	}
	p := newParser(emit)
	ledger := filepath.Join(s.w.Dir, hook.LedgerFile)
	from := fileSize(ledger)
	pr := agentproc.Run(ctx, agentproc.Spec{
		Path: s.r.bin, Args: s.args(in.Prompt), Dir: s.w.Dir, Env: env, Timeout: in.Timeout,
		Stdout: stdout, Stderr: io.MultiWriter(stderr, tail), Line: p.Line, Guard: s.r.s.HarnessBin, Started: in.Started,
		Boundary: s.r.s.World(s.w, s.r.bin, env, nil, nil),
	})
	failure := ""
	switch {
	case pr.Err != nil && pr.ExitCode == -1 && !pr.TimedOut && !pr.Interrupted:
		failure = pr.Err.Error()
	case pr.ExitCode > 0:
		failure = fmt.Sprintf("%s exited %d", filepath.Base(s.r.bin), pr.ExitCode)
		if last := lastLine(tail.String()); last != "" {
			failure += ": " + red.String(last)
		}
	}
	sum := p.finish(failure)
	out := runner.Result{ExitCode: pr.ExitCode, TimedOut: pr.TimedOut, Interrupted: pr.Interrupted, Duration: pr.Duration, Err: pr.Err,
		Model: sum.Model, Text: sum.Text, IsError: sum.IsError || pr.ExitCode != 0, Usage: sum.Usage, NumTurns: sum.NumTurns,
		ToolCalls: sum.ToolCalls, Denials: hookDenials(sum, readDenies(ledger, from)), Redactor: red,
		PerModel: map[string]transcript.ModelUsage{}, Refused: runner.Refusals(pr.Refused, runner.CLIHosts(string(runner.TypeCursor)))}
	if sum.Model != "" && sum.Usage != (transcript.Usage{}) {
		out.PerModel[sum.Model] = transcript.ModelUsage{Usage: sum.Usage}
	}
	if err := errors.Join(stdout.Close(), stderr.Close()); err != nil && out.Err == nil {
		out.Err = fmt.Errorf("write the agent's logs: %w", err)
	}
	return out
}

// readDenies reads the tools of the hook's deny decisions appended to the
// ledger since offset from.
func readDenies(path string, from int64) []string {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	if _, err := f.Seek(from, io.SeekStart); err != nil {
		return nil
	}
	b, err := io.ReadAll(io.LimitReader(f, 64<<20))
	if err != nil {
		return nil
	}
	var tools []string
	for _, line := range bytes.Split(b, []byte("\n")) {
		var d rundir.Decision
		if json.Unmarshal(line, &d) == nil && d.Decision == string(intercept.Deny) {
			tools = append(tools, d.Tool)
		}
	}
	return tools
}

// hookDenials are the stream's refused calls and the hook's denies the
// stream did not show as refused: each is matched to the first failed call
// of its tool not already counted (its id and input), else recorded by
// its tool alone.
func hookDenials(sum summary, denied []string) []transcript.Denial {
	out := slices.Clone(sum.Denials)
	counted := map[string]bool{}
	for _, d := range out {
		counted[d.ToolUseID] = true
	}
	unmatched := map[string]int{}
	for _, d := range out {
		unmatched[d.ToolName]--
	}
	for _, tool := range denied {
		unmatched[tool]++
		if unmatched[tool] <= 0 {
			continue // the stream showed it
		}
		d := transcript.Denial{ToolName: tool, ToolInput: json.RawMessage("{}")}
		for _, c := range sum.ToolCalls {
			if c.Name == tool && c.IsError && !counted[c.ID] {
				d.ToolUseID, d.ToolInput = c.ID, c.Input
				counted[c.ID] = true
				break
			}
		}
		out = append(out, d)
	}
	return out
}

func fileSize(path string) int64 {
	st, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return st.Size()
}

// tailWriter keeps the last max bytes written.
type tailWriter struct {
	max int
	b   []byte
}

func (t *tailWriter) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = t.b[len(t.b)-t.max:]
	}
	return len(p), nil
}

func (t *tailWriter) String() string { return string(t.b) }

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return strings.TrimSpace(s)
}

func orDiscard(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	return w
}
