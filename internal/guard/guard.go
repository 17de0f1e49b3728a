// Package guard keeps an agent's processes from outliving agent-eval run,
// on Linux, even when the run is killed with SIGKILL and cannot clean up,
// and whatever the agent kills.
//
// The run starts each agent under `agent-eval guard -- AGENT ARGS…`, where
// it can as the init of a pid namespace of its own (package agentproc
// decides): every process the agent starts is then in that namespace, can
// neither leave it nor signal the guard (an init ignores SIGKILL from its
// own namespace) or anything outside it, and the kernel kills them all when
// the guard ends; Namespace gives it a /proc of its own. Without a
// namespace the guard is a child subreaper (processes the agent orphans are
// reparented to it, not to init) and, should the agent kill it, the run
// sweeps what it adopts (Tracker).
//
// The guard leads the agent's process group and gets DeathSignal when the
// run dies (a parent-death signal, set from a locked OS thread, see Start).
// On that signal it kills every process of its group and every descendant,
// then exits. When the agent ends on its own, the guard kills what it left
// behind and exits with the agent's status (a signal death is re-raised, or
// reported through --status-fd by an init, which cannot die of its own
// signal), so the run sees what it would have seen without it.
//
// A parent-death signal is not inherited, so without the guard a killed run
// would take only the agent itself along, never its tool processes.
//
// Elsewhere (macOS) none of that exists: Main refuses, GroupAttr gives a
// process group and no parent-death signal, and Record and Sweep keep
// nothing (guard_other.go); package agentproc answers process-group
// containment there and the run says so.
package guard

import (
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
)

// DeathSignal is what the guard receives when the process that started it
// dies. It is one nobody else sends to an agent's group (the run stops a
// group with SIGTERM and SIGKILL).
const DeathSignal = syscall.SIGUSR2

// The exit codes of --probe besides 0.
const (
	ProbePartial     = 3
	ProbeNoNamespace = 4
)

// Start starts cmd from a goroutine locked to its OS thread for the life of
// the child, so a Pdeathsig in cmd.SysProcAttr fires when the starting
// process dies, not when the Go runtime happens to retire the thread that
// forked (the caveat of SysProcAttr.Pdeathsig). The returned channel gets
// cmd.Wait's result.
func Start(cmd *exec.Cmd) (<-chan error, error) {
	started := make(chan error, 1)
	exited := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread() // only after Wait: the child is gone
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		exited <- cmd.Wait()
	}()
	if err := <-started; err != nil {
		return nil, err
	}
	return exited, nil
}

// ParseStatus reads what --status-fd wrote: the agent's exit code, or -1
// and true when a signal ended it. ok is false when b says neither.
func ParseStatus(b []byte) (code int, signalled, ok bool) {
	kind, n, found := strings.Cut(strings.TrimSpace(string(b)), " ")
	v, err := strconv.Atoi(n)
	if !found || err != nil {
		return 0, false, false
	}
	switch kind {
	case "exit":
		return v, false, true
	case "signal":
		return -1, true, true
	}
	return 0, false, false
}

// Killed is a recorded process group found alive by Sweep: killed, or left
// alone because the run that started it still runs (Live).
type Killed struct {
	Label string
	PID   int
	Procs int // processes killed (the leader, its group, its descendants)
	// Live is the pid of the run that started the group, still running: its
	// agents are its own business, and are not killed.
	Live int
}
