package runner

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/agent-eval/agent-eval/internal/config"
)

// AgentBinary finds a runner's agent CLI as every runner names it: the
// --agent-bin flag, else runner.settings.binary, else def, looked up on
// PATH. install says how to get def ("install @anthropic-ai/claude-code").
// A CLI that is not there is a ConfigError.
func AgentBinary(ev *config.Eval, flag, def, install string) (string, error) {
	bin, from, fix := flag, " named by --agent-bin", ""
	if bin == "" {
		if b, ok := ev.Runner.Settings["binary"].(string); ok && b != "" {
			bin, from, fix = b, " named by runner.settings.binary", " (fix runner.settings.binary, or pass --agent-bin)"
		}
	}
	if bin == "" {
		bin, from, fix = def, "", " ("+install+", or pass --agent-bin)"
	}
	p, err := exec.LookPath(bin)
	if err != nil {
		return "", &ConfigError{Err: fmt.Errorf("the agent CLI %q%s is not installed or not executable%s", bin, from, fix)}
	}
	return filepath.Abs(p)
}

// AgentVersion is the first line `bin --version` prints, "" when it fails
// or takes over 10 s.
func AgentVersion(ctx context.Context, bin string) string {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, "--version").Output()
	if err != nil {
		return ""
	}
	first, _, _ := strings.Cut(string(out), "\n")
	return strings.TrimSpace(first)
}
