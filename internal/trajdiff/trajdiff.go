// Package trajdiff compares two runs of an eval case by case: each case's
// tool calls normalised (tool, target, outcome) and aligned, the first
// divergence, the calls added and removed, the decisions and answers that
// changed, the kept files that differ and the verdict's change; over the
// run, which cases changed and, with pass/fail verdicts on both sides, the
// paired test of the change of pass rate. It reads runs through
// internal/rundir and writes nothing.
package trajdiff

import (
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/agent-eval/agent-eval/internal/clip"
	"github.com/agent-eval/agent-eval/internal/pathutil"
	"github.com/agent-eval/agent-eval/internal/rundir"
	"github.com/agent-eval/agent-eval/internal/stats"
	"github.com/agent-eval/agent-eval/internal/transcript"
)

// Outcomes of a call.
const (
	OutcomeOK         = "ok"
	OutcomeError      = "error"
	OutcomeHookDenied = "denied by hook"
	OutcomePermDenied = "denied by permissions"
	OutcomeAnswered   = "answered"
	OutcomeNoResult   = "no result"
	maxTarget         = 200
	maxAnswerText     = 500
	maxDiffFile       = 32 << 10
	maxAlignCells     = 4 << 20
	unifiedContext    = 3
	significanceLevel = 0.05
	verdictNotScored  = "not scored"
)

// Call is one tool call, normalised: what a person would say it was and
// how it ended.
type Call struct {
	Tool string `json:"tool"`
	// Target is what the call was on: the file (relative to the
	// workspace), the command, the URL, the pattern, the MCP tool's input.
	Target  string `json:"target"`
	Outcome string `json:"outcome"`
	// Reason is the hook's (or the permission layer's) reason for a denial.
	Reason string `json:"reason,omitempty"`
	// Answers are the hook's answers ("question → answer"), sorted.
	Answers []string `json:"answers,omitempty"`
}

func (c Call) key() string { return c.Tool + "\x00" + c.Target }

// same: the call ended the same way.
func (c Call) same(o Call) bool {
	return c.Outcome == o.Outcome && c.Reason == o.Reason && slices.Equal(c.Answers, o.Answers)
}

// String is the call on one line.
func (c Call) String() string {
	s := c.Tool
	if c.Target != "" {
		s += " " + c.Target
	}
	s += " → " + c.Outcome
	if len(c.Answers) > 0 {
		s += " (" + strings.Join(c.Answers, "; ") + ")"
	} else if c.Reason != "" {
		s += " (" + c.Reason + ")"
	}
	return s
}

// Step ops of an alignment.
const (
	OpSame    = "same"
	OpChanged = "changed" // the same call, ended otherwise
	OpRemoved = "removed" // in A only
	OpAdded   = "added"   // in B only
	// OpReplaced is only a first divergence's: A's call removed, B's
	// added in its place.
	OpReplaced = "replaced"
)

// Step is one line of two trajectories aligned. IndexA and IndexB are the
// calls' positions (from 1) in each run, 0 where a run has none.
type Step struct {
	Op     string `json:"op"`
	IndexA int    `json:"index_a,omitempty"`
	IndexB int    `json:"index_b,omitempty"`
	A      *Call  `json:"a,omitempty"`
	B      *Call  `json:"b,omitempty"`
	// First: the step is (part of) the case's first divergence.
	First bool `json:"-"`
}

// File is a kept file (outputs/, _modified/) that differs.
type File struct {
	Path   string `json:"path"`
	Change string `json:"change"` // added, removed, changed
	// Diff is a unified diff of a small text file that changed.
	Diff string `json:"diff,omitempty"`
}

// JudgeChange is one judge whose verdict changed.
type JudgeChange struct {
	Judge   string   `json:"judge"`
	A       *float64 `json:"a"`
	B       *float64 `json:"b"`
	PassedA *bool    `json:"passed_a,omitempty"`
	PassedB *bool    `json:"passed_b,omitempty"`
}

