// Package redecide re-decides the tool calls a run recorded under another
// policy, without running the agent: `agent-eval replay RUN -c eval.yaml`.
// The recorded decision of a call comes from the case's hook ledger and the
// runner's permission denials; the new one from the hook's own decision
// function (hook.Decider) and the new permission rules (permissions.Match).
// It reads the run directory through internal/rundir only.
package redecide

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"sync/atomic"

	"github.com/agent-eval/agent-eval/internal/hook"
	"github.com/agent-eval/agent-eval/internal/intercept"
	"github.com/agent-eval/agent-eval/internal/permissions"
	"github.com/agent-eval/agent-eval/internal/results"
	"github.com/agent-eval/agent-eval/internal/rundir"
	"github.com/agent-eval/agent-eval/internal/transcript"
)

// The kinds of change.
const (
	AllowedToDenied = "allowed_to_denied"
	DeniedToAllowed = "denied_to_allowed"
	AnswerChanged   = "answer_changed"
	Undecidable     = "undecidable_offline"
)

// Outcomes of a call.
const (
	Allowed = "allowed"
	Denied  = "denied"
)

// Policy is the new policy.
type Policy struct {
	// Hook is the decider of a case's hook: its handlers with the case's
	// answers, rooted at ws (the recorded workspace, which the recorded
	// paths name); nil when the new eval wires no hook.
	Hook func(caseID, ws string) (*hook.Decider, error)
	// Allow and Deny are the compiled permission rules.
	Allow, Deny []string
	// Mode is the runner's permission mode ("" for default).
	Mode string
	// Home is the home directory ~/ rules name.
	Home string
}

// Options are what a replay needs besides the run and the policy.
type Options struct {
	// Env is the environment env_checks read (the current one, with
	// --env overrides: the recorded run's is not kept).
	Env map[string]string
	// NewAnswerer is tier 2 for a case (nil: --no-llm, a question that
	// needs the model is undecidable offline).
	NewAnswerer func(caseID string) intercept.Answerer
	// FS answers the path layer's questions (nil: none).
	FS intercept.PathFS
}

// Verdict is one side of a call's decision.
type Verdict struct {
	Outcome string            `json:"outcome"` // allowed or denied
	By      string            `json:"by"`      // hook, permission rules, runner, permission mode
	Reason  string            `json:"reason"`
	Answers map[string]string `json:"answers,omitempty"`
}

// Change is one call whose decision changes.
type Change struct {
	Index  int     `json:"index"` // the call's position among the case's tool calls, from 1
	ID     string  `json:"tool_use_id,omitempty"`
	Tool   string  `json:"tool"`
	Target string  `json:"target"`
	Kind   string  `json:"change"`
	Ran    bool    `json:"ran"` // the call ran in the recording
	Old    Verdict `json:"old"`
	New    Verdict `json:"new"`
}

// Case is one case's replay.
type Case struct {
	ID      string   `json:"case_id"`
	Calls   int      `json:"calls"`
	Changes []Change `json:"changes"`
}

// Report is a whole replay.
type Report struct {
	Run     string         `json:"run"`
	Agent   string         `json:"agent"`
	Calls   int            `json:"calls"`
	Summary map[string]int `json:"summary"`
	// DeniedRan counts the calls the new policy denies that ran.
	DeniedRan int    `json:"denied_ran"`
	Cases     []Case `json:"cases"`
}

// ErrUnreadable wraps what kept the run from being read.
var ErrUnreadable = errors.New("cannot read the run")

// Run re-decides every recorded call of dir's cases under p.
func Run(ctx context.Context, dir rundir.Dir, p Policy, opts Options) (*Report, error) {
	run, err := dir.ReadRun()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnreadable, err)
	}
	ids, err := dir.CaseIDs()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnreadable, err)
	}
	rep := &Report{Run: dir.Path, Agent: run.Agent, Summary: map[string]int{AllowedToDenied: 0, DeniedToAllowed: 0, AnswerChanged: 0, Undecidable: 0}}
	for _, id := range ids {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		c, err := replayCase(ctx, dir, id, run.Agent, p, opts)
		if err != nil {
			return nil, err
		}
		rep.Calls += c.Calls
		for _, ch := range c.Changes {
			rep.Summary[ch.Kind]++
			if ch.Kind == AllowedToDenied && ch.Ran {
				rep.DeniedRan++
			}
		}
		rep.Cases = append(rep.Cases, c)
	}
	return rep, nil
}

