// Package agentproc runs one agent process the way every runner needs it
// run: in its own process group (optionally under `agent-eval guard --`,
// package guard), its stdout copied and fed line by line to the caller,
// its stderr copied; a timeout or ctx cancellation stops the whole group
// (SIGTERM, a grace period, then SIGKILL), and whatever the agent leaves
// running in its group is killed when it ends.
package agentproc

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/agent-eval/agent-eval/internal/boundary"
	"github.com/agent-eval/agent-eval/internal/guard"
)

// Grace is how long a stopped agent gets between SIGTERM and SIGKILL,
// unless Spec.Grace says otherwise.
const Grace = 5 * time.Second

// Spec is one process.
type Spec struct {
	Path string   // the program (looked up in PATH when it has no slash)
	Args []string // its arguments, after the program
	Dir  string
	Env  []string // the whole environment (nil: none)
	// Timeout stops the process group after this long (0: never).
	Timeout time.Duration
	Grace   time.Duration // between SIGTERM and SIGKILL (0: the Grace constant)
	// Stdout and Stderr receive raw copies of the agent's streams (nil:
	// discarded).
	Stdout, Stderr io.Writer
	// Line, when set, is called with every line of stdout (its newline
	// included), in order, from one goroutine.
	Line func(line []byte)
	// Guard is the agent-eval binary: the agent then runs under
	// `Guard guard -- Path ARGS…`, which takes the agent's tool processes
	// along when the run dies, even by SIGKILL.
	Guard string
	// Started, when set, is called with the process group's id once it
	// runs.
	Started func(pgid int)
	// Containment is how the agent's processes are kept from outliving
	// it, under a guard ("": Probe's choice).
	Containment Mode
	// Boundary, when set, runs the agent (under the guard, which must be
	// set) in the world it draws (package boundary): Containment is then
	// Boundary.
	Boundary *boundary.Spec
}

// Result is how the process ended.
type Result struct {
	ExitCode    int // -1 when it did not exit by itself or could not start
	TimedOut    bool
	Interrupted bool
	Duration    time.Duration
	Err         error // it could not be started, or its output read
	Containment Mode  // what kept its processes from outliving it
	// OverQuota says how the agent's files passed the boundary's quota,
	// for which it was stopped ("" when they did not).
	OverQuota string
	// Refused are the hosts the boundary's proxy did not let the agent
	// reach.
	Refused []boundary.Refusal
}

