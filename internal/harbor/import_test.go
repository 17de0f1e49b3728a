package harbor

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agent-eval/agent-eval/internal/results"
	"github.com/agent-eval/agent-eval/internal/rundir"
	"github.com/agent-eval/agent-eval/internal/testutil/golden"
	"github.com/agent-eval/agent-eval/internal/version"
)

// The fixtures: testdata/import/jobs/job-main, written by make_jobs.py
// with Harbor 0.26's own models, of the tasks in testdata/import/tasks,
// exported from testdata/import/eval/eval.yaml.
const importData = "testdata/import"

func fixture(t *testing.T) (job, tasks, eval string) {
	t.Helper()
	abs, err := filepath.Abs(importData)
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(abs, "jobs", "job-main"), filepath.Join(abs, "tasks"), filepath.Join(abs, "eval", "eval.yaml")
}

func importFixture(t *testing.T, job string) *Imported {
	t.Helper()
	_, tasks, eval := fixture(t)
	imp, err := Import(t.Context(), ImportOptions{JobDir: job, RunsRoot: t.TempDir(), TasksDir: tasks, EvalFile: eval})
	if err != nil {
		t.Fatalf("Import(%s): %v", job, err)
	}
	return imp
}

// TestImportGolden pins the whole run directory an import of job-main
// writes: run_result.json, every case's (attempts and steps included) and
// the list of its files (go test ./internal/harbor -run TestImportGolden
// -update rewrites it).
func TestImportGolden(t *testing.T) {
	job, _, _ := fixture(t)
	imp := importFixture(t, job)
	var files []string
	cases := map[string]json.RawMessage{}
	err := filepath.WalkDir(imp.Dir.Path, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(imp.Dir.Path, p)
		rel = filepath.ToSlash(rel)
		files = append(files, rel)
		if strings.HasPrefix(rel, "cases/") && strings.HasSuffix(rel, "/"+rundir.RunResultFile) {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			cases[rel] = b
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	run, err := os.ReadFile(imp.Dir.RunResult())
	if err != nil {
		t.Fatal(err)
	}
	got, err := json.MarshalIndent(map[string]any{"run_result.json": json.RawMessage(run), "cases": cases, "files": files}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs(importData)
	s := strings.ReplaceAll(string(got), abs, "@TESTDATA@")
	if v := version.Get(); v.Revision != "" {
		s = strings.ReplaceAll(s, `"agent_eval_revision": "`+v.Revision+`"`, `"agent_eval_revision": "@REV@"`)
	}
	s = strings.ReplaceAll(s, `"agent_eval_version": "`+version.Get().Version+`"`, `"agent_eval_version": "@VERSION@"`)
	golden.Assert(t, filepath.Join(importData, "import.golden.json"), []byte(s+"\n"))
}

// TestImportCases checks, case by case, what each trial became.
func TestImportCases(t *testing.T) {
	job, _, _ := fixture(t)
	imp := importFixture(t, job)
	f := func(v float64) *float64 { return &v }
	tests := []struct {
		id        string
		status    results.Status
		exit      int
		timedOut  bool
		reward    *float64
		unjudged  bool
		infra     string // a substring of harbor.infra_error ("" none)
		verifier  string // a substring of harbor.verifier_error ("" none)
		denials   int
		answers   int
		steps     []string
		outputs   []string
		wantTrial string
	}{
		{id: "hello", status: results.StatusCompleted, reward: f(1), denials: 1, answers: 1, outputs: []string{"out/answer.txt"}, wantTrial: "hello__Ab3dE9x"},
		{id: "slow", status: results.StatusTimeout, exit: -1, timedOut: true, reward: f(0)},
		// The verifier ran in the container the agent had: its failure is
		// no infrastructure error (the agent could cause it to escape a
		// failing verdict); score judges the case from what was collected.
		{id: "crash", status: results.StatusCompleted, verifier: "RewardFileNotFoundError"},
		{id: "nostart", status: results.StatusInfraError, exit: -1, infra: "EnvironmentStartTimeoutError"},
		{id: "missing", status: results.StatusCompleted, verifier: "no reward"},
		{id: "unjudged", status: results.StatusCompleted, unjudged: true},
		{id: "exit2", status: results.StatusFailed, exit: 2, reward: f(0)},
		// -k 2: attempt 1 is the trial that started first, not the first name.
		{id: "twice", status: results.StatusCompleted, reward: f(1), outputs: []string{"out/answer.txt"}, wantTrial: "twice__Zz1aaaa"},
		// [[steps]] order (write, review), not alphabetical; review's verifier crashed.
		{id: "pipeline", status: results.StatusCompleted, verifier: "RewardFileNotFoundError", steps: []string{"pipeline/write", "pipeline/review"}, outputs: []string{"out/answer.txt", "out/review.md"}},
		// the verifier's copy says "hello": the task's case.json wins.
		{id: "hostile", status: results.StatusCompleted, reward: f(1), outputs: []string{"out/answer.txt"}},
	}
	ids, err := imp.Dir.CaseIDs()
	if err != nil {
		t.Fatal(err)
	}
	want := make([]string, 0, len(tests))
	for _, tt := range tests {
		want = append(want, tt.id)
	}
	slices.Sort(want)
	if diff := cmp.Diff(want, ids); diff != "" {
		t.Errorf("CaseIDs() (-want +got):\n%s", diff)
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			c, err := imp.Dir.ReadCase(tt.id)
			if err != nil {
				t.Fatal(err)
			}
			if c.CaseID != tt.id || c.Status != tt.status || c.ExitCode != tt.exit || c.TimedOut != tt.timedOut {
				t.Errorf("case %s: id %s, status %s, exit %d, timed out %v; want %s, %d, %v", tt.id, c.CaseID, c.Status, c.ExitCode, c.TimedOut, tt.status, tt.exit, tt.timedOut)
			}
			h := c.Harbor
			if h == nil {
				t.Fatal("no harbor record")
			}
			if !cmp.Equal(h.Reward, tt.reward) || h.Unjudged != tt.unjudged {
				t.Errorf("reward %v, unjudged %v; want %v, %v", deref64(h.Reward), h.Unjudged, deref64(tt.reward), tt.unjudged)
			}
			if tt.infra == "" && h.InfraError != "" || !strings.Contains(h.InfraError, tt.infra) {
				t.Errorf("infra_error %q, want one with %q", h.InfraError, tt.infra)
			}
			if tt.verifier == "" && h.VerifierError != "" || !strings.Contains(h.VerifierError, tt.verifier) {
				t.Errorf("verifier_error %q, want one with %q", h.VerifierError, tt.verifier)
			}
			if len(c.PermissionDenials) != tt.denials || c.Answers != tt.answers {
				t.Errorf("%d denials, %d answers; want %d, %d", len(c.PermissionDenials), c.Answers, tt.denials, tt.answers)
			}
			var steps []string
			for _, s := range c.Steps {
				steps = append(steps, s.CaseID)
			}
			if diff := cmp.Diff(tt.steps, steps); diff != "" {
				t.Errorf("steps (-want +got):\n%s", diff)
			}
			outs, err := imp.Dir.OutputFiles(tt.id)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.outputs, outs); diff != "" {
				t.Errorf("outputs (-want +got):\n%s", diff)
			}
			if tt.wantTrial != "" && h.Trial != tt.wantTrial {
				t.Errorf("trial %s, want %s", h.Trial, tt.wantTrial)
			}
		})
	}
	// The infrastructure errors are listed apart, the agent's failures not.
	var infra []string
	for _, ie := range imp.Run.InfraErrors {
		infra = append(infra, ie.Case+"/"+ie.Step)
	}
	if diff := cmp.Diff([]string{"nostart/"}, infra); diff != "" {
		t.Errorf("infra_errors (-want +got):\n%s", diff)
	}
	if w := strings.Join(imp.Warnings, "\n"); !strings.Contains(w, "crash (trial crash__Zx8cVb1): the verifier in the trial left no reward") {
		t.Errorf("no warning of crash's verifier error in:\n%s", w)
	}
	if imp.Run.ExecutionMode != "harbor" || imp.Run.Agent != "harbor:claude-code" || imp.Run.AgentVersion != "2.1.332" || imp.Run.HarborJobDir != job {
		t.Errorf("run: mode %q, agent %q %q, job %q", imp.Run.ExecutionMode, imp.Run.Agent, imp.Run.AgentVersion, imp.Run.HarborJobDir)
	}
	// The run's totals count every attempt's spending: 11 agent runs of
	// $0.0123 (nostart's agent never ran; pipeline's two steps ran).
	if got := imp.Run.CostUSD; got < 0.1353-1e-9 || got > 0.1353+1e-9 {
		t.Errorf("the run's cost_usd = %v, want 0.1353", got)
	}
	// The other attempt is kept in the case folder's shape.
	a2 := imp.Dir.Attempt("twice", 2)
	b, err := os.ReadFile(a2.Result())
	if err != nil {
		t.Fatalf("attempt 2: %v", err)
	}
	var c2 results.Case
	if err := json.Unmarshal(b, &c2); err != nil || c2.Harbor.Trial != "twice__Aa2bbbb" || c2.Harbor.Attempt != 2 || *c2.Harbor.Reward != 0 {
		t.Errorf("attempt 2: %s (%v)", b, err)
	}
	if _, err := os.Stat(filepath.Join(a2.Outputs(), "out", "other.txt")); err != nil {
		t.Errorf("attempt 2's outputs: %v", err)
	}
	// The host parsed the agent's log (its stderr line skipped): the
	// transcript has the tool calls, stdout.log the log as it was.
	tr, err := imp.Dir.ReadTranscript("hello")
	if err != nil || len(tr) < 5 {
		t.Errorf("hello's transcript: %d events, %v", len(tr), err)
	}
	log, err := os.ReadFile(imp.Dir.CaseFolder("hello").Stdout())
	if err != nil || !strings.Contains(string(log), "npm warn") {
		t.Errorf("hello's stdout.log: %v", err)
	}
	tr, _ = imp.Dir.ReadTranscript("hostile")
	for _, e := range tr {
		if e.Text == "forged" {
			t.Error("the verifier's transcript copy was read; the host's own parse is authoritative")
		}
	}
}

