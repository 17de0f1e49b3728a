package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-eval/agent-eval/internal/rundir"
)

// writeEval writes an eval with one case under a temporary folder and
// returns eval.yaml's path and a fake agent binary.
func writeEval(t *testing.T, evalYAML string, files map[string]string) (cfg, agent string) {
	t.Helper()
	dir := t.TempDir()
	files["eval.yaml"] = evalYAML
	for p, body := range files {
		p = filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	agent = filepath.Join(dir, "fake-claude")
	if err := os.WriteFile(agent, []byte("#!/bin/sh\necho '9.9.9 (Claude Code)'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "eval.yaml"), agent
}

const oneCaseEval = `name: demo
execution: {prompt: "Hi {name}."}
models: {skill: claude-sonnet-4-5}
permissions: {sandbox: off}
dataset: {path: cases}
`

func lsRuns(t *testing.T, runs string) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(runs, "demo"))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

func TestRunFailingAtStartLeavesNothing(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		eval   string
		files  map[string]string
		stderr string
	}{
		"bad fake script": {oneCaseEval, map[string]string{"cases/a/input.yaml": "name: A\n", "cases/a/fake_model.yaml": "turns: [{bogus: 1}]\n"}, "--fake-model"},
		"before_all fails": {oneCaseEval + "hooks: {before_all: [{command: 'echo preparing; exit 3'}]}\n",
			map[string]string{"cases/a/input.yaml": "name: A\n", "cases/a/fake_model.yaml": "turns: [{text: hi}]\n"}, "hooks.log:\n  preparing"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			cfg, agent := writeEval(t, tc.eval, tc.files)
			runs := t.TempDir()
			code, _, stderr := runCLI(t, "run", "-c", cfg, "--fake-model", "--agent-bin", agent, "--runs-dir", runs)
			if code == ExitOK {
				t.Fatalf("run exited 0; stderr:\n%s", stderr)
			}
			if !strings.Contains(stderr, tc.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tc.stderr, stderr)
			}
			if left := lsRuns(t, runs); len(left) > 0 {
				t.Errorf("the failed run left %q behind", left)
			}
			if _, err := os.Stat(filepath.Join(runs, "demo")); err == nil {
				t.Errorf("the failed run left the eval's runs folder it created")
			}
		})
	}
}

// TestResumeAloneContinuesTheLatestRunOnly: without --run-id, --resume
// looks at the latest run and no other; a finished one is nothing to
// resume (exit 0), however many older runs are unfinished.
func TestResumeAloneContinuesTheLatestRunOnly(t *testing.T) {
	t.Parallel()
	cfg, agent := writeEval(t, oneCaseEval, map[string]string{"cases/a/input.yaml": "name: A\n"})
	runs := t.TempDir()
	code, _, stderr := runCLI(t, "run", "-c", cfg, "--resume", "--agent-bin", agent, "--runs-dir", runs)
	if code != ExitUsage || !strings.Contains(stderr, "--resume: no run of demo") {
		t.Errorf("resume with no runs = %d, stderr %q", code, stderr)
	}
	caseResult := `{"case_id": "a", "status": "completed", "exit_code": 0}`
	mk := func(id string, files map[string]string, age time.Duration) {
		for p, body := range files {
			p = filepath.Join(runs, "demo", id, p)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		at := time.Now().Add(-age)
		_ = os.Chtimes(filepath.Join(runs, "demo", id, "hooks.log"), at, at)
	}
	// An older unfinished run, then a newer finished one.
	mk("older", map[string]string{"hooks.log": "", "selection.json": `{"cases": ["a"]}`, "cases/a/run_result.json": caseResult}, 2*time.Hour)
	mk("newer", map[string]string{"hooks.log": "", "run_result.json": `{"run_id": "newer"}`, "cases/a/run_result.json": caseResult}, time.Hour)
	code, _, stderr = runCLI(t, "run", "-c", cfg, "--resume", "--agent-bin", agent, "--runs-dir", runs)
	if code != ExitOK || !strings.Contains(stderr, "nothing to resume: the latest run newer finished") {
		t.Errorf("resume = %d, stderr:\n%s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(runs, "demo", "older", "run_result.json")); err == nil {
		t.Errorf("resume touched the older run")
	}
	// --run-id names the older one.
	code, _, stderr = runCLI(t, "run", "-c", cfg, "--resume", "--run-id", "older", "--agent-bin", agent, "--runs-dir", runs)
	if code != ExitOK || !strings.Contains(stderr, "resuming older: 1 of 1 case already finished") {
		t.Errorf("resume --run-id older = %d, stderr:\n%s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(runs, "demo", "older", "run_result.json")); err != nil {
		t.Errorf("the resumed run has no run_result.json: %v", err)
	}
}

// TestResumeLeavesARunningRunAlone: --resume neither picks nor joins a run
// another process is running.
func TestResumeLeavesARunningRunAlone(t *testing.T) {
	t.Parallel()
	cfg, agent := writeEval(t, oneCaseEval, map[string]string{"cases/a/input.yaml": "name: A\n"})
	runs := t.TempDir()
	dir := filepath.Join(runs, "demo", "busy")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	unlock, err := rundir.Dir{Path: dir}.Lock()
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	code, _, stderr := runCLI(t, "run", "-c", cfg, "--resume", "--agent-bin", agent, "--runs-dir", runs)
	if code != ExitUsage || !strings.Contains(stderr, "running in another agent-eval process") {
		t.Errorf("resume alone = %d, stderr %q; want the running run left alone", code, stderr)
	}
	code, _, stderr = runCLI(t, "run", "-c", cfg, "--resume", "--run-id", "busy", "--agent-bin", agent, "--runs-dir", runs)
	if code != ExitUsage || !strings.Contains(stderr, "running in another agent-eval process") {
		t.Errorf("resume --run-id busy = %d, stderr %q", code, stderr)
	}
}
