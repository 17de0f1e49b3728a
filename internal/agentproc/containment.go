package agentproc

import (
	"fmt"
	"os"
	"sync"
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
	// ProcessGroup: no guard (Spec.Guard is empty), or a system that has
	// none of the above (macOS): the agent's process group is killed at its
	// end; what leaves the group is not, and outside Linux a run killed by
	// SIGKILL leaves its agents running (no parent-death signal).
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

// noGuard is the detail of the process-group containment of an agent
// started without the guard, by the caller's choice.
const noGuard = "no guard"

// Weaker says whether agents under a guard get less than a pid namespace
// (or the boundary) here, which the run warns of: the subreaper sweep, a
// namespace that lacks a part, or the process group alone (outside
// Linux).
func (c Containment) Weaker() bool {
	switch c.Mode {
	case Subreaper:
		return true
	case PIDNamespace:
		return c.Detail != ""
	case ProcessGroup:
		return c.Detail != noGuard
	}
	return false
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
		return Containment{Mode: ProcessGroup, Detail: noGuard}, nil
	}
	want := os.Getenv(ModeEnv)
	switch want {
	case "", "auto", string(PIDNamespace):
	case string(Subreaper):
		if err := subreaperWorks(); err != nil {
			return Containment{}, fmt.Errorf("%s=%s, but %w", ModeEnv, want, err)
		}
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
