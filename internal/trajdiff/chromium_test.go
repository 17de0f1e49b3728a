package trajdiff

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/agent-eval/agent-eval/internal/testutil/headless"
)

// TestHTMLInChromium opens the fixture's diff page in headless Chromium:
// the hostile answer is text (no script, no element of its own), and the first divergence is marked.
func TestHTMLInChromium(t *testing.T) {
	var b bytes.Buffer
	if err := fixture(t).WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "diff.html")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	br := headless.Start(t)
	bctx := br.Ctx
	// An alert() would block the page: the navigation would time out.
	if err := chromedp.Do(bctx, chromedp.Navigate("file://"+filepath.ToSlash(path)), chromedp.WaitVisible("#case-fix-001")); err != nil {
		t.Fatalf("load the page: %v", err)
	}
	for _, c := range []struct{ what, js string }{
		{"no script element", `document.querySelectorAll("script").length === 0`},
		{"no image or link from the runs", `document.querySelectorAll("img, a, b, iframe").length === 0`},
		{"the hostile answer is text", `document.getElementById("case-ask-002").innerText.includes("<script>alert('pwned')</script> @team")`},
		{"the file diff is text", `document.querySelector("#case-fix-001 pre.diff").innerText.includes("+tests <b>broken</b>")`},
		{"the first divergence is marked", `document.querySelector("#case-fix-001 tr.first").innerText.includes("go test")`},
		{"the verdict change is shown", `document.querySelector("#case-fix-001 .verdict").innerText.includes("pass → fail")`},
	} {
		ok, err := chromedp.Run(bctx, chromedp.Evaluate[bool](c.js))
		if err != nil {
			t.Fatalf("%s: %v", c.what, err)
		}
		if !ok {
			t.Errorf("%s: %s is false", c.what, c.js)
		}
	}
}
