package claudecode

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// bwrapProbe is the smallest sandbox that exercises what Claude Code's own
// bwrap command line needs: a read-only root, fresh /dev and /proc, and new
// network and PID namespaces.
var bwrapProbe = []string{"--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-net", "--unshare-pid", "--die-with-parent", "true"}

// CheckSandbox checks that Claude Code's sandbox can start on this machine:
// socat is on path and bwrap is on path and actually runs a sandboxed
// command (it is installed but unusable where user namespaces are off). path
// is the PATH the agent gets. The error names the missing or failing
// command and how to install it.
func CheckSandbox(ctx context.Context, path string) error {
	var missing []string
	bwrap := lookPathIn("bwrap", path)
	if bwrap == "" {
		missing = append(missing, "bwrap (package bubblewrap)")
	}
	if lookPathIn("socat", path) == "" {
		missing = append(missing, "socat")
	}
	if len(missing) > 0 {
		return fmt.Errorf("the OS sandbox of Claude Code, which confines the agent's commands, cannot start: %s not found on PATH; %s",
			strings.Join(missing, " and "), SandboxInstallHint)
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bwrap, bwrapProbe...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("the OS sandbox of Claude Code, which confines the agent's commands, cannot start: %s %s failed: %v: %s (bubblewrap needs unprivileged user namespaces, or root)",
			bwrap, strings.Join(bwrapProbe, " "), err, strings.TrimSpace(out.String()))
	}
	return nil
}

// SandboxInstallHint says how to install what Claude Code's sandbox needs.
const SandboxInstallHint = "install bubblewrap and socat: apt-get install bubblewrap socat (Debian/Ubuntu); dnf install bubblewrap socat (Fedora); apk add bubblewrap socat (Alpine); pacman -S bubblewrap socat (Arch)"

// lookPathIn finds an executable named name in the directories of path,
// or returns "".
func lookPathIn(name, path string) string {
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			dir = "."
		}
		p := filepath.Join(dir, name)
		st, err := os.Stat(p)
		if err != nil || st.IsDir() || st.Mode()&0o111 == 0 {
			continue
		}
		return p
	}
	return ""
}
