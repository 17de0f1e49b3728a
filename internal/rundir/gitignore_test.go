package rundir

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestEnsureIgnored: in a work tree the runs root it is told is new gets
// the .gitignore, else the eval's folder; an ignored or tracked runs root,
// a user's own .gitignore and a folder outside any repository are left as
// they are.
func TestEnsureIgnored(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	tests := []struct {
		name      string
		repo      bool
		setup     map[string]string // files under the repository
		track     string            // a file to commit
		rootIsNew bool
		wrote     string // under the repository, "" for none
		tracked   string
	}{
		{name: "new root", repo: true, rootIsNew: true, wrote: "eval/runs/.gitignore"},
		{name: "existing root", repo: true, setup: map[string]string{"eval/runs/old/x": "x"}, wrote: "eval/runs/e/.gitignore"},
		{name: "already ignored", repo: true, setup: map[string]string{".gitignore": "/eval/\n"}, rootIsNew: true},
		{name: "tracked on purpose", repo: true, setup: map[string]string{"eval/runs/keep": "k"}, track: "eval/runs/keep", tracked: "eval/runs/keep"},
		{name: "user's own gitignore", repo: true, setup: map[string]string{"eval/runs/e/.gitignore": "mine\n"}},
		{name: "no repository", rootIsNew: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			top := t.TempDir()
			gitIn := func(args ...string) {
				t.Helper()
				cmd := exec.Command("git", args...)
				cmd.Dir = top
				cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+top,
					"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("git %v: %v\n%s", args, err, out)
				}
			}
			if tt.repo {
				gitIn("init", "-q")
			}
			for p, body := range tt.setup {
				full := filepath.Join(top, p)
				if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if tt.track != "" {
				gitIn("add", tt.track)
				gitIn("commit", "-q", "-m", "track")
			}
			before, _ := os.ReadFile(filepath.Join(top, "eval/runs/e/.gitignore"))
			root := filepath.Join(top, "eval", "runs")
			ig, err := EnsureIgnored(context.Background(), root, filepath.Join(root, "e"), tt.rootIsNew)
			if err != nil {
				t.Fatal(err)
			}
			want := ""
			if tt.wrote != "" {
				want = filepath.Join(top, tt.wrote)
			}
			if ig.Wrote != want || ig.Tracked != tt.tracked {
				t.Fatalf("EnsureIgnored = %+v, want Wrote %q, Tracked %q", ig, want, tt.tracked)
			}
			if want != "" {
				b, err := os.ReadFile(want)
				if err != nil || string(b) != gitignoreText {
					t.Fatalf("%s = %q, %v; want %q", want, b, err, gitignoreText)
				}
			}
			if after, _ := os.ReadFile(filepath.Join(top, "eval/runs/e/.gitignore")); string(before) != "" && string(after) != string(before) {
				t.Errorf("the user's .gitignore became %q", after)
			}
		})
	}
}
