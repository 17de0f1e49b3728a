package report

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/agent-eval/agent-eval/internal/testutil/need"
)

// browser is a headless Chromium for one test, and what its pages logged
// (errors, exceptions, warnings: a CSP refusal is one).
type browser struct {
	ctx      context.Context
	close    func()
	mu       sync.Mutex
	messages []string
}

// startBrowser starts Chromium (a missing one skips the test, or fails it
// under CI=true) for at most a minute; stop ends it.
func startBrowser(t *testing.T) *browser {
	t.Helper()
	bin := chromium()
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
	b := &browser{ctx: bctx, close: func() { cancelBrowser(); cancelAlloc(); cancel() }}
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

// eval evaluates js in the current page.
func (b *browser) eval(t *testing.T, js string) any {
	t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[any](js))
	if err != nil {
		t.Fatalf("evaluate %s: %v", js, err)
	}
	return v
}

// stop ends the browser and returns what its pages logged.
func (b *browser) stop() []string {
	b.close()
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.messages...)
}
