package claudecode

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agent-eval/agent-eval/internal/runner"
	"github.com/agent-eval/agent-eval/internal/runner/runnertest"
	"github.com/agent-eval/agent-eval/internal/testutil/need"
)

// TestRunnerSuite runs the shared runner suite against the real Claude
// Code CLI ($CLAUDE_BIN) answered by the fake Messages API.
func TestRunnerSuite(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the real Claude Code CLI")
	}
	bin := os.Getenv("CLAUDE_BIN")
	if bin == "" {
		need.Missing(t, "$CLAUDE_BIN, the real Claude Code CLI, is not set", need.Install("claude"))
	}
	_, url := runnertest.FakeServer(t, map[string]string{
		"quick": "turns: [{text: done}]\n",
		"hang":  "turns: [{tool_use: {name: Bash, input: {command: sleep 300, description: Wait}}}, {text: waited}]\n",
	})
	runnertest.Run(t, runnertest.Harness{
		New: New,
		Setup: func(t *testing.T, root string) runner.RunSetup {
			ev := loadEval(t, root, "name: suite\nexecution: {prompt: hi}\nmodels: {skill: claude-sonnet-4-5}\n"+
				"permissions: {allow: [\"Bash(sleep 300)\"], sandbox: off}\ndataset: {path: cases}\n")
			return runner.RunSetup{Eval: ev, Model: "claude-sonnet-4-5", AgentBin: bin, RunDir: filepath.Join(root, "runs", "r"),
				Baselines: filepath.Join(root, "baselines"), FakeModelURL: url, Warn: func(msg string) { t.Log(msg) }}
		},
		Stop: Grace + 5*time.Second,
	})
}