// Side is one run's attempt of a case, in brief.
type Side struct {
	Status string `json:"status"`
	// Passed: every pass/fail verdict passed; nil when the run was not
	// scored or no judge gave the case a pass/fail verdict.
	Passed  *bool  `json:"passed,omitempty"`
	Calls   int    `json:"calls"`
	Denials int    `json:"denials"`
	Answer  string `json:"answer,omitempty"`
}

// Case is one (case, attempt) compared.
type Case struct {
	Case    string `json:"case"`
	Attempt int    `json:"attempt"`
	// Only is "a" or "b" when the case is in one run only.
	Only string `json:"only,omitempty"`
	A    *Side  `json:"a,omitempty"`
	B    *Side  `json:"b,omitempty"`
	// FirstDivergence is the first step of Steps that is not the same
	// (nil: the trajectories are the same).
	FirstDivergence *Step         `json:"first_divergence,omitempty"`
	Steps           []Step        `json:"steps,omitempty"`
	Added           int           `json:"added"`
	Removed         int           `json:"removed"`
	Changed         int           `json:"changed"`
	AnswerChanged   bool          `json:"answer_changed,omitempty"`
	Files           []File        `json:"files,omitempty"`
	Judges          []JudgeChange `json:"judges,omitempty"`
	// TrajectoryChanged: a call was added, removed or ended otherwise.
	TrajectoryChanged bool `json:"trajectory_changed"`
	// VerdictChanged: the case's pass/fail or a judge's value changed.
	VerdictChanged bool `json:"verdict_changed"`
	StatusChanged  bool `json:"status_changed"`
}

// Key is the case's AttemptKey.
func (c *Case) Key() string { return rundir.AttemptKey(c.Case, c.Attempt) }

// Significance is the paired test of the change of pass rate over the
// (case, attempt)s both runs judged pass/fail: the exact McNemar test, as
// score --baseline does.
type Significance struct {
	// Case is the case the test is of ("" over the run).
	Case    string   `json:"case,omitempty"`
	Paired  int      `json:"paired"`
	PassA   int      `json:"passed_a"`
	PassB   int      `json:"passed_b"`
	Gained  int      `json:"gained"` // failed in A, passed in B
	Lost    int      `json:"lost"`   // passed in A, failed in B
	Test    string   `json:"test"`
	PValue  *float64 `json:"p_value,omitempty"`
	Verdict string   `json:"change"` // better, worse, no evidence of a change
}

// Run names one side of the comparison.
type Run struct {
	Name    string `json:"name"`
	RunID   string `json:"run_id,omitempty"`
	Eval    string `json:"eval,omitempty"`
	Runner  string `json:"runner,omitempty"`
	Scored  bool   `json:"scored"`
	Repeats int    `json:"repeats"`
}

// Report is two runs compared.
type Report struct {
	A     Run    `json:"a"`
	B     Run    `json:"b"`
	Cases []Case `json:"cases"`
	// OnlyA and OnlyB are the (case, attempt)s one run has.
	OnlyA []string `json:"only_a,omitempty"`
	OnlyB []string `json:"only_b,omitempty"`
	// TrajectoryChanged and VerdictChanged list the (case, attempt)s
	// whose trajectory, or verdict, changed.
	TrajectoryChanged []string `json:"trajectory_changed,omitempty"`
	VerdictChanged    []string `json:"verdict_changed,omitempty"`
	// PassRate is the change of pass rate over the run, and PerCase each
	// case's over its attempts (cases with two or more paired attempts).
	PassRate *Significance  `json:"pass_rate,omitempty"`
	PerCase  []Significance `json:"per_case,omitempty"`
}

// Options select what to compare.
type Options struct {
	// Cases limits the comparison to these case ids (all when empty).
	Cases []string
	// Redact hides secrets in every text the report keeps (nil: none).
	Redact func(string) string
}

