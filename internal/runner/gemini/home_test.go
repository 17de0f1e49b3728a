package gemini

import (
	"errors"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/intercept"
	"github.com/agent-eval/agent-eval/internal/permissions"
	"github.com/agent-eval/agent-eval/internal/testutil"
)

// TestGateFailsClosed: whatever makes the gate's command fail (here a
// hook binary that is not there, or one that exits 1, which Gemini CLI
// would let the call past) ends in exit 2, Gemini's block.
func TestGateFailsClosed(t *testing.T) {
	t.Parallel()
	for _, bin := range []string{"/nonexistent/agent-eval", "false"} {
		entries := hooks(bin, "/ws/tool_handlers.yaml", "abc")["BeforeTool"].([]any)
		cmd := entries[0].(map[string]any)["hooks"].([]any)[0].(map[string]any)["command"].(string)
		if !strings.Contains(cmd, " --dialect gemini") {
			t.Fatalf("gate %q", cmd)
		}
		err := exec.CommandContext(testutil.Context(t, time.Minute), "sh", "-c", cmd).Run()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 2 {
			t.Errorf("gate %q with a failing hook: %v, want exit 2", cmd, err)
		}
	}
}

// TestFileToolDeniesWithBashDenied: with Bash denied outright the hook
// file for Claude Code has no denied paths (its Read rules hold them);
// Gemini's file tools get them from the hook all the same.
func TestFileToolDeniesWithBashDenied(t *testing.T) {
	t.Parallel()
	c := permissions.Compile(nil, []config.PermissionRule{{Pattern: "Bash"}, {Path: "secret/", Tools: []string{"Read"}, Reason: "the key"}})
	f := &intercept.File{DeniedPaths: []string{"tool_handlers.yaml"}}
	fileToolDenies(f, c)
	if !slices.Contains(f.DeniedPaths, "secret/**") || f.DeniedPathReasons["secret/**"] != "the key" {
		t.Errorf("denied paths %v, reasons %v", f.DeniedPaths, f.DeniedPathReasons)
	}
}
