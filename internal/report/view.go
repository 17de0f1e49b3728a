package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/agent-eval/agent-eval/internal/clip"
	"github.com/agent-eval/agent-eval/internal/pathutil"
	"github.com/agent-eval/agent-eval/internal/redact"
	"github.com/agent-eval/agent-eval/internal/results"
	"github.com/agent-eval/agent-eval/internal/rundir"
	"github.com/agent-eval/agent-eval/internal/transcript"
)

// Bounds that keep report.html a size a browser opens at once for hundreds
// of cases; the run directory keeps everything in full.
const (
	// maxShown clips one text (a tool result, a message) in the report.
	maxShown = 8 << 10
	// longText is where a text is collapsed behind its first line.
	longText  = 600
	longLines = 12
	// maxInline is the largest output file shown inline, and maxInlined
	// what one case inlines in all.
	maxInline  = 16 << 10
	maxInlined = 256 << 10
	// caseBudget is the text one case's transcript shows in full; past it
	// each text is clipped to tightShown (a session of thousands of calls).
	caseBudget = 1 << 20
	tightShown = 512
)

// page is what report.html renders.
type page struct {
	Title    string
	RunID    string
	EvalName string
	Model    string
	Agent    string
	Scored   bool
	Passed   bool
	ScoredAt string
	Run      *results.RunResult
	Summary  *rundir.Summary
	Judges   []rundir.JudgeSummary
	// BoolJudge: the judge's verdicts are pass/fail, without a number.
	BoolJudge map[string]bool
	Cases     []*caseView
	Totals    totals
	// Problems are what could not be read (a case without a result, a
	// transcript that did not parse): shown, never fatal.
	Problems []string
	// Compare links the comparison page in the run directory, when there
	// is one.
	Compare string
	// Analysis links analysis.md (agent-eval analyze), when the run has
	// one.
	Analysis string
	// Previous is the run before this one in its runs directory, History
	// the runs directory's history.html (previous.go).
	Previous *previousView
	History  string
	// Batch is the one agent run of a batch run (execution.mode: batch):
	// its transcript and denials, and the outputs every case shares, shown
	// once; nil in case mode.
	Batch *batchView
	// Reviewed: review.yaml reviews some case (the table has a human
	// column); HumanLine sums the human verdicts up against the judges'.
	Reviewed  bool
	HumanLine string
	review    *rundir.Review
	// red hides the secrets of this environment and those the run marked
	// in its files (rundir.SecretMarksFile); changed are the marked files
	// that changed since.
	red     *redact.Redactor
	changed map[string]bool
	Style   any
	Script  any
	CSP     string
}

type totals struct {
	Cases     int
	CostUSD   float64
	DurationS float64
	WallS     float64
	Turns     int
	Denials   int
	// Violations: what the agents tried that their world refused.
	Violations int
	Answers    []tierCount
	Statuses   []tierCount
}

type tierCount struct {
	Name  string
	Count int
}

type caseView struct {
	ID        string
	Status    string
	StatusWhy string
	Error     string
	Reward    *float64
	CostUSD   float64
	DurationS float64
	Turns     int
	Denials   int
	Answers   []tierCount
	// Cells are the case's verdicts in the order of the page's judges.
	Cells    []cell
	Verdicts []rundir.Verdict
	Failed   bool // a judge failed or errored on it
	// Human is the case's review in review.yaml (nil without one).
	Human    *humanView
	Items    []item
	Outputs  []output
	Modified []string
	// Unmatched are hook decisions no transcript call carries.
	Unmatched []hookView
	Prompt    string
	// RelWS: the case ran in a workspace, whose paths are shown relative.
	RelWS bool
	// InBatch: the case was done by the batch's agent run, whose
	// transcript and metrics the page shows once.
	InBatch bool
	// BoundaryRefused are the hosts the boundary's proxy refused the
	// case's agent.
	BoundaryRefused []results.Refusal
	// Violations are what the case's agent tried that its world refused
	// (docs/violations.md); NumViolations counts them.
	Violations    []results.Violation
	NumViolations int
	// CLITraffic are the refusals of the agent CLI's own traffic (kind
	// cli_traffic), listed apart: they are not violations.
	CLITraffic []results.Violation
}