// Run runs the process to its end, a timeout or ctx's cancellation (an
// interrupt). What it printed until then is kept. A process that escaped
// the group holding the agent's stdout open delays the result by at most
// the grace period.
func Run(ctx context.Context, s Spec) Result {
	start := time.Now()
	grace := s.Grace
	if grace <= 0 {
		grace = Grace
	}
	// The guard reports a missing agent only through an exit code: check
	// here, so the error says what it is. A relative path with a slash is
	// relative to Dir, as exec runs it.
	if !strings.Contains(s.Path, "/") {
		if _, err := exec.LookPath(s.Path); err != nil {
			return Result{ExitCode: -1, Err: fmt.Errorf("start %s: %w", s.Path, err)}
		}
	} else if p := s.Path; !filepath.IsAbs(p) && s.Dir != "" {
		if _, err := os.Stat(filepath.Join(s.Dir, p)); err != nil {
			return Result{ExitCode: -1, Err: fmt.Errorf("start %s: %w", s.Path, err)}
		}
	} else if _, err := os.Stat(p); err != nil {
		return Result{ExitCode: -1, Err: fmt.Errorf("start %s: %w", s.Path, err)}
	}
	contain := ProcessGroup
	var world *world
	if s.Boundary != nil {
		if s.Guard == "" {
			return Result{ExitCode: -1, Err: fmt.Errorf("start %s: a boundary needs the guard", s.Path)}
		}
		w, err := openWorld(s)
		if err != nil {
			return Result{ExitCode: -1, Err: fmt.Errorf("start %s: %w", s.Path, err)}
		}
		defer w.close()
		world, contain = w, Boundary
	} else if s.Guard != "" {
		contain = s.Containment
		if contain == "" {
			c, err := Probe(s.Guard)
			if err != nil {
				return Result{ExitCode: -1, Err: fmt.Errorf("start %s: %w", s.Path, err)}
			}
			contain = c.Mode
		}
	}
	var mark string
	if contain == Subreaper {
		becomeSubreaper()
		tok := make([]byte, 12)
		if _, err := rand.Read(tok); err != nil {
			return Result{ExitCode: -1, Err: fmt.Errorf("start %s: make the containment marker: %w", s.Path, err)}
		}
		mark = MarkerEnv + "=" + hex.EncodeToString(tok)
	}
	// The guard's report of how the agent ended, in a namespace (its init
	// cannot end by the agent's signal).
	var statusR, statusW *os.File
	if contain == PIDNamespace || contain == Boundary {
		var err error
		if statusR, statusW, err = os.Pipe(); err != nil {
			return Result{ExitCode: -1, Err: fmt.Errorf("make the guard's status pipe: %w", err)}
		}
		defer statusR.Close()
	}
	newCmd := func() *exec.Cmd {
		var cmd *exec.Cmd
		switch contain {
		case ProcessGroup:
			cmd = exec.Command(s.Path, s.Args...)
			// When the run dies, so does the agent: SIGKILL (on Linux).
			cmd.SysProcAttr = guard.GroupAttr(syscall.SIGKILL)
		case PIDNamespace:
			cmd = exec.Command(s.Guard, append([]string{"guard", "--init", "--status-fd", "3", "--", s.Path}, s.Args...)...)
			cmd.SysProcAttr = namespaceAttr()
			cmd.ExtraFiles = []*os.File{statusW}
		case Boundary:
			cmd = exec.Command(world.bwrap, world.command(s)...)
			// When the run dies, bubblewrap does, and with it the agent's
			// whole pid namespace.
			cmd.SysProcAttr = guard.GroupAttr(syscall.SIGKILL)
			cmd.ExtraFiles = []*os.File{statusW}
		default:
			// When the run dies, the guard kills the agent's whole tree.
			cmd = exec.Command(s.Guard, append([]string{"guard", "--", s.Path}, s.Args...)...)
			cmd.SysProcAttr = guard.GroupAttr(guard.DeathSignal)
		}
		cmd.Dir, cmd.Env = s.Dir, s.Env
		if cmd.Env == nil {
			cmd.Env = []string{}
		}
		if mark != "" {
			cmd.Env = append(cmd.Env[:len(cmd.Env):len(cmd.Env)], mark)
		}
		if world != nil {
			cmd.Env = append(cmd.Env[:len(cmd.Env):len(cmd.Env)], world.env()...)
		}
		cmd.WaitDelay = grace // bounds the copy of stderr to a non-file writer
		cmd.Stderr = s.Stderr
		return cmd
	}
	// Our own pipe rather than StdoutPipe, so the process can be waited for
	// while its output is still being read.
	pr, pw, err := os.Pipe()
	if err != nil {
		return Result{ExitCode: -1, Err: fmt.Errorf("make the agent's stdout pipe: %w", err)}
	}
	defer pr.Close()
	// A binary that was just written can be "text file busy" for a moment
	// while another fork of this process still holds it open for writing.
	var cmd *exec.Cmd
	var exited <-chan error
	for attempt := 0; ; attempt++ {
		cmd = newCmd()
		cmd.Stdout = pw
		exited, err = guard.Start(cmd)
		if !errors.Is(err, syscall.ETXTBSY) || attempt == 20 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	pw.Close()
	if statusW != nil {
		statusW.Close()
	}
	if err != nil {
		return Result{ExitCode: -1, Err: fmt.Errorf("start %s: %w", s.Path, err)}
	}
	if s.Started != nil {
		s.Started(cmd.Process.Pid)
	}
	var tracker *guard.Tracker
	if contain == Subreaper {
		tracker = guard.NewTracker(cmd.Process.Pid, mark)
		stopTrack := make(chan struct{})
		tracked := make(chan struct{})
		go track(tracker, stopTrack, tracked)
		defer func() { close(stopTrack); <-tracked }()
	}
	readDone := make(chan error, 1)
	go func() { readDone <- pump(pr, s.Stdout, s.Line) }()

	var timeout <-chan time.Time
	if s.Timeout > 0 {
		t := time.NewTimer(s.Timeout)
		defer t.Stop()
		timeout = t.C
	}
	var overQuota <-chan string
	if b := s.Boundary; b != nil && b.Quota != nil && contain == Boundary {
		stopWatch := make(chan struct{})
		defer close(stopWatch)
		overQuota = watchQuota(b.RW, *b.Quota, stopWatch)
	}
	var res Result
	var werr error
	select {
	case werr = <-exited:
	case why := <-overQuota:
		res.OverQuota = why
		werr = stop(cmd, exited, grace, contain != ProcessGroup)
	case <-timeout:
		res.TimedOut = true
		werr = stop(cmd, exited, grace, contain != ProcessGroup)
	case <-ctx.Done():
		res.Interrupted = true
		werr = stop(cmd, exited, grace, contain != ProcessGroup)
	}
	// The agent is gone; so is anything it left in its group (in a
	// namespace: all of it is gone with the guard), and, without a
	// namespace, whatever of it the run adopted.
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	if tracker != nil {
		tracker.Sweep()
	}
	var rerr error
	select {
	case rerr = <-readDone:
	case <-time.After(grace):
		pr.Close() // held open by a process outside the group: stop reading
		<-readDone
	}
	res.Duration = time.Since(start)
	res.Containment = contain
	if world != nil && world.box != nil {
		res.Refused = world.box.Refused()
	}
	var exit *exec.ExitError
	switch {
	case res.OverQuota != "":
		res.ExitCode, res.Err = -1, fmt.Errorf("%s: %w", res.OverQuota, ErrOverQuota)
	case res.TimedOut || res.Interrupted:
		res.ExitCode = -1
	case errors.As(werr, &exit):
		res.ExitCode = exit.ExitCode()
	case werr != nil && !errors.Is(werr, exec.ErrWaitDelay):
		res.ExitCode, res.Err = -1, fmt.Errorf("wait for %s: %w", s.Path, werr)
	case rerr != nil && !errors.Is(rerr, os.ErrClosed):
		res.ExitCode, res.Err = -1, fmt.Errorf("read the agent's output: %w", rerr)
	default:
		res.ExitCode = cmd.ProcessState.ExitCode()
	}
	// A guard in a namespace exits with 128+N for an agent signal N ended:
	// its report says which it was.
	if exit != nil && statusR != nil && !res.TimedOut && !res.Interrupted {
		guardStatus(statusR, &res.ExitCode)
	}
	return res
}

// stop sends SIGTERM to the process group, then SIGKILL to the group and
// the process after grace, and returns how the process ended. A guard is
// first told to kill the agent's whole tree (what left the group too).
func stop(cmd *exec.Cmd, exited <-chan error, grace time.Duration, guarded bool) error {
	pgid := cmd.Process.Pid
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	select {
	case err := <-exited:
		return err
	case <-time.After(grace):
		if guarded {
			_ = syscall.Kill(pgid, guard.DeathSignal)
			select {
			case err := <-exited:
				return err
			case <-time.After(3 * time.Second):
			}
		}
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		_ = cmd.Process.Kill()
		return <-exited
	}
}

// guardStatus reads the guard's report of how the agent ended into code
// (-1 for a signal, as exec reports one) and says whether there was one.
func guardStatus(r *os.File, code *int) bool {
	b, err := io.ReadAll(io.LimitReader(r, 64))
	if err != nil {
		return false
	}
	c, _, ok := guard.ParseStatus(b)
	if ok {
		*code = c
	}
	return ok
}

// track has t look at the agent run's processes until stop closes.
func track(t *guard.Tracker, stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	tick := time.NewTicker(TrackEvery)
	defer tick.Stop()
	for {
		t.Look()
		select {
		case <-stop:
			return
		case <-tick.C:
		}
	}
}

// TrackEvery is how often the subreaper mode looks at an agent run's
// processes.
const TrackEvery = 100 * time.Millisecond

// maxLine bounds one line handed to Line; the rest of a longer line is
// still copied to Stdout but not handed over.
const maxLine = 64 << 20

// pump copies r to w and hands each line to line.
func pump(r io.Reader, w io.Writer, line func([]byte)) error {
	br := bufio.NewReaderSize(r, 256<<10)
	var buf []byte
	over := false
	for {
		chunk, err := br.ReadSlice('\n')
		if w != nil && len(chunk) > 0 {
			if _, werr := w.Write(chunk); werr != nil {
				return fmt.Errorf("copy the agent's stdout: %w", werr)
			}
		}
		if line != nil {
			if len(buf)+len(chunk) <= maxLine {
				buf = append(buf, chunk...)
			} else {
				over = true
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if line != nil && len(buf) > 0 && !over {
			line(buf)
		}
		buf, over = buf[:0], false
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}
