package guard

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Record appends "PID STARTTIME LABEL" to path: a process group the run
// started (the guard, its leader), so that a later --resume of a run that
// died can find and kill what survived it. The start time (from
// /proc/<pid>/stat) keeps a reused pid from being taken for it.
func Record(path string, pid int, label string) error {
	p, err := stat(pid)
	if err != nil {
		return fmt.Errorf("read the start time of process %d: %w", pid, err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(f, "%d %d %s\n", pid, p.start, strings.Join(strings.Fields(label), "_"))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Killed is a recorded process group found alive and killed by Sweep.
type Killed struct {
	Label string
	PID   int
	Procs int // processes killed (the leader, its group, its descendants)
}

// Sweep kills every process group recorded in path whose leader still runs
// with the recorded start time, with the group's other members and the
// leader's descendants, then removes the file. A missing file is no error.
func Sweep(path string) ([]Killed, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	type rec struct {
		pid   int
		start uint64
		label string
	}
	var recs []rec
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) < 2 {
			continue
		}
		pid, err1 := strconv.Atoi(fs[0])
		start, err2 := strconv.ParseUint(fs[1], 10, 64)
		if err1 != nil || err2 != nil || pid <= 1 {
			continue
		}
		r := rec{pid: pid, start: start}
		if len(fs) > 2 {
			r.label = fs[2]
		}
		recs = append(recs, r)
	}
	_ = f.Close()
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	var killed []Killed
	for _, r := range recs {
		p, err := stat(r.pid)
		if err != nil || p.start != r.start || p.zombie {
			continue // gone, or the pid now names another process
		}
		killed = append(killed, Killed{Label: r.label, PID: r.pid, Procs: killTree(r.pid, false)})
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return killed, err
	}
	return killed, nil
}