// Dialect is the hook dialect of the agent a run names.
func Dialect(agent string) string {
	switch agent {
	case "codex":
		return hook.DialectCodex
	case "gemini", "gemini-cli":
		return hook.DialectGemini
	case "cursor", "cursor-agent":
		return hook.DialectCursor
	}
	return hook.DialectClaude
}

// recorded is a tool call as the run recorded it.
type recorded struct {
	call    transcript.ToolCall
	ledger  *rundir.Decision
	denial  *transcript.Denial
	ranCall bool
}

func replayCase(ctx context.Context, dir rundir.Dir, id, agent string, p Policy, opts Options) (Case, error) {
	out := Case{ID: id, Changes: []Change{}}
	cr, err := dir.ReadCase(id)
	if err != nil {
		return out, fmt.Errorf("%w: case %s: %w", ErrUnreadable, id, err)
	}
	events, err := dir.ReadTranscript(id)
	if err != nil {
		return out, fmt.Errorf("%w: %w", ErrUnreadable, err)
	}
	ledger, err := dir.ReadLedger(id)
	if err != nil {
		return out, fmt.Errorf("%w: %w", ErrUnreadable, err)
	}
	calls := match(events, ledger, cr)
	out.Calls = len(calls)
	var dec *hook.Decider
	if p.Hook != nil {
		if dec, err = p.Hook(id, cr.Workspace); err != nil {
			return out, fmt.Errorf("case %s: the new handlers: %w", id, err)
		}
	}
	// Without a model (--no-llm) tier 2 is a stand-in that notes it was
	// asked; otherwise the case's answerer, as the hook has it.
	offline := &askLog{}
	var llm intercept.Answerer = offline
	if opts.NewAnswerer != nil {
		llm = opts.NewAnswerer(id)
	}
	for i, r := range calls {
		input := map[string]any{}
		_ = json.Unmarshal(r.call.Input, &input) // a call without an input object is judged on its name
		old := oldVerdict(r, agent)
		offline.asked.Store(false)
		d := intercept.Decision{Kind: intercept.Pass, Handler: -1}
		if dec != nil {
			d = dec.Decide(ctx, r.call.Name, input, cr.Workspace, opts.Env, opts.FS, llm)
		}
		rules := permissions.Match(p.Allow, p.Deny, permissions.Call{Tool: r.call.Name, Input: input, CWD: cr.Workspace, Home: p.Home})
		nv := newVerdict(d, rules, p.Mode, old)
		ch := Change{Index: i + 1, ID: r.call.ID, Tool: r.call.Name, Target: transcript.InputSummary(r.call.Input, 120), Ran: r.ranCall, Old: old, New: nv}
		switch {
		case offline.asked.Load():
			ch.Kind = Undecidable
			ch.New.Reason = "the new policy asks the hook model (tier 2), which --no-llm does not call"
		case old.Outcome == Allowed && nv.Outcome == Denied:
			ch.Kind = AllowedToDenied
		case old.Outcome == Denied && nv.Outcome == Allowed:
			ch.Kind = DeniedToAllowed
		case old.Outcome == Allowed && nv.Outcome == Allowed && (len(old.Answers) > 0 || len(nv.Answers) > 0) && !maps.Equal(old.Answers, nv.Answers):
			ch.Kind = AnswerChanged
		default:
			continue
		}
		out.Changes = append(out.Changes, ch)
	}
	return out, nil
}

