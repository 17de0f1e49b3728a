package score

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/agent-eval/agent-eval/internal/redact"
	"github.com/agent-eval/agent-eval/internal/results"
)

// fixedJudge returns the one outcome it holds.
type fixedJudge struct{ o Outcome }

func (fixedJudge) Kind() string                             { return "fixed" }
func (j fixedJudge) Score(context.Context, *Record) Outcome { return j.o }

// TestVerdictValueNotANumber: a value that is neither a bool nor a number
// is an error verdict naming it, never a 0.
func TestVerdictValueNotANumber(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		value   any
		want    float64
		wantErr string
	}{
		{true, 1, ""},
		{0.25, 0.25, ""},
		{"high", 0, `string high`},
		{map[string]any{"score": 1}, 0, "map[score:1]"},
		{nil, 0, "<nil>"},
	} {
		v := judgeCase(context.Background(), built{name: "j", judge: fixedJudge{Outcome{Value: tc.value}}}, &Record{}, redact.FromEnviron(nil))
		switch {
		case tc.wantErr == "" && (v.Error != "" || v.Value == nil || *v.Value != tc.want):
			t.Errorf("%v: verdict %+v, want value %v", tc.value, v, tc.want)
		case tc.wantErr != "" && (v.Value != nil || !strings.Contains(v.Error, tc.wantErr) || !strings.Contains(v.Error, "not a bool or a number")):
			t.Errorf("%v: verdict %+v (value %v), want an error naming %q", tc.value, v, v.Value, tc.wantErr)
		}
	}
}

// unlistable is a file system one of whose folders cannot be listed.
type unlistable struct {
	fs.FS
	dir string
}

func (u unlistable) ReadDir(name string) ([]fs.DirEntry, error) {
	if name == u.dir {
		return nil, &fs.PathError{Op: "readdirent", Path: name, Err: syscall.EIO}
	}
	return fs.ReadDir(u.FS, name)
}

// TestRecordThatMissesFiles: a folder of _modified/ that cannot be listed
// makes every verdict of the case an error naming it, not a verdict on
// fewer files; the other folders are still read.
func TestRecordThatMissesFiles(t *testing.T) {
	t.Parallel()
	mod := t.TempDir()
	must(t, os.MkdirAll(filepath.Join(mod, "lost"), 0o755))
	must(t, os.WriteFile(filepath.Join(mod, "lost", "a.txt"), []byte("a"), 0o644))
	must(t, os.WriteFile(filepath.Join(mod, "kept.txt"), []byte("k"), 0o644))
	rec := &Record{CaseID: "c", Files: map[string]any{}, Modified: map[string]any{}}
	rec.filesErr = rec.readModified(mod, unlistable{os.DirFS(mod), "lost"})
	if rec.filesErr == nil || !strings.Contains(rec.filesErr.Error(), filepath.Join(mod, "lost")) {
		t.Fatalf("readModified = %v, want an error naming %s", rec.filesErr, filepath.Join(mod, "lost"))
	}
	if rec.Modified["kept.txt"] != "k" {
		t.Errorf("modified %v, want kept.txt read", rec.Modified)
	}
	v := caseVerdict(context.Background(), built{name: "j", judge: fixedJudge{Outcome{Value: true}}}, rec, redact.FromEnviron(nil))
	if v.Value != nil || !strings.Contains(v.Error, "lost") {
		t.Errorf("verdict %+v, want an error naming the folder", v)
	}
	clean := &Record{CaseID: "c", Files: map[string]any{}, Modified: map[string]any{}}
	if err := clean.readModified(mod, os.DirFS(mod)); err != nil || clean.Modified["lost/a.txt"] != "a" {
		t.Errorf("readModified = %v, %v; want both files", err, clean.Modified)
	}
	missing := filepath.Join(mod, "none")
	if err := clean.readModified(missing, os.DirFS(missing)); err != nil {
		t.Errorf("no _modified folder: %v, want none", err)
	}
}

// A case lost to the infrastructure quotes its error, clipped: a secret
// across the cut is hidden all the same (it is redacted before the cut).
func TestLostVerdictHidesSecretAtTheCut(t *testing.T) {
	t.Parallel()
	const secret = "correct-horse-battery-staple-42"
	red := redact.New(map[string]string{"DB_PASSWORD": secret})
	rec := &Record{CaseID: "c", Result: &results.Case{Status: results.StatusInfraError, Error: strings.Repeat("x", 190) + " " + secret}}
	v := caseVerdict(context.Background(), built{name: "j", judge: fixedJudge{Outcome{Value: true}}}, rec, red)
	if !v.Lost || strings.Contains(v.Rationale, secret[:8]) || !strings.Contains(v.Rationale, "[redacted") {
		t.Errorf("verdict %+v: want lost, the secret hidden", v)
	}
}
