// Package hook is the stdin/stdout glue of `agent-eval hook`, Claude Code's
// PreToolUse hook: it reads the call, loads the handlers, asks the intercept
// engine, prints the decision and appends it to the decision ledger. It
// fails closed: whatever goes wrong ends in a deny that says what broke.
package hook

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	yaml "go.yaml.in/yaml/v3"

	"github.com/agent-eval/agent-eval/internal/intercept"
	"github.com/agent-eval/agent-eval/internal/redact"
	"github.com/agent-eval/agent-eval/internal/rundir"
)

// Environment variables the hook reads.
const (
	// HandlersEnv names the handlers file when --handlers is not given.
	HandlersEnv = "AGENT_EVAL_HANDLERS"
	// HandlersFile is looked up in the call's cwd as the last resort.
	HandlersFile = "tool_handlers.yaml"
	// LedgerFile is written beside the handlers file.
	LedgerFile = rundir.LedgerFile
)

// Exit codes of the hook (Claude Code's hook protocol, not agent-eval's
// exit-code table): 0 with a JSON decision (or nothing, to pass through); 2
// when not even a decision could be written, with the reason on stderr,
// which Claude Code treats as a block.
const (
	ExitOK    = 0
	ExitBlock = 2
)

// Input is the part of Claude Code's PreToolUse JSON the hook reads.
type Input struct {
	ToolName  string         `json:"tool_name"`
	ToolInput map[string]any `json:"tool_input"`
	ToolUseID string         `json:"tool_use_id"`
	CWD       string         `json:"cwd"`
}

// Options are the hook's inputs besides stdin.
type Options struct {
	// HandlersPath is --handlers.
	HandlersPath string
	// HandlersSHA256 is --sha256: when set, the handlers file must have this
	// digest (hex), or every call is denied — the file was changed after the
	// run wrote it.
	HandlersSHA256 string
	// Environ is the process environment as KEY=VALUE strings.
	Environ []string
	// NewAnswerer makes the LLM tier for a case directory (nil: no tier 2),
	// reading its credentials through getenv: Environ, then what
	// CredentialsFile adds. It is called only when an AskUserQuestion
	// handler needs it.
	NewAnswerer func(caseDir string, getenv func(string) string) intercept.Answerer
	// CredentialsFile is --credentials: read (ReadCredentials) before the
	// LLM tier is made, only when a question reaches it; a variable Environ
	// has wins over the file's.
	CredentialsFile string
	Now             func() time.Time
	// Deadline bounds the decision (0: DecideDeadline, or AnswerDeadline
	// and a margin for AskUserQuestion).
	Deadline time.Duration
	// Dialect is --dialect: the agent whose hook protocol stdin and stdout
	// speak ("" or DialectClaude: Claude Code's).
	Dialect string
	// Canary is --canary EVENT: instead of deciding a call, append a
	// "canary" line naming EVENT to the ledger and print nothing. Runners
	// wire it to an event every session fires (a session start, a
	// prompt), so a case whose ledger has none ran without its hook.
	Canary string
}

// DecisionCanary is the ledger's decision for a canary line.
const DecisionCanary = rundir.DecisionCanary

type output struct {
	HookSpecificOutput hookOutput `json:"hookSpecificOutput"`
	Reason             string     `json:"reason,omitempty"`
}

type hookOutput struct {
	HookEventName            string         `json:"hookEventName"`
	PermissionDecision       string         `json:"permissionDecision"`
	PermissionDecisionReason string         `json:"permissionDecisionReason,omitempty"`
	UpdatedInput             map[string]any `json:"updatedInput,omitempty"`
}