// batchView is a batch run's own agent run.
type batchView struct {
	Status    string
	Error     string
	CostUSD   float64
	DurationS float64
	Turns     int
	Denials   int
	Items     []item
	Unmatched []hookView
	Prompt    string
	// Unit: no batch_pattern, the batch is judged as one case.
	Unit bool
	// Shared are the files every case got; Unassigned and Refused the
	// files no case got.
	Shared     []output
	Unassigned []string
	Refused    []string
}

// cell is one judge's verdict on one case, in the table.
type cell struct {
	Judge string
	Class string // pass, fail, err, skip, val, none
	Text  string
	Sort  string
	Title string
}

// item is one entry of a transcript as a person reads it.
type item struct {
	Kind      string // step, prompt, text, thinking, tool, denial, result, error
	Step      string
	Text      string
	Head      string // the first line of a long text, shown collapsed
	Long      bool
	Clipped   bool
	Tool      string
	ToolUseID string
	Summary   string
	Input     string
	HasResult bool
	Result    string
	ResultErr bool
	ResultHd  string
	ResultLng bool
	Denied    bool
	Hooks     []hookView
}

// hookView is one hook ledger decision, for a person.
type hookView struct {
	Tool     string
	Decision string
	Class    string // deny, answer, fallback, allow, pass
	Label    string // what the tag says: hook deny, hook answer, ...
	// Handler is the matching handler's 0-based index in
	// tool_handlers.yaml (the ledger's handler; -1: none). People read
	// HandlerNo, the same handler numbered from 1.
	Handler   int
	HandlerNo int
	Reason    string
	Detail    string
	Answers   []answerView
	Warnings  []string
}

type answerView struct {
	Question string
	Answer   string
	Tier     string
}

type output struct {
	Path    string
	Href    string
	Size    int64
	Text    string
	Inlined bool
	Why     string
}

// load builds the page from the run directory and its summary (nil when
// the run was not scored).
func load(dir rundir.Dir, s *rundir.Summary) *page { return loadWith(dir, s, loadOptions{}) }

// loadOptions narrow what load reads: light reads no transcript, ledger or
// output file (the case table only); only reads one case (a case key).
type loadOptions struct {
	light bool
	only  string
	// page: the case's transcript is read as one page (CasePage).
	page *Paging
}

