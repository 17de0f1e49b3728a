// Package claudecode runs one case with the Claude Code CLI in --print mode
// and parses what it prints. The agent runs in its own process group; a
// timeout or an interrupt stops the whole group (SIGTERM, then SIGKILL).
package claudecode

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/agent-eval/agent-eval/internal/guard"
	"github.com/agent-eval/agent-eval/internal/stream"
	"github.com/agent-eval/agent-eval/internal/transcript"
)

// HarnessSystemPrompt is appended to every agent's system prompt.
const HarnessSystemPrompt = "You are running inside an automated evaluation, without a human at the keyboard. " +
	"Some tool calls are checked by the harness and may be blocked. If a call is blocked, do not try to get around it: " +
	"do not rename or copy scripts, do not edit .claude/settings.json, hooks or tool_handlers.yaml, and do not look for " +
	"another tool that does the same. Report that the call was blocked and carry on with the rest of the task."

// EnvAllowlist are the only variables taken from the caller's environment.
var EnvAllowlist = []string{"PATH", "HOME", "USER", "SHELL", "LANG", "LC_ALL", "TERM", "TMPDIR",
	"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL", "ANTHROPIC_VERTEX_PROJECT_ID",
	"ANTHROPIC_DEFAULT_OPUS_MODEL", "ANTHROPIC_DEFAULT_SONNET_MODEL", "ANTHROPIC_DEFAULT_HAIKU_MODEL",
	"CLOUD_ML_REGION", "CLAUDE_CODE_USE_VERTEX", "CLAUDE_CODE_USE_BEDROCK", "AWS_REGION", "AWS_PROFILE",
	"CLAUDE_CODE_AUTO_COMPACT_WINDOW", "CLAUDE_CODE_PRINT_BG_WAIT_CEILING_MS", "CLAUDE_CODE_MAX_RETRIES",
	"GOOGLE_APPLICATION_CREDENTIALS", "GOOGLE_CLOUD_PROJECT", "CLOUDSDK_CONFIG", "CLOUDSDK_AUTH_CREDENTIAL_FILE_OVERRIDE",
	"MLFLOW_TRACKING_URI", "MLFLOW_EXPERIMENT_NAME", "AGENT_EVAL_RUNS_DIR"}

