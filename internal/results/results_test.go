package results

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/agent-eval/agent-eval/internal/transcript"
)

func TestAddNeverMasksAFailure(t *testing.T) {
	t.Parallel()
	r := &RunResult{PerCase: map[string]*Case{}, PerModelUsage: map[string]transcript.ModelUsage{}}
	r.Add(&Case{CaseID: "a", ExitCode: 0, CostUSD: 1, DurationS: 2, NumTurns: 3})
	r.Add(&Case{CaseID: "b", ExitCode: -1, CostUSD: 0.5, PerModelUsage: map[string]transcript.ModelUsage{"m": {CostUSD: 0.5}}})
	r.Add(&Case{CaseID: "c", ExitCode: 0})
	if r.ExitCode != -1 || r.NumCases != 3 || r.CostUSD != 1.5 || r.NumTurns != 3 || r.PerModelUsage["m"].CostUSD != 0.5 {
		t.Errorf("run = %+v", r)
	}
}

func TestWriteJSONIsAtomic(t *testing.T) {
	t.Parallel()
	for name, write := range map[string]func(string, any) error{"WriteJSON": WriteJSON} {
		dir := t.TempDir()
		path := filepath.Join(dir, "run_result.json")
		if err := write(path, map[string]any{"permission_denials": []transcript.Denial{}}); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		b, _ := os.ReadFile(path)
		var v map[string]any
		if json.Unmarshal(b, &v) != nil || v["permission_denials"] == nil {
			t.Errorf("%s wrote %s", name, b)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 1 {
			t.Errorf("%s left temporary files: %v", name, entries)
		}
	}
}
