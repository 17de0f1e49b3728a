package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestScoreExitCodes checks score's exit codes: 0 thresholds met, 1 one
// breached, 2 usage or configuration, 3 scoring itself failed.
func TestScoreExitCodes(t *testing.T) {
	root := t.TempDir()
	write := func(rel, body string) {
		t.Helper()
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const head = "name: codes\nexecution:\n  prompt: hi\ndataset:\n  path: cases\njudges:\n  - name: ok\n    expr: exit_code == 0\n"
	write("ok.yaml", head+"thresholds:\n  ok:\n    min_pass_rate: 0.5\n")
	write("gate.yaml", head+"thresholds:\n  ok:\n    min_pass_rate: 1.0\n")
	write("bad.yaml", head+"thresholds:\n  nope:\n    min_mean: 1\n")
	write("cases/a/input.yaml", "x: 1\n")
	write("cases/b/input.yaml", "x: 1\n")
	write("runs/r1/run_result.json", `{"run_id": "r1"}`)
	write("runs/r1/cases/a/run_result.json", `{"case_id": "a", "exit_code": 0}`)
	write("runs/r1/cases/b/run_result.json", `{"case_id": "b", "exit_code": 1}`)
	write("runs/broken/cases/a/run_result.json", `{"case_id": `)
	run := filepath.Join(root, "runs", "r1")
	cfg := func(name string) string { return filepath.Join(root, name) }
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"thresholds met", []string{"score", run, "-c", cfg("ok.yaml")}, 0, "PASS"},
		{"threshold breached", []string{"score", run, "-c", cfg("gate.yaml")}, 1, "regression: [ok] min_pass_rate: >= 1 -> 0.5 < 1"},
		{"config error", []string{"score", run, "-c", cfg("bad.yaml")}, 2, `"nope" is not a judge defined under judges`},
		{"missing run", []string{"score", filepath.Join(root, "runs", "nope"), "-c", cfg("ok.yaml")}, 2, "no run directory"},
		{"both forms", []string{"score", run, "--run-id", "r1", "-c", cfg("ok.yaml")}, 2, "not both"},
		{"unreadable case", []string{"score", filepath.Join(root, "runs", "broken"), "-c", cfg("ok.yaml")}, 3, "run_result.json"},
		{"baseline not scored", []string{"score", run, "-c", cfg("ok.yaml"), "--baseline", filepath.Join(root, "runs", "broken")}, 2, "is not scored: run agent-eval score"},
	}
	for _, tt := range tests {
		code, _, stderr := runCLI(t, tt.args...)
		if code != tt.code || !strings.Contains(stderr, tt.stderr) {
			t.Errorf("%s: exit %d, stderr:\n%s\nwant exit %d with %q", tt.name, code, stderr, tt.code, tt.stderr)
		}
	}
	code, stdout, _ := runCLI(t, "score", run, "-c", cfg("gate.yaml"), "--json")
	var s map[string]any
	if code != 1 || json.Unmarshal([]byte(stdout), &s) != nil || s["passed"] != false || s["num_cases"] != 2.0 {
		t.Errorf("--json on a breach: exit %d, stdout %s", code, stdout)
	}
}

// The verdict appended to $GITHUB_STEP_SUMMARY starts after a blank line,
// whatever the earlier steps left: a heading glued to their last line
// would show as plain text.
func TestBlankLineAfter(t *testing.T) {
	for before, want := range map[string]string{"": "", "earlier": "\n\n", "earlier\n": "\n", "earlier\n\n": "", "\n": ""} {
		p := filepath.Join(t.TempDir(), "summary.md")
		if err := os.WriteFile(p, []byte(before), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := string(blankLineAfter(p)); got != want {
			t.Errorf("after %q: %q, want %q", before, got, want)
		}
	}
	if got := blankLineAfter(filepath.Join(t.TempDir(), "none")); got != nil {
		t.Errorf("after no file: %q, want nothing", got)
	}
}
