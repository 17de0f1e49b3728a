// Package agentcall runs one prompt-mode agent invocation over a folder of
// staged files, inside the same boundary as any case's agent: it writes a
// synthetic one-case eval (the runner, the model, the allowed and denied
// tools, the prompt, a timeout and a budget) and runs it with the engine,
// in a run directory of its own that is kept for audit. It then reads what
// the agent left (its collected outputs, final text, cost and status)
// through internal/rundir. Agent judges call it; so can anything else that
// needs an agent to read files and write a result.
package agentcall

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/engine"
	"github.com/agent-eval/agent-eval/internal/results"
	"github.com/agent-eval/agent-eval/internal/rundir"
	"github.com/agent-eval/agent-eval/internal/runner"
)

// The tools of an agent that reads and judges (upstream's agent-judge
// defaults): what it may use, and what it may not.
var (
	ReadTools   = []string{"Read", "Grep", "Glob"}
	DeniedTools = []string{"Bash", "WebFetch", "WebSearch", "Agent"}
)

// Rules are tool names as permission rules (Request.Allow, Request.Deny).
func Rules(tools []string) []any {
	out := make([]any, 0, len(tools))
	for _, t := range tools {
		out = append(out, t)
	}
	return out
}

// CaseID is the id of the synthetic case in the call's run directory.
const CaseID = "call"

// Request is one agent invocation.
type Request struct {
	// RunsDir and RunID place the call's run directory, RunsDir/RunID,
	// which is kept (the transcript, the outputs, the fake model's log).
	RunsDir, RunID string
	// Files are staged into the agent's workspace, by slash path relative
	// to it; a path that is absolute or leaves the workspace is refused,
	// and so is one whose top-level entry the agent's CLI would load as
	// its own settings or instructions (.claude/, CLAUDE.md: see Defang).
	Files map[string][]byte
	// Prompt is sent as it is (it is never rendered as a template).
	Prompt string
	// Runner is the agent's runner (nil: claude-code); Model its model.
	Runner *config.Runner
	Model  string
	// Allow and Deny are permission rules as eval.yaml spells them: "Read",
	// "Tool(pattern)" or {path: output/x, tools: [Write]}.
	Allow, Deny []any
	// Outputs are the workspace paths collected into the run directory
	// (default: output).
	Outputs []string
	Timeout time.Duration
	// BudgetUSD is the spending cap passed to the agent.
	BudgetUSD float64
	// FakeScript, when set, is the fake model script the agent is answered
	// from (--fake-model); the request log is the run's fake_model log.
	FakeScript string
}

// Result is what the agent left.
type Result struct {
	// Dir is the call's run directory.
	Dir string
	// Files are the collected outputs, by slash path (output/score.json).
	Files map[string][]byte
	// Text is the agent's final message; Stdout the end of its stdout.log
	// (at most 64 KiB: a cli agent's only answer may be there).
	Text, Stdout string
	CostUSD      float64
	// Status is how the agent's run ended (completed, failed, timeout,
	// error…), Error why it failed.
	Status results.Status
	Error  string
	Turns  int
}

// Caller runs agent invocations.
type Caller interface {
	Call(ctx context.Context, req Request) (*Result, error)
}

// Engine is a Caller that runs through internal/engine.
type Engine struct {
	// HarnessBin is the agent-eval binary the hook and guard run as.
	HarnessBin string
	// Runners makes the runner registry for an eval.
	Runners func(ev *config.Eval) *runner.Registry
	// Getenv and Environ are the environment the run reads.
	Getenv  func(string) string
	Environ []string
	// AgentBin overrides the agent CLI (--agent-bin), "" for the default.
	AgentBin string
}

// Call runs req and reads its result; an error is the harness's (the
// agent could not be started, the run directory not written), an agent
// that failed is a Result with its Status.
func (e Engine) Call(ctx context.Context, req Request) (*Result, error) {
	proj, err := os.MkdirTemp("", "agent-eval-call-")
	if err != nil {
		return nil, fmt.Errorf("agent call: %w", err)
	}
	defer os.RemoveAll(proj)
	ev, err := writeProject(proj, req)
	if err != nil {
		return nil, fmt.Errorf("agent call: %w", err)
	}
	getenv := e.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	plan, err := engine.NewPlan(ev, ev.Path(), engine.Flags{MaxBudgetUSD: -1, RetryErrors: 0, Timeout: req.Timeout,
		FakeModel: req.FakeScript != "", AgentBin: e.AgentBin, RunID: req.RunID, Parallel: 1},
		engine.Environment{Getenv: getenv, Dir: proj, HarnessBin: e.HarnessBin, Now: time.Now(), Environ: e.Environ,
			Args: []string{"agent-eval", "(agent call)"}})
	if err != nil {
		return nil, fmt.Errorf("agent call: plan: %w", err)
	}
	plan.RunsDir = req.RunsDir
	if err := os.MkdirAll(req.RunsDir, 0o755); err != nil {
		return nil, fmt.Errorf("agent call: %w", err)
	}
	runners := e.Runners
	if runners == nil {
		return nil, errors.New("agent call: no runners")
	}
	r, runErr := engine.Run(ctx, plan, runners(ev), engine.Discard{})
	if r == nil {
		return nil, fmt.Errorf("agent call: %w", runErr)
	}
	dir := rundir.Dir{Path: filepath.Join(req.RunsDir, r.RunID)}
	res, err := Read(dir)
	if err != nil {
		return nil, errors.Join(runErr, err)
	}
	if runErr != nil && res.Error == "" {
		res.Error = runErr.Error()
	}
	return res, nil
}

