package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-eval/agent-eval/internal/results"
	"github.com/agent-eval/agent-eval/internal/rundir"
	"github.com/agent-eval/agent-eval/internal/transcript"
)

// TestReportBatch: a batch run's page shows the batch's transcript and
// denial once, its shared output once (not under each case), each case's
// own file and verdicts, and the unmatched file; a verdict that judged no
// case says so.
func TestReportBatch(t *testing.T) {
	t.Parallel()
	d := rundir.Dir{Path: t.TempDir()}
	denial := []transcript.Denial{{ToolName: "Bash", ToolUseID: "t2", ToolInput: []byte(`{"command":"jira issue create"}`)}}
	batch := &results.Case{CaseID: "batch", Status: results.StatusCompleted, CostUSD: 0.5, NumTurns: 4, PermissionDenials: denial, Prompt: "Greet everyone."}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(results.WriteJSON(d.RunResult(), &results.RunResult{RunID: "b1", EvalName: "demo", ExecutionMode: "batch", NumCases: 2, Batch: batch}))
	f, err := os.Create(d.BatchTranscript())
	must(err)
	w := transcript.NewWriter(f)
	w.Write(transcript.Event{Kind: transcript.KindPrompt, Text: "Greet everyone."})
	w.Write(transcript.Event{Kind: transcript.KindToolCall, ToolUseID: "t1", Tool: "Write", Input: []byte(`{"file_path":"out/case-001.md"}`)})
	w.Write(transcript.Event{Kind: transcript.KindToolCall, ToolUseID: "t2", Tool: "Bash", Input: []byte(`{"command":"jira issue create"}`)})
	must(w.Flush())
	must(f.Close())
	a := &rundir.BatchAssignment{Outputs: []rundir.BatchOutput{{Path: "out", Pattern: "case-{n:03d}"}, {Path: "shared", Pattern: "*"}}, Order: []string{"a", "b"},
		Cases:  map[string][]string{"a": {"out/case-001.md", "shared/index.md"}, "b": {"shared/index.md"}},
		Shared: []string{"shared/index.md"}, Unassigned: []string{"out/stray.md"}}
	must(d.WriteBatchAssignment(a))
	for id, files := range a.Cases {
		c := *batch
		c.CaseID = id
		must(os.MkdirAll(d.Case(id), 0o755))
		must(results.WriteJSON(d.CaseResult(id), &c))
		for _, f := range files {
			p := filepath.Join(d.Outputs(id), f)
			must(os.MkdirAll(filepath.Dir(p), 0o755))
			must(os.WriteFile(p, []byte("body of "+f), 0o644))
		}
	}
	yes, no := true, false
	one, zero := 1.0, 0.0
	s := &rundir.Summary{RunID: "b1", EvalName: "demo", NumCases: 2, Judges: []rundir.JudgeSummary{{Name: "greets", Kind: "expr", Type: "bool", Scored: 2}},
		Cases: []rundir.CaseSummary{
			{ID: "a", Status: "completed", Verdicts: []rundir.Verdict{{Judge: "greets", Value: &one, Passed: &yes, Rationale: "greets Ada"}}},
			{ID: "b", Status: "completed", Verdicts: []rundir.Verdict{{Judge: "greets", Value: &zero, Passed: &no, Rationale: "no file for Bob"}}},
		}}
	b, err := Render(d, s)
	must(err)
	html := string(b)
	for _, want := range []string{
		`<section id="batch">`,
		`<span class="warn">1 permission denials</span>`,
		`<span class="tag deny">DENIED</span> tool <b>Bash</b>`,
		`Matched no case, not judged: <code>out/stray.md</code>`,
		`<a href="cases/a/outputs/out/case-001.md">out/case-001.md</a>`,
		`greets Ada`, `no file for Bob`,
		`This case was done by the batch run`,
		`<b>$0.50</b><span>agent cost</span>`,
	} {
		if !strings.Contains(html, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	if n := strings.Count(html, `>shared/index.md</a>`); n != 1 {
		t.Errorf("the shared file is listed %d times; want once", n)
	}
	if n := strings.Count(html, `tool <b>Write</b>`); n != 1 {
		t.Errorf("the batch's Write call is shown %d times; want once", n)
	}

	s.NotJudged = "every judge skipped every case"
	b, err = Render(d, s)
	must(err)
	if !strings.Contains(string(b), `✗ no case was judged (every judge skipped every case)`) {
		t.Errorf("the page does not say that no case was judged")
	}
}
