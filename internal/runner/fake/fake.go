// Package fake is a scripted in-process runner: each invocation does what
// its Script says (exit code, delay or hang, tool calls, denials, usage,
// files written into the workspace), honouring the context and the
// timeout like a real agent. The engine's tests run on it without Node or
// any agent installed.
package fake

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/agent-eval/agent-eval/internal/runner"
	"github.com/agent-eval/agent-eval/internal/transcript"
)

// Script is what one invocation does.
type Script struct {
	ExitCode int
	// Delay is how long the agent "works"; Hang makes it work until it is
	// interrupted or times out.
	Delay time.Duration
	Hang  bool
	// Text is the final answer; IsError flags it.
	Text    string
	IsError bool
	CostUSD float64
	Usage   transcript.Usage
	Turns   int
	// ToolCalls are reported (and written to the transcript) in order;
	// Denials too.
	ToolCalls []transcript.ToolCall
	Denials   []transcript.Denial
	// Files are written into the workspace (path relative to it → content;
	// "$ENV{NAME}" in a content is replaced by the agent's NAME).
	Files map[string]string
	// Do runs as the agent, in its workspace, after Files are written: what
	// a test's agent does beyond its workspace (an attack).
	Do func(workspace string) error
	// Stdout and Stderr are printed to the agent's logs.
	Stdout, Stderr string
	// Err fails the invocation as if the agent could not start.
	Err string
	// RefuseField, when set, fails the invocation as a runner's refusal of
	// the case's own data: a runner.CaseError naming this field, Err its
	// why.
	RefuseField string
	// Panic panics inside Invoke (a crashing runner).
	Panic bool
	// During, when set, runs once the agent has "worked": a test's stand-in
	// for what an agent does outside its workspace (in repo mode, to the
	// project). Its error fails the invocation.
	During func() error
}

// Call records one invocation.
type Call struct {
	Name, Step, Prompt, Dir string
	Env                     map[string]string
	Timeout                 time.Duration
	MaxBudgetUSD            float64
	Start, End              time.Time
}

// Runner is the fake runner. Scripts are looked up by the invocation's
// name ("<case>", "<case>/<step>", "batch", an attempt's "<case>@<n>"),
// then by its case's, then under "" (the default).
type Runner struct {
	Scripts map[string]Script
	// Caps overrides the declared capabilities (nil: all but interception,
	// native permissions, questions and the sandbox).
	Caps *runner.Capabilities

	mu          sync.Mutex
	calls       []Call
	running     int
	maxRunning  int
	started     int
	startErr    error
	closed      int
	prepared    []string
	sessionsOut int
}

// New returns a fake runner with these scripts.
func New(scripts map[string]Script) *Runner { return &Runner{Scripts: scripts} }

// Factory registers r itself, so a test can read what it recorded.
func (r *Runner) Factory() runner.Factory { return func() runner.Runner { return r } }

// FailStart makes Start fail with err.
func (r *Runner) FailStart(err error) { r.startErr = err }

// Calls are the invocations so far, in the order they started.
func (r *Runner) Calls() []Call {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := slices.Clone(r.calls)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Start.Before(out[j].Start) })
	return out
}

// MaxConcurrent is the most invocations that ran at once.
func (r *Runner) MaxConcurrent() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.maxRunning
}

// OpenSessions counts sessions prepared and not closed (a leak if > 0
// after a run).
func (r *Runner) OpenSessions() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.sessionsOut
}

// Capabilities implements runner.Runner.
func (r *Runner) Capabilities() runner.Capabilities {
	if r.Caps != nil {
		return *r.Caps
	}
	return runner.Capabilities{RepoMode: true, Batch: true, Steps: true}
}

// Start implements runner.Runner.
func (r *Runner) Start(_ context.Context, _ runner.RunSetup) (runner.Agent, error) {
	if r.startErr != nil {
		return nil, r.startErr
	}
	r.mu.Lock()
	r.started++
	r.mu.Unlock()
	return started{r}, nil
}

type started struct{ r *Runner }

func (started) Agent() (string, string) { return string(runner.TypeFake), "1.0" }

func (s started) Close() error {
	s.r.mu.Lock()
	s.r.closed++
	s.r.mu.Unlock()
	return nil
}

func (s started) Prepare(_ context.Context, w runner.Workspace) (runner.Session, error) {
	s.r.mu.Lock()
	s.r.prepared = append(s.r.prepared, w.ID)
	s.r.sessionsOut++
	s.r.mu.Unlock()
	return &session{r: s.r, w: w}, nil
}

type session struct {
	r      *Runner
	w      runner.Workspace
	closed bool
}

func (s *session) Close() error {
	s.r.mu.Lock()
	defer s.r.mu.Unlock()
	if !s.closed {
		s.closed = true
		s.r.sessionsOut--
	}
	return nil
}

