package agentproc

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"

	"github.com/agent-eval/agent-eval/internal/guard"
)

// Mode is how the processes of one agent run are kept from outliving it.
type Mode string

const (
	// PIDNamespace: the guard is the init of a pid namespace of the run's
	// own (in a user namespace of its own when the run is not root). Every
	// process the agent starts lives in it and cannot leave it; none can
	// signal the guard, the run or anything else outside it, whatever it
	// kills; when the guard ends, the kernel kills them all.
	PIDNamespace Mode = "pid-namespace"
	// Subreaper: no namespace could be made. The run is a child subreaper
	// (what the agent orphans comes to it, not to init, even once the
	// guard is killed) and sweeps at the end of each agent run every
	// process that descends from it: its process tree, its group, and the
	// run's adopted children seen in that tree or carrying the run's
	// marker in their environment. A process that leaves the tree, clears
	// its environment and has its guard killed between two looks (Track)
	// is out of its reach.
	Subreaper Mode = "subreaper"
	// Boundary: the guard runs in the world package boundary draws
	// (bubblewrap: user, mount, pid, ipc, uts and network namespaces), in
	// a pid namespace of its own as in PIDNamespace, with the files and
	// the network the run allows and nothing else.
	Boundary Mode = "boundary"
	// ProcessGroup: no guard (Spec.Guard is empty): the agent's process
	// group is killed at its end; what leaves the group is not.
	ProcessGroup Mode = "process-group"
)

// ModeEnv names the environment variable that picks the mode: unset,
// empty or "auto" takes a pid namespace where one can be made, "subreaper"
// the sweep, "pid-namespace" a namespace or an error.
const ModeEnv = "AGENT_EVAL_CONTAINMENT"

// MarkerEnv is the variable the subreaper mode puts in the agent's
// environment, with a value of the agent run's own.
const MarkerEnv = "AGENT_EVAL_CONTAINMENT_MARK"

// Containment is the mode a run's agents get, and why a weaker one.
type Containment struct {
	Mode   Mode
	Detail string // why not a pid namespace, or what the namespace lacks
}

func (c Containment) String() string {
	switch {
	case c.Mode == Boundary:
		return "boundary (files, network and processes drawn by the harness)"
	case c.Mode == PIDNamespace && c.Detail == "":
		return "pid namespace"
	case c.Mode == PIDNamespace:
		return "pid namespace (" + c.Detail + ")"
	case c.Mode == Subreaper:
		return "subreaper sweep only (" + c.Detail + ")"
	}
	return "process group only (" + c.Detail + ")"
}

var (
	probeMu sync.Mutex
	probed  = map[string]probeResult{}
)

type probeResult struct {
	c Containment
}

// Probe says which containment agents started under the guard binary
// guardBin get (the choice of $AGENT_EVAL_CONTAINMENT, else the strongest
// that works here), trying a namespace once per binary and process. The
// error is a bad $AGENT_EVAL_CONTAINMENT, or one that asks for a namespace
// where none can be made.
func Probe(guardBin string) (Containment, error) {
	if guardBin == "" {
		return Containment{Mode: ProcessGroup, Detail: "no guard"}, nil
	}
	want := os.Getenv(ModeEnv)
	switch want {
	case "", "auto", string(PIDNamespace):
	case string(Subreaper):
		return Containment{Mode: Subreaper, Detail: ModeEnv + "=" + want}, nil
	default:
		return Containment{}, fmt.Errorf("%s=%q: want auto, %s or %s", ModeEnv, want, PIDNamespace, Subreaper)
	}
	probeMu.Lock()
	r, ok := probed[guardBin]
	if !ok {
		r.c = probe(guardBin)
		probed[guardBin] = r
	}
	probeMu.Unlock()
	if want == string(PIDNamespace) && r.c.Mode != PIDNamespace {
		return r.c, fmt.Errorf("%s=%s, but %s", ModeEnv, want, r.c.Detail)
	}
	return r.c, nil
}

// probe starts `guardBin guard --probe` as the init of a new namespace.
func probe(guardBin string) Containment {
	cmd := exec.Command(guardBin, "guard", "--probe")
	cmd.SysProcAttr = namespaceAttr()
	cmd.Env = []string{}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	msg := strings.TrimSpace(stderr.String())
	switch {
	case errors.As(err, &exit) && exit.ExitCode() == guard.ProbePartial:
		// It runs in a namespace, but could not set all of it up.
		return Containment{Mode: PIDNamespace, Detail: msg}
	case err != nil && msg != "":
		return Containment{Mode: Subreaper, Detail: fmt.Sprintf("no pid namespace: %v: %s", err, msg)}
	case err != nil:
		return Containment{Mode: Subreaper, Detail: "no pid namespace: " + err.Error()}
	}
	return Containment{Mode: PIDNamespace}
}

// NamespaceWorks says whether this process can start a program in the
// namespaces an agent gets (nil), or why not.
func NamespaceWorks() error {
	cmd := exec.Command("true")
	cmd.SysProcAttr = namespaceAttr()
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("start a program in a new pid namespace: %w", err)
	}
	return nil
}

// namespaceAttr starts a guard as the init of a new pid namespace with a
// mount namespace for its /proc; a run that is not root puts them in a new
// user namespace where it is itself (its uid and gid map to themselves, so
// files keep their owners), with CAP_SYS_ADMIN there until the guard has
// mounted /proc. (The child's getppid() is 0 in its namespace, so Go's
// check that the parent is still alive sends it the parent-death signal at
// once; an init without a handler for it ignores it, and the guard checks
// its status pipe instead.)
func namespaceAttr() *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{Setpgid: true, Pdeathsig: guard.DeathSignal,
		Cloneflags: syscall.CLONE_NEWPID | syscall.CLONE_NEWNS}
	if uid, gid := os.Getuid(), os.Getgid(); uid != 0 {
		a.Cloneflags |= syscall.CLONE_NEWUSER
		a.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
		a.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
		a.AmbientCaps = []uintptr{guard.CapSysAdmin}
	}
	return a
}

var subreaperOnce sync.Once

// becomeSubreaper makes the calling process (the run) a child subreaper,
// once: orphans of its agents then come to it.
func becomeSubreaper() {
	subreaperOnce.Do(func() {
		_, _, _ = syscall.RawSyscall(syscall.SYS_PRCTL, guard.PRSetChildSubreaper, 1, 0)
	})
}
