package report

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	stdhtml "html"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agent-eval/agent-eval/internal/redact"
	"github.com/agent-eval/agent-eval/internal/rundir"
	"github.com/agent-eval/agent-eval/internal/testutil/golden"
)

// fixture copies testdata/run (a scored run of three cases) into a
// temporary folder, so a test writes report.html beside it and never into
// testdata; without the summary when scored is false.
func fixture(t *testing.T, scored bool) (rundir.Dir, *rundir.Summary) {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "run")
	if err := os.CopyFS(dst, os.DirFS("testdata/run")); err != nil {
		t.Fatal(err)
	}
	d, err := rundir.Open(dst)
	if err != nil {
		t.Fatal(err)
	}
	if !scored {
		if err := os.Remove(d.Summary()); err != nil {
			t.Fatal(err)
		}
		return d, nil
	}
	s, err := d.ReadSummary()
	if err != nil {
		t.Fatal(err)
	}
	return d, s
}

func TestJUnitGolden(t *testing.T) {
	for _, scored := range []bool{true, false} {
		t.Run(fmt.Sprintf("scored=%v", scored), func(t *testing.T) {
			d, s := fixture(t, scored)
			if err := WriteJUnit(d, s); err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(d.JUnit())
			if err != nil {
				t.Fatal(err)
			}
			name := "junit.golden.xml"
			if !scored {
				name = "junit-unscored.golden.xml"
			}
			golden.Assert(t, filepath.Join("testdata", name), got)
		})
	}
}

func TestJUnitCounts(t *testing.T) {
	d, s := fixture(t, true)
	b, err := RenderJUnit(d, s)
	if err != nil {
		t.Fatal(err)
	}
	got := string(b)
	// 3 judges x 3 cases + 3 thresholds; tests_pass and quality failed on
	// docs-002, the tests_pass pass-rate threshold was breached; quality
	// errored on secret-003; respected_denials skipped twice.
	for _, want := range []string{
		`<testsuites name="agent-eval fixture-eval" tests="12" failures="3" errors="1" skipped="2"`,
		`<testcase classname="tests_pass" name="docs-002" time="18.250">`,
		`<failure message="2 of 5 examples fail to compile" type="failed verdict">`,
		`<error message="the judge model answered 7, outside score_range [1, 5]" type="error sample">`,
		`<skipped message="its if: was false"></skipped>`,
		`<property name="run_id" value="20261201-031500.000-claude-sonnet-4-5"></property>`,
		`<failure message="tests_pass min_pass_rate: want 0.8, got 0.667" type="threshold breached">`,
		`Clear plan; <script>alert(1)</script> handled the denial well.`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("junit.xml lacks %s", want)
		}
	}
}

func TestReportStructure(t *testing.T) {
	d, s := fixture(t, true)
	if err := Write(d, s); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(d.Report())
	if err != nil {
		t.Fatal(err)
	}
	html := string(b)
	for _, want := range []string{
		`<strong>FAILED</strong>`,
		`✗ tests_pass: pass rate ≥ 80.0% — got 66.7%`,
		`✓ quality: mean ≥ 3 — got 3.5`,
		`<b>4 made · 3 cached · 1 failed</b>`,
		`<b>1 case_override · 1 fallback · 1 llm</b>`,
		`<b>0.55</b><span>mean reward</span>`,
		`<table id="case-table" class="sortable">`,
		`<a href="#case-deploy-001">deploy-001</a>`,
		`<td class="n v-fail" data-v="0" title="2 of 5 examples fail to compile`,
		`<td class="n v-err" data-v="-2" title="the judge model answered 7`,
		`<td class="n v-skip" data-v="-1"`,
		`<details class="case" id="case-deploy-001">`,
		// the denied Bash call, the hook's deny on it, joined by tool_use_id
		`<div class="ev tool denied iserr" data-tool-use-id="toolu_01">`,
		`<span class="tag deny">hook deny</span> <small title="handlers[0] in tool_handlers.yaml">handler 1</small> — Jira is blocked in evals: production tracker`,
		`<span class="tier t-llm">llm</span> <q>Which environment?</q> → <b>staging</b>`,
		`<span class="tag fallback">hook answer (fallback)</span>`,
		`<span class="tier t-case_override">case_override</span>`,
		`⚠ the hook model did not answer: timeout`,
		// a long tool result is collapsed behind its first line
		`<details class="res"><summary>result: line 0: config value 0</summary>`,
		// the transcript's <script> is text
		`&lt;script&gt;alert(&#39;pwned&#39;)&lt;/script&gt; &amp; &lt;img src=x onerror=alert(1)&gt;`,
		// output files, inlined and escaped
		`<a href="cases/deploy-001/outputs/report.md">report.md</a>`,
		`Done. &lt;b&gt;not bold&lt;/b&gt;`,
		`<a href="cases/deploy-001/outputs/logs/deploy.log">logs/deploy.log</a>`,
		`the agent exited 1: API error 529 overloaded`,
		`title="the agent exited 0; this is not a verdict">completed</td>`,
		`samples 4, 4, 5 (spread 1)`,
	} {
		if !strings.Contains(html, want) {
			t.Errorf("report.html lacks %s", want)
		}
	}
	if strings.Contains(html, ">passed<") {
		t.Error(`report.html calls an exit code "passed"`)
	}
	selfContained(t, html)
}

