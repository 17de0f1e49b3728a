package guard

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Record appends "PID STARTTIME LABEL RUNPID RUNSTARTTIME" to path: a
// process group the run started (the guard, its leader) and the run itself
// (the caller), so that a later --resume of a run that died can find and
// kill what survived it. The start times (from /proc/<pid>/stat) keep a
// reused pid from being taken for either.
func Record(path string, pid int, label string) error {
	p, err := stat(pid)
	if err != nil {
		return fmt.Errorf("read the start time of process %d: %w", pid, err)
	}
	self, err := stat(os.Getpid())
	if err != nil {
		return fmt.Errorf("read the start time of this process: %w", err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(f, "%d %d %s %d %d\n", pid, p.start, strings.Join(strings.Fields(label), "_"), self.pid, self.start)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
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
		pid, runPID     int
		start, runStart uint64
		label           string
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
		if len(fs) > 4 {
			r.runPID, _ = strconv.Atoi(fs[3])
			r.runStart, _ = strconv.ParseUint(fs[4], 10, 64)
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
		if run, err := stat(r.runPID); r.runPID > 0 && r.runPID != os.Getpid() && err == nil && run.start == r.runStart && !run.zombie {
			killed = append(killed, Killed{Label: r.label, PID: r.pid, Live: r.runPID})
			continue
		}
		killed = append(killed, Killed{Label: r.label, PID: r.pid, Procs: killTree(r.pid, false)})
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return killed, err
	}
	return killed, nil
}