func loadWith(dir rundir.Dir, s *rundir.Summary, o loadOptions) *page {
	p := &page{Summary: s, Scored: s != nil, changed: map[string]bool{}}
	// What was found is hidden even when not all of it could be.
	red, changed, err := dir.Redactor(os.Environ())
	p.red = red
	if err != nil {
		p.Problems = append(p.Problems, err.Error())
	}
	for _, c := range changed {
		p.changed[c] = true
	}
	run, err := dir.ReadRun()
	if err == nil {
		p.Run = run
		p.RunID, p.EvalName, p.Model, p.Agent = run.RunID, run.EvalName, run.Model, run.Agent
		p.Totals.WallS = run.WallClockS
	} else {
		p.Problems = append(p.Problems, err.Error())
	}
	if s != nil {
		p.Passed, p.ScoredAt, p.Judges = s.Passed, s.ScoredAt, s.Judges
		p.BoolJudge = map[string]bool{}
		for _, j := range s.Judges {
			p.BoolJudge[j.Name] = j.Type == "bool"
		}
		if s.RunID != "" {
			p.RunID = s.RunID
		}
		if s.EvalName != "" {
			p.EvalName = s.EvalName
		}
		if s.Model != "" {
			p.Model = s.Model
		}
	}
	if p.RunID == "" {
		p.RunID = filepath.Base(dir.Path)
	}
	if _, err := os.Stat(filepath.Join(dir.Path, CompareFile)); err == nil {
		p.Compare = CompareFile
	}
	if fi, err := os.Lstat(dir.Analysis()); err == nil && fi.Mode().IsRegular() {
		p.Analysis = rundir.AnalysisFile
	}
	p.Previous, p.History = previousRun(dir, p.EvalName, p.red)
	review, err := dir.ReadReview()
	p.note(err)
	p.review = review
	if h := rundir.Human(s, review); h != nil {
		p.HumanLine = humanLine(h, func(s string) string { return s })
	}
	// The header shows the run's own words: the secrets in them are hidden.
	for _, f := range []*string{&p.RunID, &p.EvalName, &p.Model, &p.Agent} {
		*f = p.red.String(*f)
	}
	p.Title = "agent-eval: " + strings.TrimPrefix(p.EvalName+" / "+p.RunID, " / ")

	ids, err := dir.CaseIDs()
	if err != nil {
		p.Problems = append(p.Problems, err.Error())
	}
	assigned, err := dir.ReadBatchAssignment()
	p.note(err)
	if run != nil && run.Batch != nil && !o.light {
		p.Batch = loadBatch(dir, run.Batch, assigned, p)
	}
	byID := map[string]*rundir.CaseSummary{}
	if s != nil {
		for i := range s.Cases {
			byID[s.Cases[i].ID] = &s.Cases[i]
			if !contains(ids, s.Cases[i].ID) {
				ids = append(ids, s.Cases[i].ID)
			}
		}
	}
	sort.Strings(ids)
	answers, statuses := map[string]int{}, map[string]int{}
	if o.only != "" {
		ids = slices.DeleteFunc(ids, func(id string) bool { return id != o.only })
		if len(ids) == 0 && dir.HasCase(o.only) {
			ids = []string{o.only} // a later attempt, in cases/<id>/attempts/<n>
		}
	}
	for _, id := range ids {
		cv := loadCase(dir, id, byID[id], p, !o.light, o.page)
		if assigned.InBatch(id) {
			batchCase(cv, assigned)
		}
		p.Cases = append(p.Cases, cv)
		p.Totals.Cases++
		p.Totals.CostUSD += cv.CostUSD
		p.Totals.DurationS += cv.DurationS
		p.Totals.Turns += cv.Turns
		p.Totals.Denials += cv.Denials
		p.Totals.Violations += cv.NumViolations
		statuses[cv.Status]++
		for _, a := range cv.Answers {
			answers[a.Name] += a.Count
		}
	}
	if s != nil {
		// The summary's own totals win: score may count what the case
		// folders no longer show.
		p.Totals.Denials = s.Denials
		p.Totals.Violations = s.Violations.Total
		if s.CostUSD > 0 {
			p.Totals.CostUSD = s.CostUSD
		}
		if s.AnswersByTier != nil {
			answers = s.AnswersByTier
		}
	}
	if b := p.Batch; b != nil {
		p.Totals.CostUSD, p.Totals.DurationS, p.Totals.Turns = b.CostUSD, b.DurationS, b.Turns
		if s == nil {
			p.Totals.Denials = b.Denials
		}
	}
	p.Totals.Answers = counts(answers)
	p.Totals.Statuses = counts(statuses)
	return p
}

// relativeWorkspace rewrites the paths inside the deleted workspace ws,
// in events and ledger (in place) and in errText (returned), relative to it.
func relativeWorkspace(ws, errText string, events []transcript.Event, ledger []rundir.Decision) string {
	rel := relativeTo(ws)
	for i := range events {
		events[i].Text, events[i].Input = rel(events[i].Text), json.RawMessage(rel(string(events[i].Input)))
	}
	for i := range ledger {
		ledger[i].Reason, ledger[i].Detail = rel(ledger[i].Reason), rel(ledger[i].Detail)
	}
	return rel(errText)
}