// Grace is how long a stopped agent gets between SIGTERM and SIGKILL,
// unless Spec.Grace says otherwise.
const Grace = 5 * time.Second

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
	sys := strings.TrimSpace(strings.TrimSpace(s.SystemPrompt) + "\n\n" + HarnessSystemPrompt)
	a = append(a, "--append-system-prompt", sys)
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
// then extra (runner.env and the harness's own), which win.
func Env(lookup func(string) (string, bool), extra map[string]string) []string {
	env := map[string]string{}
	for _, k := range EnvAllowlist {
		if v, ok := lookup(k); ok {
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
}

// Run runs the agent and parses its stream as it goes. ctx cancellation is
// an interrupt; spec.Timeout a timeout. Either stops the process group; what
// it printed until then is kept and parsed. When the agent ends, whatever it
// left running in its process group is killed, and a process that escaped
// the group holding the agent's output open delays the result by at most
// the grace period, never more.
func Run(ctx context.Context, s Spec) Result {
	start := time.Now()
	grace := s.Grace
	if grace <= 0 {
		grace = Grace
	}
	if s.Guard != "" {
		// The guard reports a missing agent only through an exit code;
		// check here, so the error says what it is.
		if _, err := exec.LookPath(s.Bin); err != nil {
			return Result{ExitCode: -1, Err: fmt.Errorf("start %s: %w", s.Bin, err), Summary: stream.NewParser().Summary()}
		}
	}
	newCmd := func() *exec.Cmd {
		cmd := exec.Command(s.Bin, Args(s)...)
		// When the run dies, so does the agent: SIGKILL, or the guard's
		// signal to kill the agent's whole tree.
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
		if s.Guard != "" {
			cmd = exec.Command(s.Guard, append([]string{"guard", "--", s.Bin}, Args(s)...)...)
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: guard.DeathSignal}
		}
		cmd.Dir, cmd.Env = s.Dir, s.Env
		cmd.WaitDelay = grace // bounds the copy of stderr to a non-file writer
		if s.Stderr != nil {
			cmd.Stderr = s.Stderr
		}
		return cmd
	}
	// Our own pipe rather than StdoutPipe, so the process can be waited for
	// while its output is still being read.
	pr, pw, err := os.Pipe()
	if err != nil {
		return Result{ExitCode: -1, Err: err, Summary: stream.NewParser().Summary()}
	}
	defer pr.Close()
	// A binary that was just written (an install, a test's script) can be
	// "text file busy" for a moment while another fork of this process
	// still holds it open for writing: try again briefly.
	var cmd *exec.Cmd
	var exited <-chan error
	for attempt := 0; ; attempt++ {
		cmd = newCmd()
		cmd.Stdout = pw
		exited, err = guard.Start(cmd)
		if !errors.Is(err, syscall.ETXTBSY) || attempt == 20 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	pw.Close()
	if err != nil {
		return Result{ExitCode: -1, Err: fmt.Errorf("start %s: %w", s.Bin, err), Summary: stream.NewParser().Summary()}
	}
	if s.Started != nil {
		s.Started(cmd.Process.Pid)
	}
	parser := stream.NewParser()
	parser.OnEvent = s.OnEvent
	readDone := make(chan error, 1)
	go func() { readDone <- pump(pr, s.Stdout, parser) }()

	var timeout <-chan time.Time
	if s.Timeout > 0 {
		t := time.NewTimer(s.Timeout)
		defer t.Stop()
		timeout = t.C
	}
	res := Result{}
	var werr error
	select {
	case werr = <-exited:
	case <-timeout:
		res.TimedOut = true
		werr = stop(cmd, exited, grace, s.Guard != "")
	case <-ctx.Done():
		res.Interrupted = true
		werr = stop(cmd, exited, grace, s.Guard != "")
	}
	// The agent is gone; so is anything it left in its group.
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	var rerr error
	select {
	case rerr = <-readDone:
	case <-time.After(grace):
		pr.Close() // held open by a process outside the group: stop reading
		<-readDone
	}
	res.Duration = time.Since(start)
	res.Summary = parser.Summary()
	var exit *exec.ExitError
	switch {
	case res.TimedOut || res.Interrupted:
		res.ExitCode = -1
	case errors.As(werr, &exit):
		res.ExitCode = exit.ExitCode()
	case werr != nil && !errors.Is(werr, exec.ErrWaitDelay):
		res.ExitCode, res.Err = -1, werr
	case rerr != nil && !errors.Is(rerr, os.ErrClosed):
		res.ExitCode, res.Err = -1, fmt.Errorf("read the agent's output: %w", rerr)
	default:
		res.ExitCode = cmd.ProcessState.ExitCode()
	}
	if res.ExitCode == 0 && res.Summary.IsError {
		res.ExitCode = 1 // an API error ends --print with a result flagged is_error
	}
	return res
}

// stop sends SIGTERM to the process group, then SIGKILL to the group and
// the process after grace, and returns how the process ended. A guard is
// first told to kill the agent's whole tree (what left the group too).
func stop(cmd *exec.Cmd, exited <-chan error, grace time.Duration, guarded bool) error {
	pgid := cmd.Process.Pid
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	select {
	case err := <-exited:
		return err
	case <-time.After(grace):
		if guarded {
			_ = syscall.Kill(pgid, guard.DeathSignal)
			select {
			case err := <-exited:
				return err
			case <-time.After(3 * time.Second):
			}
		}
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		_ = cmd.Process.Kill()
		return <-exited
	}
}

// pump copies the agent's stdout to w and feeds the parser line by line.
func pump(r io.Reader, w io.Writer, p *stream.Parser) error {
	br := bufio.NewReaderSize(r, 256<<10)
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if w != nil && len(chunk) > 0 {
			if _, werr := w.Write(chunk); werr != nil {
				return werr
			}
		}
		line = append(line, chunk...)
		if err == bufio.ErrBufferFull {
			continue
		}
		if len(line) > 0 {
			p.Line(line)
		}
		line = line[:0]
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// Version returns the first line of `<bin> --version`, or "" when it fails.
func Version(ctx context.Context, bin string) string {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, "--version").Output()
	if err != nil {
		return ""
	}
	first, _, _ := strings.Cut(string(out), "\n")
	return strings.TrimSpace(first)
}

// IsRoot reports whether agent-eval runs as root (bypassPermissions then
// needs IS_SANDBOX=1).
func IsRoot() bool { return os.Geteuid() == 0 }
