package report

import (
	"os"
	"strings"
	"testing"

	"github.com/agent-eval/agent-eval/internal/rundir"
)

// hostileReview reviews two of the fixture's cases: deploy-001 (which
// passed every judge) failed by the person, with markup and a mention in
// the comment; docs-002 failed, agreeing with its judges.
func hostileReview(t *testing.T, d rundir.Dir) {
	t.Helper()
	r := &rundir.Review{RunID: "20261201-031500.000-claude-sonnet-4-5"}
	r.Set("deploy-001", rundir.CaseReview{Verdict: rundir.HumanFail, Comment: "<img src=x onerror=alert(2)> | @team wrong", Reviewer: "ann"})
	r.Set("docs-002", rundir.CaseReview{Verdict: rundir.HumanFail, Comment: "agreed", Reviewer: "ann"})
	if err := d.WriteReview(r); err != nil {
		t.Fatal(err)
	}
}

// TestReportHuman: report.html has a human column, marks the case where
// the person and the judges disagree, and escapes the comment.
func TestReportHuman(t *testing.T) {
	d, s := fixture(t, true)
	hostileReview(t, d)
	if err := Write(d, s); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(d.Report())
	if err != nil {
		t.Fatal(err)
	}
	html := string(b)
	for _, want := range []string{
		`>human</th>`,
		`<td class="human v-fail" data-v="fail" title="&lt;img src=x onerror=alert(2)&gt; | @team wrong">fail <span class="disagree"`,
		`&lt;img src=x onerror=alert(2)&gt;`,
		`Human review: 2 case(s) with a human verdict, 0.0% passed; agrees with the case verdict on 1 of 2`,
	} {
		if !strings.Contains(html, want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	if strings.Contains(html, "<img src=x") {
		t.Error("report.html carries the comment's markup unescaped")
	}
	if n := strings.Count(html, `<span class="disagree"`); n != 2 { // the table's cell and the case's heading
		t.Errorf("%d disagreement marks in the table and headings, want 2 (deploy-001's only)", n)
	}
}

// TestMarkdownHuman: the Markdown verdict lists the reviewed cases, ≠
// where the person and the judges disagree, the comment escaped.
func TestMarkdownHuman(t *testing.T) {
	d, s := fixture(t, true)
	hostileReview(t, d)
	md := string(RenderMarkdown(d, s, Artifacts{}))
	for _, want := range []string{
		"### Human review",
		"| `deploy-001` | fail ≠ | pass | \\<img src=x onerror=alert\\(2\\)\\> \\| @&#8203;team wrong |",
		"| `docs-002` | fail | fail | agreed |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
}
