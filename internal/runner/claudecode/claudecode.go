// Package claudecode runs one case with the Claude Code CLI in --print mode
// and parses what it prints. The agent runs in its own process group; a
// timeout or an interrupt stops the whole group (SIGTERM, then SIGKILL).
package claudecode

import (
	"context"
	"fmt"
	"github.com/agent-eval/agent-eval/internal/boundary"
	"github.com/agent-eval/agent-eval/internal/results"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agent-eval/agent-eval/internal/agentproc"
	"github.com/agent-eval/agent-eval/internal/redact"
	"github.com/agent-eval/agent-eval/internal/runner"
	"github.com/agent-eval/agent-eval/internal/stream"
	"github.com/agent-eval/agent-eval/internal/transcript"
)

// SystemPrompt is what the agent's system prompt gets appended:
// runner.system_prompt (own), then HarnessSystemPrompt.
func SystemPrompt(own string) string {
	return strings.TrimSpace(strings.TrimSpace(own) + "\n\n" + HarnessSystemPrompt)
}

// HarnessSystemPrompt is appended to every agent's system prompt.
const HarnessSystemPrompt = "You are running inside an automated evaluation, without a human at the keyboard. " +
	"Some tool calls are checked by the harness and may be blocked. If a call is blocked, do not try to get around it: " +
	"do not rename or copy scripts, do not edit .claude/settings.json, hooks or tool_handlers.yaml, and do not look for " +
	"another tool that does the same. Report that the call was blocked and carry on with the rest of the task."

// EnvAllowlist returns a copy of the only variables taken from the caller's
// environment.
func EnvAllowlist() []string { return slices.Clone(envAllowlist) }

var envAllowlist = []string{"PATH", "HOME", "USER", "SHELL", "LANG", "LC_ALL", "TERM", "TMPDIR",
	"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL", "ANTHROPIC_VERTEX_PROJECT_ID",
	"ANTHROPIC_DEFAULT_OPUS_MODEL", "ANTHROPIC_DEFAULT_SONNET_MODEL", "ANTHROPIC_DEFAULT_HAIKU_MODEL",
	"CLOUD_ML_REGION", "CLAUDE_CODE_USE_VERTEX", "CLAUDE_CODE_USE_BEDROCK", "AWS_REGION", "AWS_PROFILE",
	"CLAUDE_CODE_AUTO_COMPACT_WINDOW", "CLAUDE_CODE_PRINT_BG_WAIT_CEILING_MS", "CLAUDE_CODE_MAX_RETRIES",
	"GOOGLE_APPLICATION_CREDENTIALS", "GOOGLE_CLOUD_PROJECT", "CLOUDSDK_CONFIG", "CLOUDSDK_AUTH_CREDENTIAL_FILE_OVERRIDE",
	"MLFLOW_TRACKING_URI", "MLFLOW_EXPERIMENT_NAME", "AGENT_EVAL_RUNS_DIR"}

// Grace is how long a stopped agent gets between SIGTERM and SIGKILL,
// unless Spec.Grace says otherwise.
const Grace = agentproc.Grace

// Spec is one invocation.
type Spec struct {
	Bin            string
	Dir            string
	Prompt         string
	Model          string
	Effort         string
	PermissionMode string
	MaxBudgetUSD   *float64
	SystemPrompt   string
	PluginDirs     []string
	PermissionArgs []string // --allowed-tools/--disallowed-tools and/or --settings
	// AskUserQuestion enables the tool in --print mode (the hook answers it).
	AskUserQuestion bool
	Env             []string
	Timeout         time.Duration
	Grace           time.Duration // between SIGTERM and SIGKILL (0: the Grace constant)
	Stdout, Stderr  io.Writer     // raw copies of the agent's streams
	// Guard is the agent-eval binary: the agent then runs under
	// `Guard guard -- Bin ARGS…`, which takes the agent's tool processes
	// along when the run dies, even by SIGKILL (package guard). Without it
	// only the agent itself gets a parent-death signal.
	Guard string
	// World, when set, is the boundary the agent runs in (package
	// boundary; runner.RunSetup.World).
	World *boundary.Spec
	// Started, when set, is called with the process group's id (the guard's
	// pid, else the agent's) once it runs, so the run can record it.
	Started func(pgid int)
	// OnEvent, when set, receives the stream's transcript events as the
	// agent prints them.
	OnEvent func(transcript.Event)
}