// Run handles one call and returns the process exit code.
func Run(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer, opts Options) (code int) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	start := opts.Now()
	if opts.Canary != "" {
		return canary(stdin, stderr, opts, start)
	}
	var in Input
	ledger := ""
	decision := intercept.Decision{Kind: intercept.Deny, Handler: -1}
	dia, dialectErr := dialectFor(opts.Dialect)
	defer func() {
		if r := recover(); r != nil {
			decision = intercept.Decision{Kind: intercept.Deny, Handler: -1, Reason: fmt.Sprintf("agent-eval hook crashed (%v); denying the call", r)}
		}
		// What the hook prints and logs passes through a redactor that knows
		// the secret values of its environment: a deny reason that quotes a
		// variable (JIRA_SERVER=https://bot:PASSWORD@…) reaches the model, the
		// transcript and the ledger without the credential. It is built only
		// when there is text to redact: most calls pass with none.
		if decision.Reason != "" || decision.Detail != "" || len(decision.Warnings) > 0 {
			red := redact.FromEnviron(opts.Environ)
			decision.Reason, decision.Detail = red.String(decision.Reason), red.String(decision.Detail)
			for i, w := range decision.Warnings {
				decision.Warnings[i] = red.String(w)
			}
		}
		code = dia.respond(stdout, stderr, in, decision)
		if ledger != "" {
			appendLedger(ledger, rundir.Decision{Time: start.UTC().Format(time.RFC3339Nano), ToolUseID: in.ToolUseID, Tool: in.ToolName, Decision: string(decision.Kind),
				Handler: decision.Handler, Tiers: decision.Tiers, Answers: decision.Answers, Reason: decision.Reason,
				Detail: decision.Detail, Warnings: decision.Warnings, Micros: opts.Now().Sub(start).Microseconds()}, stderr)
		}
	}()

	if dialectErr != nil {
		decision.Reason = "agent-eval hook: " + dialectErr.Error() + "; denying the call"
		return
	}
	raw, err := io.ReadAll(io.LimitReader(stdin, 16<<20))
	if err == nil {
		in, err = dia.decode(raw)
	}
	if err != nil {
		decision.Reason = "agent-eval hook could not read its input (" + err.Error() + "); denying the call"
		return
	}
	env := EnvMap(opts.Environ)
	path := handlersPath(opts, env, in.CWD)
	if path == "" {
		decision.Reason = "agent-eval hook: no --handlers, no $" + HandlersEnv + " and no cwd in the input; denying the call"
		return
	}
	ledger = filepath.Join(filepath.Dir(path), LedgerFile)
	policy, pathPolicy, err := loadPolicy(path, opts.HandlersSHA256, dia.paths != nil)
	if err != nil {
		decision.Reason = "agent-eval hook: " + err.Error() + "; denying the call"
		return
	}
	var llm intercept.Answerer
	if opts.NewAnswerer != nil {
		llm = lazyAnswerer{make: sync.OnceValue(func() intercept.Answerer {
			creds := map[string]string{}
			if opts.CredentialsFile != "" {
				var err error
				if creds, err = ReadCredentials(opts.CredentialsFile); err != nil {
					fmt.Fprintln(stderr, "agent-eval hook: warning:", err)
				}
			}
			return opts.NewAnswerer(filepath.Dir(path), func(k string) string {
				if v, ok := env[k]; ok {
					return v
				}
				return creds[k]
			})
		})}
	}
	// Tier-2 answers are asked at once and waited for until the deadline, so
	// the decision is printed before Claude Code's hook timeout.
	ctx, cancel := context.WithTimeout(ctx, AnswerDeadline)
	defer cancel()
	// The decision has a deadline of its own, well under Claude Code's
	// timeout: past it the call is denied, and the ledger still gets its
	// line (a command the analysis is slow on must not block the call with
	// no record of why).
	deadline := opts.Deadline
	if deadline <= 0 {
		deadline = DecideDeadline
		if in.ToolName == "AskUserQuestion" {
			deadline = AnswerDeadline + 5*time.Second
		}
	}
	done := make(chan intercept.Decision, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- intercept.Decision{Kind: intercept.Deny, Handler: -1, Reason: fmt.Sprintf("agent-eval hook crashed (%v); denying the call", r)}
			}
		}()
		done <- decideCall(ctx, policy, pathPolicy, dia, in, env, OSFS{}, llm)
	}()
	timer := time.NewTimer(deadline)
	defer timer.Stop()
	select {
	case decision = <-done:
	case <-timer.C:
		decision = intercept.Decision{Kind: intercept.Deny, Handler: -1, Detail: "hook deadline",
			Reason: fmt.Sprintf("agent-eval hook: deciding this call took longer than the hook's deadline of %s (a command too large or too nested to analyse in time); denying the call. Split it into smaller commands", deadline)}
	}
	return
}