func deref64(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

// TestImportHostile: a trial's agent/ and verifier/ folders are the
// agent's to write; links and FIFOs there are refused, never followed, and
// nothing in the run directory is a link.
func TestImportHostile(t *testing.T) {
	src, _, _ := fixture(t)
	job := copyJob(t, src, "job-hostile", jobResultFile, jobConfigFile, "hostile__Hx0sTl5")
	outside := filepath.Join(t.TempDir(), "secret")
	if err := os.MkdirAll(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(outside, "key"), []byte("SECRET\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	col := filepath.Join(job, "hostile__Hx0sTl5", "verifier", CollectedDir, rundir.CasesDir, "hostile")
	links := map[string]string{
		filepath.Join(col, "outputs", "out", "stolen.txt"): filepath.Join(outside, "key"),
		filepath.Join(col, rundir.ModifiedDir):             outside,
		filepath.Join(col, rundir.LedgerFile):              filepath.Join(outside, "key"),
	}
	for at, to := range links {
		if err := os.MkdirAll(filepath.Dir(at), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(to, at); err != nil {
			t.Fatal(err)
		}
	}
	// A secret of the importing process (one it gave Harbor) that the
	// agent printed is hidden in the logs written.
	const secret = "hx-7f3a9c2e51d04b6f8a1e"
	t.Setenv("HARBOR_IMPORT_TEST_TOKEN", secret)
	agentLog := filepath.Join(job, "hostile__Hx0sTl5", trialAgentDir, claudeCodeLog)
	b, err := os.ReadFile(agentLog)
	if err != nil {
		t.Fatal(err)
	}
	leak := `{"type":"assistant","message":{"id":"leak","content":[{"type":"text","text":"the token is ` + secret + `"}]}}` + "\n"
	if err := os.WriteFile(agentLog, append([]byte(leak), b...), 0o644); err != nil {
		t.Fatal(err)
	}
	imp := importFixture(t, job)
	err = filepath.WalkDir(imp.Dir.Path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type()&fs.ModeSymlink != 0 {
			t.Errorf("%s is a link in the run directory", p)
		}
		if d.Type().IsRegular() {
			b, _ := os.ReadFile(p)
			if strings.Contains(string(b), "SECRET") {
				t.Errorf("%s holds what a link pointed at", p)
			}
			if strings.Contains(string(b), secret) {
				t.Errorf("%s holds the importer's secret", p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	w := strings.Join(imp.Warnings, "\n")
	for _, want := range []string{"outputs/out/stolen.txt", "_modified (a symbolic link)", "hook_decisions.jsonl refused"} {
		if !strings.Contains(w, want) {
			t.Errorf("warnings %q: none about %s", w, want)
		}
	}
	c, err := imp.Dir.ReadCase("hostile")
	if err != nil || c.CaseID != "hostile" {
		t.Fatalf("the case: %+v, %v", c, err)
	}
	if outs, _ := imp.Dir.OutputFiles("hostile"); !slices.Equal(outs, []string{"out/answer.txt"}) {
		t.Errorf("outputs %v, want only out/answer.txt", outs)
	}
}

// copyJob copies the files and trial folders rels of the job src into a
// new job folder named name.
func copyJob(t *testing.T, src, name string, rels ...string) string {
	t.Helper()
	job := filepath.Join(t.TempDir(), name)
	for _, rel := range rels {
		from, to := filepath.Join(src, rel), filepath.Join(job, rel)
		var err error
		if fi, serr := os.Stat(from); serr == nil && fi.IsDir() {
			err = os.CopyFS(to, os.DirFS(from))
		} else {
			err = copyFile(from, to)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return job
}

func copyFile(from, to string) error {
	b, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return err
	}
	return os.WriteFile(to, b, 0o644)
}

// TestImportRefuses: what is not an importable job is a JobError naming
// why, and no run directory is left behind.
func TestImportRefuses(t *testing.T) {
	src, tasks, eval := fixture(t)
	tests := []struct {
		name  string
		setup func(t *testing.T, job string)
		tasks string
		want  string
	}{
		{name: "not a folder", setup: func(t *testing.T, job string) { _ = os.WriteFile(job, nil, 0o644) }, tasks: tasks, want: "not a Harbor job folder"},
		{name: "unfinished job", setup: func(t *testing.T, job string) { _ = os.MkdirAll(job, 0o755) }, tasks: tasks, want: "not a finished Harbor job"},
		{name: "no trials", setup: func(t *testing.T, job string) {
			_ = copyFile(filepath.Join(src, jobResultFile), filepath.Join(job, jobResultFile))
		}, tasks: tasks, want: "no trial folder"},
		{name: "task gone", setup: func(t *testing.T, job string) {
			_ = copyFile(filepath.Join(src, jobResultFile), filepath.Join(job, jobResultFile))
			_ = os.CopyFS(filepath.Join(job, "hello__Ab3dE9x"), os.DirFS(filepath.Join(src, "hello__Ab3dE9x")))
		}, tasks: t.TempDir(), want: "has no tests/case.json"},
		{name: "case id escapes", setup: func(t *testing.T, job string) {
			_ = copyFile(filepath.Join(src, jobResultFile), filepath.Join(job, jobResultFile))
			_ = os.CopyFS(filepath.Join(job, "hello__Ab3dE9x"), os.DirFS(filepath.Join(src, "hello__Ab3dE9x")))
			_ = os.CopyFS(filepath.Join(job, "tasks", "hello"), os.DirFS(filepath.Join(tasks, "hello")))
			_ = os.WriteFile(filepath.Join(job, "tasks", "hello", TestsDirName, CaseFile), []byte(`{"case_id":"../../x","eval_name":"qa"}`), 0o644)
		}, tasks: "", want: `case_id "../../x" cannot name a case folder`},
		{name: "trial is a link", setup: func(t *testing.T, job string) {
			_ = copyFile(filepath.Join(src, jobResultFile), filepath.Join(job, jobResultFile))
			_ = os.Symlink(filepath.Join(src, "hello__Ab3dE9x"), filepath.Join(job, "hello__Ab3dE9x"))
		}, tasks: tasks, want: "a symbolic link where a trial folder should be"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			job := filepath.Join(t.TempDir(), "job")
			tt.setup(t, job)
			runs := t.TempDir()
			if tt.tasks == "" {
				tt.tasks = filepath.Join(job, "tasks")
			}
			_, err := Import(t.Context(), ImportOptions{JobDir: job, RunsRoot: runs, TasksDir: tt.tasks, EvalFile: eval})
			var je *JobError
			if !errors.As(err, &je) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Import() = %v, want a JobError with %q", err, tt.want)
			}
			if left, _ := os.ReadDir(runs); len(left) > 0 {
				t.Errorf("left %v in the runs directory", left)
			}
		})
	}
}

// TestCheckedPath: a name from a trial folder never leaves it.
func TestCheckedPath(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "verifier", "real"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc", filepath.Join(root, "verifier", "link")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		rel  string
		want string // a substring of the error; "" none
	}{
		{rel: "verifier/real"},
		{rel: "../outside", want: "escapes"},
		{rel: "verifier/../../outside", want: "escapes"},
		{rel: "/etc/passwd", want: "escapes"},
		{rel: "verifier/link/passwd", want: "a symbolic link"},
		{rel: "verifier/none", want: "no such file"},
	}
	for _, tt := range tests {
		_, err := checkedPath(root, tt.rel)
		if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("checkedPath(%q) = %v, want an error with %q", tt.rel, err, tt.want)
		}
	}
}

// TestImportForgedStep: a step name that would climb out of the case
// folder is skipped, with a warning, never joined onto a path.
func TestImportForgedStep(t *testing.T) {
	src, _, _ := fixture(t)
	job := copyJob(t, src, "job-steps", jobResultFile, "pipeline__Mn3bVc4")
	editFile(t, filepath.Join(job, "pipeline__Mn3bVc4", jobResultFile), func(b []byte) []byte {
		return []byte(strings.Replace(string(b), `"step_name": "review"`, `"step_name": "../../review"`, 1))
	})
	imp := importFixture(t, job)
	c, err := imp.Dir.ReadCase("pipeline")
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Steps) != 1 || c.Steps[0].CaseID != "pipeline/write" {
		t.Errorf("steps %v, want only pipeline/write", c.Steps)
	}
	if w := strings.Join(imp.Warnings, "\n"); !strings.Contains(w, `step "../../review" cannot name a folder`) {
		t.Errorf("warnings %q: none about the forged step", w)
	}
}

// TestImportUnfinishedTrial: a trial Harbor wrote no result.json for (the
// job was stopped) is an infrastructure error of its case, not a failure.
func TestImportUnfinishedTrial(t *testing.T) {
	src, _, _ := fixture(t)
	job := copyJob(t, src, "job-stopped", jobResultFile, "hello__Ab3dE9x")
	if err := os.Remove(filepath.Join(job, "hello__Ab3dE9x", jobResultFile)); err != nil {
		t.Fatal(err)
	}
	imp := importFixture(t, job)
	c, err := imp.Dir.ReadCase("hello")
	if err != nil {
		t.Fatal(err)
	}
	if c.Status != results.StatusInfraError || c.Harbor.Reward != nil || !strings.Contains(c.Harbor.InfraError, "did not finish") {
		t.Errorf("status %s, reward %v, infra_error %q; want infra_error, no reward, did not finish", c.Status, c.Harbor.Reward, c.Harbor.InfraError)
	}
	if len(imp.Run.InfraErrors) != 1 {
		t.Errorf("infra_errors %v, want the one case", imp.Run.InfraErrors)
	}
}

// TestImportInterrupted: a cancelled import returns context.Canceled (the
// CLI's 130) and leaves no half run directory.
func TestImportInterrupted(t *testing.T) {
	job, tasks, eval := fixture(t)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	runs := t.TempDir()
	_, err := Import(ctx, ImportOptions{JobDir: job, RunsRoot: runs, TasksDir: tasks, EvalFile: eval})
	var je *JobError
	if !errors.Is(err, context.Canceled) || errors.As(err, &je) {
		t.Fatalf("Import(cancelled) = %v, want context.Canceled", err)
	}
	if left, _ := os.ReadDir(filepath.Join(runs, "qa")); len(left) > 0 {
		t.Errorf("left %v in the runs directory", left)
	}
}

// TestStamp reads both of Harbor's spellings of a time: a trial's (UTC,
// with a Z) and a job's result.json's (naive: the local time of the machine
// that ran harbor), which a real Harbor 0.26 job wrote and the import
// refused before.
func TestStamp(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want time.Time
	}{
		{`"2026-12-02T04:49:21.064701Z"`, time.Date(2026, 12, 2, 4, 49, 21, 64701000, time.UTC)},
		{`"2026-12-02T04:49:20.757466"`, time.Date(2026, 12, 2, 4, 49, 20, 757466000, time.Local)},
		{`"2026-12-02T04:49:20"`, time.Date(2026, 12, 2, 4, 49, 20, 0, time.Local)},
	} {
		var s stamp
		if err := json.Unmarshal([]byte(tc.in), &s); err != nil {
			t.Errorf("%s: %v", tc.in, err)
			continue
		}
		if !s.Equal(tc.want) {
			t.Errorf("%s = %v, want %v", tc.in, s.Time, tc.want)
		}
	}
	var s stamp
	if err := json.Unmarshal([]byte(`"yesterday"`), &s); err == nil {
		t.Errorf("a time that is none was read as %v", s.Time)
	}
}

// TestImportAfterAgentStarted: an exception Harbor records once the agent
// had the container (it may have killed the container's init, filled its
// disk, broken its exec) is the agent's failure, judged; only one before
// the agent started is an infrastructure error, left unjudged.
func TestImportAfterAgentStarted(t *testing.T) {
	tests := []struct {
		name         string
		agentStarted bool
		want         results.Status
		wantInfra    bool
	}{
		{name: "after", agentStarted: true, want: results.StatusFailed},
		{name: "before", agentStarted: false, want: results.StatusInfraError, wantInfra: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src, _, _ := fixture(t)
			job := copyJob(t, src, "job-"+tt.name, jobResultFile, "hello__Ab3dE9x")
			editFile(t, filepath.Join(job, "hello__Ab3dE9x", jobResultFile), func(b []byte) []byte {
				var r map[string]any
				if err := json.Unmarshal(b, &r); err != nil {
					t.Fatal(err)
				}
				r["exception_info"] = map[string]any{"exception_type": "RuntimeError", "exception_message": "the container exited (137)"}
				r["verifier_result"] = nil
				if !tt.agentStarted {
					r["agent_execution"] = nil
				}
				out, err := json.Marshal(r)
				if err != nil {
					t.Fatal(err)
				}
				return out
			})
			imp := importFixture(t, job)
			c, err := imp.Dir.ReadCase("hello")
			if err != nil {
				t.Fatal(err)
			}
			if c.Status != tt.want || (c.Harbor.InfraError != "") != tt.wantInfra || (len(imp.Run.InfraErrors) == 1) != tt.wantInfra {
				t.Errorf("status %s, infra_error %q, run's infra_errors %v; want %s, infra error %v", c.Status, c.Harbor.InfraError, imp.Run.InfraErrors, tt.want, tt.wantInfra)
			}
			if !strings.Contains(c.Harbor.Exception, "RuntimeError") || !strings.Contains(c.Error, "RuntimeError") {
				t.Errorf("exception %q, error %q: want both to name RuntimeError", c.Harbor.Exception, c.Error)
			}
		})
	}
}

// TestImportTamperedInTrial: the verifier found files planted in /tests
// (its collected case is tampered). The agent can only gain by hiding that
// finding, never by making it up, so the import keeps it: the case is
// tampered and score fails its judges, as a local run's would be.
func TestImportTamperedInTrial(t *testing.T) {
	src, _, _ := fixture(t)
	job := copyJob(t, src, "job-tampered", jobResultFile, "hello__Ab3dE9x")
	col := filepath.Join(job, "hello__Ab3dE9x", trialVerifier, CollectedDir, rundir.CasesDir, "hello", rundir.RunResultFile)
	planted := `{"case_id":"hello","status":"tampered","tampered":["judge.sh: added"],"error":"files were planted"}`
	if err := os.WriteFile(col, []byte(planted), 0o644); err != nil {
		t.Fatal(err)
	}
	imp := importFixture(t, job)
	c, err := imp.Dir.ReadCase("hello")
	if err != nil {
		t.Fatal(err)
	}
	if c.Status != results.StatusTampered || !slices.Equal(c.Tampered, []string{"judge.sh: added"}) {
		t.Errorf("status %s, tampered %v; want tampered, [judge.sh: added]", c.Status, c.Tampered)
	}
	// A collected case that says nothing of tampering changes nothing.
	ok, err := importFixture(t, copyJob(t, src, "job-ok", jobResultFile, "hello__Ab3dE9x")).Dir.ReadCase("hello")
	if err != nil || ok.Status != results.StatusCompleted {
		t.Errorf("untouched: status %v (%v), want completed", ok.Status, err)
	}
}

// editFile rewrites the file p with edit.
func editFile(t *testing.T, p string, edit func([]byte) []byte) {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, edit(b), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestImportExceptionRedacted: Harbor's exception message quotes what a
// command printed; a secret of the importing process in it is hidden in
// the case's error and harbor record.
func TestImportExceptionRedacted(t *testing.T) {
	const secret = "hx-exc-5c1d9e7a20b34f6a"
	t.Setenv("HARBOR_IMPORT_TEST_TOKEN", secret)
	src, _, _ := fixture(t)
	job := copyJob(t, src, "job-exc", jobResultFile, "exit2__Rt6yUi8")
	editFile(t, filepath.Join(job, "exit2__Rt6yUi8", jobResultFile), func(b []byte) []byte {
		return []byte(strings.Replace(string(b), `"exception_message": "`, `"exception_message": "token `+secret+` `, 1))
	})
	imp := importFixture(t, job)
	b, err := os.ReadFile(imp.Dir.CaseFolder("exit2").Result())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "token ") {
		t.Fatalf("the edited message is not in the case's result:\n%s", b)
	}
	if strings.Contains(string(b), secret) {
		t.Errorf("the case's result holds the importer's secret:\n%s", b)
	}
}
