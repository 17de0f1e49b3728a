// Package testutil holds what many packages' tests share; its
// subpackages hold the larger helpers (golden files, a fake model API).
package testutil

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// Context is the context for a test that starts a process and waits for
// it (or for a runner's Invoke): it is cancelled after d, or earlier, a
// grace before the test binary's own deadline (go test -timeout), and at
// the cleanup registered when it was made (so after the cleanups the test
// registers later, which may still stop what it started). A hang then
// fails this one test, saying so, instead of the whole binary at go test's
// alarm, which names no culprit.
func Context(t testing.TB, d time.Duration) context.Context {
	t.Helper()
	deadline := time.Now().Add(d)
	if dt, ok := t.(interface{ Deadline() (time.Time, bool) }); ok {
		if end, ok := dt.Deadline(); ok {
			// What the test needs after the cancel to stop its processes
			// and report: a tenth of what is left, within 1s to 30s.
			grace := min(max(time.Until(end)/10, time.Second), 30*time.Second)
			deadline = minTime(deadline, end.Add(-grace))
		}
	}
	cause := fmt.Errorf("the test ran past its own deadline (%s, or a grace before go test's -timeout): what it waited for hung", d)
	ctx, cancel := context.WithDeadlineCause(context.Background(), deadline, cause)
	t.Cleanup(func() {
		if context.Cause(ctx) == cause {
			t.Errorf("testutil.Context: %v", cause)
		}
		cancel()
	})
	return ctx
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}