// note keeps err, when there is one, among the page's problems.
func (p *page) note(err error) {
	if err != nil {
		p.Problems = append(p.Problems, err.Error())
	}
}

// loadBatch reads a batch run's own agent run: its transcript and ledger
// at the run's root, and the outputs it shared with every case.
func loadBatch(dir rundir.Dir, c *results.Case, a *rundir.BatchAssignment, p *page) *batchView {
	b := &batchView{Status: string(c.Status), Error: c.Error, CostUSD: c.CostUSD, DurationS: c.DurationS, Turns: c.NumTurns,
		Denials: len(c.PermissionDenials), Prompt: c.Prompt}
	events, err := dir.ReadBatchTranscript()
	p.note(err)
	ledger, err := dir.ReadBatchLedger()
	p.note(err)
	events = transcript.WithDenials(events, c.PermissionDenials)
	b.Error = relativeWorkspace(c.Workspace, b.Error, events, ledger)
	b.Items, b.Unmatched = items(events, ledger)
	if hasKind(events, transcript.KindPrompt) {
		b.Prompt = ""
	}
	if a == nil {
		return b
	}
	b.Unit, b.Unassigned, b.Refused = a.Unit, a.Unassigned, a.Refused
	inlined := 0
	for _, f := range a.Shared {
		// Every case holds a copy: the first one's is shown.
		for _, id := range a.Order {
			if slices.Contains(a.Cases[id], f) {
				o := readOutput(dir, id, f, inlined < maxInlined, p)
				inlined += len(o.Text)
				b.Shared = append(b.Shared, o)
				break
			}
		}
	}
	return b
}

// batchCase makes a batch case's view show only what is its own: the
// batch's metrics, transcript and shared outputs are shown once, above.
func batchCase(cv *caseView, a *rundir.BatchAssignment) {
	cv.InBatch = true
	cv.CostUSD, cv.DurationS, cv.Turns, cv.Denials = 0, 0, 0, 0
	cv.Violations, cv.NumViolations, cv.CLITraffic = nil, 0, nil
	cv.Items, cv.Unmatched, cv.Prompt = nil, nil, ""
	cv.Outputs = slices.DeleteFunc(cv.Outputs, func(o output) bool { return slices.Contains(a.Shared, o.Path) })
}

