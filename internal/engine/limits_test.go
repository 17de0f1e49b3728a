package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/agent-eval/agent-eval/internal/engine"
	"github.com/agent-eval/agent-eval/internal/results"
	"github.com/agent-eval/agent-eval/internal/runner/fake"
	"github.com/agent-eval/agent-eval/internal/workspace"
)

// diskUse is what the files and folders under dir take on disk
// (st_blocks), in bytes.
func diskUse(t *testing.T, dir string) int64 {
	t.Helper()
	var n int64
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		var st syscall.Stat_t
		if err := syscall.Lstat(p, &st); err != nil {
			return err
		}
		n += st.Blocks * 512
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// writeFiles is an agent that writes files of the given sizes into its
// workspace (path → size; a negative size makes a sparse file of -size
// bytes, which costs no disk).
func writeFiles(files map[string]int64) func(ws string) error {
	return func(ws string) error {
		for p, size := range files {
			p = filepath.Join(ws, p)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return err
			}
			if size < 0 {
				if err := os.WriteFile(p, nil, 0o644); err != nil {
					return err
				}
				if err := os.Truncate(p, -size); err != nil {
					return err
				}
				continue
			}
			if err := os.WriteFile(p, []byte(strings.Repeat("x", int(size))), 0o644); err != nil {
				return err
			}
		}
		return nil
	}
}

// TestCollectionLimits: what a case's agent leaves past execution.limits
// is not copied into the run directory (its outputs, the other files it
// changed), whatever its apparent size: the case is an error saying which
// limit and what was left out, run_result.json lists it, the run fails
// and goes on with the other cases, and the run directory stays small.
func TestCollectionLimits(t *testing.T) {
	t.Parallel()
	many := map[string]int64{}
	for i := range 40 {
		many[fmt.Sprintf("out/f%02d.txt", i)] = 10
	}
	tests := []struct {
		id     string
		files  map[string]int64
		status results.Status
		// errs are in the case's error; skipped the paths left out;
		// kept the files in the case's folder.
		errs    []string
		skipped []string
		kept    []string
	}{
		{
			id: "sparse", files: map[string]int64{"out/big.bin": -4 << 30, "out/answer.txt": 3},
			status:  results.StatusError,
			errs:    []string{"over the 32 KiB one file may have (execution.limits.file_bytes)", "not collected: out/big.bin (4.0 GiB)"},
			skipped: []string{"out/big.bin"},
			kept:    []string{"outputs/out/answer.txt"},
		},
		{
			id: "modified", files: map[string]int64{"scratch/real.bin": 40 << 10, "sparse.bin": -600 << 20, "notes.md": 5},
			status:  results.StatusError,
			errs:    []string{"execution.limits.file_bytes", "scratch/real.bin (40 KiB)", "sparse.bin (600 MiB)"},
			skipped: []string{"scratch/real.bin", "sparse.bin"},
			kept:    []string{"_modified/notes.md"},
		},
		{
			id: "total", files: map[string]int64{"out/a.bin": 30 << 10, "out/b.bin": 30 << 10, "out/c.bin": 30 << 10},
			status:  results.StatusError,
			errs:    []string{"the agent left 90 KiB in 3 files, over the 64 KiB a case may leave (execution.limits.collect_bytes); not collected: out/c.bin (30 KiB)"},
			skipped: []string{"out/c.bin"},
			kept:    []string{"outputs/out/a.bin", "outputs/out/b.bin"},
		},
		{
			id: "many", files: many,
			status: results.StatusError,
			errs:   []string{"the agent left 400 B in 40 files and 1 folder, over the 20 files and folders a case may leave (execution.limits.files)", "and 11 more (run_result.json: over_limit)"},
			kept:   []string{"outputs/out/f00.txt"},
		},
		{
			// A cli agent has no hook to keep it from its ledger.
			id: "ledger", files: map[string]int64{"hook_decisions.jsonl": -1 << 30},
			status:  results.StatusError,
			errs:    []string{"not collected: hook_decisions.jsonl (1.0 GiB)"},
			skipped: []string{"hook_decisions.jsonl"},
		},
		{
			id: "fine", files: map[string]int64{"out/answer.txt": 3, "notes.md": 5},
			status: results.StatusCompleted,
			kept:   []string{"outputs/out/answer.txt", "_modified/notes.md"},
		},
	}
	evalYAML := strings.Replace(caseEval, `execution: {prompt: "Hello {name}."}`,
		`execution: {prompt: "Hello {name}.", limits: {collect_bytes: 64KiB, file_bytes: 32768, files: 20}}`, 1)
	ids := make([]string, len(tests))
	scripts := map[string]fake.Script{}
	for i, tt := range tests {
		ids[i] = tt.id
		scripts[tt.id] = fake.Script{Do: writeFiles(tt.files)}
	}
	dir := project(t, evalYAML, ids...)
	r := newRun(t, dir, scripts)
	res, err := r.exec(context.Background(), t)
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode == 0 {
		t.Error("the run exits 0 with cases over their limits")
	}
	d := r.runDir()
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			c := res.PerCase[tt.id]
			if c == nil {
				t.Fatal("the case did not run")
			}
			if c.Status != tt.status {
				t.Errorf("status %s (%s), want %s", c.Status, c.Error, tt.status)
			}
			for _, e := range tt.errs {
				if !strings.Contains(c.Error, e) {
					t.Errorf("error %q lacks %q", c.Error, e)
				}
			}
			if tt.status == results.StatusCompleted {
				if c.OverLimit != nil || c.ExitCode != 0 {
					t.Errorf("over_limit %+v, exit %d; want none", c.OverLimit, c.ExitCode)
				}
			} else if c.ExitCode == 0 || c.OverLimit == nil {
				t.Fatalf("exit %d, over_limit %+v; want non-zero and the record", c.ExitCode, c.OverLimit)
			}
			// What is on disk says the same.
			var onDisk results.Case
			b, err := os.ReadFile(d.CaseResult(tt.id))
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(b, &onDisk); err != nil {
				t.Fatal(err)
			}
			if (onDisk.OverLimit == nil) != (c.OverLimit == nil) || onDisk.Status != c.Status {
				t.Errorf("run_result.json: status %s, over_limit %+v", onDisk.Status, onDisk.OverLimit)
			}
			for _, p := range tt.skipped {
				found := false
				for _, s := range c.OverLimit.Skipped {
					found = found || s.Path == p
				}
				if !found {
					t.Errorf("over_limit.skipped %+v lacks %s", c.OverLimit.Skipped, p)
				}
				for _, sub := range []string{"outputs", "_modified"} {
					if _, err := os.Lstat(filepath.Join(d.Case(tt.id), sub, filepath.FromSlash(p))); err == nil {
						t.Errorf("%s/%s was collected", sub, p)
					}
				}
				for _, m := range c.ModifiedFiles {
					if m == p {
						t.Errorf("modified_files names %s, which was not collected", p)
					}
				}
			}
			for _, p := range tt.kept {
				if _, err := os.Stat(filepath.Join(d.Case(tt.id), filepath.FromSlash(p))); err != nil {
					t.Errorf("%s was not collected: %v", p, err)
				}
			}
			if use := diskUse(t, d.Case(tt.id)); use > 1<<20 {
				t.Errorf("the case's folder takes %d bytes of disk", use)
			}
		})
	}
	if use := diskUse(t, d.Path); use > 4<<20 {
		t.Errorf("the run directory takes %d bytes of disk", use)
	}
}

