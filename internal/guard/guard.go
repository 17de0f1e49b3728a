// Package guard keeps an agent's processes from outliving agent-eval run,
// on Linux, even when the run is killed with SIGKILL and cannot clean up.
//
// The run starts each agent under `agent-eval guard -- AGENT ARGS…`: the
// guard leads the agent's process group, is a child subreaper (processes the
// agent orphans are reparented to it, not to init) and gets DeathSignal when
// the run dies (a parent-death signal, set from a locked OS thread, see
// Start). On that signal it kills every process of its group and every
// descendant, then exits. When the agent ends on its own, the guard kills
// what it left behind and exits with the agent's status (a signal death is
// re-raised), so the run sees what it would have seen without it.
//
// A parent-death signal is not inherited, so without the guard a killed run
// would take only the agent itself along, never its tool processes.
package guard

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// DeathSignal is what the guard receives when the process that started it
// dies. It is one nobody else sends to an agent's group (the run stops a
// group with SIGTERM and SIGKILL).
const DeathSignal = syscall.SIGUSR2

// prSetChildSubreaper is PR_SET_CHILD_SUBREAPER of prctl(2).
const prSetChildSubreaper = 36

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

// Main is the guard verb: it runs args (the agent's command line, after an
// optional "--") as described in the package comment and returns the exit
// code. Its own messages go to stderr; stdin, stdout and stderr are the
// agent's.
func Main(args []string, stderr io.Writer) int {
	help := len(args) > 0 && (args[0] == "-h" || args[0] == "--help")
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) == 0 || help {
		fmt.Fprintln(stderr, "usage: agent-eval guard -- COMMAND [ARG...]")
		return 2
	}
	// The agent's own parent-death signal (SIGKILL) follows this thread.
	runtime.LockOSThread()
	// Until Notify below, DeathSignal's default action ends the guard, which
	// has started nothing yet: the right outcome.
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, DeathSignal, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); e != 0 {
		fmt.Fprintln(stderr, "agent-eval guard: warning: cannot become a child subreaper:", e)
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(stderr, "agent-eval guard:", err)
		return 127
	}
	exited := make(chan syscall.WaitStatus, 1)
	go reap(cmd.Process.Pid, exited)
	for {
		select {
		case ws := <-exited:
			KillDescendants()
			return mirror(ws)
		case s := <-sigs:
			if s == DeathSignal {
				KillDescendants()
				return 128 + int(DeathSignal)
			}
			// SIGTERM, SIGINT, SIGHUP: the run signals the whole group, so the
			// agent got it too; the guard waits for the agent to end.
		}
	}
}

// reap waits for every child (the guard is a subreaper, so orphans become
// its children) and reports the agent's status.
func reap(agent int, exited chan<- syscall.WaitStatus) {
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, 0, nil)
		switch {
		case errors.Is(err, syscall.EINTR):
		case err != nil:
			time.Sleep(10 * time.Millisecond) // no children right now
		case pid == agent && (ws.Exited() || ws.Signaled()):
			exited <- ws
		}
	}
}

// mirror ends like the agent did: its exit code, or its signal re-raised.
func mirror(ws syscall.WaitStatus) int {
	if ws.Exited() {
		return ws.ExitStatus()
	}
	sig := ws.Signal()
	signal.Reset(sig)
	_ = syscall.Kill(os.Getpid(), sig)
	time.Sleep(100 * time.Millisecond) // a caught or ignored signal falls through
	return 128 + int(sig)
}

// KillDescendants SIGKILLs every other process of the caller's process
// group and every descendant of the caller (see killTree).
func KillDescendants() { killTree(os.Getpid(), true) }

// killTree SIGKILLs root's descendants and the members of root's process
// group (root itself too, unless it is the caller), round after round until
// none is left, not even as a zombie of a process still exiting: a
// multithreaded process (node) shows its leader as a zombie while its other
// threads still run and still hold its children, so a zombie is waited for,
// not taken for gone when waitZombies (the caller reaps its children; a
// sweep of someone else's leftovers cannot). It gives up after about two
// seconds and returns how many processes it signalled.
func killTree(root int, waitZombies bool) int {
	self := os.Getpid()
	signalled := map[int]bool{}
	for round := 0; round < 400; round++ {
		ps := processes()
		children := map[int][]int{}
		for _, p := range ps {
			children[p.ppid] = append(children[p.ppid], p.pid)
		}
		tree := map[int]bool{}
		var walk func(int)
		walk = func(pid int) {
			if tree[pid] {
				return
			}
			tree[pid] = true
			for _, c := range children[pid] {
				walk(c)
			}
		}
		walk(root)
		for _, p := range ps {
			if p.pgrp == root {
				walk(p.pid)
			}
		}
		left := 0
		for _, p := range ps {
			if !tree[p.pid] || p.pid == self || (p.zombie && !waitZombies) {
				continue
			}
			left++
			if !p.zombie {
				_ = syscall.Kill(p.pid, syscall.SIGKILL)
				signalled[p.pid] = true
			}
		}
		if left == 0 {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	return len(signalled)
}

// proc is what /proc/<pid>/stat says about a process.
type proc struct {
	pid, ppid, pgrp int
	zombie          bool
	start           uint64 // clock ticks after boot
}

// processes lists the processes visible in /proc.
func processes() []proc {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []proc
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if p, err := stat(pid); err == nil {
			out = append(out, p)
		}
	}
	return out
}

// stat reads /proc/<pid>/stat.
func stat(pid int) (proc, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return proc{}, err
	}
	// The command name may hold spaces and parentheses: the fields start
	// after the last ')'.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return proc{}, fmt.Errorf("/proc/%d/stat: no command name", pid)
	}
	f := strings.Fields(string(b[i+1:]))
	// f[0] is field 3 (state); ppid is field 4, pgrp 5, starttime 22.
	if len(f) < 20 {
		return proc{}, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f))
	}
	p := proc{pid: pid, zombie: f[0] == "Z" || f[0] == "X"}
	p.ppid, _ = strconv.Atoi(f[1])
	p.pgrp, _ = strconv.Atoi(f[2])
	p.start, err = strconv.ParseUint(f[19], 10, 64)
	return p, err
}