// Read reads a finished call's result from its run directory.
func Read(dir rundir.Dir) (*Result, error) {
	c, err := dir.ReadCase(CaseID)
	if err != nil {
		return nil, fmt.Errorf("read the agent call's result: %w", err)
	}
	res := &Result{Dir: dir.Path, Files: map[string][]byte{}, Text: c.Result, CostUSD: c.CostUSD, Status: c.Status, Error: c.Error, Turns: c.NumTurns}
	res.Stdout = tail(dir.CaseFolder(CaseID).Stdout(), maxStdout)
	names, err := dir.OutputFiles(CaseID)
	if err != nil {
		return nil, fmt.Errorf("read the agent call's outputs: %w", err)
	}
	for _, n := range names {
		p := filepath.Join(dir.Outputs(CaseID), filepath.FromSlash(n))
		fi, err := os.Lstat(p)
		if err != nil || !fi.Mode().IsRegular() || fi.Size() > maxOutput {
			continue // a link or an oversized file is no result
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("read the agent call's output %s: %w", n, err)
		}
		res.Files[n] = b
	}
	return res, nil
}

// maxOutput bounds one output file read back, maxStdout the stdout kept.
const (
	maxOutput = 1 << 20
	maxStdout = 64 << 10
)

// tail is the last n bytes of the file at p ("" when it cannot be read).
func tail(p string, n int64) string {
	f, err := os.Open(p)
	if err != nil {
		return ""
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	if off := fi.Size() - n; off > 0 {
		if _, err := f.Seek(off, io.SeekStart); err != nil {
			return ""
		}
	}
	b, err := io.ReadAll(io.LimitReader(f, n))
	if err != nil {
		return ""
	}
	return string(b)
}

// writeProject writes the synthetic eval into proj and loads it. The
// prompt is the case's input, sent through a variable so that nothing in
// it is template code.
func writeProject(proj string, req Request) (*config.Eval, error) {
	stage := filepath.Join(proj, "stage")
	caseDir := filepath.Join(proj, "cases", CaseID)
	if err := os.MkdirAll(caseDir, 0o755); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(stage, 0o755); err != nil {
		return nil, err
	}
	tops := map[string]bool{}
	for name, b := range req.Files {
		rel, err := safeRel(name)
		if err != nil {
			return nil, err
		}
		if top := strings.SplitN(rel, "/", 2)[0]; agentConfig(top) {
			return nil, fmt.Errorf("staged file %q is where the agent's CLI reads its own settings or instructions (stage it Defanged)", name)
		}
		p := filepath.Join(stage, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			return nil, err
		}
		tops[strings.SplitN(rel, "/", 2)[0]] = true
	}
	var files []map[string]string
	for t := range tops {
		files = append(files, map[string]string{"source": filepath.Join(stage, t), "dest": t})
	}
	in, err := yaml.Marshal(map[string]any{"prompt": req.Prompt})
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(caseDir, "input.yaml"), in, 0o644); err != nil {
		return nil, err
	}
	if req.FakeScript != "" {
		b, err := os.ReadFile(req.FakeScript)
		if err != nil {
			return nil, fmt.Errorf("the fake model's script: %w", err)
		}
		if err := os.WriteFile(filepath.Join(caseDir, engine.FakeModelScript), b, 0o644); err != nil {
			return nil, err
		}
	}
	outputs := req.Outputs
	if len(outputs) == 0 {
		outputs = []string{"output"}
	}
	var outs []map[string]string
	for _, o := range outputs {
		outs = append(outs, map[string]string{"path": o})
	}
	rn := map[string]any{"type": string(runner.TypeClaudeCode)}
	if r := req.Runner; r != nil {
		rn = runnerMap(r)
	}
	timeout := int(req.Timeout / time.Second)
	if timeout < 1 {
		timeout = 600
	}
	ev := map[string]any{
		"name":        "agent-call",
		"runner":      rn,
		"models":      map[string]any{"skill": req.Model},
		"execution":   map[string]any{"mode": "case", "prompt": "{{ input.prompt }}", "timeout": timeout, "max_budget_usd": req.BudgetUSD},
		"permissions": map[string]any{"allow": nonNil(req.Allow), "deny": nonNil(req.Deny)},
		"dataset":     map[string]any{"path": "cases"},
		"outputs":     outs,
	}
	if len(files) > 0 {
		ev["dataset"] = map[string]any{"path": "cases", "workspace": map[string]any{"files": files}}
	}
	b, err := yaml.Marshal(ev)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(proj, "eval.yaml")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return nil, err
	}
	return config.Load(path)
}

func nonNil(s []any) []any {
	if s == nil {
		return []any{}
	}
	return s
}

// runnerMap is the runner's configuration as eval.yaml spells it: what a
// one-prompt call can use of it.
func runnerMap(r *config.Runner) map[string]any {
	m := map[string]any{"type": r.Type}
	if r.Type == "" {
		m["type"] = string(runner.TypeClaudeCode)
	}
	if len(r.Command) > 0 {
		m["command"] = []string(r.Command)
	}
	for k, v := range map[string]string{"agent": r.Agent, "system_prompt": r.SystemPrompt, "effort": r.Effort, "permission_mode": r.PermissionMode} {
		if v != "" {
			m[k] = v
		}
	}
	if len(r.Settings) > 0 {
		m["settings"] = r.Settings
	}
	return m
}

// safeRel is name as a clean relative slash path inside the workspace.
func safeRel(name string) (string, error) {
	c := filepath.ToSlash(filepath.Clean(filepath.FromSlash(name)))
	if name == "" || filepath.IsAbs(name) || strings.HasPrefix(name, "/") || c == "." || c == ".." || strings.HasPrefix(c, "../") {
		return "", fmt.Errorf("staged file %q is outside the workspace", name)
	}
	return c, nil
}
