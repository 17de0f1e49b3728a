package testutil

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// recordingTB is a test whose cleanups and errors a test runs and reads.
type recordingTB struct {
	testing.TB
	cleanups []func()
	errs     []string
}

func (r *recordingTB) Helper()                   {}
func (r *recordingTB) Cleanup(f func())          { r.cleanups = append(r.cleanups, f) }
func (r *recordingTB) Errorf(f string, a ...any) { r.errs = append(r.errs, fmt.Sprintf(f, a...)) }

// end runs the cleanups as testing does, the last registered first.
func (r *recordingTB) end() {
	for i := len(r.cleanups) - 1; i >= 0; i-- {
		r.cleanups[i]()
	}
}

func TestContext(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		d       time.Duration
		wait    bool
		wantErr bool
	}{
		{"past its deadline", 10 * time.Millisecond, true, true},
		{"within it", time.Hour, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := &recordingTB{TB: t}
			ctx := Context(r, tt.d)
			// A cleanup the test registers after it runs first: the
			// context is still live there.
			live := false
			r.Cleanup(func() { live = ctx.Err() == nil })
			if dl, ok := ctx.Deadline(); !ok || time.Until(dl) > tt.d {
				t.Errorf("deadline %v, %v: want one within %s", dl, ok, tt.d)
			}
			if tt.wait {
				<-ctx.Done()
				if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
					t.Errorf("ctx.Err() = %v", ctx.Err())
				}
			}
			r.end()
			if ctx.Err() == nil {
				t.Error("the context outlived its test")
			}
			if live == tt.wait {
				t.Errorf("the context was live in a later cleanup: %v; want %v", live, !tt.wait)
			}
			if got := len(r.errs) > 0; got != tt.wantErr || got && !strings.Contains(r.errs[0], "hung") {
				t.Errorf("errors %q; want one saying it hung: %v", r.errs, tt.wantErr)
			}
		})
	}
}

// The binary's deadline, less a grace, bounds the context.
func TestContextWithinTheBinarysDeadline(t *testing.T) {
	t.Parallel()
	end, ok := t.Deadline()
	if !ok {
		t.Skip("go test runs without -timeout")
	}
	ctx := Context(t, 1000*time.Hour)
	if dl, _ := ctx.Deadline(); !dl.Before(end) {
		t.Errorf("deadline %v, not before the binary's %v", dl, end)
	}
}
