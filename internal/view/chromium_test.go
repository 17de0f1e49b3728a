package view

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/agent-eval/agent-eval/internal/testutil/headless"
)

// browser is a headless Chromium for one test (internal/testutil/headless).
type browser struct {
	*headless.Browser
	ctx context.Context
}

// startBrowser starts Chromium for at most a minute (a missing one skips
// the test, or fails it under CI=true).
func startBrowser(t *testing.T) *browser {
	t.Helper()
	b := headless.Start(t)
	return &browser{Browser: b, ctx: b.Ctx}
}

func (b *browser) eval(t *testing.T, js string) any { return b.Eval(t, js) }

func (b *browser) check(t *testing.T, checks []struct{ what, js string }) {
	t.Helper()
	for _, c := range checks {
		if v := b.eval(t, c.js); v != true {
			t.Errorf("%s: %s = %v", c.what, c.js, v)
		}
	}
}

func (b *browser) logged() []string { return b.Logged() }

// serve runs the viewer of root on a loopback port for the test.
func serve(t *testing.T, root string) string {
	t.Helper()
	s := server(t, root)
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	return ts.URL
}

// TestViewerInChromium: a person goes from the index to a run, filters its
// cases, opens one and sees its transcript; a hostile case's text is inert;
// nothing the pages did was refused or failed.
func TestViewerInChromium(t *testing.T) {
	base := serve(t, root(t, false))
	br := startBrowser(t)
	br.open(t, base+"/", "table.runs")
	br.check(t, []struct{ what, js string }{
		{"a row per run", `document.querySelectorAll("table.runs tr.run").length === 3`},
		{"the live run is marked", `document.querySelector('tr[data-run="` + runLive + `"] .chip.live') !== null`},
	})
	// Navigation: index → run → case → back to the run.
	br.click(t, `tr[data-run="`+runScored+`"] a`, "#cases")
	br.check(t, []struct{ what, js string }{
		{"the run's verdict", `document.getElementById("verdict").textContent === "FAILED"`},
		{"a row per case", `document.querySelectorAll("#cases tbody tr.case-row").length === 3`},
		{"a failed verdict is marked", `document.querySelector('tr[data-id="docs-002"] td.v-fail') !== null`},
	})
	// A filter: the search box, submitted, narrows the table on the server.
	br.eval(t, `(function(){document.getElementById("f-q").value = "docs"; document.getElementById("filters").requestSubmit(); return true})()`)
	waitFor(t, br, `location.search.includes("q=docs") && document.querySelectorAll("#cases tbody tr.case-row").length === 1`)
	br.check(t, []struct{ what, js string }{
		{"the filtered row", `document.querySelector("#cases tbody tr.case-row").dataset.id === "docs-002"`},
		{"the count says so", `document.getElementById("shown").textContent.startsWith("1 of 3 cases")`},
		{"the form keeps the query", `document.getElementById("f-q").value === "docs"`},
	})
	br.click(t, `tr[data-id="docs-002"] a`, "#transcript")
	br.check(t, []struct{ what, js string }{
		{"the case page", `document.getElementById("case-id").textContent.startsWith("docs-002")`},
		{"the transcript has its entries", `document.querySelectorAll("#transcript .ev").length > 2`},
		{"the hook's answer is inline on its call", `document.querySelector('#transcript [data-tool-use-id="toolu_10"] .hook') !== null`},
		{"the verdicts and rationales", `document.querySelector("table.verdicts").innerText.includes("tests_pass")`},
	})
	br.click(t, "#crumb-run", "#cases")

	// The hostile case: its every text is shown, none of it runs or adds
	// an element.
	for _, target := range []string{"/run?r=" + runHostile, "/case?r=" + runHostile + "&id=evil-001"} {
		br.open(t, base+target, "footer")
		br.check(t, []struct{ what, js string }{
			{"no script of the agent's ran", `window.pwned === undefined`},
			{"no element of the agent's was added", `document.getElementById("injected") === null && document.querySelectorAll("img, svg[onload], [onerror]").length === 0`},
			{"the one script is the page's", `document.querySelectorAll("script").length === 1`},
		})
	}
	br.check(t, []struct{ what, js string }{
		{"the attack is shown as text", `document.body.innerText.includes('<script>window.pwned=1</script>')`},
		{"the hook's deny is on the call", `document.querySelector('#transcript [data-tool-use-id="t1"] .hook.h-deny') !== null`},
	})
	if m := br.logged(); len(m) > 0 {
		t.Errorf("the pages logged:\n%s", strings.Join(m, "\n"))
	}
}

