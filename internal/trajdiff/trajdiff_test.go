package trajdiff

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"

	"github.com/agent-eval/agent-eval/internal/rundir"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func fixture(t *testing.T) *Report {
	t.Helper()
	a, err := rundir.Open("testdata/runs/a")
	if err != nil {
		t.Fatal(err)
	}
	b, err := rundir.Open("testdata/runs/b")
	if err != nil {
		t.Fatal(err)
	}
	r, err := Diff(a, b, Options{Redact: func(s string) string { return strings.ReplaceAll(s, "history", "[REDACTED]") }})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestGolden pins the text, Markdown and JSON of the fixture runs' diff
// (go test ./internal/trajdiff -update rewrites them).
func TestGolden(t *testing.T) {
	r := fixture(t)
	for _, c := range []struct {
		name  string
		write func(*bytes.Buffer) error
	}{
		{"diff.golden.txt", func(b *bytes.Buffer) error { return r.WriteText(b) }},
		{"diff.golden.md", func(b *bytes.Buffer) error { return r.WriteMarkdown(b) }},
		{"diff.golden.json", func(b *bytes.Buffer) error { return r.WriteJSON(b) }},
	} {
		var b bytes.Buffer
		if err := c.write(&b); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join("testdata", c.name)
		if *update {
			if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b.Bytes(), want) {
			t.Errorf("%s differs (go test -update rewrites it); got:\n%s", c.name, b.String())
		}
	}
}

// TestFixture checks what the golden files show, so that a wrong golden
// cannot pass.
func TestFixture(t *testing.T) {
	r := fixture(t)
	byKey := map[string]*Case{}
	for i := range r.Cases {
		byKey[r.Cases[i].Key()] = &r.Cases[i]
	}
	fix := byKey["fix-001"]
	if fix == nil || fix.FirstDivergence == nil {
		t.Fatalf("fix-001 has no first divergence: %+v", fix)
	}
	fd := fix.FirstDivergence
	if fd.Op != OpReplaced || fd.IndexA != 2 || fd.IndexB != 2 || fd.B.Outcome != OutcomeHookDenied || fd.A.Target != "cd . && go test ./..." || fd.A.Outcome != OutcomeError {
		t.Errorf("first divergence = %+v, want A's call 2 (go test in the workspace) replaced by B's 2 (denied)", fd)
	}
	if fix.Added != 1 || fix.Removed != 1 || fix.Changed != 0 {
		t.Errorf("fix-001 added/removed/changed = %d/%d/%d, want 1/1/0", fix.Added, fix.Removed, fix.Changed)
	}
	var denied *Call
	for _, s := range fix.Steps {
		if s.Op == OpAdded {
			denied = s.B
		}
	}
	if denied == nil || denied.Outcome != OutcomeHookDenied || denied.Reason != "no deleting [REDACTED]" || denied.Target != "rm -rf ./.git" {
		t.Errorf("the added call = %+v, want the hook's redacted deny of rm -rf ./.git", denied)
	}
	if !fix.VerdictChanged || *fix.A.Passed != true || *fix.B.Passed != false {
		t.Errorf("fix-001's verdict: %+v → %+v, want pass → fail", fix.A, fix.B)
	}
	if len(fix.Files) != 1 || fix.Files[0].Path != "outputs/report.md" || !strings.Contains(fix.Files[0].Diff, "-all good\n+tests <b>broken</b>\n") {
		t.Errorf("fix-001's files = %+v, want outputs/report.md changed with its diff", fix.Files)
	}
	ask := byKey["ask-002"]
	if ask == nil || ask.Changed != 1 || ask.FirstDivergence == nil || ask.FirstDivergence.Op != OpChanged || ask.VerdictChanged {
		t.Errorf("ask-002 = %+v, want one changed answer, the verdict the same", ask)
	}
	if got := strings.Join(r.OnlyA, ","); got != "only-a" || len(r.OnlyB) != 0 {
		t.Errorf("only A = %q, only B = %v", got, r.OnlyB)
	}
	if r.PassRate == nil || r.PassRate.Paired != 5 || r.PassRate.Lost != 3 || r.PassRate.Gained != 0 || r.PassRate.PValue == nil || *r.PassRate.PValue != 0.25 {
		t.Errorf("pass rate = %+v, want 5 paired, 3 lost, p 0.25", r.PassRate)
	}
	if len(r.PerCase) != 1 || r.PerCase[0].Case != "flaky-003" || r.PerCase[0].Lost != 2 {
		t.Errorf("per case = %+v, want flaky-003 with 2 lost", r.PerCase)
	}
	if byKey["flaky-003@2"] == nil || byKey["flaky-003@2"].TrajectoryChanged {
		t.Errorf("flaky-003@2 = %+v, want the same trajectory", byKey["flaky-003@2"])
	}
}

func TestAlign(t *testing.T) {
	mk := func(keys string) []Call {
		var out []Call
		for _, k := range strings.Fields(keys) {
			out = append(out, Call{Tool: k, Outcome: OutcomeOK})
		}
		return out
	}
	for _, c := range []struct{ a, b, want string }{
		{"R B E", "R B E", "= = ="},
		{"R B E", "R X E", "= - + ="},
		{"", "R", "+"},
		{"R", "", "-"},
		{"A B C D", "B D E", "- = - = +"},
	} {
		var got []string
		for _, s := range align(mk(c.a), mk(c.b)) {
			got = append(got, map[string]string{OpSame: "=", OpRemoved: "-", OpAdded: "+", OpChanged: "~"}[s.Op])
		}
		if strings.Join(got, " ") != c.want {
			t.Errorf("align(%q, %q) = %q, want %q", c.a, c.b, strings.Join(got, " "), c.want)
		}
	}
	a, b := mk("R B"), mk("R B")
	b[1].Outcome = OutcomeHookDenied
	if s := align(a, b); s[1].Op != OpChanged {
		t.Errorf("a call ended otherwise: %v, want changed", s[1].Op)
	}
}

func TestUnified(t *testing.T) {
	got := unified("f", "a\nb\nc\n", "a\nB\nc\nd\n")
	want := "--- a/f\n+++ b/f\n@@ -1,3 +1,4 @@\n a\n-b\n+B\n c\n+d\n"
	if got != want {
		t.Errorf("unified = %q, want %q", got, want)
	}
	if got := unified("f", "", "x\n"); got != "--- a/f\n+++ b/f\n@@ -0,0 +1,1 @@\n+x\n" {
		t.Errorf("unified of a new file = %q", got)
	}
}

// TestMarkdownInert: rendered as GitHub renders it (GFM), the hostile
// answer and file make no HTML, link, image or mention.
func TestMarkdownInert(t *testing.T) {
	var b bytes.Buffer
	if err := fixture(t).WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	var html bytes.Buffer
	if err := goldmark.New(goldmark.WithExtensions(extension.GFM)).Convert(b.Bytes(), &html); err != nil {
		t.Fatal(err)
	}
	out := html.String()
	if !strings.Contains(out, "&lt;script&gt;alert") || !strings.Contains(out, "@\u200bteam") {
		t.Errorf("the hostile answer is not shown as text:\n%s", out)
	}
	for _, bad := range []string{"<script", "<a ", "<img", "<b>", "@team"} {
		if strings.Contains(out, bad) {
			t.Errorf("the rendered Markdown has %q:\n%s", bad, out)
		}
	}
	if n := strings.Count(out, "<tr>"); n != 6 {
		t.Errorf("the case table has %d rows, want 6 (a pipe in a cell split it?)", n)
	}
}
