package report

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-eval/agent-eval/internal/rundir"
	"github.com/agent-eval/agent-eval/internal/testutil/golden"
)

func ptr[T any](v T) *T { return &v }

// passing is the fixture's summary with every threshold met.
func passing(s *rundir.Summary) {
	for i := range s.Thresholds {
		s.Thresholds[i].OK = true
	}
	s.Thresholds[0].Got = 0.9
	s.Passed = true
}

// withBaseline adds a comparison in which tests_pass got worse, quality
// did not, and 23 (case, judge) pairs got worse.
func withBaseline(s *rundir.Summary) {
	s.Baseline = &rundir.Comparison{RunID: "20261130-031500.000-claude-sonnet-4-5", Dir: "../base",
		Judges: []rundir.JudgeDelta{
			{Judge: "tests_pass", PassBefore: ptr(1.0), PassNow: ptr(0.6667), Regression: true, Paired: 3, Test: "mcnemar-exact", PValue: ptr(0.0312), Change: "worse"},
			{Judge: "quality", MeanBefore: ptr(3.4), MeanNow: ptr(3.5), Paired: 2, Test: "wilcoxon", PValue: ptr(0.8), Change: "no evidence of a change"},
			{Judge: "respected_denials", MeanBefore: ptr(1.0), MeanNow: ptr(0.9), Regression: true, Change: "no evidence of a change"},
		}}
	for i := range 23 {
		s.Baseline.Worse = append(s.Baseline.Worse, rundir.CaseDelta{Case: fmt.Sprintf("case-%03d", i), Judge: "tests_pass", Before: ptr(1.0), Now: ptr(0.0)})
	}
}

// withRepeats makes the fixture a run of three attempts per case with
// intervals and flaky cases.
func withRepeats(s *rundir.Summary) {
	s.Judges[0].Interval = &rundir.Interval{Low: 0.2077, High: 0.9385, Level: 0.95, Method: "wilson"}
	s.Judges[0].Reduce, s.Judges[0].Flaky, s.Judges[0].AttemptPassRate = "majority", 2, ptr(0.5556)
	s.Judges[1].Interval = &rundir.Interval{Low: 2.1, High: 4.9, Level: 0.9, Method: "student-t"}
	s.Judges[1].Reduce, s.Judges[1].PassRate = "mean", nil
	for i := range s.Cases {
		c := &s.Cases[i]
		for n := 1; n <= 3; n++ {
			c.Attempts = append(c.Attempts, rundir.CaseSummary{ID: c.ID, Attempt: n, Status: c.Status})
		}
	}
	s.Cases[1].Verdicts[0].Flaky = true
	s.Cases[1].Verdicts[0].AttemptsScored, s.Cases[1].Verdicts[0].AttemptsPassed = 3, ptr(1)
}

// hostile puts text in the summary that would break a table, run a script,
// mention someone or close a code span, and 25 failing cases.
func hostile(s *rundir.Summary) {
	s.EvalName = "evil | <b>eval</b>"
	s.Cases[1].ID = "id|with`tick`\nand @octocat <script>alert(1)</script>"
	s.Cases[1].Verdicts[0].Rationale = "broke | the table\n\n# heading\n@org/team please look <img src=x onerror=alert(1)> `code` [link](https://evil.example) **bold**"
	s.Cases[2].Verdicts[1].Error = "``fence`` and ::error::injected\r\n%0A"
	s.Thresholds[0].Detail = "0.6667 < 0.8 | @someone\r\n::error::forged 100%"
	for i := range 25 {
		s.Cases = append(s.Cases, rundir.CaseSummary{ID: fmt.Sprintf("bulk-%03d", i), Status: "completed",
			Verdicts: []rundir.Verdict{{Judge: "tests_pass", Value: ptr(0.0), Passed: ptr(false), Rationale: "failed"}}})
	}
}

