package report

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"
)

// The README's picture of report.html: `make screenshot` runs the quick
// start offline and hands its report here.
var (
	screenshotOf  = flag.String("screenshot", "", "TestScreenshot: the report.html to photograph (make screenshot runs the quick start for one)")
	screenshotOut = flag.String("screenshot-out", "../../docs/img/report.png", "TestScreenshot: where the PNG goes")
)

// The picture's size: the verdict, the judges and the case table of the
// quick start fit; screenshotMaxBytes keeps the committed file small.
const (
	screenshotWidth    = 1280
	screenshotHeight   = 1100
	screenshotMaxBytes = 200 << 10
)

// TestScreenshot photographs -screenshot's report in headless Chromium in
// a fixed screenshotWidth × screenshotHeight viewport, the page scrolled to
// the top, and writes the PNG to -screenshot-out. Without -screenshot it
// does nothing.
func TestScreenshot(t *testing.T) {
	if *screenshotOf == "" {
		t.Skip("no -screenshot REPORT.html (make screenshot gives one)")
	}
	report, err := filepath.Abs(*screenshotOf)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(report); err != nil {
		t.Fatalf("the report to photograph: %v", err)
	}
	br := startBrowser(t)
	url := "file://" + filepath.ToSlash(report)
	if err := chromedp.Do(br.ctx, chromedp.EmulateViewport(screenshotWidth, screenshotHeight), chromedp.Navigate(url), chromedp.WaitVisible("#case-table")); err != nil {
		t.Fatalf("load %s: %v", url, err)
	}
	br.eval(t, `window.scrollTo(0, 0); true`)
	png, err := chromedp.Run(br.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if !bytes.HasPrefix(png, []byte("\x89PNG")) {
		t.Fatalf("the screenshot is no PNG (%d bytes)", len(png))
	}
	if len(png) > screenshotMaxBytes {
		t.Errorf("the screenshot is %d bytes, over %d: shrink the window", len(png), screenshotMaxBytes)
	}
	if err := os.MkdirAll(filepath.Dir(*screenshotOut), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(*screenshotOut, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot of %s: %s (%d bytes)", report, *screenshotOut, len(png))
	if messages := br.stop(); len(messages) > 0 {
		t.Errorf("the page logged:\n%s", messages)
	}
}
