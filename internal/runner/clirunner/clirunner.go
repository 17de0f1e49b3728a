// Package clirunner runs any agent by its command line (runner.type cli):
// the command from eval.yaml with its {placeholders} filled per case
// (Expand), in the workspace, with the caller's environment plus the
// eval's, in its own process group that a timeout or an interrupt stops
// (package agentproc). Its stdout and stderr are kept; a stream it
// recognises (Claude Code's stream-json, OpenCode's JSON events) becomes
// transcript events, usage and tool calls; an output/metrics.json the agent
// writes reports usage, cost and turns in upstream's shape.
//
// A cli agent is not hooked: nothing gates its tool calls, so it has no
// interception, no denials of the harness's and no permissions but its own
// (validate says so).
package clirunner

import (
	"context"
	"fmt"
	"github.com/agent-eval/agent-eval/internal/boundary"
	"github.com/agent-eval/agent-eval/internal/results"
	"github.com/agent-eval/agent-eval/internal/runner"
	"io"
	"path/filepath"
	"time"

	"github.com/agent-eval/agent-eval/internal/agentproc"
	"github.com/agent-eval/agent-eval/internal/lifecycle"
	"github.com/agent-eval/agent-eval/internal/transcript"
)

// Spec is one invocation of a cli agent.
type Spec struct {
	// Argv is the command line, placeholders filled (Expand): the program,
	// then its arguments.
	Argv []string
	// Dir is the workspace: the agent's cwd.
	Dir string
	// Env is the agent's whole environment (Env builds it); PWD is set to
	// Dir.
	Env []string
	// OutputDir is where metrics.json is read from once the agent ends
	// ({output_dir}; "" reads none).
	OutputDir string
	Timeout   time.Duration
	Grace     time.Duration // between SIGTERM and SIGKILL (0: agentproc.Grace)
	// Stdout and Stderr receive the agent's raw streams (stdout.log and
	// stderr.log).
	Stdout, Stderr io.Writer
	// Transcript receives the recognised stream's events (nil: dropped),
	// each with Step set.
	Transcript *transcript.Writer
	Step       string
	// Guard is the agent-eval binary: the agent then runs under `agent-eval
	// guard --` (package guard).
	Guard string
	// World, when set, is the boundary the agent runs in.
	World *boundary.Spec
	// Started, when set, is called with the agent's process group id.
	Started func(pgid int)
}

// Result is how an invocation ended and what the agent reported.
type Result struct {
	ExitCode    int // -1 when the agent did not exit by itself or did not start
	TimedOut    bool
	Interrupted bool
	Duration    time.Duration
	// Summary is what the agent reported: its recognised stream, with
	// metrics.json laid over it. Its Denials are calls the agent's own
	// permission layer refused (a cli agent has no hook of the harness's).
	Summary
	// Metrics is the agent's metrics.json, or nil.
	Metrics *Metrics
	// Refused are the hosts the boundary's proxy refused the agent.
	Refused []results.Refusal
	// Err: the agent could not be started, its output read, or its
	// metrics.json read.
	Err error
}

// Run runs the agent to its end, spec.Timeout (TimedOut) or ctx's
// cancellation (Interrupted); either stops its process group. It never
// fails on the agent's behalf: Result.Err says what went wrong.
func Run(ctx context.Context, s Spec) Result {
	if len(s.Argv) == 0 || s.Argv[0] == "" {
		return Result{ExitCode: -1, Err: fmt.Errorf("run the cli agent: empty command"), Summary: NewParser(nil).Summary()}
	}
	emit := func(e transcript.Event) {
		if s.Transcript != nil {
			e.Step = s.Step
			s.Transcript.Write(e)
		}
	}
	parser := NewParser(emit)
	env := s.Env
	if s.Dir != "" {
		// Agents (OpenCode) take their project folder from $PWD, which
		// the caller's environment has pointing at its own cwd.
		dir, err := filepath.Abs(s.Dir)
		if err != nil {
			return Result{ExitCode: -1, Err: fmt.Errorf("run the cli agent: %w", err), Summary: NewParser(nil).Summary()}
		}
		env = lifecycle.Environ(env, map[string]string{"PWD": dir})
	}
	pr := agentproc.Run(ctx, agentproc.Spec{
		Path: s.Argv[0], Args: s.Argv[1:], Dir: s.Dir, Env: env,
		Timeout: s.Timeout, Grace: s.Grace, Stdout: s.Stdout, Stderr: s.Stderr,
		Line: parser.Line, Guard: s.Guard, Started: s.Started, Boundary: s.World,
	})
	if pr.Err != nil && pr.ExitCode == -1 && !pr.TimedOut && !pr.Interrupted {
		emit(transcript.Event{Kind: transcript.KindError, Text: pr.Err.Error()})
	}
	parser.Finish()
	sum := parser.Summary()
	res := Result{ExitCode: pr.ExitCode, TimedOut: pr.TimedOut, Interrupted: pr.Interrupted, Duration: pr.Duration, Err: pr.Err,
		Refused: runner.Refusals(pr.Refused, runner.CLIHosts(s.Argv[0]))}
	if s.OutputDir != "" {
		m, err := ReadMetrics(s.OutputDir)
		if err != nil && res.Err == nil {
			res.Err = err
		}
		res.Metrics = m
		m.apply(&sum)
	}
	if len(sum.PerModel) == 0 && sum.Model != "" && (sum.Usage != transcript.Usage{} || sum.CostUSD > 0) {
		sum.PerModel = map[string]transcript.ModelUsage{sum.Model: {Usage: sum.Usage, CostUSD: sum.CostUSD}}
	}
	if sum.PerModel == nil {
		sum.PerModel = map[string]transcript.ModelUsage{}
	}
	res.Summary = sum
	return res
}

// Env is the agent's environment: the caller's (environ, as os.Environ
// gives it) with extra laid over it in order (execution.env, runner.env,
// lifecycle hooks' outputs: a later map wins).
func Env(environ []string, extra ...map[string]string) []string {
	env := environ
	for _, m := range extra {
		env = lifecycle.Environ(env, m)
	}
	return env
}
