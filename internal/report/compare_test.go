package report

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/agent-eval/agent-eval/internal/rundir"
)

// comparison is the fixture run (now) against an earlier copy of it
// (before) where docs-002 passed tests_pass and deploy-001 scored 5 on
// quality.
func comparison(t *testing.T) (a, b rundir.Dir, cmp *rundir.Comparison, path string) {
	t.Helper()
	b, _ = fixture(t, true)
	a, sa := fixture(t, true)
	one, five, yes := 1.0, 5.0, true
	sa.RunID = "before-run"
	sa.Cases[1].Verdicts[0].Value, sa.Cases[1].Verdicts[0].Passed = &one, &yes
	sa.Cases[0].Verdicts[1].Value = &five
	if err := a.WriteSummary(sa); err != nil {
		t.Fatal(err)
	}
	f := func(x float64) *float64 { return &x }
	cmp = &rundir.Comparison{RunID: "before-run", Dir: a.Path,
		Judges: []rundir.JudgeDelta{
			{Judge: "tests_pass", MeanBefore: f(1), MeanNow: f(0.6667), PassBefore: f(1), PassNow: f(0.6667), Regression: true},
			{Judge: "quality", MeanBefore: f(5), MeanNow: f(3.5), PassBefore: f(0.5), PassNow: f(0.5)},
			{Judge: "respected_denials", MeanBefore: f(1), MeanNow: f(1), PassBefore: f(1), PassNow: f(1)},
		},
		Worse:   []rundir.CaseDelta{{Case: "docs-002", Judge: "tests_pass", Before: f(1), Now: f(0)}, {Case: "deploy-001", Judge: "quality", Before: f(5), Now: f(4)}},
		WinRate: f(0.25)}
	return a, b, cmp, filepath.Join(b.Path, CompareFile)
}

func TestCompare(t *testing.T) {
	a, b, cmp, path := comparison(t)
	if err := WriteCompare(path, a, b, cmp); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	html := string(raw)
	for _, want := range []string{
		`<h1>before-run → 20261201-031500.000-claude-sonnet-4-5</h1>`,
		`<b>25.0%</b><span>win rate of new over base`,
		`<div class="warn"><b>2</b><span>verdicts worse</span></div>`,
		`<tr class="c-worse"><td>tests_pass</td><td class="n">100.0%</td><td class="n">66.7%</td><td class="n c-worse">-33.3 pt</td>`,
		`<span class="tag deny">regression</span>`,
		`<tr class="c-same"><td>respected_denials</td>`,
		`<td class="n">5</td><td class="n">3.5</td><td class="n c-worse">-1.5</td>`,
		`<td class="c-worse" data-v="worse">pass → fail</td>`,
		`<td class="c-worse" data-v="worse">5 → 4</td>`,
		`<td class="c-same" data-v="same">skipped → skipped</td>`,
		`<a href="report.html#case-docs-002">new</a>`,
		`<td data-v="failed">failed → failed</td>`,
	} {
		if !strings.Contains(html, want) {
			t.Errorf("compare.html lacks %s", want)
		}
	}
	// Each case links to its place in both runs' reports, relative to the page.
	if !regexp.MustCompile(`<a href="\.\./\.\./[^/"]+/run/report\.html#case-docs-002">base</a>`).MatchString(html) {
		t.Error("compare.html does not link a case to the earlier run's report")
	}
	selfContained(t, html)
}

func TestCompareWithoutSummaries(t *testing.T) {
	a, _ := fixture(t, false)
	b, _ := fixture(t, false)
	path := filepath.Join(b.Path, CompareFile)
	if err := WriteCompare(path, a, b, &rundir.Comparison{}); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(path)
	if !strings.Contains(string(raw), "(not scored)") || !strings.Contains(string(raw), "No judges compared.") {
		t.Errorf("compare.html of unscored runs:\n%s", raw)
	}
	if err := WriteCompare(path, a, b, nil); err == nil {
		t.Error("WriteCompare without a comparison succeeded")
	}
}

// TestReportLinksComparison: a scored run compared with a baseline says
// what regressed and links the side-by-side page.
func TestReportLinksComparison(t *testing.T) {
	a, b, cmp, path := comparison(t)
	if err := WriteCompare(path, a, b, cmp); err != nil {
		t.Fatal(err)
	}
	s, err := b.ReadSummary()
	if err != nil {
		t.Fatal(err)
	}
	s.Baseline = cmp
	html, err := Render(b, s)
	if err != nil {
		t.Fatal(err)
	}
	want := `<p>Against before-run: 0 verdicts better, 2 worse, win rate 25.0%; <b>tests_pass regressed</b>. <a href="compare.html">Side by side</a>.</p>`
	if !strings.Contains(string(html), want) {
		t.Errorf("report.html lacks %s", want)
	}
}
