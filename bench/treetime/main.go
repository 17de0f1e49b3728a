// Command treetime runs a command and reports what it cost: the wall time,
// the CPU of the whole process tree (user+system of the command and every
// descendant it waited for, from wait4), the command's own CPU without its
// children (read from /proc while it is a zombie, before it is reaped) and
// its own peak RSS (VmHWM, sampled every 20 ms). SIGINT and SIGTERM are
// passed on to the command. Linux only.
//
//	treetime [-o FILE] [-label L] -- COMMAND [ARG...]
//
// It appends one line to FILE (default stderr):
//
//	label=L wall_s=12.3 tree_cpu_s=45.6 self_cpu_s=1.2 self_rss_mb=38.5 exit=0
//
// and exits with the command's exit code.
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"
)

func main() {
	out := flag.String("o", "", "append the result line to `FILE` (default: stderr)")
	label := flag.String("label", "run", "the line's label")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: treetime [-o FILE] [-label L] -- COMMAND [ARG...]")
		os.Exit(2)
	}
	cmd := exec.Command(flag.Arg(0), flag.Args()[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	start := time.Now()
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "treetime:", err)
		os.Exit(2)
	}
	pid := cmd.Process.Pid
	go func() {
		for s := range sigs {
			_ = cmd.Process.Signal(s)
		}
	}()
	var rssKB int64
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			if kb, ok := vmHWM(pid); ok && kb > rssKB {
				rssKB = kb
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	// Wait for the exit without reaping, so /proc still holds the command's
	// own times; then reap it for the tree's.
	if err := waitNoReap(pid); err != nil {
		fmt.Fprintln(os.Stderr, "treetime: waitid:", err)
	}
	wall := time.Since(start)
	close(done)
	self, selfErr := ownCPU(pid)
	_ = cmd.Wait()
	ru, _ := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	var tree time.Duration
	if ru != nil {
		tree = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	selfS := "NA"
	if selfErr == nil {
		selfS = fmt.Sprintf("%.2f", self.Seconds())
	}
	line := fmt.Sprintf("label=%s wall_s=%.2f tree_cpu_s=%.2f self_cpu_s=%s self_rss_mb=%.1f exit=%d\n",
		*label, wall.Seconds(), tree.Seconds(), selfS, float64(rssKB)/1024, cmd.ProcessState.ExitCode())
	if err := report(*out, line); err != nil {
		fmt.Fprintln(os.Stderr, "treetime:", err)
	}
	code := cmd.ProcessState.ExitCode()
	if code < 0 { // killed by a signal
		code = 128 + int(cmd.ProcessState.Sys().(syscall.WaitStatus).Signal())
	}
	os.Exit(code)
}

// report appends line to the file out, or writes it to stderr.
func report(out, line string) error {
	if out == "" {
		_, err := fmt.Fprint(os.Stderr, line)
		return err
	}
	f, err := os.OpenFile(out, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	_, err = f.WriteString(line)
	return errors.Join(err, f.Close())
}

// waitNoReap blocks until pid exits, leaving it a zombie (waitid with
// WNOWAIT).
func waitNoReap(pid int) error {
	const pPID, wEXITED, wNOWAIT = 1, 4, 0x1000000
	var info [128]byte // siginfo_t
	for {
		_, _, e := syscall.Syscall6(syscall.SYS_WAITID, pPID, uintptr(pid), uintptr(unsafe.Pointer(&info[0])), wEXITED|wNOWAIT, 0, 0)
		if e == syscall.EINTR {
			continue
		}
		if e != 0 {
			return e
		}
		return nil
	}
}

// ownCPU is utime+stime of pid alone (not its children), from
// /proc/pid/stat, in clock ticks of 1/100 s.
func ownCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, err
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, errors.New("malformed stat")
	}
	f := strings.Fields(s[i+1:]) // f[0] is field 3 (state)
	if len(f) < 13 {
		return 0, errors.New("short stat")
	}
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return 0, err
	}
	return time.Duration(ut+st) * 10 * time.Millisecond, nil
}

// vmHWM is pid's peak resident set size in KB.
func vmHWM(pid int) (int64, bool) {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb, err == nil
		}
	}
	return 0, false
}
