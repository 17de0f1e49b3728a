package cli

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/agent-eval/agent-eval/internal/results"
)

func TestRunIDsDoNotCollide(t *testing.T) {
	t.Parallel()
	runs := t.TempDir()
	at := time.Date(2026, 12, 1, 2, 3, 4, 5e6, time.UTC)
	same := newRunID(at, "claude/sonnet 4")
	if same != "20261201-020304.005-claude-sonnet-4" {
		t.Errorf("newRunID = %q", same)
	}
	// Two runs started in the same second (and millisecond) get two folders.
	var got []string
	for range 3 {
		id, dir, err := createRunDir(runs, same, false)
		if err != nil {
			t.Fatal(err)
		}
		if filepath.Base(dir) != id {
			t.Errorf("dir %s for id %s", dir, id)
		}
		got = append(got, id)
	}
	if got[0] == got[1] || got[1] == got[2] || got[0] != same {
		t.Errorf("ids %q: want three distinct, the first unsuffixed", got)
	}
	// A later second sorts after, a later millisecond too.
	ids := []string{newRunID(at.Add(time.Second), "m"), newRunID(at, "m"), newRunID(at.Add(time.Millisecond), "m")}
	if !sort.StringsAreSorted([]string{ids[1], ids[2], ids[0]}) {
		t.Errorf("ids do not sort by time: %q", ids)
	}
	// An explicit id that is taken is an error, not a suffix.
	if _, _, err := createRunDir(runs, same, true); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("explicit taken id: err %v", err)
	}
}

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

func TestResumeAloneContinuesTheLatestUnfinishedRun(t *testing.T) {
	t.Parallel()
	cfg, agent := writeEval(t, oneCaseEval, map[string]string{"cases/a/input.yaml": "name: A\n"})
	runs := t.TempDir()
	code, _, stderr := runCLI(t, "run", "-c", cfg, "--resume", "--agent-bin", agent, "--runs-dir", runs)
	if code != ExitUsage || !strings.Contains(stderr, "--resume: no unfinished run of demo") {
		t.Errorf("resume with no runs = %d, stderr %q", code, stderr)
	}
	caseResult := `{"case_id": "a", "status": "passed", "exit_code": 0}`
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
	mk("older", map[string]string{"hooks.log": "", "cases/a/run_result.json": caseResult}, 2*time.Hour)
	mk("newer", map[string]string{"hooks.log": "", "run_result.json": `{"run_id": "newer"}`, "cases/a/run_result.json": caseResult}, time.Hour)
	code, _, stderr = runCLI(t, "run", "-c", cfg, "--resume", "--agent-bin", agent, "--runs-dir", runs)
	if code != ExitOK || !strings.Contains(stderr, "resuming older: 1 of 1 case already finished") {
		t.Errorf("resume = %d, stderr:\n%s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(runs, "demo", "older", "run_result.json")); err != nil {
		t.Errorf("the resumed run has no run_result.json: %v", err)
	}
	// Now both are finished.
	code, _, stderr = runCLI(t, "run", "-c", cfg, "--resume", "--agent-bin", agent, "--runs-dir", runs)
	if code != ExitUsage || !strings.Contains(stderr, "no unfinished run") {
		t.Errorf("resume with every run finished = %d, stderr %q", code, stderr)
	}
}

func TestColourOnlyOnATerminalWithoutNoColor(t *testing.T) {
	t.Parallel()
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	for _, tc := range []struct {
		live bool
		env  func(string) string
		want bool
	}{
		{true, env(), true},
		{true, env("NO_COLOR", "1"), false},
		{false, env(), false},
	} {
		if got := wantColour(tc.live, tc.env); got != tc.want {
			t.Errorf("wantColour(live %v) = %v, want %v", tc.live, got, tc.want)
		}
	}
	p := &progress{colour: true}
	for s, want := range map[string]string{
		"passed": ansiGreen + "passed" + ansiReset, "FAILED": ansiRed + "FAILED" + ansiReset, "timeout ": ansiRed + "timeout " + ansiReset,
		"error": ansiRed + "error" + ansiReset, "not run": "not run",
	} {
		if got := p.paint(s); got != want {
			t.Errorf("paint(%q) = %q, want %q", s, got, want)
		}
	}
	if got := (&progress{}).paint("passed"); got != "passed" {
		t.Errorf("paint off a terminal = %q", got)
	}
}

func TestPlurals(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		n          int
		noun, want string
	}{{0, "denial", "0 denials"}, {1, "denial", "1 denial"}, {2, "denial", "2 denials"}, {1, "process", "1 process"}, {3, "process", "3 processes"}} {
		if got := plural(tc.n, tc.noun); got != tc.want {
			t.Errorf("plural(%d, %s) = %q, want %q", tc.n, tc.noun, got, tc.want)
		}
	}
}

// TestSummaryColoursStatusesAndKeepsColumns: on a colour terminal the
// statuses are coloured and the table's columns stay aligned.
func TestSummaryColoursStatusesAndKeepsColumns(t *testing.T) {
	t.Parallel()
	var buf strings.Builder
	p := &progress{w: &buf, colour: true, running: map[string]time.Time{}}
	st := &runState{e: env{Streams: Streams{Err: p}}, progress: p, dir: "runs/x", run: &results.Run{RunID: "x", PerCase: map[string]*results.Case{
		"a": {CaseID: "a", Status: "passed"}, "bb": {CaseID: "bb", Status: "timeout", ExitCode: -1},
	}}}
	st.printSummary([]string{"a", "bb", "c"})
	out := buf.String()
	for _, want := range []string{ansiGreen + "passed ", ansiRed + "timeout", ansiRed + "FAILED" + ansiReset + " — 1/3 cases exited 0"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	// Every row's "seconds" column starts where the header's does, once the
	// colour codes are removed, and no row is wider than the plain table.
	plain := strings.NewReplacer(ansiGreen, "", ansiRed, "", ansiReset, "").Replace(out)
	lines := strings.Split(plain, "\n")
	if want := "case  status   seconds  cost $  turns  denials  answered"; lines[0] != want {
		t.Errorf("header %q, want %q:\n%s", lines[0], want, plain)
	}
	col := strings.Index(lines[0], "seconds")
	for _, l := range lines[1:3] {
		if len(l) <= col || l[col-1] != ' ' || l[col] == ' ' {
			t.Errorf("row %q is not aligned with the header at %d:\n%s", l, col, plain)
		}
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
	unlock, err := lockRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	code, _, stderr := runCLI(t, "run", "-c", cfg, "--resume", "--agent-bin", agent, "--runs-dir", runs)
	if code != ExitUsage || !strings.Contains(stderr, "no unfinished run") {
		t.Errorf("resume alone = %d, stderr %q; want the running run skipped", code, stderr)
	}
	code, _, stderr = runCLI(t, "run", "-c", cfg, "--resume", "--run-id", "busy", "--agent-bin", agent, "--runs-dir", runs)
	if code != ExitUsage || !strings.Contains(stderr, "running in another agent-eval process") {
		t.Errorf("resume --run-id busy = %d, stderr %q", code, stderr)
	}
}