// open navigates to u and waits for sel to be laid out. The waits are
// the page's own JavaScript: chromedp's WaitVisible never returned for
// elements below the header of these pages (they were laid out; why it
// does not see them is not understood), so no node query is used.
func (b *browser) open(t *testing.T, u, sel string) {
	t.Helper()
	if err := chromedp.Do(b.ctx, chromedp.Navigate(u)); err != nil {
		t.Fatalf("load %s: %v", u, err)
	}
	waitFor(t, b, visible(sel))
}

// click follows the element sel (a link) and waits for then to be laid
// out on the page it leads to.
func (b *browser) click(t *testing.T, sel, then string) {
	t.Helper()
	b.eval(t, `(function(){window.beforeClick = true; document.querySelector(`+strconv.Quote(sel)+`).click(); return true})()`)
	waitFor(t, b, `window.beforeClick === undefined && (`+visible(then)+`)`)
}

func visible(sel string) string {
	return `(function(){const e = document.querySelector(` + strconv.Quote(sel) + `); return e !== null && document.readyState === "complete" && e.getClientRects().length > 0})()`
}

func waitFor(t *testing.T, br *browser, js string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if v, err := chromedp.Run(br.ctx, chromedp.Evaluate[any](js)); err == nil && v == true {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("never true: %s", js)
}

// TestLiveRunInChromium: the page of a run in progress shows a case that
// finishes while it is open, without a reload, and says when the run ends.
func TestLiveRunInChromium(t *testing.T) {
	dir := root(t, false)
	base := serve(t, dir)
	br := startBrowser(t)
	br.open(t, base+"/run?r="+runLive, "#cases")
	br.eval(t, `window.notReloaded = true; true`)
	br.check(t, []struct{ what, js string }{
		{"its two cases so far", `document.querySelectorAll("#cases tbody tr").length === 2`},
		{"it says it runs", `document.getElementById("verdict").textContent.startsWith("running")`},
	})
	run := filepath.Join(dir, runLive)
	writeCase(t, filepath.Join(run, "cases", "live-002"), "live-002", 2)
	waitFor(t, br, `document.querySelector('#cases tbody tr[data-id="live-002"]') !== null`)
	br.check(t, []struct{ what, js string }{
		{"no reload", `window.notReloaded === true`},
		{"the new row links its case", `document.querySelector('tr[data-id="live-002"] a').getAttribute("href").includes("id=live-002")`},
		{"the new row has its status", `document.querySelector('tr[data-id="live-002"]').cells[1].textContent === "completed"`},
	})
	writeRun(t, run, "live-eval", true)
	waitFor(t, br, `document.getElementById("verdict").textContent.includes("finished")`)
	if m := br.logged(); len(m) > 0 {
		t.Errorf("the page logged:\n%s", strings.Join(m, "\n"))
	}
}

// TestLargeRunInChromium: a 1,000-case run's first page holds one page of
// rows (the table is paginated on the server, not hidden by script), the
// handler answers it well within a second, and the browser has it laid out
// soon after.
func TestLargeRunInChromium(t *testing.T) {
	dir := root(t, true)
	base := serve(t, dir)
	target := base + "/run?r=" + url.QueryEscape(runBig)
	start := time.Now()
	resp, err := http.Get(target)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	// Generous: the bound is on the work (1,000 small files read, 100 rows
	// rendered), not on this machine's load.
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the first page took %v", d)
	}
	t.Logf("the handler answered the first page of 1,000 cases in %v", time.Since(start))
	br := startBrowser(t)
	br.open(t, target, "#cases")
	br.check(t, []struct{ what, js string }{
		{"one page of rows in the DOM", `document.querySelectorAll("#cases tbody tr").length === 100`},
		{"the count names the pages", `document.getElementById("shown").textContent === "1000 of 1000 cases, page 1 of 10"`},
		{"the next page is a link", `document.getElementById("next").getAttribute("href").includes("page=2")`},
	})
	br.click(t, "#next", "#prev")
	br.check(t, []struct{ what, js string }{
		{"page 2 starts at case 100", `document.querySelector("#cases tbody tr").dataset.id === "case-0100"`},
	})
	if m := br.logged(); len(m) > 0 {
		t.Errorf("the pages logged:\n%s", strings.Join(m, "\n"))
	}
}
