package claudecode

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

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
	url := runnertest.FakeModel(t, map[string]string{
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

func TestTelemetryEnv(t *testing.T) {
	tests := []struct {
		name, base, run, id string
		want                map[string]string
	}{
		{name: "off", base: ""},
		{name: "on", base: "http://127.0.0.1:4318", run: "20261201-100000.000-m", id: "case/step one",
			want: map[string]string{
				"CLAUDE_CODE_ENABLE_TELEMETRY": "1", "OTEL_METRICS_EXPORTER": "otlp", "OTEL_LOGS_EXPORTER": "otlp",
				"OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318",
				"OTEL_METRIC_EXPORT_INTERVAL": "2000", "OTEL_LOGS_EXPORT_INTERVAL": "1000",
				"OTEL_RESOURCE_ATTRIBUTES": "agent_eval.run_id=20261201-100000.000-m,agent_eval.case_id=case%2Fstep%20one",
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := TelemetryEnv(tt.base, tt.run, tt.id)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("TelemetryEnv(%q, %q, %q) (-want +got):\n%s", tt.base, tt.run, tt.id, diff)
			}
		})
	}
}
