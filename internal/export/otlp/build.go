package otlp

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/agent-eval/agent-eval/internal/clip"
	"github.com/agent-eval/agent-eval/internal/redact"
	"github.com/agent-eval/agent-eval/internal/results"
	"github.com/agent-eval/agent-eval/internal/rundir"
	"github.com/agent-eval/agent-eval/internal/transcript"
)

// Bounds of what one span carries: a preview, never the whole text (the
// run directory keeps that).
const (
	// MaxPreview bounds a turn's text, a case's prompt and answer.
	MaxPreview = 1000
	// MaxInput bounds a tool call's input summary.
	MaxInput = 500
	// maxAttr bounds every other string attribute.
	maxAttr = 2000
)

// Attribute names beyond the GenAI semantic conventions' (gen_ai.*).
const (
	AttrRunID         = "agent_eval.run.id"
	AttrEvalName      = "agent_eval.eval.name"
	AttrAgent         = "agent_eval.agent"
	AttrAgentVersion  = "agent_eval.agent.version"
	AttrVersion       = "agent_eval.version"
	AttrCaseCount     = "agent_eval.case_count"
	AttrHookDecision  = "agent_eval.hook.decision"
	AttrHookTiers     = "agent_eval.hook.tiers"
	AttrHookReason    = "agent_eval.hook.reason"
	AttrHookHandler   = "agent_eval.hook.handler"
	AttrDenied        = "agent_eval.tool.permission_denied"
	AttrCaseID        = "agent_eval.case.id"
	AttrCaseAttempt   = "agent_eval.case.attempt"
	AttrCaseStatus    = "agent_eval.case.status"
	AttrCaseExitCode  = "agent_eval.case.exit_code"
	AttrCaseCostUSD   = "agent_eval.case.cost_usd"
	AttrCaseTurns     = "agent_eval.case.turns"
	AttrCaseDenials   = "agent_eval.case.denials"
	AttrTimeEstimated = "agent_eval.time.estimated"
)

// span is one span of the run's tree, before it is given its ids.
type span struct {
	// key names the span's place in the run; its id derives from it.
	key        string
	name       string
	start, end time.Time
	attrs      []keyValue
	// errMsg is the description of an Error status ("" and !failed: Unset).
	failed   bool
	errMsg   string
	children []*span
}

// builder reads a run directory into spans.
type builder struct {
	dir rundir.Dir
	red *redact.Redactor
	// problems are what could not be read; the spans are built anyway.
	problems []error
}

func (b *builder) str(k, v string, n int) keyValue {
	return attrString(k, clip.String(b.red.String(v), n))
}

func (b *builder) note(err error) {
	if err != nil {
		b.problems = append(b.problems, err)
	}
}