// selfContained: one script (ours, allowed by the page's CSP hash), no
// reference outside the file.
func selfContained(t *testing.T, html string) {
	t.Helper()
	if n := strings.Count(html, "<script"); n != 1 {
		t.Errorf("report.html has %d <script> tags, want 1 (its own)", n)
	}
	scripts := regexp.MustCompile(`(?s)<script>(.*?)</script>`).FindStringSubmatch(html)
	if scripts == nil {
		t.Fatal("no script")
	}
	sum := sha256.Sum256([]byte(scripts[1]))
	if h := "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"; !strings.Contains(stdhtml.UnescapeString(html), h) {
		t.Errorf("the page's CSP does not allow its own script (%s)", h)
	}
	if m := regexp.MustCompile(`(?i)(src|href)=["']?(https?:)?//|@import|url\(\s*["']?https?:`).FindString(html); m != "" {
		t.Errorf("report.html reaches outside itself: %s", m)
	}
}

func TestReportNotScored(t *testing.T) {
	d, _ := fixture(t, false)
	b, err := Render(d, nil)
	if err != nil {
		t.Fatal(err)
	}
	html := string(b)
	for _, want := range []string{
		`<strong>NOT SCORED</strong>`,
		`<b>3</b><span>cases</span>`,
		`<b>$0.13</b><span>agent cost</span>`,
		`<b>1</b><span>permission denials</span>`,
		`<b>1 case_override · 1 fallback · 1 llm</b>`,
		`<div class="ev tool denied iserr" data-tool-use-id="toolu_01">`,
		`<a href="#case-secret-003">secret-003</a>`,
	} {
		if !strings.Contains(html, want) {
			t.Errorf("report.html without a summary lacks %s", want)
		}
	}
	for _, no := range []string{`id="judges"`, "mean reward", "LLM judge calls"} {
		if strings.Contains(html, no) {
			t.Errorf("report.html without a summary shows %s", no)
		}
	}
	selfContained(t, html)
}