func loadCase(dir rundir.Dir, id string, cs *rundir.CaseSummary, p *page, full bool, pg *Paging) *caseView {
	cv := &caseView{ID: id, Status: "no result"}
	c, err := dir.ReadCase(id)
	if err != nil {
		c = nil
	}
	if c != nil {
		cv.Status, cv.Error = string(c.Status), c.Error
		cv.CostUSD, cv.DurationS, cv.Turns = c.CostUSD, c.DurationS, c.NumTurns
		cv.Denials = len(c.PermissionDenials)
		cv.Answers = counts(c.AnswersByTier)
		cv.Modified = c.ModifiedFiles
		cv.Prompt = c.Prompt
		cv.BoundaryRefused = c.Refused
		if c.ExitCode != 0 && cv.Error == "" {
			cv.Error = fmt.Sprintf("the agent exited %d", c.ExitCode)
		}
	} else if cs == nil {
		p.Problems = append(p.Problems, err.Error())
	}
	if cs != nil {
		cv.Status, cv.Reward, cv.Verdicts = cs.Status, cs.Reward, slices.Clone(cs.Verdicts)
		// score redacted them with what it knew; the run's marks again.
		for i := range cv.Verdicts {
			cv.Verdicts[i].Rationale, cv.Verdicts[i].Error = p.red.String(cv.Verdicts[i].Rationale), p.red.String(cv.Verdicts[i].Error)
		}
		cv.CostUSD, cv.DurationS, cv.Turns, cv.Denials = cs.CostUSD, cs.DurationS, cs.Turns, cs.Denials
		if cs.Answers != nil {
			cv.Answers = counts(cs.Answers)
		}
	}
	// run_result.json says "passed" for an agent that exited 0: that is no
	// verdict, so the report never says it.
	if cv.Status == "passed" {
		cv.Status = "completed"
	}
	cv.StatusWhy = statusWhy(cv.Status)
	for _, j := range p.Judges {
		c := cellFor(j, findVerdict(cv.Verdicts, j.Name))
		c.Judge = j.Name
		if c.Class == "fail" || c.Class == "err" {
			cv.Failed = true
		}
		cv.Cells = append(cv.Cells, c)
	}
	if cv.Human = humanOf(p.review, cs, id, p.red.String); cv.Human != nil {
		p.Reviewed = true
	}
	if !full {
		return cv
	}

	countViolations := dir.CaseViolations
	if pg != nil {
		countViolations = func(id string, c *results.Case) (*results.Violations, error) { return pagedViolations(dir, id, c) }
	}
	if vs, err := countViolations(id, c); err != nil {
		p.Problems = append(p.Problems, err.Error())
	} else if vs != nil {
		cv.NumViolations = vs.Total
		for _, v := range vs.List {
			// Redacted again with the run's marks, as the verdicts are.
			v.Target, v.Reason = p.red.String(v.Target), p.red.String(v.Reason)
			if v.Kind == results.ViolationCLITraffic {
				cv.CLITraffic = append(cv.CLITraffic, v)
				continue
			}
			cv.Violations = append(cv.Violations, v)
		}
	}
	if pg != nil {
		pagedTranscript(dir, id, c, pg, p, cv)
	} else {
		fullTranscript(dir, id, c, p, cv)
	}
	files, err := dir.OutputFiles(id)
	if err != nil {
		p.Problems = append(p.Problems, err.Error())
	}
	inlined := 0
	for _, f := range files {
		o := readOutput(dir, id, f, inlined < maxInlined, p)
		inlined += len(o.Text)
		cv.Outputs = append(cv.Outputs, o)
	}
	return cv
}

// fullTranscript fills cv's items with its whole transcript.
func fullTranscript(dir rundir.Dir, id string, c *results.Case, p *page, cv *caseView) {
	events, err := dir.ReadTranscript(id)
	p.note(err)
	ledger, err := dir.ReadLedger(id)
	p.note(err)
	if c != nil {
		events = transcript.WithDenials(events, c.PermissionDenials)
		cv.RelWS = c.Workspace != ""
		cv.Error = relativeWorkspace(c.Workspace, cv.Error, events, ledger)
	}
	cv.Items, cv.Unmatched = items(events, ledger)
	if cv.Prompt != "" && hasKind(events, transcript.KindPrompt) {
		cv.Prompt = ""
	}
}

func statusWhy(s string) string {
	switch s {
	case "completed":
		return "the agent exited 0; this is not a verdict"
	case "failed":
		return "the agent exited non-zero"
	case "timeout":
		return "the agent was stopped at its timeout"
	case "interrupted":
		return "the run was interrupted"
	case "tampered":
		return "what scoring reads (eval.yaml, the dataset, the judges' files, the judge cache) changed while the run went on (by an agent, or by something else on this machine): every verdict is a failure"
	case "infra_error":
		return "the infrastructure that ran the case failed (a Harbor trial's environment or agent setup, before the agent started): not judged, never a 0"
	case "no result":
		return "the case folder has no run_result.json"
	}
	return "how the agent's run ended"
}

func findVerdict(vs []rundir.Verdict, judge string) *rundir.Verdict {
	for i := range vs {
		if vs[i].Judge == judge {
			return &vs[i]
		}
	}
	return nil
}