// build is the run's span tree. It fails only when the run directory has
// neither a run_result.json nor a case.
func (b *builder) build() (*span, error) {
	run, err := b.dir.ReadRun()
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		b.note(err)
	}
	ids, err := b.dir.CaseIDs()
	b.note(err)
	if run == nil && len(ids) == 0 {
		return nil, fmt.Errorf("%s has no run_result.json and no case", b.dir.Path)
	}
	if run == nil {
		run = &results.RunResult{}
	}
	runID := run.RunID
	if runID == "" {
		runID = filepath.Base(b.dir.Path)
	}
	root := &span{key: "run", name: "agent-eval run " + orDefault(run.EvalName, runID)}
	root.start, root.end = b.runWindow(run)
	root.attrs = append(root.attrs,
		b.str(AttrRunID, runID, maxAttr),
		b.str(AttrEvalName, run.EvalName, maxAttr),
		attrString("gen_ai.operation.name", "invoke_agent"),
		b.str("gen_ai.request.model", run.Model, maxAttr),
		b.str("gen_ai.agent.name", run.Agent, maxAttr),
		b.str(AttrAgent, run.Agent, maxAttr),
		b.str(AttrAgentVersion, run.AgentVersion, maxAttr),
		b.str(AttrVersion, run.HarnessVer, maxAttr),
		attrString("agent_eval.execution_mode", run.ExecutionMode),
		attrInt("agent_eval.run.exit_code", run.ExitCode),
		attrBool("agent_eval.run.interrupted", run.Interrupted),
		attrFloat("agent_eval.run.cost_usd", run.CostUSD),
		attrInt64("gen_ai.usage.input_tokens", run.TokenUsage.InputTokens),
		attrInt64("gen_ai.usage.output_tokens", run.TokenUsage.OutputTokens),
	)
	keys := rundir.AttemptKeys(ids, b.dir.Repeats())
	keys = slices.DeleteFunc(keys, func(k string) bool { return !b.dir.HasCase(k) })
	caseCount := run.NumCases
	if caseCount == 0 {
		caseCount = len(ids)
	}
	root.attrs = append(root.attrs, attrInt(AttrCaseCount, caseCount), attrInt("agent_eval.attempt_count", len(keys)))
	if run.Interrupted {
		root.failed, root.errMsg = true, "interrupted"
	}
	summary := b.summary(root)

	cursor := root.start // where the next attempt without a usable file time starts
	for _, key := range keys {
		c, err := b.dir.ReadCase(key)
		if err != nil {
			// A case whose result is missing (the run crashed under it)
			// still gets its span: from its ledger and transcript.
			b.note(err)
			id, n := rundir.SplitAttempt(key)
			c = &results.Case{CaseID: id, Attempt: n, Status: results.StatusError, Error: "no run_result.json"}
		}
		events, err := b.dir.ReadTranscript(key)
		b.note(err)
		ledger, err := b.dir.ReadLedger(key)
		b.note(err)
		cs := b.caseSpan(key, c, root, &cursor, ledger)
		b.fill(cs, key, transcript.WithDenials(events, c.PermissionDenials), ledger)
		if vs, ok := summary[key]; ok {
			cs.attrs = append(cs.attrs, attrString("agent_eval.case.verdict", verdictOf(vs)))
			b.judges(cs, key, vs)
		}
		root.children = append(root.children, cs)
	}
	if run.Batch != nil {
		events, err := b.dir.ReadBatchTranscript()
		b.note(err)
		ledger, err := b.dir.ReadBatchLedger()
		b.note(err)
		bs := b.caseSpan("batch", run.Batch, root, &cursor, ledger)
		bs.name = "batch"
		b.fill(bs, "batch", transcript.WithDenials(events, run.Batch.PermissionDenials), ledger)
		root.children = append(root.children, bs)
	}
	for _, c := range root.children {
		root.start, root.end = minTime(root.start, c.start), maxTime(root.end, c.end)
	}
	return root, nil
}

// runWindow is the run's start and end as run_result.json says.
func (b *builder) runWindow(run *results.RunResult) (time.Time, time.Time) {
	start, errS := time.Parse(time.RFC3339Nano, run.StartedAt)
	end, errE := time.Parse(time.RFC3339Nano, run.EndedAt)
	if errS != nil {
		// No start recorded (a run that died before its aggregate): the
		// run directory's own time, less the wall clock.
		st, err := os.Stat(b.dir.Path)
		start = time.Unix(0, 0).UTC()
		if err == nil {
			start = st.ModTime().UTC().Add(-seconds(run.WallClockS))
		}
	}
	if wall := start.Add(seconds(run.WallClockS)); errE != nil || end.Before(wall) {
		end = wall
	}
	return start.UTC(), end.UTC()
}