func TestReportSurvivesBrokenCases(t *testing.T) {
	d, s := fixture(t, true)
	// A case without a result, a transcript cut mid-line, a ledger of junk.
	if err := os.Remove(d.CaseResult("docs-002")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(d.Transcript("secret-003"), []byte(`{"kind":"prompt","text":"hi"}`+"\n"+`{"kind":"te`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(d.Ledger("deploy-001"), []byte("junk\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := Render(d, s)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `<details class="case" id="case-docs-002">`) {
		t.Error("a case without run_result.json is missing from the report")
	}
}

// TestReportSize200 measures report.html for 200 cases of a plausible
// size: 40 events each, tool results of 1-12 KiB, two output files.
func TestReportSize200(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 200 cases")
	}
	dir := t.TempDir()
	s := &rundir.Summary{SchemaVersion: 1, RunID: "big", EvalName: "big", Judges: []rundir.JudgeSummary{{Name: "ok", Kind: "expr", Type: "bool"}, {Name: "quality", Kind: "llm", Type: "float"}}}
	for i := range 200 {
		id := fmt.Sprintf("case-%03d", i)
		var tr strings.Builder
		for j := range 10 {
			tu := fmt.Sprintf("toolu_%d", j)
			for _, e := range []map[string]any{
				{"kind": "text", "text": strings.Repeat("I will look at the next file. ", 6)},
				{"kind": "tool_call", "tool_use_id": tu, "tool": "Bash", "input": map[string]string{"command": "grep -rn pattern src/ | head -50"}},
				{"kind": "tool_result", "tool_use_id": tu, "text": strings.Repeat("src/x.go:12: some matching line of code\n", 25*(j%5+1))},
				{"kind": "thinking", "text": "the next step"},
			} {
				b, _ := json.Marshal(e)
				tr.Write(append(b, '\n'))
			}
		}
		must(t, os.MkdirAll(filepath.Join(dir, "cases", id, "outputs"), 0o755))
		must(t, os.WriteFile(filepath.Join(dir, "cases", id, "transcript.jsonl"), []byte(tr.String()), 0o644))
		must(t, os.WriteFile(filepath.Join(dir, "cases", id, "outputs", "answer.md"), []byte(strings.Repeat("answer line\n", 100)), 0o644))
		must(t, os.WriteFile(filepath.Join(dir, "cases", id, "run_result.json"), []byte(`{"case_id":"`+id+`","status":"passed","num_turns":11,"cost_usd":0.05}`), 0o644))
		v, yes := 0.8, i%3 != 0
		s.Cases = append(s.Cases, rundir.CaseSummary{ID: id, Status: "completed", Verdicts: []rundir.Verdict{{Judge: "ok", Value: &v, Passed: &yes, Rationale: "because"}, {Judge: "quality", Value: &v}}})
	}
	start := time.Now()
	b, err := Render(rundir.Dir{Path: dir}, s)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("report.html for 200 cases: %d bytes (%.1f MiB), rendered in %s", len(b), float64(len(b))/(1<<20), time.Since(start).Round(time.Millisecond))
	if len(b) > 20<<20 {
		t.Errorf("report.html for 200 cases is %d bytes", len(b))
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestJUnitCarriesAnyText: an agent's or judge's text with control
// characters and a CDATA end still makes well-formed XML that says it.
func TestJUnitCarriesAnyText(t *testing.T) {
	d, s := fixture(t, true)
	s.Cases[1].Verdicts[0].Rationale = "colour \x1b[31mred\x1b[0m and ]]> end & <tag>"
	b, err := RenderJUnit(d, s)
	if err != nil {
		t.Fatal(err)
	}
	var doc junitSuites
	if err := xml.Unmarshal(b, &doc); err != nil {
		t.Fatalf("junit.xml is not well-formed: %v\n%s", err, b)
	}
	f := doc.Suites[0].Cases[1].Failure
	if f == nil || !strings.Contains(f.Text, "colour \uFFFD[31mred\uFFFD[0m and ]]> end & <tag>") {
		t.Errorf("failure = %+v", f)
	}
}

// An output file the agent wrote with a credential in it (the value of a
// secret-named variable, a URL's password) is shown redacted.
func TestReportRedactsOutputs(t *testing.T) {
	t.Setenv("REPORT_TEST_TOKEN", "plain-looking-value-4711")
	d, s := fixture(t, true)
	leak := "token plain-looking-value-4711 db https://bot:pw-hunter2@db.example/x\n"
	if err := os.WriteFile(filepath.Join(d.Outputs("deploy-001"), "leak.txt"), []byte(leak), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := Render(d, s)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "leak.txt") || !strings.Contains(string(b), "token [redacted] db https://[redacted]@db.example/x") {
		t.Error("leak.txt is not shown redacted")
	}
	if strings.Contains(string(b), "plain-looking-value-4711") || strings.Contains(string(b), "pw-hunter2") {
		t.Error("the report shows a credential an output file holds")
	}
}

// TestReportSaysWhatIs: what the page says matches the run. The workspace
// the agent ran in is gone after the run, so its paths are shown relative
// to it; the final answer is not repeated as an assistant message; an
// answered question is a "hook answer"; handlers are numbered from 1 (the
// ledger's handler is the 0-based index into tool_handlers.yaml).
func TestReportSaysWhatIs(t *testing.T) {
	html := renderFixture(t)
	for _, want := range []string{
		`tool <b>Write</b> <code class="sum">./docs/api.md</code>`,
		`File created successfully at: ./docs/api.md`,
		`&#34;file_path&#34;: &#34;./docs/api.md&#34;`,
		`<span class="tag answer">hook answer</span> <small title="handlers[2] in tool_handlers.yaml">handler 3</small>`,
		`<span class="tag deny">hook deny</span> <small title="handlers[0] in tool_handlers.yaml">handler 1</small>`,
		`<span class="tag fallback">hook answer (fallback)</span>`,
		`<div class="lbl">final answer</div><pre class="wrap">Wrote docs/api.md.</pre>`,
		`<p class="note">Paths in the agent's workspace, deleted after the run, are shown relative to it (<code>./…</code>).</p>`,
	} {
		if !strings.Contains(html, want) {
			t.Errorf("report.html lacks %s", want)
		}
	}
	if strings.Contains(html, "/tmp/agent-eval-0/") {
		t.Error("report.html shows the path of a workspace that no longer exists")
	}
	if n := strings.Count(html, "Wrote docs/api.md."); n != 1 {
		t.Errorf("the final answer is shown %d times, want once", n)
	}
	if strings.Contains(html, ">handler 0<") {
		t.Error("report.html numbers a handler 0")
	}
}

// TestCaseDetailsGolden: each case's details (verdicts, transcript, hook
// decisions, outputs) as report.html renders them; -update rewrites
// testdata/cases.golden.html after an intended change.
func TestCaseDetailsGolden(t *testing.T) {
	html := renderFixture(t)
	start, end := strings.Index(html, `<section id="details">`), strings.Index(html, `</main>`)
	if start < 0 || end < start {
		t.Fatalf("report.html has no details section")
	}
	golden.Assert(t, filepath.Join("testdata", "cases.golden.html"), []byte(html[start:end]))
}

// renderFixture is the scored fixture's report.html.
func renderFixture(t *testing.T) string {
	t.Helper()
	d, s := fixture(t, true)
	b, err := Render(d, s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestJUnitRedactsEveryText: junit.xml hides a secret wherever it lands,
// scored or not — in an attribute (which XML escapes, so a password with
// & < " no longer reads as itself) and in the error of a case the run did
// not score (the agent's own final message), a credential recognised by
// its shape as well. Checked on the decoded document, as CI reads it.
func TestJUnitRedactsEveryText(t *testing.T) {
	const secret = `p&ss<w0rd"4711`
	t.Setenv("REPORT_TEST_PASSWORD", secret)
	shaped := []string{"ghp_0123456789abcdefghijklmnopqrstuvwxyzAB", "pw-hunter2"}
	leak := "the agent ended with an error: " + secret + " " + shaped[0] + " https://bot:pw-hunter2@db.example/x"
	tests := []struct {
		name   string
		scored bool
	}{{"scored", true}, {"unscored", false}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, s := fixture(t, tt.scored)
			if tt.scored {
				s.EvalName, s.Model = "eval "+secret, "model "+secret
				s.Cases[1].ID = "case " + secret
				s.Cases[1].Verdicts[0].Rationale = leak
			} else {
				p := filepath.Join(d.Case("deploy-001"), "run_result.json")
				b, err := os.ReadFile(p)
				must(t, err)
				var c map[string]any
				must(t, json.Unmarshal(b, &c))
				c["status"], c["exit_code"], c["error"] = "failed", 1, leak
				b, err = json.Marshal(c)
				must(t, err)
				must(t, os.WriteFile(p, b, 0o644))
			}
			b, err := RenderJUnit(d, s)
			must(t, err)
			decoded := xmlTexts(t, b)
			for _, sec := range append([]string{secret}, shaped...) {
				if strings.Contains(decoded, sec) {
					t.Errorf("junit.xml shows %q:\n%s", sec, b)
				}
			}
			if !strings.Contains(decoded, redact.Mark) {
				t.Errorf("junit.xml does not say what it hid:\n%s", b)
			}
		})
	}
}

// xmlTexts is every attribute value and text of the XML document b,
// decoded, one a line.
func xmlTexts(t *testing.T, b []byte) string {
	t.Helper()
	var out strings.Builder
	dec := xml.NewDecoder(bytes.NewReader(b))
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return out.String()
		}
		if err != nil {
			t.Fatalf("junit.xml is not well-formed: %v\n%s", err, b)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			for _, a := range tok.Attr {
				out.WriteString(a.Value + "\n")
			}
		case xml.CharData:
			out.WriteString(string(tok) + "\n")
		}
	}
}

// TestReportShowsTheBoundary: the page says what world the agents ran in
// (the boundary and what it covered, or that there was none and why) and,
// per case, which hosts the boundary refused, shown inert (the agent chose
// the names).
func TestReportShowsTheBoundary(t *testing.T) {
	edit := func(t *testing.T, path string, f func(map[string]any)) {
		t.Helper()
		b, err := os.ReadFile(path)
		must(t, err)
		var doc map[string]any
		must(t, json.Unmarshal(b, &doc))
		f(doc)
		b, err = json.Marshal(doc)
		must(t, err)
		must(t, os.WriteFile(path, b, 0o644))
	}
	for _, tt := range []struct {
		name     string
		boundary map[string]any
		want     []string
	}{
		{"on", map[string]any{"on": true, "files": "the workspace's slot read-write", "network": "the model and api.example"},
			[]string{`the agents' world: the harness's boundary — files: the workspace&#39;s slot read-write; network: the model and api.example`}},
		{"off", map[string]any{"on": false, "why": "run --no-boundary"},
			[]string{`<span class="warn">the agents ran without the harness's boundary (run --no-boundary)`}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d, s := fixture(t, true)
			edit(t, d.RunResult(), func(doc map[string]any) { doc["boundary"] = tt.boundary })
			edit(t, d.CaseResult("deploy-001"), func(doc map[string]any) {
				doc["boundary_refused"] = []any{map[string]any{"host": "<img src=x onerror=alert(1)>.example", "count": 3}}
			})
			b, err := Render(d, s)
			must(t, err)
			html := string(b)
			want := append(tt.want, `The boundary refused connections to: <code>&lt;img src=x onerror=alert(1)&gt;.example</code> ×3`,
				`1 refused by the boundary`)
			for _, w := range want {
				if !strings.Contains(html, w) {
					t.Errorf("report.html lacks %s", w)
				}
			}
			if strings.Contains(html, "<img src=x") {
				t.Error("a refused host's name is live markup")
			}
		})
	}
}
