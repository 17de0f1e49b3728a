package report

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/agent-eval/agent-eval/internal/rundir"
)

// TestHistoryInChromium opens history.html of the fixture's runs from
// file:// in headless Chromium: the table has a row per run, each plot's
// series a point per run it has a value for (the cost one per run with a
// run_result.json), every link leads to a file that is there, following
// one opens that run's report, and the page logged nothing (a CSP refusal
// would be logged).
func TestHistoryInChromium(t *testing.T) {
	runs := historyFixture(t)
	// The scored runs get real reports, which link the page back.
	for _, id := range []string{histPassed, histFailed} {
		d, err := rundir.Open(filepath.Join(runs, id))
		if err != nil {
			t.Fatal(err)
		}
		s, err := d.ReadSummary()
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(runs, HistoryFile), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := Write(d, s); err != nil {
			t.Fatal(err)
		}
	}
	page := writeHistoryPage(t, runs)
	br := startBrowser(t)
	if err := chromedp.Do(br.ctx, chromedp.Navigate("file://"+filepath.ToSlash(page)), chromedp.WaitReady("#history")); err != nil {
		t.Fatalf("load %s: %v", page, err)
	}
	for _, c := range []struct{ what, js string }{
		{"the table is shown", `document.getElementById("history").getBoundingClientRect().height > 100`},
		{"the page does not scroll sideways (the table scrolls in its box)", `document.documentElement.scrollWidth <= document.documentElement.clientWidth`},
		{"a row per run", `document.querySelectorAll("#history tbody tr.run").length === 5`},
		{"the rows are oldest first", `document.querySelector("#history tbody tr.run").dataset.run === "` + histPassed + `"`},
		{"the failed run is marked", `document.querySelector('tr[data-run="` + histFailed + `"] td.v-fail').textContent === "FAILED"`},
		{"the unreadable run says why", `document.querySelector('tr[data-run="` + histBroken + `"]').innerText.includes("unexpected end of JSON input")`},
		{"three plots: pass rate, quality's mean, cost", `document.querySelectorAll("svg.plot").length === 3`},
		{"the pass rate plot: tests_pass, a point per scored run", `document.querySelectorAll('#plot-pass-rate g[data-series="tests_pass"] circle.pt').length === 2`},
		{"quality's mean: a point per scored run", `document.querySelectorAll('#plot-mean-1 g[data-series="quality"] circle.pt').length === 2`},
		{"the cost: a point per run with a result", `document.querySelectorAll('#plot-cost circle.pt').length === 3`},
		{"the points are in the plots' area", `Array.from(document.querySelectorAll("circle.pt")).every(c => { const r = c.getBoundingClientRect(); const s = c.ownerSVGElement.getBoundingClientRect(); return r.width > 0 && r.left >= s.left && r.right <= s.right && r.top >= s.top && r.bottom <= s.bottom })`},
		{"the points go left to right, oldest first", `(function(){const xs = Array.from(document.querySelectorAll('#plot-cost circle.pt'), c => +c.getAttribute("cx")); return xs.every((x, i) => i === 0 || x > xs[i-1])})()`},
		{"a point names its run", `document.querySelector('#plot-cost circle.pt title').textContent.startsWith("#1 ` + histPassed + `")`},
		{"no script ran or is there", `document.querySelectorAll("script").length === 0`},
	} {
		if v := br.eval(t, c.js); v != true {
			t.Errorf("%s: %s = %v", c.what, c.js, v)
		}
	}

	// Every link is to a file that is there.
	links := br.eval(t, `Array.from(document.querySelectorAll("a[href]"), a => a.href).join("\n")`).(string)
	hrefs := strings.Fields(links)
	if len(hrefs) != 2 {
		t.Errorf("history.html links %d reports, want 2 (the scored runs'): %v", len(hrefs), hrefs)
	}
	for _, h := range hrefs {
		u, err := url.Parse(h)
		if err != nil || u.Scheme != "file" {
			t.Errorf("link %s is not to a file", h)
			continue
		}
		if _, err := os.Stat(filepath.FromSlash(u.Path)); err != nil {
			t.Errorf("link %s: %v", h, err)
		}
	}

	// Following the first opens the run's report, which links the page back.
	if err := chromedp.Do(br.ctx, chromedp.Click(`a[href="`+histPassed+`/report.html"]`), chromedp.WaitVisible("#case-table")); err != nil {
		t.Fatalf("follow the link to the first report: %v", err)
	}
	if v := br.eval(t, `document.querySelector('#previous a[href="../history.html"]') !== null && location.pathname.endsWith("/`+histPassed+`/report.html")`); v != true {
		t.Errorf("the first run's report does not link history.html back: %v", v)
	}
	if v := br.eval(t, `(function(){const a = document.querySelector('#previous a'); return a === null ? "" : a.textContent})()`); v != "history of the runs" {
		t.Errorf("the first run's report names a previous run: %v", v)
	}
	// The second run's report links the first's, which is there.
	second := "file://" + filepath.ToSlash(filepath.Join(runs, histFailed, rundir.ReportFile))
	if err := chromedp.Do(br.ctx, chromedp.Navigate(second), chromedp.WaitVisible("#previous")); err != nil {
		t.Fatalf("load the second report: %v", err)
	}
	prev := br.eval(t, `document.querySelector('#previous a').href`).(string)
	if u, err := url.Parse(prev); err != nil || !strings.HasSuffix(u.Path, "/"+histPassed+"/report.html") {
		t.Errorf("the second report's previous run links %s", prev)
	} else if _, err := os.Stat(filepath.FromSlash(u.Path)); err != nil {
		t.Errorf("the second report's previous run: %v", err)
	}
	if messages := br.stop(); len(messages) > 0 {
		t.Errorf("the pages logged:\n%s", strings.Join(messages, "\n"))
	}
}
