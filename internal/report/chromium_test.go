package report

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// ScreenshotDirEnv names the folder the Chromium test saves its
// screenshot in (default: agent-eval-screenshots under the temp folder).
const ScreenshotDirEnv = "AGENT_EVAL_SCREENSHOT_DIR"

// TestReportInChromium opens the fixture's report.html from file:// in
// headless Chromium, checks what a person sees after the page's script ran
// — the case table, a transcript, the denied call, sorting and the filter
// — that the page logged no error (an exception, a CSP refusal, a failed
// load), and saves a screenshot. In CI (CI=true) a missing Chromium fails
// the test: scripts/install-chromium.sh installs it.
func TestReportInChromium(t *testing.T) {
	start := time.Now()
	d, s := fixture(t, true)
	if err := Write(d, s); err != nil {
		t.Fatal(err)
	}
	br := startBrowser(t)
	bctx := br.ctx

	url := "file://" + filepath.ToSlash(d.Report())
	if err := chromedp.Do(bctx, chromedp.Navigate(url), chromedp.WaitVisible("#case-table")); err != nil {
		t.Fatalf("load %s: %v", url, err)
	}
	eval := func(js string) any {
		t.Helper()
		return br.eval(t, js)
	}
	checks := []struct{ what, js string }{
		{"the case table has a row per case", `document.querySelectorAll("#case-table tbody tr.case-row").length === 3`},
		{"the script ran (the filter counts the cases)", `document.getElementById("shown").textContent === "3 of 3 cases"`},
		{"a failed verdict is marked", `document.querySelector('tr[data-id="docs-002"] td.v-fail') !== null`},
		{"the threshold breach is shown", `document.querySelector("#verdict .breach").textContent.includes("tests_pass")`},
	}
	for _, c := range checks {
		if v := eval(c.js); v != true {
			t.Errorf("%s: %s = %v", c.what, c.js, v)
		}
	}

	// A person clicks the first case: its transcript opens, the denied call
	// and the hook's deny are visible, the agent's <script> is text.
	if err := chromedp.Do(bctx, chromedp.Click(`a[href="#case-deploy-001"]`), chromedp.WaitVisible(`#case-deploy-001 .ev.tool.denied`)); err != nil {
		t.Fatalf("open a case: %v", err)
	}
	for _, c := range []struct{ what, js string }{
		{"the case opened", `document.getElementById("case-deploy-001").open`},
		{"the transcript shows the prompt and the model's text", `document.querySelector("#case-deploy-001 .transcript").innerText.includes("I'll start by reading the deploy config.")`},
		{"the denied call is a visible row", `(function(){const r = document.querySelector('#case-deploy-001 .ev.tool.denied[data-tool-use-id="toolu_01"]'); return r !== null && r.offsetHeight > 0 && r.innerText.includes("DENIED") && r.innerText.includes("jira issue create")})()`},
		{"the hook's deny is on it", `document.querySelector('#case-deploy-001 [data-tool-use-id="toolu_01"] .hook.h-deny') !== null`},
		{"the llm-tier answer is shown", `document.querySelector('#case-deploy-001 [data-tool-use-id="toolu_02"] .tier.t-llm') !== null`},
		{"the transcript's <script> is text", `document.querySelector("#case-deploy-001").innerText.includes("<script>alert('pwned')</script>") && document.querySelectorAll("script").length === 1`},
	} {
		if v := eval(c.js); v != true {
			t.Errorf("%s: %s = %v", c.what, c.js, v)
		}
	}

	// Every text wraps: with every case and every collapsed result open, the
	// page is no wider than the window and no block scrolls sideways (a
	// long one-line tool result in docs-002 used to).
	eval(`(function(){window.wasOpen = Array.from(document.querySelectorAll("details"), d => d.open); document.querySelectorAll("details").forEach(d => d.open = true); return true})()`)
	for _, c := range []struct{ what, js string }{
		{"the page does not scroll sideways", `document.documentElement.scrollWidth <= document.documentElement.clientWidth`},
		{"no pre scrolls sideways", `Array.from(document.querySelectorAll("pre")).filter(p => p.scrollWidth > p.clientWidth + 1).map(p => p.textContent.slice(0, 60)).join(" | ") === ""`},
		{"the long one-line result is there, wrapped", `(function(){const p = document.querySelector('#case-docs-002 [data-tool-use-id="toolu_12"] pre'); return p !== null && p.getBoundingClientRect().height > 40})()`},
	} {
		if v := eval(c.js); v != true {
			t.Errorf("%s: %s = %v", c.what, c.js, v)
		}
	}
	eval(`(function(){document.querySelectorAll("details").forEach((d, i) => d.open = window.wasOpen[i]); return true})()`)

	// Sorting by case id twice puts the last case first; the filter hides rows.
	eval(`(function(){const th = document.querySelector("#case-table th"); th.click(); th.click(); return true})()`)
	if v := eval(`document.querySelector("#case-table tbody tr").getAttribute("data-id")`); v != "secret-003" {
		t.Errorf("sorted descending by case, the first row is %v", v)
	}
	filter := func(q string) {
		t.Helper()
		eval(`(function(){const f = document.getElementById("filter"); f.value = ` + strconv.Quote(q) + `; f.dispatchEvent(new Event("input")); return true})()`)
	}
	filter("docs")
	if v := eval(`document.getElementById("shown").textContent`); v != "1 of 3 cases" {
		t.Errorf("after filtering by docs: %v", v)
	}
	filter("")

	dir := os.Getenv(ScreenshotDirEnv)
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "agent-eval-screenshots")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	// The overview and case table, then the opened case's transcript.
	for _, shot := range []struct{ name, scroll string }{
		{"report.png", `window.scrollTo(0, 0); true`},
		{"report-case.png", `document.getElementById("case-deploy-001").scrollIntoView(); true`},
		{"report-wrap.png", `document.getElementById("case-docs-002").open = true; document.querySelector('#case-docs-002 [data-tool-use-id="toolu_11"]').scrollIntoView(); true`},
	} {
		eval(shot.scroll)
		png, err := chromedp.Run(bctx, chromedp.CaptureScreenshot())
		if err != nil {
			t.Fatalf("screenshot: %v", err)
		}
		path := filepath.Join(dir, shot.name)
		if err := os.WriteFile(path, png, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("screenshot: %s (%d bytes)", path, len(png))
	}

	// The comparison page, in the same browser.
	a, b, cmp, cpath := comparison(t)
	if err := WriteCompare(cpath, a, b, cmp); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(bctx, chromedp.Navigate("file://"+filepath.ToSlash(cpath)), chromedp.WaitVisible("#judge-deltas")); err != nil {
		t.Fatalf("load the comparison page: %v", err)
	}
	for _, c := range []struct{ what, js string }{
		{"a row per judge", `document.querySelectorAll("#judge-deltas tbody tr").length === 3`},
		{"the regression is marked", `document.querySelector("#judge-deltas tr.c-worse").innerText.includes("regression")`},
		{"the script ran", `document.getElementById("shown").textContent === "3 of 3 cases"`},
	} {
		if v := eval(c.js); v != true {
			t.Errorf("compare.html: %s: %s = %v", c.what, c.js, v)
		}
	}
	eval(`(function(){const f = document.getElementById("only-failed"); f.click(); return true})()`)
	if v := eval(`document.getElementById("shown").textContent`); v != "2 of 3 cases" {
		t.Errorf("compare.html, only changed cases: %v", v)
	}
	png, err := chromedp.Run(bctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "compare.png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", filepath.Join(dir, "compare.png"))
	t.Logf("the chromium test took %s", time.Since(start).Round(time.Millisecond))

	if messages := br.stop(); len(messages) > 0 {
		t.Errorf("the page logged:\n%s", strings.Join(messages, "\n"))
	}
}
