// Package boundary draws the world an agent's whole process tree runs in,
// by allowlist, the same for every runner: the folders it may write (its
// workspace, its own HOME and TMPDIR), the ones it may read (the system
// and toolchain folders, the agent CLI's install, the harness binary), a
// fresh /tmp, /dev and /proc of its own, nothing else of the machine; and,
// with Net, a network of its own that reaches only the addresses the run
// forwards in and the hosts its proxy lets through.
//
// The mechanism is bubblewrap (user, mount, pid, ipc, uts and network
// namespaces, every capability dropped, no new privileges), started by
// package agentproc around `agent-eval guard`, which relays the forwarded
// addresses inside. The harness's side of the network (Box) serves those
// relays and the proxy on unix sockets in a folder bound into the world,
// and records what it refused.
package boundary

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Spec is one agent process's world.
type Spec struct {
	// RW are folders (or files) the agent reads and writes, at their own
	// paths. Each must exist.
	RW []string
	// RO are files and folders it may read and run but not change, at
	// their own paths; absent ones are left out.
	RO []string
	// Hide are paths inside RW or RO shown empty and read-only: an empty
	// folder for a folder, an empty file for a file (the eval's denied
	// paths in the workspace). Absent ones are left out.
	Hide []string
	// Freeze are paths inside RW shown as they are but read-only (the
	// eval's write-denied paths in the workspace): no process of the agent
	// changes, removes or renames them. Absent ones, and ones inside a
	// hidden path, are left out.
	Freeze []string
	// Quota, when set, bounds what the agent keeps in its RW folders while
	// it runs (package agentproc watches it).
	Quota *Quota
	// Net, when set, gives the agent a network of its own; nil leaves it
	// the machine's.
	Net *Net
}

// Quota is how much an agent may keep in its read-write folders: bytes
// (a file counts at the larger of its apparent and its allocated size, so
// sparse files count in full) and files and folders. Zero is no bound.
type Quota struct {
	Bytes int64
	Files int
}

// Net is the network an agent reaches from its own namespace.
type Net struct {
	// Forward are loopback addresses (127.0.0.1:PORT, [::1]:PORT) that
	// reach the same address outside: the fake model, a test server the
	// eval names.
	Forward []string
	// Hosts are the host names the proxy lets through (any port): "host"
	// or "*.domain" (the domain's subdomains).
	Hosts []string
}

// The world's limits.
const (
	TmpBytes  = 1 << 30 // the size of the agent's fresh /tmp
	FileBytes = 8 << 30 // no file of the agent's over 8 GiB (RLIMIT_FSIZE: apparent size, sparse files too)
)

// SystemRO are the system folders every agent reads: programs, libraries,
// configuration, toolchains installed system-wide.
var SystemRO = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt"}

// InsideUID is the uid the agent has in its user namespace when the run is
// root: not 0, so that the agent's own sandbox (bubblewrap inside the
// boundary) can map its user without CAP_SETFCAP, and no tool takes it for
// root. Outside it is still the run's user.
const InsideUID = 1000

// SocketDir is where the harness's unix sockets appear inside the world.
const SocketDir = "/run/agent-eval"

// ProxyPort is the port of the proxy inside the world, on 127.0.0.1, unless
// a forwarded address takes it.
const ProxyPort = 3128

