package report

import (
	stdhtml "html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agent-eval/agent-eval/internal/rundir"
)

// The runs of testdata/history, oldest first.
const (
	histPassed     = "20261201-101500.000-claude-sonnet-4-5"
	histFailed     = "20261202-093000.000-claude-sonnet-4-5"
	histNotScored  = "20261203-110000.000-claude-opus-4-1"
	histIncomplete = "20261204-120000.000-claude-opus-4-1"
	histBroken     = "20261205-080000.000-claude-opus-4-1"
)

// HistoryFixture copies testdata/history (five runs: passed, failed, not
// scored, incomplete, unreadable; and a matrix folder) into a temporary
// folder and returns it. The runs without a started_at take their time
// from their ids, read in runIDZone: UTC for the test, so that the times
// are the same everywhere. (Not time.Local: the runtime reads it on every
// time.Now, in goroutines of earlier tests too.)
func historyFixture(t *testing.T) string {
	t.Helper()
	zone := runIDZone
	runIDZone = time.UTC
	t.Cleanup(func() { runIDZone = zone })
	dst := filepath.Join(t.TempDir(), "greet")
	if err := os.CopyFS(dst, os.DirFS("testdata/history")); err != nil {
		t.Fatal(err)
	}
	return dst
}

func TestLoadHistory(t *testing.T) {
	runs := historyFixture(t)
	h, err := LoadHistory(runs, nil)
	if err != nil {
		t.Fatal(err)
	}
	type row struct{ ID, Started, From, Verdict, Why string }
	var got []row
	for _, r := range h.Runs {
		got = append(got, row{r.RunID, r.StartedAt, r.TimeFrom, r.Verdict, r.Why})
	}
	want := []row{
		{histPassed, "2026-12-01T10:15:00Z", "started_at", VerdictPassed, ""},
		{histFailed, "2026-12-02T09:30:00Z", "started_at", VerdictFailed, ""},
		{histNotScored, "2026-12-03T11:00:00Z", "started_at", VerdictNotScored, ""},
		{histIncomplete, "2026-12-04T12:00:00Z", "run_id", VerdictIncomplete, "no run_result.json: the run is running, or stopped before its end"},
		{histBroken, "2026-12-05T08:00:00Z", "run_id", VerdictUnreadable, "read run_result.json: unexpected end of JSON input"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("LoadHistory runs (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"tests_pass", "quality"}, h.Judges); diff != "" {
		t.Errorf("judges (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"matrix-20261206-000000"}, h.Skipped); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
	if r := h.Runs[3]; r.Cases != 1 || r.CostUSD != nil || r.DurationS != nil {
		t.Errorf("incomplete run: %d cases, cost %v, duration %v; want the case folders counted and no totals", r.Cases, r.CostUSD, r.DurationS)
	}
	if r := h.Runs[0]; r.Report != filepath.Join(runs, histPassed, rundir.ReportFile) || h.Runs[2].Report != "" {
		t.Errorf("reports: %q and %q; want the passed run's only", r.Report, h.Runs[2].Report)
	}

	h.Last(2)
	if len(h.Runs) != 2 || h.Runs[0].RunID != histIncomplete || len(h.Judges) != 0 {
		t.Errorf("Last(2) = %d runs from %s, judges %v; want the incomplete and the broken run, no judges", len(h.Runs), h.Runs[0].RunID, h.Judges)
	}
}

// TestHistoryOrder: runs are ordered by when they started, not by name; a
// run without a time goes by when its run_result.json was written.
func TestHistoryOrder(t *testing.T) {
	runs := t.TempDir()
	write := func(id, started string, mtime time.Time) {
		t.Helper()
		p := filepath.Join(runs, id, rundir.RunResultFile)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		doc := `{"schema_version":1,"run_id":"` + id + `","started_at":"` + started + `"}`
		if err := os.WriteFile(p, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	day := func(d int) time.Time { return time.Date(2026, 12, d, 12, 0, 0, 0, time.UTC) }
	write("b-first", day(1).Format(time.RFC3339), day(9))
	write("a-second", day(2).Format(time.RFC3339), day(1))
	write("explicit", "", day(3))
	h, err := LoadHistory(runs, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range h.Runs {
		got = append(got, r.RunID)
	}
	if diff := cmp.Diff([]string{"b-first", "a-second", "explicit"}, got); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
}

func TestHistoryNoRunsDir(t *testing.T) {
	if _, err := LoadHistory(filepath.Join(t.TempDir(), "none"), nil); !os.IsNotExist(err) && !strings.Contains(err.Error(), "no such file") {
		t.Errorf("LoadHistory of no folder: %v, want a not-exist error", err)
	}
}

// writeHistoryPage writes the history.html of runs and returns its path.
func writeHistoryPage(t *testing.T, runs string) string {
	t.Helper()
	h, err := LoadHistory(runs, nil)
	if err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(runs, HistoryFile)
	if err := WriteHistory(page, h); err != nil {
		t.Fatal(err)
	}
	return page
}

func TestHistoryPage(t *testing.T) {
	runs := historyFixture(t)
	page := writeHistoryPage(t, runs)
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	html := stdhtml.UnescapeString(string(b))
	for _, want := range []string{
		`content="default-src 'none'; style-src 'unsafe-inline'; img-src data:"`,
		`<a href="` + histPassed + `/report.html">` + histPassed + `</a>`,
		`<a href="` + histFailed + `/report.html">` + histFailed + `</a>`,
		`<td class="v-fail">FAILED</td>`,
		`<td class="n">80% [38–96%]</td>`,
		`read run_result.json: unexpected end of JSON input`,
		`<figure id="plot-pass-rate">`, `<figure id="plot-cost">`,
	} {
		if !strings.Contains(html, want) {
			t.Errorf("history.html lacks %s", want)
		}
	}
	// No script, nothing loaded from elsewhere.
	if regexp.MustCompile(`(?i)<script|src="http|href="http`).MatchString(html) {
		t.Error("history.html has a script or an external resource")
	}
	// One point per scored run on each judge's series, one per run with a
	// run_result.json on the cost.
	if n := strings.Count(html, `<circle class="pt"`); n != 2+2+3 {
		t.Errorf("%d points, want 7 (2 pass rates, 2 means, 3 costs)", n)
	}
}

// TestHistoryRedacts plants a secret as a run's model, in the reason a
// summary gives for judging no case and as a judge's name: no output of
// the history holds it, and the report's previous-run line does not either.
func TestHistoryRedacts(t *testing.T) {
	const secret = "hist-s3cret-Zq8w1xPLm4"
	t.Setenv("HISTORY_TEST_API_KEY", secret)
	runs := historyFixture(t)
	plant := func(id, file, old, new string) {
		t.Helper()
		p := filepath.Join(runs, id, file)
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), old) {
			t.Fatalf("%s has no %q", p, old)
		}
		if err := os.WriteFile(p, []byte(strings.ReplaceAll(string(b), old, new)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	plant(histNotScored, rundir.RunResultFile, `"model":"claude-opus-4-1"`, `"model":"`+secret+`"`)
	plant(histFailed, rundir.SummaryFile, "judged_cases: 5", "judged_cases: 5\nnot_judged: the key "+secret+" was refused")
	plant(histFailed, rundir.SummaryFile, "name: quality", "name: quality-"+secret)

	h, err := LoadHistory(runs, nil)
	if err != nil {
		t.Fatal(err)
	}
	page, err := RenderHistory(filepath.Join(runs, HistoryFile), h)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(page), secret) {
		t.Error("history.html holds the secret")
	}
	if !strings.Contains(string(page), "the key [redacted] was refused") && !strings.Contains(string(page), "REDACTED") {
		t.Errorf("history.html does not show the redacted reason")
	}
	for _, r := range h.Runs {
		if strings.Contains(r.Model+r.Why+strings.Join(h.Judges, ","), secret) {
			t.Errorf("run %s holds the secret", r.RunID)
		}
	}
	// The not-scored run's report names the failed run before it.
	d, err := rundir.Open(filepath.Join(runs, histNotScored))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Render(d, nil)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(rep), secret) {
		t.Error("report.html holds the secret")
	}
}

func TestPreviousRun(t *testing.T) {
	runs := historyFixture(t)
	render := func(id string) string {
		t.Helper()
		d, err := rundir.Open(filepath.Join(runs, id))
		if err != nil {
			t.Fatal(err)
		}
		s, err := d.ReadSummary()
		if err != nil {
			s = nil
		}
		b, err := Render(d, s)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	line := regexp.MustCompile(`<p class="meta" id="previous">.*</p>`)
	tests := []struct {
		name, run, want string
	}{
		{"the first run has none", histPassed, ""},
		{"a scored previous run: its verdict and judges", histFailed,
			`<p class="meta" id="previous">previous run: <a href="../` + histPassed + `/report.html">` + histPassed + `</a> — passed, tests_pass 80%, quality 0.72</p>`},
		{"a failed one", histNotScored,
			`<p class="meta" id="previous">previous run: <a href="../` + histFailed + `/report.html">` + histFailed + `</a> — FAILED, tests_pass 40%, quality 0.55</p>`},
		{"one not scored, without a report", histIncomplete,
			`<p class="meta" id="previous">previous run: ` + histNotScored + ` — not scored</p>`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := line.FindString(render(tt.run)); got != tt.want {
				t.Errorf("report.html of %s: %q, want %q", tt.run, got, tt.want)
			}
		})
	}

	// With history.html in the runs directory, the report links it.
	if err := os.WriteFile(filepath.Join(runs, HistoryFile), []byte("<!DOCTYPE html>"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := line.FindString(render(histPassed)); got != `<p class="meta" id="previous"><a href="../history.html">history of the runs</a></p>` {
		t.Errorf("report.html of the first run with history.html: %q", got)
	}
}
