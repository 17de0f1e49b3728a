package report

import (
	"strings"
	"testing"

	"github.com/agent-eval/agent-eval/internal/rundir"
)

// TestDroppedJudges: a judge score --no-llm-judges left out is shown in
// every report, and its skipped gate is no breach in any.
func TestDroppedJudges(t *testing.T) {
	d, s := fixture(t, true)
	passing(s)
	s.DroppedJudges = append(s.DroppedJudges, droppedFixture)
	s.Thresholds = append(s.Thresholds, skippedFixture)
	md := string(RenderMarkdown(d, s, Artifacts{}))
	if !strings.Contains(md, "`tone` not run (--no-llm-judges): an llm judge calls the judge model") || !strings.Contains(md, "1 skipped (their judges were dropped)") {
		t.Errorf("markdown lacks the dropped judge or the skipped gate:\n%s", md)
	}
	if strings.Contains(md, "Thresholds breached") {
		t.Errorf("markdown lists a skipped gate as breached:\n%s", md)
	}
	if gh := string(RenderGitHub(d, s)); strings.Contains(gh, "threshold breached: tone") {
		t.Errorf("github annotations breach a skipped gate:\n%s", gh)
	}
	j, err := RenderJUnit(d, s)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`<testsuite name="tone" tests="1" failures="0" errors="0" skipped="1"`, `not run (--no-llm-judges): an llm judge calls the judge model`, `skipped: the judge was dropped`} {
		if !strings.Contains(string(j), want) {
			t.Errorf("junit.xml lacks %q:\n%s", want, j)
		}
	}
	html, err := Render(d, s)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(html), `id="dropped"`) || !strings.Contains(string(html), `class="skipped"`) {
		t.Errorf("report.html shows neither the dropped judge nor the skipped gate")
	}
}

var (
	droppedFixture = rundir.DroppedJudge{Name: "tone", Kind: "llm", Reason: "an llm judge calls the judge model"}
	skippedFixture = rundir.ThresholdResult{Judge: "tone", Metric: "min_pass_rate", Want: 1, Skipped: true, Detail: "skipped: the judge was dropped by --no-llm-judges"}
)
