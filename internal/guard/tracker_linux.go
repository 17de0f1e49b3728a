package guard

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"sync"
	"syscall"
)

// Tracker follows the processes of one agent run that has no pid
// namespace, for a caller that is a child subreaper (so that what the
// agent orphans comes to it even once the agent's guard is killed): the
// root (the guard) and its process group, every descendant of either, each
// process seen among them before (by pid and start time: it may have been
// orphaned to the caller since), and the caller's children whose
// environment carries the marker.
type Tracker struct {
	root      int
	rootStart uint64
	mark      []byte // "NAME=value", as environ holds it
	self      int

	mu   sync.Mutex
	seen map[int]uint64 // pid → start time
}

// NewTracker follows root's processes; mark is "NAME=value" of a variable
// only they were started with ("" for none).
func NewTracker(root int, mark string) *Tracker {
	t := &Tracker{root: root, self: os.Getpid(), seen: map[int]uint64{}}
	if mark != "" {
		t.mark = []byte(mark)
	}
	if p, err := stat(root); err == nil {
		t.rootStart = p.start
	}
	return t
}

// Look records the processes that are the agent run's now. Calling it
// often narrows the window in which a process can leave the tree, clear
// its environment and have its guard killed unseen.
func (t *Tracker) Look() { t.look(processes(), false) }

// look adds what is the agent run's in ps to seen and returns those of ps
// that are, zombies included; withMarks reads the environment of the
// caller's children for the marker as well.
func (t *Tracker) look(ps []proc, withMarks bool) []proc {
	t.mu.Lock()
	defer t.mu.Unlock()
	var others []proc
	for _, p := range ps {
		if p.pid != t.self && p.pid > 1 {
			others = append(others, p)
		}
	}
	out := descend(others, func(p proc) bool {
		switch {
		case p.pid == t.root && p.start == t.rootStart, p.pgrp == t.root:
			return true
		case p.start != 0 && t.seen[p.pid] == p.start:
			return true
		}
		return withMarks && t.mark != nil && p.ppid == t.self && t.marked(p.pid)
	})
	for _, p := range out {
		t.seen[p.pid] = p.start
	}
	return out
}

// marked reports whether pid's environment holds the marker.
func (t *Tracker) marked(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return false
	}
	for _, kv := range bytes.Split(b, []byte{0}) {
		if bytes.Equal(kv, t.mark) {
			return true
		}
	}
	return false
}

// Sweep SIGKILLs every process of the agent run, round after round until
// none is left, reaping those that became the caller's children (and only
// those: the caller's own children are its own business), and returns how
// many it signalled. It gives up after about two seconds.
func (t *Tracker) Sweep() int {
	return killRounds(func(ps []proc) []proc { return t.look(ps, true) }, func(p proc) bool {
		if p.ppid != t.self {
			return false // its parent, being killed too, takes it along
		}
		var ws syscall.WaitStatus
		_, err := syscall.Wait4(p.pid, &ws, syscall.WNOHANG, nil)
		return !errors.Is(err, syscall.ECHILD)
	})
}