// match pairs the transcript's tool calls with their ledger lines (by call
// id, else in order among the calls of the same tool: Gemini's hook gets no
// id) and the runner's denials.
func match(events []transcript.Event, ledger []rundir.Decision, cr *results.Case) []recorded {
	var calls []recorded
	at := map[string]int{}
	for _, e := range events {
		switch e.Kind {
		case transcript.KindToolCall:
			if _, seen := at[e.ToolUseID]; seen && e.ToolUseID != "" {
				continue
			}
			at[e.ToolUseID] = len(calls)
			calls = append(calls, recorded{call: transcript.ToolCall{ID: e.ToolUseID, Name: e.Tool, Input: e.Input}})
		case transcript.KindToolResult:
			if i, ok := at[e.ToolUseID]; ok && e.ToolUseID != "" {
				calls[i].call.Returned, calls[i].call.IsError = true, e.IsError
			}
		}
	}
	used := make([]bool, len(ledger))
	for i := range calls {
		for j := range ledger {
			if !used[j] && calls[i].call.ID != "" && ledger[j].ToolUseID == calls[i].call.ID {
				used[j], calls[i].ledger = true, &ledger[j]
				break
			}
		}
	}
	for i := range calls {
		if calls[i].ledger != nil {
			continue
		}
		for j := range ledger {
			if !used[j] && ledger[j].ToolUseID == "" && ledger[j].Tool == calls[i].call.Name {
				used[j], calls[i].ledger = true, &ledger[j]
				break
			}
		}
	}
	for k := range cr.PermissionDenials {
		dn := &cr.PermissionDenials[k]
		if i, ok := at[dn.ToolUseID]; ok && dn.ToolUseID != "" {
			calls[i].denial = dn
		}
	}
	for _, e := range events {
		if i, ok := at[e.ToolUseID]; ok && e.Kind == transcript.KindDenial && calls[i].denial == nil && e.ToolUseID != "" {
			calls[i].denial = &transcript.Denial{ToolName: e.Tool, ToolUseID: e.ToolUseID, Reason: e.Text}
		}
	}
	for i := range calls {
		r := &calls[i]
		r.ranCall = r.call.Returned && r.denial == nil && (r.ledger == nil || r.ledger.Decision != string(intercept.Deny))
	}
	return calls
}

// oldVerdict is what the recording says of a call: the hook's deny, else
// the runner's, else it was allowed.
func oldVerdict(r recorded, agent string) Verdict {
	switch {
	case r.ledger != nil && r.ledger.Decision == string(intercept.Deny):
		return Verdict{Outcome: Denied, By: "hook", Reason: r.ledger.Reason}
	case r.denial != nil:
		why := r.denial.Reason
		if why == "" {
			why = "refused by " + agentName(agent) + "'s own permission rules or mode"
		}
		return Verdict{Outcome: Denied, By: "runner", Reason: why}
	case r.ledger != nil:
		v := Verdict{Outcome: Allowed, By: "hook", Reason: r.ledger.Reason, Answers: r.ledger.Answers}
		if v.Reason == "" {
			v.Reason = "hook: " + r.ledger.Decision + " (no handler matched)"
		}
		return v
	}
	return Verdict{Outcome: Allowed, By: "runner", Reason: "no hook decision and no permission denial recorded"}
}

// newVerdict combines the new hook decision and the new rules as the agent
// would: a deny by either blocks the call; a pass that no rule decides is
// left to the permission mode, which decided the recorded call too, so the
// recorded outcome stands unless the old deny was the hook's own.
func newVerdict(d intercept.Decision, rules permissions.Verdict, mode string, old Verdict) Verdict {
	switch {
	case d.Kind == intercept.Deny:
		return Verdict{Outcome: Denied, By: "hook", Reason: d.Reason}
	case rules.Decision == "deny":
		return Verdict{Outcome: Denied, By: "permission rules", Reason: rules.Reason}
	case d.Kind == intercept.Allow:
		return Verdict{Outcome: Allowed, By: "hook", Reason: d.Reason, Answers: d.Answers}
	case rules.Decision == "allow":
		return Verdict{Outcome: Allowed, By: "permission rules", Reason: rules.Reason}
	}
	hookWhy := "hook: no handler matches"
	if d.Handler >= 0 {
		hookWhy = d.Reason
	}
	if mode == "" {
		mode = "default"
	}
	if old.Outcome == Denied && old.By == "runner" {
		return Verdict{Outcome: Denied, By: "permission mode", Reason: hookWhy + "; no rule decides, so the permission mode (" + mode + ") does, as it did in the recording"}
	}
	return Verdict{Outcome: Allowed, By: "permission mode", Reason: hookWhy + "; no rule denies it, the permission mode (" + mode + ") decides"}
}

func agentName(agent string) string {
	if agent == "" {
		return "the agent"
	}
	return agent
}

// askLog stands in for the LLM tier under --no-llm: it notes whether a
// call asked it, and answers nothing.
type askLog struct {
	asked atomic.Bool // questions are asked at once
}

func (a *askLog) Answer(context.Context, intercept.Question) (string, error) {
	a.asked.Store(true)
	return "", errors.New("--no-llm: the hook model is not called")
}