// Args is bubblewrap's command line for spec, up to and including the "--"
// before the command. box is the network's outside (nil without Net);
// empty is an empty file the hidden files are shown as.
func Args(spec Spec, box *Box, empty string) ([]string, error) {
	// The guard is the init of the agent's pid namespace (--as-pid-1): an
	// init gets no signal from its own namespace it has no handler for, so
	// the agent cannot kill it, and when it ends the kernel ends the rest.
	a := []string{"--die-with-parent", "--as-pid-1", "--unshare-user", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
		"--unshare-cgroup-try", "--cap-drop", "ALL", "--hostname", "agent-eval"}
	if os.Getuid() == 0 {
		a = append(a, "--uid", strconv.Itoa(InsideUID), "--gid", strconv.Itoa(InsideUID))
	}
	if spec.Net != nil {
		a = append(a, "--unshare-net")
	}
	for _, d := range SystemRO {
		fi, err := os.Lstat(d)
		switch {
		case err != nil:
			continue
		case fi.Mode()&os.ModeSymlink != 0:
			t, err := os.Readlink(d)
			if err != nil {
				return nil, fmt.Errorf("read the link %s: %w", d, err)
			}
			a = append(a, "--symlink", t, d)
		default:
			a = append(a, "--ro-bind", d, d)
		}
	}
	a = append(a, "--dev", "/dev", "--proc", "/proc", "--size", strconv.Itoa(TmpBytes), "--tmpfs", "/tmp",
		"--dir", "/run", "--dir", "/var", "--symlink", "../tmp", "/var/tmp")
	type bind struct {
		path string
		rw   bool
	}
	var binds []bind
	for _, p := range spec.RW {
		p = filepath.Clean(p)
		if _, err := os.Stat(p); err != nil {
			return nil, fmt.Errorf("the agent's folder %s: %w", p, err)
		}
		binds = append(binds, bind{p, true})
	}
	for _, p := range spec.RO {
		p = filepath.Clean(p)
		if _, err := os.Stat(p); err != nil || underSystem(p) {
			continue
		}
		binds = append(binds, bind{p, false})
	}
	// Parents before children, so that a folder bound inside another is
	// not covered by it; a read-write and a read-only bind of one path
	// keep the read-write one.
	slices.SortStableFunc(binds, func(x, y bind) int { return depth(x.path) - depth(y.path) })
	seen := map[string]bool{}
	for _, b := range binds {
		if seen[b.path] {
			continue
		}
		seen[b.path] = true
		if b.rw {
			a = append(a, "--bind", b.path, b.path)
		} else {
			a = append(a, "--ro-bind", b.path, b.path)
		}
	}
	hides := slices.Clone(spec.Hide)
	slices.SortStableFunc(hides, func(x, y string) int { return depth(x) - depth(y) })
	freezes := slices.Clone(spec.Freeze)
	slices.SortStableFunc(freezes, func(x, y string) int { return depth(x) - depth(y) })
	for _, f := range slices.Compact(freezes) {
		f = filepath.Clean(f)
		if _, err := os.Lstat(f); err != nil || !inside(f, seen) || slices.ContainsFunc(hides, func(h string) bool { return f == h || strings.HasPrefix(f, h+"/") }) {
			continue
		}
		a = append(a, "--ro-bind", f, f)
	}
	for _, h := range hides {
		fi, err := os.Lstat(h)
		if err != nil || !inside(h, seen) {
			continue
		}
		if fi.IsDir() {
			a = append(a, "--perms", "0555", "--tmpfs", h, "--remount-ro", h)
		} else {
			a = append(a, "--ro-bind", empty, h)
		}
	}
	if box != nil {
		a = append(a, "--ro-bind", box.dir, SocketDir)
	}
	a = append(a, "--remount-ro", "/")
	return append(a, "--"), nil
}

// underSystem says whether p is inside a folder every agent reads anyway.
func underSystem(p string) bool {
	for _, d := range SystemRO {
		if p == d || strings.HasPrefix(p, d+"/") {
			return true
		}
	}
	return false
}

// inside says whether p is in one of the bound folders.
func inside(p string, bound map[string]bool) bool {
	for d := range bound {
		if p != d && strings.HasPrefix(p, d+"/") {
			return true
		}
	}
	return false
}

func depth(p string) int { return strings.Count(filepath.Clean(p), "/") }

// Bwrap is the bubblewrap program: $AGENT_EVAL_BWRAP, else bwrap on PATH.
// Outside Linux it is an error (ErrNeedsLinux), whatever is installed.
func Bwrap() (string, error) {
	if err := platform(); err != nil {
		return "", err
	}
	if p := os.Getenv("AGENT_EVAL_BWRAP"); p != "" {
		return p, nil
	}
	p, err := exec.LookPath("bwrap")
	if err != nil {
		return "", fmt.Errorf("bubblewrap (bwrap) is not installed: %w", err)
	}
	return p, nil
}

var (
	probeOnce sync.Once
	probeErr  error
)

// Probe says whether a boundary can be drawn here (nil), or why not,
// trying once per process: bubblewrap starts `true` in a world with its
// own network. Outside Linux it is ErrNeedsLinux, and run refuses as it
// does on a Linux without user namespaces.
func Probe() error {
	probeOnce.Do(func() {
		bw, err := Bwrap()
		if err != nil {
			probeErr = err
			return
		}
		args, err := Args(Spec{Net: &Net{}}, nil, "")
		if err != nil {
			probeErr = err
			return
		}
		cmd := exec.Command(bw, append(args, "true")...)
		cmd.Env = []string{}
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			msg := strings.TrimSpace(stderr.String())
			if msg == "" {
				msg = err.Error()
			}
			probeErr = fmt.Errorf("bubblewrap cannot make the agent's namespaces here: %s%s", msg, hint(msg))
		}
	})
	return probeErr
}

// hint says what to do about a failed probe.
func hint(msg string) string {
	if strings.Contains(msg, "Permission denied") || strings.Contains(msg, "Operation not permitted") || strings.Contains(msg, "No permissions") {
		return " (unprivileged user namespaces are off: on Ubuntu 23.10 and later, AppArmor restricts them — `sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0`; elsewhere `sysctl user.max_user_namespaces` must be above 0; in a container, run it with user namespaces allowed)"
	}
	return ""
}