// summary adds score's verdict to the run's span and returns each case's
// (passed, failed or error), when summary.yaml exists.
func (b *builder) summary(root *span) map[string][]rundir.Verdict {
	if _, err := os.Stat(b.dir.Summary()); err != nil {
		return nil
	}
	s, err := b.dir.ReadSummary()
	if err != nil {
		b.note(err)
		return nil
	}
	out := map[string][]rundir.Verdict{}
	passed, failed := 0, 0
	for _, cs := range s.Cases {
		out[cs.ID] = cs.Verdicts
		for _, a := range cs.Attempts {
			if a.Attempt > 1 {
				out[rundir.AttemptKey(cs.ID, a.Attempt)] = a.Verdicts
			}
		}
		switch verdictOf(cs.Verdicts) {
		case "passed":
			passed++
		case "failed", "error":
			failed++
		}
	}
	root.attrs = append(root.attrs,
		attrBool("agent_eval.score.passed", s.Passed),
		attrInt("agent_eval.score.cases_passed", passed),
		attrInt("agent_eval.score.cases_failed", failed),
		attrFloat("agent_eval.score.judge_cost_usd", s.JudgeCostUSD))
	if s.Reward != nil {
		root.attrs = append(root.attrs, attrFloat("agent_eval.score.reward", *s.Reward))
	}
	return out
}

// judges adds a span per judge verdict under the case's span cs: at the
// case's end, lasting nothing (scoring ran later, at summary.yaml's
// scored_at, which each carries).
func (b *builder) judges(cs *span, key string, vs []rundir.Verdict) {
	for i, v := range vs {
		js := &span{key: fmt.Sprintf("case/%s/judge/%d", key, i+1), name: "judge " + v.Judge, start: cs.end, end: cs.end}
		js.attrs = append(js.attrs, attrString("gen_ai.operation.name", "evaluate"), b.str("agent_eval.judge.name", v.Judge, maxAttr),
			attrBool("agent_eval.judge.skipped", v.Skipped), attrBool("agent_eval.judge.cached", v.Cached))
		if v.Value != nil {
			js.attrs = append(js.attrs, attrFloat("agent_eval.judge.value", *v.Value))
		}
		if v.Passed != nil {
			js.attrs = append(js.attrs, attrBool("agent_eval.judge.passed", *v.Passed))
		}
		if v.Rationale != "" {
			js.attrs = append(js.attrs, b.str("agent_eval.judge.rationale", v.Rationale, MaxPreview))
		}
		if v.Error != "" {
			js.failed, js.errMsg = true, clip.String(b.red.String(v.Error), maxAttr)
			js.attrs = append(js.attrs, b.str("agent_eval.judge.error", v.Error, maxAttr))
		}
		cs.children = append(cs.children, js)
	}
}

// verdictOf is a case's verdict in one word: failed when a judge failed
// it, error when one could not judge it, passed when one passed it and
// none did either, else none.
func verdictOf(vs []rundir.Verdict) string {
	out := "none"
	for _, v := range vs {
		switch {
		case v.Error != "" && !v.Lost:
			if out != "failed" {
				out = "error"
			}
		case v.Passed != nil && !*v.Passed:
			out = "failed"
		case v.Passed != nil && out == "none":
			out = "passed"
		}
	}
	return out
}

// failedStatus: a case of this status is an Error span.
func failedStatus(s results.Status) bool {
	switch s {
	case results.StatusFailed, results.StatusTimeout, results.StatusError, results.StatusInfraError, results.StatusTampered, results.StatusDiverged:
		return true
	}
	return false
}