// decideCall is the hook's decision on one call, decoded already: the path
// layer first over a file tool's paths for an agent whose dialect has them
// (pathPolicy, nil when there are no denied paths), then the policy.
func decideCall(ctx context.Context, policy, pathPolicy *intercept.Policy, dia dialect, in Input, env map[string]string, fsys intercept.PathFS, llm intercept.Answerer) intercept.Decision {
	if pathPolicy != nil && dia.paths != nil && in.ToolName != "Bash" {
		if cmd := dia.paths(in); cmd != "" {
			pd := intercept.Decide(ctx, pathPolicy, intercept.Request{ToolName: "Bash", ToolInput: map[string]any{"command": cmd}, Env: env, CWD: in.CWD, FS: fsys}, nil)
			if pd.Kind == intercept.Deny {
				pd.Detail = strings.TrimSpace("path layer over " + in.ToolName + "; " + pd.Detail)
				return pd
			}
		}
	}
	return intercept.Decide(ctx, policy, intercept.Request{ToolName: in.ToolName, ToolInput: in.ToolInput, Env: env, CWD: in.CWD, FS: fsys}, llm)
}

// Decider decides calls exactly as the hook does for one agent's dialect,
// without stdin, stdout or a ledger: `agent-eval replay` re-decides a
// run's recorded calls through it, so the replay and the hook cannot drift.
type Decider struct {
	policy, pathPolicy *intercept.Policy
	dia                dialect
}

// NewDecider prepares f (its Root set: denied_paths are relative to it)
// for the agent whose hook speaks dialectName ("" is Claude Code's).
func NewDecider(f intercept.File, dialectName string) (*Decider, error) {
	dia, err := dialectFor(dialectName)
	if err != nil {
		return nil, err
	}
	p, pp, err := preparePolicy(f, dia.paths != nil)
	if err != nil {
		return nil, err
	}
	return &Decider{policy: p, pathPolicy: pp, dia: dia}, nil
}

// Decide decides one call: tool and input in the vocabulary of the
// runner-neutral transcript (Claude Code's names; NormaliseCall turns an
// agent's own spelling into it), cwd where it ran, env the hook's
// environment, fsys what the path layer asks about the filesystem.
func (d *Decider) Decide(ctx context.Context, tool string, input map[string]any, cwd string, env map[string]string, fsys intercept.PathFS, llm intercept.Answerer) intercept.Decision {
	in := Input{ToolName: tool, ToolInput: input, CWD: cwd}
	if d.dia.normalise != nil {
		in = d.dia.normalise(in)
	}
	return decideCall(ctx, d.policy, d.pathPolicy, d.dia, in, env, fsys, llm)
}

// handlersPath is the handlers file: --handlers, $AGENT_EVAL_HANDLERS, or
// tool_handlers.yaml in the call's cwd; "" when none says.
func handlersPath(opts Options, env map[string]string, cwd string) string {
	switch {
	case opts.HandlersPath != "":
		return opts.HandlersPath
	case env[HandlersEnv] != "":
		return env[HandlersEnv]
	case cwd != "":
		return filepath.Join(cwd, HandlersFile)
	}
	return ""
}

