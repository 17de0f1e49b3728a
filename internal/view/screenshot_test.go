package view

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"
)

// docs/view.md's picture: go test ./internal/view -run TestScreenshot -screenshot
var (
	screenshot    = flag.Bool("screenshot", false, "TestScreenshot: photograph the viewer's run page of the fixture")
	screenshotOut = flag.String("screenshot-out", "../../docs/img/view.png", "TestScreenshot: where the PNG goes")
)

// TestScreenshot photographs the fixture's scored run page in a fixed
// 1280 × 900 viewport and writes the PNG to -screenshot-out. Without
// -screenshot it does nothing.
func TestScreenshot(t *testing.T) {
	if !*screenshot {
		t.Skip("no -screenshot")
	}
	base := serve(t, root(t, false))
	br := startBrowser(t)
	br.open(t, base+"/run?r="+runScored, "#cases")
	png, err := chromedp.Run(br.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if !bytes.HasPrefix(png, []byte("\x89PNG")) {
		t.Fatalf("the screenshot is no PNG (%d bytes)", len(png))
	}
	if len(png) > 200<<10 {
		t.Errorf("the screenshot is %d bytes, over 200 KiB", len(png))
	}
	if err := os.MkdirAll(filepath.Dir(*screenshotOut), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(*screenshotOut, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s (%d bytes)", *screenshotOut, len(png))
}