// Args is the command line after the binary.
func Args(s Spec) []string {
	a := []string{"--print", "--output-format", "stream-json", "--verbose"}
	if s.Model != "" {
		a = append(a, "--model", s.Model)
	}
	if s.Effort != "" {
		a = append(a, "--effort", s.Effort)
	}
	if s.PermissionMode != "" {
		a = append(a, "--permission-mode", s.PermissionMode)
	}
	if s.MaxBudgetUSD != nil {
		a = append(a, "--max-budget-usd", strconv.FormatFloat(*s.MaxBudgetUSD, 'f', -1, 64))
	}
	a = append(a, "--append-system-prompt", SystemPrompt(s.SystemPrompt))
	for _, d := range s.PluginDirs {
		a = append(a, "--plugin-dir", d)
	}
	if s.AskUserQuestion {
		a = append(a, "--permission-prompt-tool", "stdio")
	}
	a = append(a, s.PermissionArgs...)
	// Variadic flags (--allowed-tools, --settings lists) would swallow the
	// prompt without the separator.
	return append(a, "--", s.Prompt)
}

// Env builds the agent's environment: the allowlisted caller variables,
// then extra (runner.env and the harness's own), which win. The caller's
// MLFLOW_TRACKING_URI is passed without its user information: its
// credentials are agent-eval's, to log the verdict with, as
// MLFLOW_TRACKING_TOKEN is (which is not passed).
func Env(lookup func(string) (string, bool), extra map[string]string) []string {
	env := map[string]string{}
	for _, k := range envAllowlist {
		if v, ok := lookup(k); ok {
			if k == "MLFLOW_TRACKING_URI" {
				v = runner.WithoutUserinfo(v)
			}
			env[k] = v
		}
	}
	for k, v := range extra {
		env[k] = v
	}
	out := make([]string, 0, len(env))
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	return out
}

// Result is how an invocation ended.
type Result struct {
	ExitCode    int
	TimedOut    bool
	Interrupted bool
	Duration    time.Duration
	Summary     *stream.Summary
	Err         error // the agent could not be started or its output read
	Refused     []results.Refusal
}

// Run runs the agent and parses its stream as it goes. ctx cancellation is
// an interrupt; spec.Timeout a timeout. Either stops the process group; what
// it printed until then is kept and parsed. The process handling (group,
// guard, grace, what escapes the group) is package agentproc's.
func Run(ctx context.Context, s Spec) Result {
	parser := stream.NewParser()
	parser.OnEvent = s.OnEvent
	pr := agentproc.Run(ctx, agentproc.Spec{Path: s.Bin, Args: Args(s), Dir: s.Dir, Env: s.Env, Timeout: s.Timeout,
		Grace: s.Grace, Stdout: s.Stdout, Stderr: s.Stderr, Line: parser.Line, Guard: s.Guard, Started: s.Started, Boundary: s.World})
	sum := parser.Summary()
	return Result{ExitCode: ExitCode(pr.ExitCode, sum), TimedOut: pr.TimedOut, Interrupted: pr.Interrupted, Duration: pr.Duration,
		Err: pr.Err, Summary: sum, Refused: runner.Refusals(pr.Refused, runner.CLIHosts(string(runner.TypeClaudeCode)))}
}

// ExitCode is the exit code of an agent that exited with code and printed
// sum: an API error ends --print with a result flagged is_error and exit
// 0, which is a failure (1).
func ExitCode(code int, sum *stream.Summary) int {
	if code == 0 && sum.IsError {
		return 1
	}
	return code
}

// RunnerResult is res as the engine records it; red is what its logs were
// redacted with.
func (res Result) RunnerResult(red *redact.Redactor) runner.Result {
	sum := res.Summary
	infra := ""
	if res.ExitCode > 0 && sum.Subtype == "" && sum.NumTurns == 0 && len(sum.ToolCalls) == 0 && !res.TimedOut && !res.Interrupted {
		infra = fmt.Sprintf("Claude Code exited %d before its first turn, with no result", res.ExitCode)
	}
	return runner.Result{InfraError: infra, ExitCode: res.ExitCode, TimedOut: res.TimedOut, Interrupted: res.Interrupted, Duration: res.Duration,
		Err: res.Err, Model: sum.Model, Text: sum.Result, IsError: sum.IsError, CostUSD: sum.CostUSD, Usage: sum.Usage,
		PerModel: sum.PerModel, NumTurns: sum.NumTurns, Denials: sum.Denials, ToolCalls: sum.ToolCalls, Redactor: red,
		APIErrorStatus: sum.APIErrorStatus, Refused: res.Refused}
}

// Version returns the first line of `<bin> --version`, or "" when it fails.
func Version(ctx context.Context, bin string) string { return runner.AgentVersion(ctx, bin) }

// IsRoot reports whether agent-eval runs as root (bypassPermissions then
// needs IS_SANDBOX=1).
func IsRoot() bool { return os.Geteuid() == 0 }