// canary appends the canary line to the ledger beside the handlers file and
// prints nothing: the event goes on. It always exits 0; a line it cannot
// write leaves the case without its proof, which the run reports.
func canary(stdin io.Reader, stderr io.Writer, opts Options, start time.Time) int {
	raw, _ := io.ReadAll(io.LimitReader(stdin, 1<<20))
	var in struct {
		CWD string `json:"cwd"`
	}
	_ = json.Unmarshal(raw, &in) // the cwd is only the last resort
	path := handlersPath(opts, EnvMap(opts.Environ), in.CWD)
	if path == "" {
		fmt.Fprintln(stderr, "agent-eval hook: warning: canary: no --handlers, no $"+HandlersEnv+" and no cwd in the input")
		return ExitOK
	}
	appendLedger(filepath.Join(filepath.Dir(path), LedgerFile), rundir.Decision{Time: start.UTC().Format(time.RFC3339Nano),
		Tool: opts.Canary, Decision: DecisionCanary, Handler: -1}, stderr)
	return ExitOK
}

// DecideDeadline bounds the decision on a call other than AskUserQuestion
// (whose model tier has AnswerDeadline): a sixth of Claude Code's hook
// timeout. The analysis of the largest command it reads takes about 3 s.
const DecideDeadline = TimeoutSeconds * time.Second / 6

// lazyAnswerer builds the LLM tier only when a question reaches it (once,
// for all the questions of a call), so the common path pays nothing for the
// SDK client.
type lazyAnswerer struct{ make func() intercept.Answerer }

func (l lazyAnswerer) Answer(ctx context.Context, q intercept.Question) (string, error) {
	a := l.make()
	if a == nil {
		return "", errors.New("no hook model configured")
	}
	return a.Answer(ctx, q)
}

// ReadHandlers reads a tool_handlers.yaml exactly as the hook does (unknown
// keys are errors), so validate, explain and run judge the same file the hook
// will load.
func ReadHandlers(path string) (intercept.File, error) {
	return readHandlers(path, "")
}