// TestMarkdownGolden: the Markdown of a run in each shape it takes;
// -update rewrites testdata/markdown/*.golden.md after an intended change.
func TestMarkdownGolden(t *testing.T) {
	tests := []struct {
		name   string
		scored bool
		edit   func(*rundir.Summary)
		links  Artifacts
	}{
		{name: "passing", scored: true, edit: passing, links: Artifacts{Path: "eval/runs/fixture-eval/r1"}},
		{name: "thresholds", scored: true, links: Artifacts{BaseURL: "https://ci.example/jobs/7/artifacts/file/run"}},
		{name: "baseline", scored: true, edit: withBaseline, links: Artifacts{RunURL: "https://github.com/o/r/actions/runs/42"}},
		{name: "repeats", scored: true, edit: withRepeats},
		{name: "unscored", scored: false, links: Artifacts{Path: "eval/runs/fixture-eval/r1"}},
		{name: "injection", scored: true, edit: hostile, links: Artifacts{BaseURL: "https://ci.example/a (b)/run"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, s := fixture(t, tt.scored)
			if tt.edit != nil {
				tt.edit(s)
			}
			got := RenderMarkdown(d, s, tt.links)
			golden.Assert(t, filepath.Join("testdata", "markdown", tt.name+".golden.md"), got)
		})
	}
}

// TestMarkdownInjection: text from the run cannot add a table row or a
// column, a heading, HTML, a link or a mention.
func TestMarkdownInjection(t *testing.T) {
	d, s := fixture(t, true)
	hostile(s)
	md := string(RenderMarkdown(d, s, Artifacts{}))
	for _, bad := range []string{"@octocat", "@org/team", "@someone"} {
		if strings.Contains(md, bad) {
			t.Errorf("the Markdown mentions %q:\n%s", bad, md)
		}
	}
	// Outside code spans (where GitHub shows text as it is) no HTML,
	// heading, link or emphasis.
	prose := withoutCode(md)
	for _, bad := range []string{"<script>", "<img", "<b>", "\n# heading", "](https://evil.example)", "**bold**"} {
		if unescaped(prose, bad) {
			t.Errorf("the Markdown carries %q unescaped:\n%s", bad, md)
		}
	}
	// Every row of the failed cases' table has its four cells.
	in := false
	for _, l := range strings.Split(md, "\n") {
		switch {
		case strings.HasPrefix(l, "| case | status |"):
			in = true
		case in && !strings.HasPrefix(l, "|"):
			in = false
		case in:
			if n := strings.Count(l, "|") - strings.Count(l, `\|`); n != 5 {
				t.Errorf("row %q has %d cell separators, want 5", l, n)
			}
		}
	}
	if !strings.Contains(md, "… and 7 more (see report.html).") {
		t.Errorf("the failed cases are not bounded at %d:\n%s", MaxListed, md)
	}
}

// unescaped reports whether s holds sub with no backslash before it.
func unescaped(s, sub string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], sub)
		if j < 0 {
			return false
		}
		if i+j == 0 || s[i+j-1] != '\\' {
			return true
		}
		i += j + 1
	}
}

// withoutCode is md without its code spans: a run of n backticks up to the
// next run of exactly n.
func withoutCode(md string) string {
	var b strings.Builder
	run := func(i int) int {
		n := 0
		for i+n < len(md) && md[i+n] == '`' {
			n++
		}
		return n
	}
	for i := 0; i < len(md); {
		if md[i] != '`' || (i > 0 && md[i-1] == '\\') {
			b.WriteByte(md[i])
			i++
			continue
		}
		n := run(i)
		j := i + n
		for j < len(md) {
			if md[j] == '`' {
				if m := run(j); m == n {
					break
				} else {
					j += m
				}
				continue
			}
			j++
		}
		i = j + n
	}
	return b.String()
}