// Diff compares run a with run b.
func Diff(a, b rundir.Dir, opts Options) (*Report, error) {
	red := opts.Redact
	if red == nil {
		red = func(s string) string { return s }
	}
	la, err := load(a, opts.Cases, red)
	if err != nil {
		return nil, err
	}
	lb, err := load(b, opts.Cases, red)
	if err != nil {
		return nil, err
	}
	r := &Report{A: la.run, B: lb.run}
	keys := map[string]bool{}
	for k := range la.cases {
		keys[k] = true
	}
	for k := range lb.cases {
		keys[k] = true
	}
	sorted := make([]string, 0, len(keys))
	for k := range keys {
		sorted = append(sorted, k)
	}
	sort.Slice(sorted, func(i, j int) bool {
		ci, ni := rundir.SplitAttempt(sorted[i])
		cj, nj := rundir.SplitAttempt(sorted[j])
		if ci != cj {
			return ci < cj
		}
		return ni < nj
	})
	for _, k := range sorted {
		ca, cb := la.cases[k], lb.cases[k]
		id, n := rundir.SplitAttempt(k)
		c := Case{Case: id, Attempt: n}
		switch {
		case cb == nil:
			c.Only, c.A = "a", &ca.side
			r.OnlyA = append(r.OnlyA, k)
		case ca == nil:
			c.Only, c.B = "b", &cb.side
			r.OnlyB = append(r.OnlyB, k)
		default:
			if err := compareCase(&c, a, b, ca, cb, red); err != nil {
				return nil, err
			}
			if c.TrajectoryChanged {
				r.TrajectoryChanged = append(r.TrajectoryChanged, k)
			}
			if c.VerdictChanged {
				r.VerdictChanged = append(r.VerdictChanged, k)
			}
		}
		r.Cases = append(r.Cases, c)
	}
	r.PassRate, r.PerCase = significance(r.Cases)
	return r, nil
}

func compareCase(c *Case, da, db rundir.Dir, a, b *loaded, red func(string) string) error {
	c.A, c.B = &a.side, &b.side
	c.Steps = align(a.calls, b.calls)
	for i := range c.Steps {
		s := &c.Steps[i]
		switch s.Op {
		case OpAdded:
			c.Added++
		case OpRemoved:
			c.Removed++
		case OpChanged:
			c.Changed++
		}
		if s.Op != OpSame && c.FirstDivergence == nil {
			s.First = true
			c.FirstDivergence = s
		}
	}
	c.TrajectoryChanged = c.FirstDivergence != nil
	c.FirstDivergence = replaced(c.Steps, c.FirstDivergence)
	c.AnswerChanged = a.side.Answer != b.side.Answer
	c.StatusChanged = a.side.Status != b.side.Status
	files, err := compareFiles(da, db, c.Key(), a.files, b.files, red)
	if err != nil {
		return err
	}
	c.Files = files
	c.Judges = judgeChanges(a.verdicts, b.verdicts)
	c.VerdictChanged = len(c.Judges) > 0 || !sameBool(a.side.Passed, b.side.Passed)
	return nil
}

// replaced is the first divergence with both sides: a call removed that
// the next call added (before the trajectories meet again) replaced is
// one step, "replaced".
func replaced(steps []Step, first *Step) *Step {
	if first == nil || first.Op != OpRemoved {
		return first
	}
	for i := range steps {
		s := &steps[i]
		if s.IndexA <= first.IndexA && s.Op != OpAdded {
			continue
		}
		if s.Op == OpAdded {
			s.First = true // part of the first divergence
			r := *first
			r.Op, r.IndexB, r.B = OpReplaced, s.IndexB, s.B
			return &r
		}
		if s.Op != OpRemoved {
			break
		}
	}
	return first
}

func sameBool(a, b *bool) bool {
	return (a == nil) == (b == nil) && (a == nil || *a == *b)
}

func sameFloat(a, b *float64) bool {
	return (a == nil) == (b == nil) && (a == nil || *a == *b)
}

func judgeChanges(a, b []rundir.Verdict) []JudgeChange {
	var out []JudgeChange
	seen := map[string]bool{}
	find := func(vs []rundir.Verdict, j string) *rundir.Verdict {
		for i := range vs {
			if vs[i].Judge == j {
				return &vs[i]
			}
		}
		return nil
	}
	for _, vs := range [][]rundir.Verdict{a, b} {
		for _, v := range vs {
			if seen[v.Judge] {
				continue
			}
			seen[v.Judge] = true
			jc := JudgeChange{Judge: v.Judge}
			if x := find(a, v.Judge); x != nil {
				jc.A, jc.PassedA = x.Value, x.Passed
			}
			if x := find(b, v.Judge); x != nil {
				jc.B, jc.PassedB = x.Value, x.Passed
			}
			if !sameFloat(jc.A, jc.B) || !sameBool(jc.PassedA, jc.PassedB) {
				out = append(out, jc)
			}
		}
	}
	return out
}