// cellFor renders one verdict for the case table.
func cellFor(j rundir.JudgeSummary, v *rundir.Verdict) cell {
	switch {
	case v == nil:
		return cell{Class: "none", Text: "–", Sort: "", Title: "no verdict"}
	case v.Error != "":
		return cell{Class: "err", Text: "error", Sort: "-2", Title: clip.String(v.Error, 300)}
	case v.Skipped:
		return cell{Class: "skip", Text: "skipped", Sort: "-1", Title: "its if: was false"}
	}
	c := cell{Class: "val", Title: clip.String(v.Rationale, 300)}
	if v.Value != nil {
		c.Sort = num(*v.Value)
		c.Text = num(*v.Value)
	}
	if v.Passed != nil {
		c.Class = "fail"
		if *v.Passed {
			c.Class = "pass"
		}
	}
	if j.Type == "bool" && v.Passed != nil {
		c.Text = map[bool]string{true: "pass", false: "fail"}[*v.Passed]
	}
	if c.Text == "" {
		c.Text = "–"
	}
	return c
}

// items turns transcript events into what a person reads: each tool call
// with its result, whether it was denied, and the hook's decisions on it
// (joined by tool_use_id).
func items(events []transcript.Event, ledger []rundir.Decision) ([]item, []hookView) {
	calls := map[string]bool{}
	for _, e := range events {
		if (e.Kind == transcript.KindToolCall || e.Kind == transcript.KindDenial) && e.ToolUseID != "" {
			calls[e.ToolUseID] = true
		}
	}
	b := newItemBuilder(ledger, 0, -1)
	for _, e := range events {
		b.add(e)
	}
	return b.out, b.unmatched(calls)
}

// itemBuilder makes a transcript's items one event at a time, keeping
// those numbered from..upto-1 (upto < 0: every one) and only counting the
// others, so a page of a long transcript builds no item it does not show.
type itemBuilder struct {
	hooks  map[string][]hookView
	ledger []hookView // the decisions worth showing, with their call's id
	ids    []string
	out    []item
	from   int
	upto   int
	// n counts the items made so far, kept or not; more: one past upto
	// was made.
	n    int
	more bool
	at   map[string]slot // tool_use_id -> its call's item
	left int
	step string
	// lastText is the last item's text when it is a model's text (a final
	// answer that repeats it is shown once), else "" with lastIsText false.
	lastText   string
	lastIsText bool
}

type slot struct {
	n      int
	result bool
}

func newItemBuilder(ledger []rundir.Decision, from, upto int) *itemBuilder {
	b := &itemBuilder{hooks: map[string][]hookView{}, at: map[string]slot{}, left: caseBudget, from: from, upto: upto}
	for _, d := range ledger {
		h := hookOf(d)
		if h.Class == "pass" && len(h.Answers) == 0 && len(h.Warnings) == 0 {
			continue // no handler had anything to say: nothing for a person to read
		}
		b.ledger, b.ids = append(b.ledger, h), append(b.ids, d.ToolUseID)
		if d.ToolUseID != "" {
			h.Tool = "" // the call it sits on names it
			b.hooks[d.ToolUseID] = append(b.hooks[d.ToolUseID], h)
		}
	}
	return b
}

// unmatched are the decisions on no call of calls (every call id of the
// transcript).
func (b *itemBuilder) unmatched(calls map[string]bool) []hookView {
	var out []hookView
	for i, h := range b.ledger {
		if b.ids[i] == "" || !calls[b.ids[i]] {
			out = append(out, h)
		}
	}
	return out
}

// kept is item n when this builder keeps it.
func (b *itemBuilder) kept(n int) *item {
	if n < b.from || n-b.from >= len(b.out) {
		return nil
	}
	return &b.out[n-b.from]
}

// emit numbers the next item and keeps it (made by mk) when it is in the
// builder's range.
func (b *itemBuilder) emit(mk func() item) *item {
	n := b.n
	b.n++
	if n < b.from {
		return nil
	}
	if b.upto >= 0 && n >= b.upto {
		b.more = true
		return nil
	}
	b.out = append(b.out, mk())
	return &b.out[len(b.out)-1]
}

