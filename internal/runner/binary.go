package runner

import (
	"fmt"
	"os/exec"
	"path/filepath"

	"github.com/agent-eval/agent-eval/internal/config"
)

// FindBinary finds the agent CLI a run uses: flag (--agent-bin), else
// runner.settings.binary, else name, on PATH when it has no slash, made
// absolute. One that is not there is a ConfigError saying how to get it
// (install: "install @scope/package").
func FindBinary(ev *config.Eval, flag, name, install string) (string, error) {
	bin, from, fix := flag, " named by --agent-bin", ""
	if bin == "" {
		if b, ok := ev.Runner.Settings["binary"].(string); ok && b != "" {
			bin, from, fix = b, " named by runner.settings.binary", " (fix runner.settings.binary, or pass --agent-bin)"
		}
	}
	if bin == "" {
		bin, from, fix = name, "", " ("+install+", or pass --agent-bin)"
	}
	p, err := exec.LookPath(bin)
	if err != nil {
		return "", &ConfigError{Err: fmt.Errorf("the agent CLI %q%s is not installed or not executable%s", bin, from, fix)}
	}
	return filepath.Abs(p)
}
