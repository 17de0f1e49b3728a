package report

import (
	"os"
	"strings"
	"testing"

	"github.com/agent-eval/agent-eval/internal/results"
	"github.com/agent-eval/agent-eval/internal/rundir"
)

// TestViolationsShown: report.html lists a case's violations, the
// agent's text in them escaped, and junit.xml has a violations suite.
func TestViolationsShown(t *testing.T) {
	d := rundir.Dir{Path: t.TempDir()}
	if err := os.MkdirAll(d.Case("c1"), 0o755); err != nil {
		t.Fatal(err)
	}
	vs := &results.Violations{}
	vs.Add(results.Violation{Kind: results.ViolationDeniedCall, Source: "hook", Tool: "Bash", Target: `curl "<img src=x onerror=alert(1)>"`, Reason: "Blocked <b>now</b>"})
	vs.Add(results.Violation{Kind: results.ViolationRefusedConnection, Source: "boundary", Target: "evil.example", Count: 2})
	vs.Add(results.Violation{Kind: results.ViolationCLITraffic, Source: "boundary", Target: "chatgpt.com", Count: 4})
	c := &results.Case{CaseID: "c1", Status: results.StatusCompleted, Violations: vs}
	if err := results.WriteJSON(d.CaseResult("c1"), c); err != nil {
		t.Fatal(err)
	}
	s := &rundir.Summary{RunID: "r", EvalName: "e", NumCases: 1, Passed: true,
		Violations: rundir.ViolationCounts{Total: 3, Cases: 1, ByKind: map[string]int{"denied_call": 1, "refused_connection": 2}},
		Cases:      []rundir.CaseSummary{{ID: "c1", Status: "completed", Violations: rundir.CountsOf(vs)}}}
	html, err := Render(d, s)
	if err != nil {
		t.Fatal(err)
	}
	page := string(html)
	for _, want := range []string{"<b>3</b><span>violations</span>", "3 violations</span>", "<b>denied_call</b> (hook Bash)", "&lt;img src=x onerror=alert(1)&gt;", "Blocked &lt;b&gt;now&lt;/b&gt;", "<code>evil.example</code> ×2",
		"2 violation(s): what the agent tried", "Not counted, the agent CLI's own traffic (see docs/violations.md): <code>chatgpt.com</code> ×4"} {
		if !strings.Contains(page, want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	if strings.Contains(page, "<img src=x") {
		t.Error("the agent's text reached report.html unescaped")
	}
	if md := string(RenderMarkdown(d, s, Artifacts{})); !strings.Contains(md, "· 3 violation(s) in 1 case(s)") {
		t.Errorf("the markdown summary lacks the violations:\n%s", md)
	}
	x, err := RenderJUnit(d, s)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(x), `<testsuite name="violations"`) || !strings.Contains(string(x), "3 violation(s): 1 denied_call, 2 refused_connection") {
		t.Errorf("junit.xml lacks the violations suite:\n%s", x)
	}
}