func (b *itemBuilder) shown(s string, truncated bool) (string, bool) {
	limit := maxShown
	if b.left <= 0 {
		limit = tightShown
	}
	s, clipped := clip.Cut(s, limit)
	b.left -= len(s)
	return s, clipped || truncated
}

// add reads one event. An event whose items are all before the range may
// carry only its kind, step and tool_use_id (and text for a text or a
// result): nothing else of it is read.
func (b *itemBuilder) add(e transcript.Event) {
	if e.Step != b.step {
		b.step = e.Step
		if b.step != "" {
			b.emit(func() item { return item{Kind: "step", Step: e.Step} })
			b.lastIsText = false
		}
	}
	switch e.Kind {
	case transcript.KindToolCall:
		n := b.n
		b.emit(func() item {
			return item{Kind: "tool", Tool: e.Tool, ToolUseID: e.ToolUseID, Summary: transcript.InputSummary(e.Input, 160), Input: pretty(e.Input), Hooks: b.hooks[e.ToolUseID]}
		})
		if e.ToolUseID != "" {
			b.at[e.ToolUseID] = slot{n: n}
		}
		b.lastIsText = false
	case transcript.KindToolResult:
		if s, ok := b.at[e.ToolUseID]; ok && !s.result {
			b.at[e.ToolUseID] = slot{n: s.n, result: true}
			if it := b.kept(s.n); it != nil {
				it.HasResult, it.ResultErr = true, e.IsError
				it.Result, it.Clipped = b.shown(e.Text, e.Truncated)
				it.ResultHd, it.ResultLng = head(it.Result)
			}
			return
		}
		b.emit(func() item {
			it := item{Kind: "tool", Tool: "(result)", ToolUseID: e.ToolUseID, HasResult: true, ResultErr: e.IsError}
			it.Result, it.Clipped = b.shown(e.Text, e.Truncated)
			it.ResultHd, it.ResultLng = head(it.Result)
			return it
		})
		b.lastIsText = false
	case transcript.KindDenial:
		if s, ok := b.at[e.ToolUseID]; ok {
			if it := b.kept(s.n); it != nil {
				it.Denied = true
			}
			return
		}
		n := b.n
		b.emit(func() item {
			return item{Kind: "tool", Tool: e.Tool, ToolUseID: e.ToolUseID, Summary: transcript.InputSummary(e.Input, 160), Input: pretty(e.Input), Denied: true, Hooks: b.hooks[e.ToolUseID]}
		})
		if e.ToolUseID != "" {
			b.at[e.ToolUseID] = slot{n: n}
		}
		b.lastIsText = false
	default:
		if e.Kind == transcript.KindResult && b.n > 0 {
			last := b.kept(b.n - 1)
			if last != nil && last.Kind == string(transcript.KindText) && strings.TrimSpace(last.Text) == strings.TrimSpace(e.Text) ||
				last == nil && b.lastIsText && b.lastText == strings.TrimSpace(e.Text) {
				// the final answer repeats the last message: show it once
				if last != nil {
					last.Kind, last.Long, last.ResultErr = string(transcript.KindResult), false, e.IsError
				}
				b.lastIsText = false
				return
			}
		}
		b.emit(func() item {
			it := item{Kind: string(e.Kind), Step: e.Step, ResultErr: e.IsError}
			it.Text, it.Clipped = b.shown(e.Text, e.Truncated)
			it.Head, it.Long = head(it.Text)
			if e.Kind == transcript.KindPrompt || e.Kind == transcript.KindResult {
				it.Long = false
			}
			return it
		})
		b.lastIsText = e.Kind == transcript.KindText
		b.lastText = ""
		if b.lastIsText && b.n-1 < b.from {
			b.lastText = strings.TrimSpace(e.Text) // only counted: its text is what a repeat is told by
		}
	}
}

// relativeTo writes the paths under workspace ws relative to it
// (pathutil.RelativeTo).
func relativeTo(ws string) func(string) string { return pathutil.RelativeTo(ws) }