// significance pairs the (case, attempt)s both runs judged pass/fail.
func significance(cases []Case) (*Significance, []Significance) {
	all := Significance{Test: "mcnemar-exact"}
	per := map[string]*Significance{}
	var order []string
	for _, c := range cases {
		if c.A == nil || c.B == nil || c.A.Passed == nil || c.B.Passed == nil {
			continue
		}
		s := per[c.Case]
		if s == nil {
			s = &Significance{Case: c.Case, Test: "mcnemar-exact"}
			per[c.Case] = s
			order = append(order, c.Case)
		}
		for _, t := range []*Significance{&all, s} {
			t.Paired++
			pa, pb := *c.A.Passed, *c.B.Passed
			if pa {
				t.PassA++
			}
			if pb {
				t.PassB++
			}
			switch {
			case pb && !pa:
				t.Gained++
			case pa && !pb:
				t.Lost++
			}
		}
	}
	if all.Paired == 0 {
		return nil, nil
	}
	test(&all)
	var out []Significance
	for _, id := range order {
		if s := per[id]; s.Paired >= 2 {
			test(s)
			out = append(out, *s)
		}
	}
	return &all, out
}

func test(s *Significance) {
	p := stats.McNemarExact(s.Gained, s.Lost)
	if !math.IsNaN(p) {
		p = math.Round(p*1e6) / 1e6
		s.PValue = &p
	}
	switch {
	case s.PValue == nil || *s.PValue >= significanceLevel || s.Gained == s.Lost:
		s.Verdict = "no evidence of a change"
	case s.Gained > s.Lost:
		s.Verdict = "better"
	default:
		s.Verdict = "worse"
	}
}

// loaded is one (case, attempt) of a run, read.
type loaded struct {
	side     Side
	calls    []Call
	files    []rundir.KeptFile
	verdicts []rundir.Verdict
}

type loadedRun struct {
	run   Run
	cases map[string]*loaded
}

func load(d rundir.Dir, only []string, red func(string) string) (*loadedRun, error) {
	lr := &loadedRun{run: Run{Name: filepath.Base(d.Path), Repeats: 1}, cases: map[string]*loaded{}}
	if rr, err := d.ReadRun(); err == nil {
		lr.run.RunID, lr.run.Eval, lr.run.Runner = rr.RunID, rr.EvalName, rr.Agent
	}
	sum, err := d.ReadSummary()
	lr.run.Scored = err == nil && sum != nil
	verdicts := map[string]rundir.CaseSummary{}
	if lr.run.Scored {
		for _, cs := range sum.Cases {
			if len(cs.Attempts) == 0 {
				verdicts[cs.ID] = cs
			}
			for _, at := range cs.Attempts {
				verdicts[rundir.AttemptKey(cs.ID, max(at.Attempt, 1))] = at
			}
		}
	}
	ids, err := d.CaseIDs()
	if err != nil {
		return nil, err
	}
	for _, id := range ids {
		if len(only) > 0 && !slices.Contains(only, id) {
			continue
		}
		for n := 1; d.HasCase(rundir.AttemptKey(id, n)); n++ {
			lr.run.Repeats = max(lr.run.Repeats, n)
			key := rundir.AttemptKey(id, n)
			l, err := loadCase(d, key, red)
			if err != nil {
				return nil, err
			}
			if lr.run.Scored {
				cs, ok := verdicts[key]
				if ok {
					l.verdicts = cs.Verdicts
					l.side.Passed = passed(cs.Verdicts)
				}
			}
			lr.cases[key] = l
		}
	}
	return lr, nil
}

