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

// subreaperWorks: a child subreaper is Linux's (prctl).
func subreaperWorks() error { return nil }

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
