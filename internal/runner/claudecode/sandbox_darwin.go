package claudecode

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// sandboxExec is macOS's Seatbelt front end, which Claude Code's sandbox
// starts the agent's commands under (nothing to install there).
const sandboxExec = "/usr/bin/sandbox-exec"

// CheckSandbox checks that Claude Code's sandbox can start on this Mac:
// sandbox-exec runs a command under a profile. path is unused here (the
// program is the system's, by absolute path). The error says what failed.
func CheckSandbox(ctx context.Context, path string) error {
	_ = path
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, sandboxExec, "-p", "(version 1)(allow default)", "/usr/bin/true")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("the OS sandbox of Claude Code, which confines the agent's commands, cannot start: %s failed: %v: %s (Claude Code's sandbox on macOS is Seatbelt, through sandbox-exec)",
			sandboxExec, err, strings.TrimSpace(out.String()))
	}
	return nil
}
