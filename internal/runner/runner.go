// Package runner is the seam between the engine and the agents it runs: a
// Runner declares what it can do (Capabilities), prepares a run once
// (Start), fills each workspace with its own files (Prepare) and runs one
// agent process per Invoke. The engine schedules cases, steps and batches
// and never knows which agent it drives; everything agent-specific
// (settings files, hook wiring, environment, output formats) lives in one
// folder per runner under this one.
//
// Runners are registered explicitly (Registry, no init()) and do not import
// the engine.
package runner

import (
	"context"
	"fmt"
	"io"
	"sort"
	"sync"
	"time"

	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/intercept"
	"github.com/agent-eval/agent-eval/internal/permissions"
	"github.com/agent-eval/agent-eval/internal/redact"
	"github.com/agent-eval/agent-eval/internal/results"
	"github.com/agent-eval/agent-eval/internal/transcript"
)

// Type names a runner: runner.type in eval.yaml.
type Type string

// The runner types this build knows of.
const (
	TypeClaudeCode Type = "claude-code" // Claude Code's CLI, hooked and permissioned
	TypeCodex      Type = "codex"       // OpenAI's Codex CLI (codex exec)
	TypeGemini     Type = "gemini"      // Google's Gemini CLI
	TypeCursor     Type = "cursor"      // Cursor's CLI (cursor-agent)
	TypeCLI        Type = "cli"         // any agent by command line, no interception
	TypeFake       Type = "fake"        // a scripted in-process agent, for tests
)

// Capabilities are what a runner can do beyond running a prompt. The engine
// asks before relying on one: with Interception false it loads no
// tool_handlers.yaml and the runner writes no hook. For runner type cli,
// validate rejects inputs.tools (no hook would answer them) and warns of
// permissions; run warns of both for any runner that lacks the capability.
type Capabilities struct {
	// Interception: a PreToolUse-style hook gates every tool call
	// (inputs.tools, the denied paths) and writes the hook ledger.
	Interception bool
	// NativePermissions: permissions.allow/deny are compiled into the
	// agent's own permission system.
	NativePermissions bool
	// AskUserQuestion: the agent's questions reach the hook, which answers
	// them (needs Interception).
	AskUserQuestion bool
	// Sandbox: the agent's shell runs in an OS sandbox (permissions.sandbox).
	Sandbox bool
	// RepoMode: workspace_mode: repo (the agent runs in the project itself).
	RepoMode bool
	// Batch: execution.mode: batch (one agent over every case).
	Batch bool
	// Steps: multi-step pipelines (execution.steps), one Invoke per step in
	// one workspace.
	Steps bool
}

// RunSetup is what a runner is told once per run, before any case.
type RunSetup struct {
	Eval  *config.Eval
	Model string
	// AgentBin is the --agent-bin flag ("" to use the eval's or the
	// runner's default).
	AgentBin string
	// HarnessBin is the agent-eval binary (its hook and guard verbs).
	HarnessBin string
	// RunDir is the run directory. WorkspaceRoot is the user's private
	// root (workspace.PrivateRoot), shared by every run at once: each
	// workspace is <root>/<slot>/<id>, the slot (its name hex digits) is
	// the agent's home (workspace.HomeDir). Private is the run's
	// own slot there, for the runner's folders no agent may read (its
	// config, credentials); Baselines holds the workspaces' git baselines.
	// The agent must not read any of them but its own slot.
	RunDir, WorkspaceRoot, Private, Baselines string
	// Workspaces are every workspace the run will use, made before any
	// agent starts (a runner may need to trust them up front).
	Workspaces []string
	// GitRoot is the folder holding a .git above WorkspaceRoot, or "":
	// an agent that takes the project to be the enclosing repository must
	// trust it.
	GitRoot string
	// Repo is the project the agent runs in (workspace_mode: repo), or "".
	Repo string
	// Handlers is the compiled tool_handlers.yaml (inputs.tools), or nil;
	// set only for a runner with Interception.
	Handlers *intercept.File
	// Permissions are the eval's compiled permissions.allow/deny.
	Permissions permissions.Compiled
	// Sandbox says whether the OS sandbox is on, and why.
	Sandbox config.SandboxDecision
	// Boundary says whether the harness draws each agent's world itself
	// (package boundary; World), and why not.
	Boundary BoundaryDecision
	// FakeModelURL is the built-in fake Messages API (--fake-model), or "".
	// An invocation's Name selects its script (fakeapi.ScriptURL).
	FakeModelURL string
	// AgentOTLP is the OTLP/HTTP base URL (http://host:4318) the agent's
	// own OpenTelemetry export is to go to (--otlp-agent), or "": a runner
	// whose agent has one switches it on, the others ignore it. RunID is
	// the run's id, for the agent's resource attributes.
	AgentOTLP, RunID string
	// Warn reports a warning (the engine's observer shows it).
	Warn func(msg string)
}

// Runner is one kind of agent.
type Runner interface {
	// Capabilities says what the runner can do.
	Capabilities() Capabilities
	// Start prepares the run (checks the agent is installed, preflights
	// the sandbox, writes run-wide config) and returns what runs the
	// cases. An error here is the run's, before any case starts.
	Start(ctx context.Context, s RunSetup) (Agent, error)
}

// Agent is a Runner started for one run: the agent the cases invoke. It
// may also have a Bin() string method: the agent binary the run's first
// line names (else the agent's name).
type Agent interface {
	// Agent names the agent and its version, for run_result.json.
	Agent() (name, version string)
	// Prepare writes the runner's own files into one workspace (settings,
	// hook wiring) and returns the session that invokes the agent there.
	Prepare(ctx context.Context, w Workspace) (Session, error)
	// Close removes what Start made outside the run directory.
	Close() error
}

