package claudecode

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/permissions"
	"github.com/agent-eval/agent-eval/internal/runner"
	"github.com/agent-eval/agent-eval/internal/runner/runnertest"
)

// TestSessionCloseReportsWhatItCouldNotRemove: a generated settings file
// that Close cannot remove (a non-empty folder has taken its name, which
// even root cannot os.Remove) is an error, so the engine's warning fires.
func TestSessionCloseReportsWhatItCouldNotRemove(t *testing.T) {
	t.Parallel()
	ev := loadEval(t, t.TempDir(), "name: close\nexecution: {prompt: hi}\nmodels: {skill: claude-sonnet-4-5}\ndataset: {path: cases}\n")
	compiled := permissions.Compile(nil, []config.PermissionRule{{Path: "secret/", Tools: []string{"Read"}}})
	r := &started{s: runner.RunSetup{Eval: ev, Permissions: compiled, Warn: func(string) {}}}
	for _, tc := range []struct {
		name    string
		block   bool
		wantErr bool
	}{
		{"removed", false, false},
		{"left behind", true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws := t.TempDir()
			sess, err := r.Prepare(t.Context(), runner.Workspace{ID: "c", Dir: ws})
			if err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(ws, ".claude", permissions.PermissionsFile)
			if _, err := os.Stat(file); err != nil {
				t.Fatalf("no generated settings file: %v", err)
			}
			if tc.block {
				if err := os.Remove(file); err != nil {
					t.Fatal(err)
				}
				if err := os.MkdirAll(filepath.Join(file, "kept"), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			err = sess.Close()
			if (err != nil) != tc.wantErr {
				t.Fatalf("Close() = %v, want error %v", err, tc.wantErr)
			}
			if tc.wantErr && !strings.Contains(err.Error(), permissions.PermissionsFile) {
				t.Errorf("Close() = %v, want it to name %s", err, permissions.PermissionsFile)
			}
		})
	}
}

// loadEval writes body as root's eval.yaml, with an empty cases folder,
// and loads it.
func loadEval(t *testing.T, root, body string) *config.Eval {
	return runnertest.LoadEval(t, root, body)
}
