package report

import (
	"context"
	"testing"

	"github.com/agent-eval/agent-eval/internal/testutil/headless"
)

// browser is a headless Chromium for one test (internal/testutil/headless).
type browser struct {
	*headless.Browser
	ctx context.Context
}

// startBrowser starts Chromium (a missing one skips the test, or fails it
// under CI=true) for at most a minute; stop ends it.
func startBrowser(t *testing.T) *browser {
	t.Helper()
	b := headless.Start(t)
	return &browser{Browser: b, ctx: b.Ctx}
}

// eval evaluates js in the current page.
func (b *browser) eval(t *testing.T, js string) any { return b.Eval(t, js) }

// stop ends the browser and returns what its pages logged.
func (b *browser) stop() []string { return b.Stop() }