// Workspace is one workspace a Session runs in: a case's, or the batch's.
type Workspace struct {
	// ID is the case id, or "batch".
	ID string
	// Dir is the workspace folder; the agent's cwd is Repo when set.
	Dir string
	// CaseDir is the case's folder in the dataset ("" for the batch).
	CaseDir string
	// Overrides are the case's answers.yaml entries (question → answer).
	Overrides map[string]string
	// InputOverrides are set over the case's input (a matrix cell's
	// factors), for the command's placeholders.
	InputOverrides map[string]any
}

// Session invokes the agent in one prepared workspace.
type Session interface {
	// Invoke runs one agent process and returns how it ended; a pipeline
	// calls it once per step. ctx cancellation is an interrupt (the
	// result says Interrupted), in.Timeout a timeout (TimedOut). It never
	// panics on the agent's failure: Result.Err says what went wrong.
	Invoke(ctx context.Context, in Invocation) Result
	// Close removes the session's temporary files.
	Close() error
}

// Invocation is one agent process.
type Invocation struct {
	// Name identifies the invocation: the case id, "<case>/<step>", or
	// "batch" (the fake model's script name).
	Name string
	// Step is the pipeline step's id, or "".
	Step   string
	Prompt string
	// Env is added to the agent's environment (lifecycle hooks' outputs, a
	// step's env); it wins over the runner's own.
	Env          map[string]string
	Timeout      time.Duration
	MaxBudgetUSD float64
	// Runner overrides eval.yaml's runner for this invocation (a step's
	// runner:), or nil.
	Runner *config.Runner
	// Stdout and Stderr receive the agent's raw streams, redacted by the
	// runner with NewRedactor(the agent's environment).
	Stdout, Stderr io.Writer
	NewRedactor    func(env []string) *redact.Redactor
	// Transcript receives the runner-neutral events as they happen; nil
	// discards them.
	Transcript *transcript.Writer
	// Started, when set, is called with the agent's process group id.
	Started func(pgid int)
}

// Result is how an invocation ended and what the agent reported.
type Result struct {
	ExitCode    int // -1 when the agent did not exit by itself
	TimedOut    bool
	Interrupted bool
	Duration    time.Duration
	// Err: the agent could not be started, or its output read.
	Err error
	// Model is the model that answered; Text the agent's final answer;
	// IsError that the agent flagged it as an error.
	Model    string
	Text     string
	IsError  bool
	CostUSD  float64
	Usage    transcript.Usage
	PerModel map[string]transcript.ModelUsage
	NumTurns int
	Denials  []transcript.Denial
	// APIErrorStatus is the model API's HTTP status when the agent ended
	// on an API error its own retries did not get past (0: none, or the
	// runner cannot tell).
	APIErrorStatus int
	// InfraError, when set, says the invocation failed for a reason that
	// is not the agent's, as only its runner can tell (Claude Code exiting
	// before its first turn with no result at all).
	InfraError string
	// ToolCalls are the agent's tool calls, in order.
	ToolCalls []transcript.ToolCall
	// Refused are the hosts the boundary's proxy refused the agent.
	Refused []results.Refusal
	// Redactor is what the logs were redacted with (nil: none), for the
	// case's result.
	Redactor *redact.Redactor
}

// Factory makes a runner.
type Factory func() Runner

// Registry maps runner types to runners. It is filled explicitly by the
// program (no init() registration) and is safe for concurrent use.
type Registry struct {
	mu sync.RWMutex
	m  map[Type]Factory
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{m: map[Type]Factory{}} }

// Register adds a runner type. It panics on a duplicate or empty name: two
// runners under one name is a programming error.
func (r *Registry) Register(t Type, f Factory) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if t == "" || f == nil {
		panic("runner: Register with an empty type or a nil factory")
	}
	if _, dup := r.m[t]; dup {
		panic(fmt.Sprintf("runner: %s registered twice", t))
	}
	r.m[t] = f
}

// New returns a new runner of type t.
func (r *Registry) New(t Type) (Runner, error) {
	r.mu.RLock()
	f, ok := r.m[t]
	r.mu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("runner.type %s: not a runner this build knows (known: %v)", t, r.Types())
	}
	return f(), nil
}

// Types lists the registered types, sorted.
func (r *Registry) Types() []Type {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]Type, 0, len(r.m))
	for t := range r.m {
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// Has reports whether t is registered.
func (r *Registry) Has(t Type) bool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	_, ok := r.m[t]
	return ok
}

// NativeSettings is runner.settings as the agent's own configuration takes
// it: without binary, which names the CLI.
func NativeSettings(ev *config.Eval) map[string]any {
	out := map[string]any{}
	for k, v := range ev.Runner.Settings {
		if k != "binary" {
			out[k] = v
		}
	}
	return out
}

// ConfigError is a runner's complaint about the eval or the machine (the
// agent is not installed, the sandbox cannot run): the user's to fix, exit
// status 2, not a harness failure.
type ConfigError struct{ Err error }

func (e *ConfigError) Error() string { return e.Err.Error() }
func (e *ConfigError) Unwrap() error { return e.Err }

// CaseError is a refusal to run the agent on one case because of the
// case's own data: its prompt, or a field of its input, would reach the
// agent's command line as an option, say. It is the case's error (status
// error, which counts against the verdict), never the infrastructure's: it
// is not tried again, as it would only be refused again.
type CaseError struct {
	Case  string // the case's id
	Field string // what of the case: "input field n in {n}", "the prompt (execution.prompt)"
	Err   error  // why
}

func (e *CaseError) Error() string {
	return fmt.Sprintf("case %s: refused because of %s: %v", e.Case, e.Field, e.Err)
}

func (e *CaseError) Unwrap() error { return e.Err }