func hookOf(d rundir.Decision) hookView {
	h := hookView{Tool: d.Tool, Decision: d.Decision, Class: d.Decision, Handler: d.Handler, Reason: d.Reason, Detail: d.Detail, Warnings: d.Warnings}
	switch d.Decision {
	case "deny", "block":
		h.Class = "deny"
	case "answer":
		h.Class = "answer"
	case "allow", "approve":
		h.Class = "allow"
	default:
		h.Class = "pass"
	}
	qs := make([]string, 0, len(d.Answers))
	for q := range d.Answers {
		qs = append(qs, q)
	}
	for q := range d.Tiers {
		if _, ok := d.Answers[q]; !ok {
			qs = append(qs, q)
		}
	}
	sort.Strings(qs)
	if len(qs) > 0 && h.Class == "allow" {
		h.Class = "answer" // the hook allows AskUserQuestion with its answers
	}
	for _, q := range qs {
		tier := d.Tiers[q]
		if tier == "fallback" && h.Class == "answer" {
			h.Class = "fallback"
		}
		h.Answers = append(h.Answers, answerView{Question: q, Answer: d.Answers[q], Tier: tier})
	}
	switch h.Class {
	case "answer":
		h.Label = "hook answer"
	case "fallback":
		h.Label = "hook answer (fallback)"
	default:
		h.Label = "hook " + h.Decision
	}
	if d.Handler >= 0 {
		h.HandlerNo = d.Handler + 1
	}
	return h
}

func pretty(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var b bytes.Buffer
	if json.Indent(&b, raw, "", "  ") != nil {
		return string(raw)
	}
	s, _ := clip.Cut(b.String(), maxShown)
	return s
}

// head is a text's first line when the text is long enough to collapse.
func head(s string) (string, bool) {
	if len(s) <= longText && strings.Count(s, "\n") < longLines {
		return "", false
	}
	first, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return clip.String(first, 120), true
}

func readOutput(dir rundir.Dir, id, rel string, inline bool, p *page) output {
	o := output{Path: rel, Href: hrefOf(rundir.CasesDir + "/" + id + "/" + rundir.OutputsDir + "/" + rel)}
	if shown := p.red.String(rel); shown != rel {
		// The agent named a file after a secret: neither name nor link.
		o.Path, o.Href = shown, ""
	}
	path := filepath.Join(dir.Outputs(id), filepath.FromSlash(rel))
	fi, err := os.Stat(path)
	if err != nil {
		o.Why = p.red.String(err.Error())
		return o
	}
	o.Size = fi.Size()
	if o.Size > maxInline || !inline {
		o.Why = "too large to show here"
		if !inline {
			o.Why = "not shown: this case's other outputs fill the page"
		}
		return o
	}
	b, err := os.ReadFile(path)
	if err != nil {
		o.Why = err.Error()
		return o
	}
	if !utf8.Valid(b) || bytes.IndexByte(b, 0) >= 0 {
		o.Why = "binary"
		return o
	}
	// The agent's files are kept as written, but the page redacts them as
	// the run redacts its logs: it is what gets shared. A file that held a
	// secret of the run and changed since cannot be told safe.
	if p.changed[rundir.CasesDir+"/"+id+"/"+rundir.OutputsDir+"/"+rel] {
		o.Why = "not shown: it held a secret of the run and changed since"
		return o
	}
	o.Text, o.Inlined = p.red.String(string(b)), true
	return o
}

// hrefOf is a relative link to a slash-separated path, each segment
// escaped (a file named "#1 notes.md" is a file, not a fragment).
func hrefOf(path string) string {
	segs := strings.Split(path, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
}

func counts(m map[string]int) []tierCount {
	var out []tierCount
	for k, v := range m {
		out = append(out, tierCount{k, v})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func hasKind(events []transcript.Event, k transcript.Kind) bool {
	for _, e := range events {
		if e.Kind == k {
			return true
		}
	}
	return false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