// TestRepoModeCollectionLimits: in repo mode a file past the limits the
// agent leaves in the project is neither copied into repo_changes/ nor in
// its patch; the case says so, and the project is put back.
func TestRepoModeCollectionLimits(t *testing.T) {
	t.Parallel()
	top := t.TempDir()
	dir := projectIn(t, filepath.Join(top, "evals"), strings.Replace(caseEval, `execution: {prompt: "Hello {name}."}`,
		`execution: {prompt: "Hello {name}.", limits: {file_bytes: 1MiB}}`, 1)+"runner:\n  workspace_mode: repo\n  repo_changes: report\n", "a")
	if err := os.WriteFile(filepath.Join(top, ".gitignore"), []byte("runs/\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-q", "-m", "init"}} {
		cmd := exec.Command("git", append([]string{"-c", "user.email=t@t", "-c", "user.name=t"}, args...)...)
		cmd.Dir = top
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v: %s", args, err, out)
		}
	}
	// Sparse, and not 4 GiB: the work tree's record still reads it.
	big := filepath.Join(top, "big.bin")
	r := newRun(t, dir, map[string]fake.Script{"a": {During: func() error {
		return writeFiles(map[string]int64{"big.bin": -20 << 20, "small.txt": 6})(top)
	}}})
	r.cwd = top
	res, err := r.exec(context.Background(), t)
	if err != nil {
		t.Fatal(err)
	}
	c := res.PerCase["a"]
	if c.Status != results.StatusError || !strings.Contains(c.Error, "not collected: big.bin (20 MiB)") || c.OverLimit == nil {
		t.Fatalf("status %s (%s), over_limit %+v; want an error naming big.bin", c.Status, c.Error, c.OverLimit)
	}
	changes := filepath.Join(r.runDir().Case("a"), "repo_changes")
	if _, err := os.Stat(filepath.Join(changes, "files", "small.txt")); err != nil {
		t.Errorf("small.txt was not kept: %v", err)
	}
	patch, err := os.ReadFile(filepath.Join(changes, "worktree.patch"))
	if err != nil || strings.Contains(string(patch), "big.bin") || !strings.Contains(string(patch), "small.txt") {
		t.Errorf("worktree.patch (%v) should name small.txt and not big.bin:\n%.1000s", err, patch)
	}
	if use := diskUse(t, r.runDir().Path); use > 4<<20 {
		t.Errorf("the run directory takes %d bytes of disk", use)
	}
	if _, err := os.Stat(big); err == nil {
		t.Error("big.bin is still in the project")
	}
}