func (r *Runner) script(name string) Script {
	if s, ok := r.Scripts[name]; ok {
		return s
	}
	id, step, stepped := strings.Cut(name, "/")
	// An attempt ("<case>@<n>") falls back to its case's scripts.
	if c, _, ok := strings.Cut(id, "@"); ok {
		if s, ok := r.Scripts[c+"/"+step]; ok && stepped {
			return s
		}
		id = c
	}
	if s, ok := r.Scripts[id]; ok {
		return s
	}
	return r.Scripts[""]
}

// Invoke implements runner.Session.
func (s *session) Invoke(ctx context.Context, in runner.Invocation) runner.Result {
	r := s.r
	sc := r.script(in.Name)
	start := time.Now()
	call := Call{Name: in.Name, Step: in.Step, Prompt: in.Prompt, Dir: s.w.Dir, Env: in.Env, Timeout: in.Timeout,
		MaxBudgetUSD: in.MaxBudgetUSD, Start: start}
	r.mu.Lock()
	r.running++
	r.maxRunning = max(r.maxRunning, r.running)
	idx := len(r.calls)
	r.calls = append(r.calls, call)
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		r.running--
		r.calls[idx].End = time.Now()
		r.mu.Unlock()
	}()
	// No process, so in.Started is not called: there is no group to record.
	if sc.Panic {
		panic("fake runner: scripted panic in " + in.Name)
	}
	res := runner.Result{Model: "fake-model"}
	if sc.RefuseField != "" {
		res.ExitCode, res.Duration = -1, time.Since(start)
		res.Err = fmt.Errorf("fake runner: %w", &runner.CaseError{Case: in.Name, Field: sc.RefuseField, Err: errors.New(sc.Err)})
		return res
	}
	if sc.Err != "" {
		res.ExitCode, res.Err, res.Duration = -1, errors.New(sc.Err), time.Since(start)
		return res
	}
	var timeout <-chan time.Time
	if in.Timeout > 0 {
		t := time.NewTimer(in.Timeout)
		defer t.Stop()
		timeout = t.C
	}
	var done <-chan time.Time
	if !sc.Hang {
		done = time.After(sc.Delay)
	}
	write := func(w io.Writer, text string) {
		if w != nil && text != "" {
			_, _ = io.WriteString(w, text)
		}
	}
	emit := func(e transcript.Event) {
		if in.Transcript != nil {
			e.Step = in.Step
			in.Transcript.Write(e)
		}
	}
	write(in.Stdout, sc.Stdout)
	write(in.Stderr, sc.Stderr)
	select {
	case <-done:
	case <-timeout:
		res.ExitCode, res.TimedOut, res.Duration = -1, true, time.Since(start)
		return res
	case <-ctx.Done():
		res.ExitCode, res.Interrupted, res.Duration = -1, true, time.Since(start)
		return res
	}
	for p, content := range sc.Files {
		dst := filepath.Join(s.w.Dir, p)
		for k, v := range in.Env {
			content = strings.ReplaceAll(content, "$ENV{"+k+"}", v)
		}
		err := os.MkdirAll(filepath.Dir(dst), 0o755)
		if err == nil {
			err = os.WriteFile(dst, []byte(content), 0o644)
		}
		if err != nil {
			res.ExitCode, res.Err, res.Duration = -1, fmt.Errorf("write %s: %w", p, err), time.Since(start)
			return res
		}
	}
	if sc.During != nil {
		if err := sc.During(); err != nil {
			res.ExitCode, res.Err, res.Duration = -1, err, time.Since(start)
			return res
		}
	}
	if sc.Do != nil {
		if err := sc.Do(s.w.Dir); err != nil {
			res.ExitCode, res.Err, res.Duration = -1, err, time.Since(start)
			return res
		}
	}
	for _, c := range sc.ToolCalls {
		emit(transcript.Event{Kind: transcript.KindToolCall, ToolUseID: c.ID, Tool: c.Name, Input: c.Input})
		if c.Returned {
			emit(transcript.Event{Kind: transcript.KindToolResult, ToolUseID: c.ID, Text: c.Result, IsError: c.IsError})
		}
	}
	for _, d := range sc.Denials {
		emit(transcript.Event{Kind: transcript.KindDenial, ToolUseID: d.ToolUseID, Tool: d.ToolName, Input: d.ToolInput})
	}
	emit(transcript.Event{Kind: transcript.KindResult, Text: sc.Text, IsError: sc.IsError})
	res.ExitCode, res.Text, res.IsError, res.CostUSD, res.Usage, res.NumTurns = sc.ExitCode, sc.Text, sc.IsError, sc.CostUSD, sc.Usage, sc.Turns
	res.ToolCalls, res.Denials = slices.Clone(sc.ToolCalls), slices.Clone(sc.Denials)
	res.PerModel = map[string]transcript.ModelUsage{}
	if sc.CostUSD > 0 || sc.Usage != (transcript.Usage{}) {
		res.PerModel["fake-model"] = transcript.ModelUsage{Usage: sc.Usage, CostUSD: sc.CostUSD}
	}
	res.Duration = time.Since(start)
	return res
}

// String describes a call, for test failures.
func (c Call) String() string { return fmt.Sprintf("%s (step %q): %q", c.Name, c.Step, c.Prompt) }