// caseSpan is the span of case attempt key, without its turns.
func (b *builder) caseSpan(key string, c *results.Case, root *span, cursor *time.Time, ledger []rundir.Decision) *span {
	id, n := rundir.SplitAttempt(key)
	if c.CaseID != "" && key != "batch" {
		id = c.CaseID
	}
	if c.Attempt > 0 {
		n = c.Attempt
	}
	s := &span{key: "case/" + key, name: "case " + key}
	dur := seconds(c.DurationS)
	estimated := true
	if st, err := os.Stat(b.dir.CaseResult(key)); err == nil && key != "batch" {
		// run_result.json's times are whole seconds: a case may end in
		// the run's last one.
		if end := st.ModTime().UTC(); !end.Before(root.start) && !end.After(root.end.Add(time.Second)) {
			s.end, estimated = end, false
			s.start = maxTime(root.start, end.Add(-dur))
		}
	}
	if estimated {
		s.start = *cursor
		s.end = s.start.Add(dur)
		*cursor = s.end
	}
	for _, d := range ledger {
		if t, ok := parseTime(d.Time); ok && !t.Before(root.start) && !t.After(root.end.Add(time.Second)) {
			s.start, s.end = minTime(s.start, t), maxTime(s.end, t)
		}
	}
	s.attrs = append(s.attrs,
		attrString("gen_ai.operation.name", "invoke_agent"),
		b.str(AttrCaseID, id, maxAttr),
		attrInt(AttrCaseAttempt, max(n, 1)),
		attrString(AttrCaseStatus, string(c.Status)),
		attrInt(AttrCaseExitCode, c.ExitCode),
		attrFloat(AttrCaseCostUSD, c.CostUSD),
		attrInt(AttrCaseTurns, c.NumTurns),
		attrInt(AttrCaseDenials, len(c.PermissionDenials)),
		attrFloat("agent_eval.case.duration_s", c.DurationS),
		attrInt64("gen_ai.usage.input_tokens", c.TokenUsage.InputTokens),
		attrInt64("gen_ai.usage.output_tokens", c.TokenUsage.OutputTokens),
		attrInt64("gen_ai.usage.cache_read.input_tokens", c.TokenUsage.CacheReadTokens),
		attrInt64("gen_ai.usage.cache_creation.input_tokens", c.TokenUsage.CacheCreationTokens),
		attrBool(AttrTimeEstimated, estimated),
	)
	if c.Model != "" {
		s.attrs = append(s.attrs, b.str("gen_ai.response.model", c.Model, maxAttr))
	}
	if c.Prompt != "" {
		s.attrs = append(s.attrs, b.str("agent_eval.case.prompt", c.Prompt, MaxPreview))
	}
	if c.Result != "" {
		s.attrs = append(s.attrs, b.str("agent_eval.case.result", c.Result, MaxPreview))
	}
	if c.Error != "" {
		s.attrs = append(s.attrs, b.str("agent_eval.case.error", c.Error, maxAttr))
	}
	if failedStatus(c.Status) {
		s.failed = true
		s.errMsg = clip.String(b.red.String(orDefault(c.Error, string(c.Status))), maxAttr)
		s.attrs = append(s.attrs, attrString("error.type", string(c.Status)))
	}
	return s
}

// assistant: the event is the model's (a turn is a run of them).
func assistant(k transcript.Kind) bool {
	return k == transcript.KindText || k == transcript.KindThinking || k == transcript.KindToolCall
}