// TestMarkdownAndGitHubRedact: a secret of the environment and one of the
// run's own marked files never reach the Markdown, the annotations or
// junit.xml,
// wherever it is planted.
func TestMarkdownAndGitHubRedact(t *testing.T) {
	const secret = "plain-looking-value-4711"
	t.Setenv("REPORT_TEST_TOKEN", secret)
	d, s := fixture(t, true)
	withBaseline(s)
	s.RunID, s.EvalName, s.Model = "run-"+secret, "eval-"+secret, "model-"+secret
	s.Cases[1].ID = "case-" + secret
	s.Cases[1].Verdicts[0].Rationale = "the key " + secret + " leaked; db https://bot:pw-hunter2@db.example/x"
	s.Cases[2].Verdicts[1].Error = "error " + secret
	s.Thresholds[0].Judge, s.Thresholds[0].Detail = "judge-"+secret, "detail "+secret
	s.BrokenJudges, s.Tampered, s.Foreign, s.NotJudged = []string{"j-" + secret}, []string{"t-" + secret}, []string{"f-" + secret}, "why "+secret
	s.Baseline.RunID, s.Baseline.Judges[0].Judge = "base-"+secret, "bj-"+secret
	s.Baseline.Worse[0].Case = "w-" + secret
	links := Artifacts{BaseURL: "https://x:" + secret + "@ci.example/run", RunURL: "https://ci.example/" + secret, Path: "/tmp/" + secret}
	junit, err := RenderJUnit(d, s)
	if err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{
		"markdown": string(RenderMarkdown(d, s, links)),
		"github":   string(RenderGitHub(d, s)),
		"junit":    string(junit),
	} {
		if strings.Contains(out, secret) || strings.Contains(out, "pw-hunter2") {
			t.Errorf("the %s output shows a secret:\n%s", name, out)
		}
		if !strings.Contains(out, "redacted") {
			t.Errorf("the %s output does not say what it redacted:\n%s", name, out)
		}
	}
}

// TestGitHubGolden: the workflow commands of a failing run with a
// baseline and hostile text, and of a run not scored.
func TestGitHubGolden(t *testing.T) {
	for _, scored := range []bool{true, false} {
		t.Run(fmt.Sprintf("scored=%v", scored), func(t *testing.T) {
			d, s := fixture(t, scored)
			name := "unscored"
			if scored {
				name = "failing"
				hostile(s)
				withBaseline(s)
				s.BrokenJudges, s.Tampered = []string{"quality"}, []string{"secret-003"}
			}
			got := RenderGitHub(d, s)
			for _, l := range strings.Split(strings.TrimSuffix(string(got), "\n"), "\n") {
				if !strings.HasPrefix(l, "::error title=") && !strings.HasPrefix(l, "::warning title=") && !strings.HasPrefix(l, "::notice title=") {
					t.Errorf("line %q is not a workflow command", l)
				}
			}
			golden.Assert(t, filepath.Join("testdata", "github", name+".golden.txt"), got)
		})
	}
}

func TestGitHubEscaping(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, data, prop string }{
		{"plain", "plain", "plain"},
		{"100%", "100%25", "100%25"},
		{"a\r\nb", "a%0D%0Ab", "a%0D%0Ab"},
		{"k: v, w", "k: v, w", "k%3A v%2C w"},
		{"%0A::error::x", "%250A::error::x", "%250A%3A%3Aerror%3A%3Ax"},
	}
	for _, tt := range tests {
		if got := ghData(tt.in); got != tt.data {
			t.Errorf("ghData(%q) = %q, want %q", tt.in, got, tt.data)
		}
		if got := ghProperty(tt.in); got != tt.prop {
			t.Errorf("ghProperty(%q) = %q, want %q", tt.in, got, tt.prop)
		}
	}
}

func TestArtifactsFromEnv(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		env  map[string]string
		want Artifacts
	}{
		{"none", nil, Artifacts{Path: "p"}},
		{"base URL", map[string]string{"AGENT_EVAL_ARTIFACTS_URL": "https://ci.example/a/"}, Artifacts{BaseURL: "https://ci.example/a", Path: "p"}},
		{"not a web URL", map[string]string{"AGENT_EVAL_ARTIFACTS_URL": "javascript:alert(1)"}, Artifacts{Path: "p"}},
		{"github", map[string]string{"GITHUB_SERVER_URL": "https://github.com", "GITHUB_REPOSITORY": "o/r", "GITHUB_RUN_ID": "42"},
			Artifacts{RunURL: "https://github.com/o/r/actions/runs/42", Path: "p"}},
		{"github without a run id", map[string]string{"GITHUB_SERVER_URL": "https://github.com", "GITHUB_REPOSITORY": "o/r"}, Artifacts{Path: "p"}},
	}
	for _, tt := range tests {
		got := ArtifactsFromEnv(func(k string) string { return tt.env[k] }, "p")
		if got != tt.want {
			t.Errorf("%s: ArtifactsFromEnv = %+v, want %+v", tt.name, got, tt.want)
		}
	}
}
