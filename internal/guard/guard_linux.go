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
	"unsafe"
)

// PRSetChildSubreaper is PR_SET_CHILD_SUBREAPER of prctl(2).
const PRSetChildSubreaper = 36

// Main is the guard verb: it runs args (the agent's command line, after
// the guard's options and an optional "--") as described in the package
// comment and returns the exit code. Its own messages go to stderr; stdin,
// stdout and stderr are the agent's.
//
// Options: --init says the guard was started as the init of a new pid
// namespace (and mount namespace), which it sets up (see Namespace);
// --status-fd N writes how the agent ended ("exit N" or "signal N") to file
// descriptor N when it does, for a guard that cannot end like the agent did
// (the init of a pid namespace cannot die by its own signal); --probe only
// sets up the namespace and exits 0 when it could, ProbePartial when
// Namespace failed, ProbeNoNamespace when it is not in one.
func Main(args []string, stderr io.Writer) int {
	statusFD := -1
	probe, asInit := false, false
	var relays []relay
	var fsize uint64
	for len(args) > 0 {
		if args[0] == "--relay" && len(args) > 1 {
			r, err := parseRelay(args[1])
			if err != nil {
				fmt.Fprintln(stderr, "agent-eval guard:", err)
				return 2
			}
			relays, args = append(relays, r), args[2:]
			continue
		}
		if args[0] == "--fsize" && len(args) > 1 {
			n, err := strconv.ParseUint(args[1], 10, 64)
			if err != nil || n == 0 {
				fmt.Fprintf(stderr, "agent-eval guard: --fsize %q: not a size in bytes\n", args[1])
				return 2
			}
			fsize, args = n, args[2:]
			continue
		}
		if args[0] == "--status-fd" && len(args) > 1 {
			n, err := strconv.Atoi(args[1])
			if err != nil || n < 3 {
				fmt.Fprintf(stderr, "agent-eval guard: --status-fd %q: not a file descriptor above 2\n", args[1])
				return 2
			}
			statusFD, args = n, args[2:]
			syscall.CloseOnExec(n) // not the agent's
			continue
		}
		if args[0] == "--probe" || args[0] == "--init" {
			probe, asInit, args = probe || args[0] == "--probe", asInit || args[0] == "--init", args[1:]
			continue
		}
		break
	}
	help := len(args) > 0 && (args[0] == "-h" || args[0] == "--help")
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if probe {
		if os.Getpid() != 1 {
			fmt.Fprintln(stderr, "agent-eval guard --probe: not the init of a pid namespace")
			return ProbeNoNamespace
		}
		if err := Namespace(); err != nil {
			fmt.Fprintln(stderr, err)
			return ProbePartial
		}
		return 0
	}
	if len(args) == 0 || help {
		fmt.Fprintln(stderr, "usage: agent-eval guard [--init] [--status-fd N] [--relay ADDR=SOCKET]... [--fsize BYTES] -- COMMAND [ARG...]")
		return 2
	}
	// The agent's own parent-death signal (SIGKILL) follows this thread,
	// and so do the capabilities Namespace drops before the agent starts.
	runtime.LockOSThread()
	// Until Notify below, DeathSignal's default action ends the guard, which
	// has started nothing yet: the right outcome.
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, DeathSignal, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	// An init ignores a signal it has no handler for, its parent-death
	// signal too: a run that died before Notify is seen by its end of the
	// status pipe, closed.
	if statusFD >= 0 && readerGone(statusFD) {
		return 128 + int(DeathSignal)
	}
	// The init of a pid namespace: every process the agent starts lives in
	// it, cannot leave it, and dies when the guard does (the kernel kills
	// them all); none of them can signal the guard or anything outside.
	inNamespace := asInit && os.Getpid() == 1
	if inNamespace {
		if err := Namespace(); err != nil {
			fmt.Fprintln(stderr, "agent-eval guard: warning:", err)
		}
	} else if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, PRSetChildSubreaper, 1, 0); e != 0 {
		fmt.Fprintln(stderr, "agent-eval guard: warning: cannot become a child subreaper:", e)
	}
	// Inside a boundary (package boundary) the guard carries the agent's
	// allowed connections out of its network namespace. A relay that
	// cannot listen leaves the agent without the model: not worth starting.
	for _, r := range relays {
		if err := r.start(); err != nil {
			fmt.Fprintln(stderr, "agent-eval guard:", err)
			return 127
		}
	}
	if fsize > 0 {
		if err := setFileLimit(fsize); err != nil {
			fmt.Fprintln(stderr, "agent-eval guard:", err)
			return 127
		}
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
			if !inNamespace {
				KillDescendants() // in a namespace, the kernel does
			}
			if statusFD >= 0 {
				return report(statusFD, ws)
			}
			return mirror(ws)
		case s := <-sigs:
			if s == DeathSignal {
				if !inNamespace {
					KillDescendants()
				}
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

// report writes how the agent ended to fd and returns the exit code that
// says the same as well as a code can.
func report(fd int, ws syscall.WaitStatus) int {
	f := os.NewFile(uintptr(fd), "status")
	code := ws.ExitStatus()
	line := fmt.Sprintf("exit %d\n", code)
	if !ws.Exited() {
		code = 128 + int(ws.Signal())
		line = fmt.Sprintf("signal %d\n", int(ws.Signal()))
	}
	_, _ = f.WriteString(line) // a reader that is gone has no use for it
	_ = f.Close()
	return code
}

// readerGone reports whether the read end of the pipe whose write end is
// fd is closed (its process, the run, has ended).
func readerGone(fd int) bool {
	pfd := struct {
		fd             int32
		events, revent int16
	}{fd: int32(fd), events: pollOut}
	var zero syscall.Timespec
	n, _, e := syscall.Syscall6(syscall.SYS_PPOLL, uintptr(unsafe.Pointer(&pfd)), 1, uintptr(unsafe.Pointer(&zero)), 0, 0, 0)
	return e == 0 && n == 1 && pfd.revent&pollErr != 0
}

// pollOut and pollErr are POLLOUT and POLLERR of poll(2).
const (
	pollOut = 0x4
	pollErr = 0x8
)

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
	return killRounds(func(ps []proc) []proc {
		var out []proc
		for _, p := range descend(ps, func(p proc) bool { return p.pid == root || p.pgrp == root }) {
			if p.pid != self {
				out = append(out, p)
			}
		}
		return out
	}, func(proc) bool { return waitZombies })
}

// descend returns the processes of ps that from picks, and their
// descendants in ps.
func descend(ps []proc, from func(proc) bool) []proc {
	children := map[int][]proc{}
	for _, p := range ps {
		children[p.ppid] = append(children[p.ppid], p)
	}
	in := map[int]bool{}
	var out []proc
	var walk func(proc)
	walk = func(p proc) {
		if in[p.pid] {
			return
		}
		in[p.pid] = true
		out = append(out, p)
		for _, c := range children[p.pid] {
			walk(c)
		}
	}
	for _, p := range ps {
		if from(p) {
			walk(p)
		}
	}
	return out
}

// killRounds SIGKILLs the processes pick chooses from the list of
// processes, round after round until it chooses none that is left (a
// zombie is left while zombieLeft says so), and returns how many it
// signalled. It gives up after about two seconds.
func killRounds(pick func([]proc) []proc, zombieLeft func(proc) bool) int {
	signalled := map[int]bool{}
	for round := 0; round < 400; round++ {
		left := 0
		for _, p := range pick(processes()) {
			switch {
			case p.zombie:
				if zombieLeft(p) {
					left++
				}
			default:
				left++
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

// GroupAttr starts a process as the leader of a process group of its own
// that gets sig when the process that started it dies (a parent-death
// signal: start it with Start, so the signal follows the starting process,
// not a thread the runtime retires).
func GroupAttr(sig syscall.Signal) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: sig}
}