// fill adds a case's turns and tool calls under cs (see the package
// comment for where they are placed in time).
func (b *builder) fill(cs *span, key string, events []transcript.Event, ledger []rundir.Decision) {
	decided := map[string]rundir.Decision{}
	calls := map[string]bool{}
	for _, e := range events {
		if e.Kind == transcript.KindToolCall && e.ToolUseID != "" {
			calls[e.ToolUseID] = true
		}
	}
	var unmatched []rundir.Decision
	for _, d := range ledger {
		switch {
		case d.ToolUseID != "" && calls[d.ToolUseID]:
			if _, seen := decided[d.ToolUseID]; !seen {
				decided[d.ToolUseID] = d
			}
		case d.Decision != "pass" || d.Reason != "":
			unmatched = append(unmatched, d)
		}
	}
	at := place(events, decided, cs.start, cs.end)

	// Turns: runs of the model's events; a step's start begins one too.
	type turn struct{ first, last int }
	var turns []turn
	for i, e := range events {
		if !assistant(e.Kind) {
			continue
		}
		if len(turns) == 0 || turns[len(turns)-1].last != i-1 || events[i-1].Step != e.Step {
			turns = append(turns, turn{first: i, last: i})
		} else {
			turns[len(turns)-1].last = i
		}
	}
	resultAt := map[string]int{}
	deniedID := map[string]bool{}
	for i, e := range events {
		switch e.Kind {
		case transcript.KindToolResult:
			if _, ok := resultAt[e.ToolUseID]; !ok {
				resultAt[e.ToolUseID] = i
			}
		case transcript.KindDenial:
			deniedID[e.ToolUseID] = true
		}
	}
	callNo := 0
	for ti, t := range turns {
		end := cs.end
		if ti+1 < len(turns) {
			end = at[turns[ti+1].first]
		}
		first := events[t.first]
		ts := &span{key: fmt.Sprintf("case/%s/turn/%d", key, ti+1), start: at[t.first], end: end}
		model := ""
		var text []string
		for i := t.first; i <= t.last; i++ {
			if events[i].Model != "" && model == "" {
				model = events[i].Model
			}
			if events[i].Kind == transcript.KindText {
				text = append(text, events[i].Text)
			}
		}
		ts.name = strings.TrimSpace("chat " + model)
		ts.attrs = append(ts.attrs, attrString("gen_ai.operation.name", "chat"), attrInt("agent_eval.turn.index", ti+1))
		if model != "" {
			ts.attrs = append(ts.attrs, b.str("gen_ai.request.model", model, maxAttr), b.str("gen_ai.response.model", model, maxAttr))
		}
		if len(text) > 0 {
			ts.attrs = append(ts.attrs, b.str("agent_eval.turn.text", strings.Join(text, "\n"), MaxPreview))
		}
		if first.Step != "" {
			ts.attrs = append(ts.attrs, b.str("agent_eval.step", first.Step, maxAttr))
		}
		for i := t.first; i <= t.last; i++ {
			e := events[i]
			if e.Kind != transcript.KindToolCall {
				continue
			}
			callNo++
			cend := ts.end
			resIdx, returned := resultAt[e.ToolUseID]
			if returned && resIdx > i && at[resIdx].Before(cend) {
				cend = at[resIdx]
			}
			tool := b.toolSpan(fmt.Sprintf("case/%s/tool/%d", key, callNo), e, at[i], cend)
			if returned {
				r := events[resIdx]
				tool.attrs = append(tool.attrs, attrBool("agent_eval.tool.is_error", r.IsError))
				if r.IsError {
					tool.failed, tool.errMsg = true, clip.String(b.red.String(transcript.OneLine(r.Text)), 200)
					tool.attrs = append(tool.attrs, attrString("error.type", "tool_error"))
				}
			}
			denied := deniedID[e.ToolUseID] && e.ToolUseID != ""
			tool.attrs = append(tool.attrs, attrBool(AttrDenied, denied))
			if d, ok := decided[e.ToolUseID]; ok {
				tool.attrs = append(tool.attrs, b.decisionAttrs(d)...)
			}
			ts.children = append(ts.children, tool)
		}
		cs.children = append(cs.children, ts)
	}
	// A denial without its call in the transcript is a call of its own.
	for i, e := range events {
		if e.Kind != transcript.KindDenial || (e.ToolUseID != "" && calls[e.ToolUseID]) {
			continue
		}
		callNo++
		tool := b.toolSpan(fmt.Sprintf("case/%s/tool/%d", key, callNo), e, at[i], at[i])
		tool.attrs = append(tool.attrs, attrBool(AttrDenied, true))
		cs.children = append(cs.children, tool)
	}
	// A hook decision on no call the transcript has is a span of its own.
	for i, d := range unmatched {
		t, ok := parseTime(d.Time)
		if !ok || t.Before(cs.start) || t.After(cs.end) {
			t = cs.end
		}
		hs := &span{key: fmt.Sprintf("case/%s/hook/%d", key, i+1), name: strings.TrimSpace("hook " + d.Tool), start: t, end: t}
		hs.attrs = append(hs.attrs, b.str("gen_ai.tool.name", d.Tool, maxAttr), b.str("gen_ai.tool.call.id", d.ToolUseID, maxAttr))
		hs.attrs = append(hs.attrs, b.decisionAttrs(d)...)
		cs.children = append(cs.children, hs)
	}
}

