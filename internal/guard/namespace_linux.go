package guard

import (
	"fmt"
	"os"
	"syscall"
	"unsafe"
)

// CapSysAdmin is CAP_SYS_ADMIN: what a guard started in a user namespace
// of its own needs (as an ambient capability, so it survives the exec) to
// mount the namespace's /proc. Namespace drops it before the agent starts.
const CapSysAdmin = 21

// prCapAmbient and prCapAmbientClearAll are PR_CAP_AMBIENT and
// PR_CAP_AMBIENT_CLEAR_ALL of prctl(2).
const (
	prCapAmbient         = 47
	prCapAmbientClearAll = 4
	prSetDumpable        = 4 // PR_SET_DUMPABLE
)

// Namespace sets up the pid namespace whose init the caller is: mounts
// stay private to it (the host's still reach it), and /proc is the
// namespace's own, with the host's detached from under it, so that the agent sees only its own processes (pgrep,
// kill $(pidof …) and /proc/PID mean what they say) and none of the run's
// (their command lines and environments). A caller that is not root then
// gives up every capability of its user namespace on the calling thread,
// the one that starts the agent. An error leaves the namespace as it is:
// the containment holds, with the host's /proc.
func Namespace() error {
	var err error
	if e := syscall.Mount("", "/", "", syscall.MS_REC|syscall.MS_SLAVE, ""); e != nil {
		err = fmt.Errorf("keep the pid namespace's mounts private: %w", e)
	} else if e := syscall.Unmount("/proc", syscall.MNT_DETACH); e != nil && os.Getuid() == 0 {
		// An agent with the run's capabilities (a run as root) could
		// unmount the namespace's /proc and find the host's under it: the
		// run's processes, their environments and open files. It is
		// detached first. (In a user namespace of the run's own the host's
		// /proc is locked under the new one, and the agent has no
		// capability to unmount that.)
		err = fmt.Errorf("detach the host's /proc from the pid namespace: %w", e)
	} else if e := syscall.Mount("proc", "/proc", "proc", syscall.MS_NOSUID|syscall.MS_NODEV|syscall.MS_NOEXEC, ""); e != nil {
		err = fmt.Errorf("mount the pid namespace's own /proc: %w", e)
	}
	if os.Getuid() != 0 {
		if e := dropCapabilities(); e != nil && err == nil {
			err = e
		}
	}
	return err
}

// dropCapabilities clears the ambient, inheritable, permitted and
// effective capabilities of every thread (of the calling one alone in a
// binary built with cgo, where that cannot be done: the one that starts
// the agent), and makes the guard undumpable, so that the agent, which
// runs as the same user, cannot trace it.
func dropCapabilities() error {
	hdr := struct {
		version uint32
		pid     int32
	}{version: 0x20080522} // _LINUX_CAPABILITY_VERSION_3
	var data [2]struct{ effective, permitted, inheritable uint32 }
	calls := []struct {
		what       string
		trap, a, b uintptr
	}{
		{"clear the ambient capabilities", syscall.SYS_PRCTL, prCapAmbient, prCapAmbientClearAll},
		{"drop the capabilities", syscall.SYS_CAPSET, uintptr(unsafe.Pointer(&hdr)), uintptr(unsafe.Pointer(&data[0]))},
	}
	for _, c := range calls {
		_, _, e := syscall.AllThreadsSyscall(c.trap, c.a, c.b, 0)
		if e == syscall.ENOTSUP {
			_, _, e = syscall.RawSyscall(c.trap, c.a, c.b, 0)
		}
		if e != 0 {
			return fmt.Errorf("%s: %w", c.what, e)
		}
	}
	if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prSetDumpable, 0, 0); e != 0 {
		return fmt.Errorf("make the guard undumpable: %w", e)
	}
	return nil
}
