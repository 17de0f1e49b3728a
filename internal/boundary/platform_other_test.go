//go:build !linux

package boundary

import (
	"errors"
	"testing"
)

// Outside Linux no boundary is drawn, even with a bubblewrap named: Probe
// and Bwrap say why, and a run refuses as on a Linux without namespaces.
func TestNoBoundaryOutsideLinux(t *testing.T) {
	t.Setenv("AGENT_EVAL_BWRAP", "/bin/sh")
	if _, err := Bwrap(); !errors.Is(err, ErrNeedsLinux) {
		t.Errorf("Bwrap error %v, want %v", err, ErrNeedsLinux)
	}
	if err := Probe(); !errors.Is(err, ErrNeedsLinux) {
		t.Errorf("Probe error %v, want %v", err, ErrNeedsLinux)
	}
}
