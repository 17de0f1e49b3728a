package engine

import (
	"github.com/agent-eval/agent-eval/internal/results"
)

// Observer hears what a run does. Run calls it from many goroutines at
// once; an implementation serialises itself. The terminal UI
// (internal/ui) is one; --json and tests use others.
type Observer interface {
	// RunStarted: the run directory is ready and the cases are about to
	// run.
	RunStarted(RunInfo)
	// AgentStarted: an agent process starts — a case's, a pipeline step's
	// ("<case>/<step>") or the batch's.
	AgentStarted(name string)
	// CaseFinished: a case's result is written (in batch mode, the batch's).
	// c is the observer's to read during the call only.
	CaseFinished(c *results.Case)
	// Warn: something the user should know; the run goes on.
	Warn(msg string)
	// Note: a line of information (a resumed run's sweep, a failing
	// hook's log).
	Note(msg string)
	// RunFinished: the aggregate is written (also after an interrupt).
	RunFinished(Summary)
}

// RunInfo describes a run as it starts.
type RunInfo struct {
	RunID string
	Dir   string
	Mode  Mode
	Model string
	// Agent is what runs the cases (a binary's path, or the runner's name)
	// and AgentVersion its version.
	Agent, AgentVersion string
	// ToRun cases run now, of Total; with Resume, Total-ToRun finished in
	// an earlier attempt.
	// With Repeats > 1 they count attempts (each case Repeats times).
	ToRun, Total int
	Repeats      int
	Resume       bool
	// Containment says how the agents' processes are kept from outliving
	// their cases (agentproc.Containment).
	Containment string
	// Unprotected names the protections the agent's commands run without
	// because the OS sandbox is off (an opt-out, or a runner without one),
	// and SandboxOff why; empty when the sandbox is on or not needed.
	Unprotected []string
	SandboxOff  string
}

// Summary is a finished (or interrupted) run, for the closing table.
type Summary struct {
	Run *results.RunResult
	Dir string
	// Rows are the plan's cases in order, each as small as the table
	// needs (the full results are on disk).
	Rows []Row
}

// Row is one case of the summary table.
type Row struct {
	ID            string
	Ran           bool // false: not run (interrupted before it started)
	Status        results.Status
	ExitCode      int
	DurationS     float64
	CostUSD       float64
	NumTurns      int
	Denials       int
	Answers       int
	AnswersByTier map[string]int
}

// RowOf is the table row of a case result.
func RowOf(c *results.Case) Row {
	return Row{ID: c.CaseID, Ran: true, Status: c.Status, ExitCode: c.ExitCode, DurationS: c.DurationS, CostUSD: c.CostUSD,
		NumTurns: c.NumTurns, Denials: len(c.PermissionDenials), Answers: c.Answers, AnswersByTier: c.AnswersByTier}
}

// Discard is an Observer that ignores everything.
type Discard struct{}

func (Discard) RunStarted(RunInfo)         {}
func (Discard) AgentStarted(string)        {}
func (Discard) CaseFinished(*results.Case) {}
func (Discard) Warn(string)                {}
func (Discard) Note(string)                {}
func (Discard) RunFinished(Summary)        {}