// passed: every pass/fail verdict passed (nil: there is none).
func passed(vs []rundir.Verdict) *bool {
	var out *bool
	for _, v := range vs {
		if v.Passed == nil {
			continue
		}
		p := *v.Passed
		if out != nil {
			p = p && *out
		}
		out = &p
	}
	return out
}

func loadCase(d rundir.Dir, key string, red func(string) string) (*loaded, error) {
	l := &loaded{}
	cr, err := d.ReadCase(key)
	if err != nil {
		return nil, fmt.Errorf("read case %s of %s: %w", key, d.Path, err)
	}
	events, err := d.ReadTranscript(key)
	if err != nil {
		return nil, err
	}
	events = transcript.WithDenials(events, cr.PermissionDenials)
	ledger, err := d.ReadLedger(key)
	if err != nil {
		return nil, err
	}
	l.calls = normalise(events, ledger, pathutil.RelativeTo(cr.Workspace), red)
	l.side.Status = string(cr.Status)
	l.side.Calls = len(l.calls)
	for _, c := range l.calls {
		if c.Outcome == OutcomeHookDenied || c.Outcome == OutcomePermDenied {
			l.side.Denials++
		}
	}
	answer := cr.Result
	for _, e := range events {
		if e.Kind == transcript.KindResult {
			answer = e.Text
		}
	}
	l.side.Answer = clip.String(safe(red(pathutil.RelativeTo(cr.Workspace)(answer)), true), maxAnswerText)
	l.files, err = d.KeptFiles(key)
	if err != nil {
		return nil, err
	}
	return l, nil
}

// normalise turns the transcript and the ledger into calls: each tool
// call once, in order, with how it ended (the hook's deny or answers over
// the result the agent saw).
func normalise(events []transcript.Event, ledger []rundir.Decision, rel, red func(string) string) []Call {
	var out []Call
	at := map[string]int{}
	text := func(s string) string { return safe(red(rel(s)), false) }
	add := func(e transcript.Event, outcome string) {
		c := Call{Tool: safe(e.Tool, false), Target: clip.String(text(transcript.InputSummary(json.RawMessage(rel(string(e.Input))), 4*maxTarget)), maxTarget), Outcome: outcome}
		if e.ToolUseID != "" {
			at[e.ToolUseID] = len(out)
		}
		out = append(out, c)
	}
	for _, e := range events {
		switch e.Kind {
		case transcript.KindToolCall:
			if _, ok := at[e.ToolUseID]; ok && e.ToolUseID != "" {
				continue // a call streamed twice is one call
			}
			add(e, OutcomeNoResult)
		case transcript.KindToolResult:
			if i, ok := at[e.ToolUseID]; ok && out[i].Outcome == OutcomeNoResult {
				out[i].Outcome = map[bool]string{true: OutcomeError, false: OutcomeOK}[e.IsError]
			}
		case transcript.KindDenial:
			if i, ok := at[e.ToolUseID]; ok && e.ToolUseID != "" {
				out[i].Outcome = OutcomePermDenied
				continue
			}
			add(e, OutcomePermDenied)
		}
	}
	for _, d := range ledger {
		i, ok := at[d.ToolUseID]
		if !ok || d.ToolUseID == "" {
			continue
		}
		c := &out[i]
		switch d.Decision {
		case "deny", "block":
			c.Outcome, c.Reason = OutcomeHookDenied, clip.String(text(d.Reason), maxTarget)
		}
		if len(d.Answers) > 0 && c.Outcome != OutcomeHookDenied {
			c.Outcome = OutcomeAnswered
			c.Answers = nil
			for q, a := range d.Answers {
				c.Answers = append(c.Answers, clip.String(text(q), maxTarget)+" → "+clip.String(text(a), maxTarget))
			}
			sort.Strings(c.Answers)
		}
	}
	return out
}

// safe is s with what a terminal could act on replaced: control
// characters (but new lines and tabs when multiline), and invalid UTF-8;
// on one line unless multiline.
func safe(s string, multiline bool) string {
	if !multiline {
		s = transcript.OneLine(s)
	}
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	return strings.Map(func(r rune) rune {
		if r == '\n' && multiline || r == '\t' && multiline {
			return r
		}
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return '\uFFFD'
		}
		return r
	}, s)
}
