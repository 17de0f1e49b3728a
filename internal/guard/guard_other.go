//go:build !linux

package guard

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"syscall"
)

// ErrNeedsLinux is what the guard's verb and the containment it gives
// answer outside Linux: a pid namespace, a child subreaper, a parent-death
// signal and /proc are Linux's.
var ErrNeedsLinux = fmt.Errorf("the guard needs Linux (pid namespaces, a child subreaper, a parent-death signal, /proc); this is %s", runtime.GOOS)

// GroupAttr starts a process as the leader of a process group of its own.
// This system has no parent-death signal: sig is not sent, and the group
// outlives a run that is killed (SIGKILL) before it could stop it.
func GroupAttr(sig syscall.Signal) *syscall.SysProcAttr {
	_ = sig
	return &syscall.SysProcAttr{Setpgid: true}
}

// Main refuses: package agentproc never starts the guard here (its Probe
// answers process-group containment), so a guard verb here was asked for
// by hand.
func Main(args []string, stderr io.Writer) int {
	_ = args
	fmt.Fprintln(stderr, "agent-eval guard:", ErrNeedsLinux)
	return 2
}

// Tracker follows an agent run's processes for the subreaper containment,
// which Linux alone has; package agentproc never picks it here, and a
// Tracker here follows nothing.
type Tracker struct{}

// NewTracker returns a Tracker that follows nothing (see Tracker).
func NewTracker(root int, mark string) *Tracker {
	_, _ = root, mark
	return &Tracker{}
}

// Look does nothing here (see Tracker).
func (t *Tracker) Look() {}

// Sweep kills nothing here (see Tracker) and says so: 0.
func (t *Tracker) Sweep() int { return 0 }

// Record records nothing here: without /proc there is no start time to
// tell a recorded process from a later one with its pid, and a sweep that
// could kill another process is worse than none. A resumed run then cannot
// kill what a killed attempt left running (the run says so at its start).
func Record(path string, pid int, label string) error {
	_, _, _ = path, pid, label
	return nil
}

// Sweep kills nothing here (see Record); it removes path, which a Linux
// attempt of the run may have left.
func Sweep(path string) ([]Killed, error) {
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	return nil, nil
}