// readHandlers is ReadHandlers that, given a digest, also insists the file
// still has it.
func readHandlers(path, digest string) (intercept.File, error) {
	var f intercept.File
	b, err := os.ReadFile(path)
	if err != nil {
		return f, fmt.Errorf("cannot read the handlers file: %w", err)
	}
	if digest != "" {
		if sum := sha256.Sum256(b); !strings.EqualFold(hex.EncodeToString(sum[:]), digest) {
			return f, fmt.Errorf("%s was changed after the run wrote it (its sha256 is %x, not %s), so its rules cannot be trusted", path, sum, digest)
		}
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil {
		return f, fmt.Errorf("invalid handlers file %s: %w", path, err)
	}
	return f, nil
}

// loadPolicy prepares the handlers file's policy and, with paths, the
// policy of its denied paths alone (nil when it has none), which judges
// the commands a dialect's paths gives a file tool's call.
func loadPolicy(path, digest string, paths bool) (*intercept.Policy, *intercept.Policy, error) {
	f, err := readHandlers(path, digest)
	if err != nil {
		return nil, nil, err
	}
	if f.Root == "" {
		// denied_paths are relative to the handlers file's directory
		// unless the file names its root.
		abs, err := filepath.Abs(path)
		if err != nil {
			return nil, nil, fmt.Errorf("locating %s: %w", path, err)
		}
		f.Root = filepath.Dir(abs)
	}
	p, pp, err := preparePolicy(f, paths)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return p, pp, nil
}

// preparePolicy prepares f's policy and, with paths, the policy of its
// denied paths alone (nil when it has none).
func preparePolicy(f intercept.File, paths bool) (*intercept.Policy, *intercept.Policy, error) {
	p, err := intercept.Prepare(f)
	if err != nil {
		return nil, nil, err
	}
	if !paths || len(f.DeniedPaths) == 0 {
		return p, nil, nil
	}
	pp, err := intercept.Prepare(intercept.File{Root: f.Root, DeniedPaths: f.DeniedPaths, DeniedPathReasons: f.DeniedPathReasons, Handlers: []intercept.Handler{}})
	if err != nil {
		return nil, nil, err
	}
	return p, pp, nil
}

// OSFS is the path layer's view of the real filesystem.
type OSFS struct{}

// Glob returns the paths matching an absolute pattern.
func (OSFS) Glob(pattern string) ([]string, error) { return filepath.Glob(pattern) }

// EvalSymlinks resolves the symlinks of an existing path.
func (OSFS) EvalSymlinks(path string) (string, error) { return filepath.EvalSymlinks(path) }

// ReadFile reads a regular file of at most limit bytes (the shell scripts a
// Bash command runs, which the gate reads).
func (OSFS) ReadFile(path string, limit int) ([]byte, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: %w", intercept.ErrNotFound, err)
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() || st.Size() > int64(limit) {
		return nil, fmt.Errorf("%s: not a regular file of at most %d bytes", path, limit)
	}
	return io.ReadAll(io.LimitReader(f, int64(limit)+1))
}

func respond(stdout, stderr io.Writer, in Input, d intercept.Decision) int {
	for _, w := range d.Warnings {
		fmt.Fprintln(stderr, "agent-eval hook: warning:", w)
	}
	if d.Kind == intercept.Pass {
		return ExitOK
	}
	out := output{HookSpecificOutput: hookOutput{HookEventName: "PreToolUse", PermissionDecision: string(d.Kind), PermissionDecisionReason: d.Reason}}
	if d.Kind == intercept.Deny {
		out.Reason = d.Reason
	}
	if d.UpdatedInput != nil {
		out.HookSpecificOutput.UpdatedInput = d.UpdatedInput
	}
	return writeAnswer(stdout, stderr, out, d.Reason)
}

// writeAnswer prints an agent's answer as one JSON line. When not even
// that can be written it blocks through the exit code, with the reason on
// stderr.
func writeAnswer(stdout, stderr io.Writer, answer any, reason string) int {
	b, err := json.Marshal(answer)
	if err == nil {
		_, err = stdout.Write(append(b, '\n'))
	}
	if err != nil {
		fmt.Fprintln(stderr, "agent-eval hook: "+strings.TrimSpace(reason))
		return ExitBlock
	}
	return ExitOK
}

// appendLedger appends one line to the decision ledger (the run
// directory's rundir.Decision). Its warnings are the decision's, redacted:
// Claude Code drops the hook's stderr.
func appendLedger(path string, e rundir.Decision, stderr io.Writer) {
	writeLedger(path, e, json.Marshal, stderr)
}

// writeLedger is appendLedger with its encoder given. An entry that does
// not encode is still written, without its details and with the error as
// its warning: a missing line would hide the call from the run's tallies.
func writeLedger(path string, e rundir.Decision, encode func(any) ([]byte, error), stderr io.Writer) {
	b, err := encode(e)
	if err != nil {
		warn := "decision ledger: encode the entry: " + err.Error()
		fmt.Fprintln(stderr, "agent-eval hook: warning:", warn)
		b, err = json.Marshal(rundir.Decision{Time: e.Time, ToolUseID: e.ToolUseID, Tool: e.Tool, Decision: e.Decision,
			Handler: e.Handler, Warnings: []string{warn}, Micros: e.Micros})
	}
	if err == nil {
		err = appendLine(path, b)
	}
	if err != nil {
		fmt.Fprintln(stderr, "agent-eval hook: warning: decision ledger:", err)
	}
}

// appendLine appends b and a newline to the file at path in one write:
// lines from parallel hooks never interleave.
func appendLine(path string, b []byte) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(append(b, '\n'))
	return errors.Join(err, f.Close())
}

// EnvMap turns KEY=VALUE strings into a map.
func EnvMap(environ []string) map[string]string {
	m := make(map[string]string, len(environ))
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok {
			m[k] = v
		}
	}
	return m
}