// toolSpan is the span of tool call (or denial) e.
func (b *builder) toolSpan(key string, e transcript.Event, start, end time.Time) *span {
	s := &span{key: key, name: strings.TrimSpace("execute_tool " + e.Tool), start: start, end: end}
	s.attrs = append(s.attrs,
		attrString("gen_ai.operation.name", "execute_tool"),
		b.str("gen_ai.tool.name", e.Tool, maxAttr),
		b.str("gen_ai.tool.call.id", e.ToolUseID, maxAttr),
		attrString("gen_ai.tool.type", "function"),
		// The input is redacted as a JSON document first (a key's value
		// that names a secret), then as the text summarised.
		b.str("agent_eval.tool.input", transcript.InputSummary(b.red.JSON(e.Input), MaxInput*2), MaxInput))
	if e.Step != "" {
		s.attrs = append(s.attrs, b.str("agent_eval.step", e.Step, maxAttr))
	}
	return s
}

// decisionAttrs are the hook's decision d as attributes.
func (b *builder) decisionAttrs(d rundir.Decision) []keyValue {
	out := []keyValue{
		attrString(AttrHookDecision, d.Decision),
		attrInt(AttrHookHandler, d.Handler),
	}
	if d.Reason != "" {
		out = append(out, b.str(AttrHookReason, d.Reason, maxAttr))
	}
	if d.Detail != "" {
		out = append(out, b.str("agent_eval.hook.detail", d.Detail, maxAttr))
	}
	if len(d.Tiers) > 0 {
		qs := make([]string, 0, len(d.Tiers))
		for q := range d.Tiers {
			qs = append(qs, q)
		}
		sort.Strings(qs)
		tiers := make([]string, 0, len(qs))
		for _, q := range qs {
			tiers = append(tiers, d.Tiers[q]+": "+q)
		}
		// One tier per question; the string form keeps the question with it.
		out = append(out, attrStrings(AttrHookTiers, b.redactAll(tiers)))
	}
	if d.Micros > 0 {
		out = append(out, attrInt64("agent_eval.hook.duration_us", d.Micros))
	}
	return out
}

func (b *builder) redactAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = clip.String(b.red.String(s), maxAttr)
	}
	return out
}

// place gives every event a time: a decided tool call its ledger time when
// that is inside [start, end] and not before the previous placed one,
// every other event evenly between the placed times around it.
func place(events []transcript.Event, decided map[string]rundir.Decision, start, end time.Time) []time.Time {
	n := len(events)
	at := make([]time.Time, n)
	fixed := make([]bool, n)
	last := start
	for i, e := range events {
		if e.Kind != transcript.KindToolCall {
			continue
		}
		d, ok := decided[e.ToolUseID]
		if !ok {
			continue
		}
		t, ok := parseTime(d.Time)
		if ok && !t.Before(last) && !t.After(end) {
			at[i], fixed[i], last = t, true, t
		}
	}
	prevIdx, prevT := -1, start
	for i := 0; i <= n; i++ {
		if i < n && !fixed[i] {
			continue
		}
		nextT := end
		if i < n {
			nextT = at[i]
		}
		gap := i - prevIdx
		for j := prevIdx + 1; j < i; j++ {
			at[j] = prevT.Add(nextT.Sub(prevT) * time.Duration(j-prevIdx) / time.Duration(gap))
		}
		prevIdx, prevT = i, nextT
	}
	return at
}

func parseTime(s string) (time.Time, bool) {
	if s == "" {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	return t.UTC(), err == nil
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
