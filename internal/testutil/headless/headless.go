// Package headless starts a headless Chromium for the tests that drive
// agent-eval's pages (report.html, history.html, the viewer), and collects
// what those pages log. Tests only: the binary links nothing under
// internal/testutil.
package headless

import (
	"context"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/agent-eval/agent-eval/internal/testutil/need"
)

// Binary is the browser the tests drive: $CHROMIUM_BIN, else the first of
// the usual names on PATH ("" for none).
func Binary() string {
	if p := os.Getenv("CHROMIUM_BIN"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// Browser is a headless Chromium for one test, and the errors, exceptions
// and warnings its pages logged (a CSP refusal is one).
type Browser struct {
	Ctx      context.Context
	close    func()
	mu       sync.Mutex
	messages []string
}

// Start starts Chromium for at most a minute (a missing one skips the test,
// or fails it under CI=true); the test's cleanup ends it.
func Start(t testing.TB) *Browser {
	t.Helper()
	bin := Binary()
	if bin == "" {
		need.Missing(t, "no chromium on PATH and no $CHROMIUM_BIN", need.Install("chromium"))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(bin),
		chromedp.NoSandbox, // root in CI
		chromedp.DisableGPU,
		chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.WindowSize(1280, 900),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	bctx, cancelBrowser := chromedp.NewContext(actx)
	b := &Browser{Ctx: bctx, close: func() { cancelBrowser(); cancelAlloc(); cancel() }}
	t.Cleanup(b.close)
	if err := chromedp.Listen(bctx, func(ev any) {}); err != nil {
		t.Fatalf("start chromium (%s): %v", bin, err)
	}
	console := chromedp.Console(bctx)
	go func() {
		for m, err := range console {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleError || m.Type == chromedp.ConsoleException || m.Type == chromedp.ConsoleWarning {
				b.mu.Lock()
				b.messages = append(b.messages, m.String())
				b.mu.Unlock()
			}
		}
	}()
	return b
}

// Eval evaluates js in the current page.
func (b *Browser) Eval(t testing.TB, js string) any {
	t.Helper()
	v, err := chromedp.Run(b.Ctx, chromedp.Evaluate[any](js))
	if err != nil {
		t.Fatalf("evaluate %s: %v", js, err)
	}
	return v
}

// Logged is what the pages logged so far.
func (b *Browser) Logged() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.messages...)
}

// Stop ends the browser and returns what its pages logged.
func (b *Browser) Stop() []string {
	b.close()
	return b.Logged()
}