func TestMarkOverLimit(t *testing.T) {
	t.Parallel()
	many := func(c *workspace.Collection) {
		for i := range 15 {
			c.Admit(fmt.Sprintf("f%02d", i), 10)
		}
	}
	tests := []struct {
		name     string
		status   results.Status
		exit     int
		limits   workspace.Limits
		collect  func(c *workspace.Collection)
		want     results.Status
		wantExit int
		msg      string // "" for a case left as it was
	}{
		{"within", results.StatusCompleted, 0, workspace.Limits{Bytes: 100, FileBytes: 100, Files: 10},
			func(c *workspace.Collection) { c.Admit("a", 10) }, results.StatusCompleted, 0, ""},
		{"completed, past file_bytes", results.StatusCompleted, 0, workspace.Limits{Bytes: 1 << 30, FileBytes: 50 << 20, Files: 10},
			func(c *workspace.Collection) { c.Admit("a.bin", 4<<30); c.Admit("b.bin", 600<<20); c.Admit("c.txt", 3) },
			results.StatusError, 1,
			"the agent left 4.6 GiB in 3 files, over the 50 MiB one file may have (execution.limits.file_bytes); not collected: a.bin (4.0 GiB) and b.bin (600 MiB) boom"},
		{"failed, past collect_bytes", results.StatusFailed, 3, workspace.Limits{Bytes: 100 << 20, FileBytes: 80 << 20, Files: 10},
			func(c *workspace.Collection) { c.Admit("a.bin", 70<<20); c.Admit("b.bin", 70<<20) },
			results.StatusError, 3,
			"the agent left 140 MiB in 2 files, over the 100 MiB a case may leave (execution.limits.collect_bytes); not collected: b.bin (70 MiB) boom"},
		{"timed out keeps its status", results.StatusTimeout, -1, workspace.Limits{Files: 2}, many,
			results.StatusTimeout, -1,
			"the agent left 150 B in 15 files, over the 2 files and folders a case may leave (execution.limits.files); not collected: f02 (10 B), f03 (10 B), f04 (10 B), f05 (10 B), f06 (10 B), f07 (10 B), f08 (10 B), f09 (10 B), f10 (10 B), f11 (10 B) and 3 more (run_result.json: over_limit) boom"},
		{"tampered keeps its status", results.StatusTampered, 1, workspace.Limits{FileBytes: 1},
			func(c *workspace.Collection) { c.Admit("x", 2) }, results.StatusTampered, 1,
			"the agent left 2 B in 1 file, over the 1 B one file may have (execution.limits.file_bytes); not collected: x (2 B) boom"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			coll := workspace.NewCollection(tt.limits)
			tt.collect(coll)
			c := &results.Case{Status: tt.status, ExitCode: tt.exit, Error: "boom"}
			over := engine.MarkOverLimit(c, coll)
			if over != (tt.msg != "") || c.Status != tt.want || c.ExitCode != tt.wantExit {
				t.Errorf("MarkOverLimit = %v: status %s exit %d, want %s %d", over, c.Status, c.ExitCode, tt.want, tt.wantExit)
			}
			if tt.msg == "" {
				if c.Error != "boom" || c.OverLimit != nil {
					t.Errorf("a case within its limits changed: %q, %+v", c.Error, c.OverLimit)
				}
				return
			}
			if c.Error != tt.msg {
				t.Errorf("error\n%q, want\n%q", c.Error, tt.msg)
			}
			o := c.OverLimit
			if o == nil || o.SkippedFiles != coll.SkippedFiles || len(o.Skipped) != len(coll.Skipped) || o.Limits.Files != tt.limits.Files ||
				o.SeenBytes != coll.SeenBytes || o.CollectedFiles != coll.Files {
				t.Errorf("over_limit %+v does not match the collection %+v", o, coll)
			}
		})
	}
}

// TestBatchCollectionLimits: the batch collects its outputs within
// execution.limits as a case does, and is an error when it left some out.
func TestBatchCollectionLimits(t *testing.T) {
	t.Parallel()
	dir := project(t, `name: demo
execution: {mode: batch, prompt: "Do them all.", limits: {file_bytes: 1KiB}}
models: {skill: m}
dataset: {path: cases}
outputs: [{path: out}]
`, "a", "b")
	r := newRun(t, dir, map[string]fake.Script{"batch": {Do: writeFiles(map[string]int64{"out/big.bin": -4 << 30, "out/a.md": 3})}})
	res, err := r.exec(context.Background(), t)
	if err != nil {
		t.Fatal(err)
	}
	b := res.Batch
	if b == nil || b.Status != results.StatusError || b.OverLimit == nil || !strings.Contains(b.Error, "not collected: out/big.bin (4.0 GiB)") || res.ExitCode == 0 {
		t.Fatalf("batch %+v, exit %d; want an error naming out/big.bin", b, res.ExitCode)
	}
	if _, err := os.Stat(filepath.Join(r.runDir().RootOutputs(), "out", "a.md")); err != nil {
		t.Errorf("out/a.md was not collected: %v", err)
	}
	if use := diskUse(t, r.runDir().Path); use > 4<<20 {
		t.Errorf("the run directory takes %d bytes of disk", use)
	}
}
