package workspace

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestPrivateRoot(t *testing.T) {
	base := t.TempDir()
	t.Setenv(RootEnv, base)
	root, gitRoot, err := PrivateRoot()
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(root) != base || !strings.HasPrefix(filepath.Base(root), "agent-eval-") || gitRoot != "" {
		t.Fatalf("PrivateRoot = %s, %q", root, gitRoot)
	}
	fi, err := os.Lstat(root)
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("root mode %v (%v), want 0700", fi.Mode(), err)
	}
	// A root left open is made private again.
	if err := os.Chmod(root, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, _, err := PrivateRoot(); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Lstat(root); fi.Mode().Perm() != 0o700 {
		t.Errorf("root mode %v after a second call, want 0700", fi.Mode())
	}
}

// A link (or a file) in the root's place is refused, not followed.
func TestPrivateRootRefusesALink(t *testing.T) {
	base := t.TempDir()
	t.Setenv(RootEnv, base)
	name := filepath.Join(base, "agent-eval-"+itoa(os.Getuid()))
	if err := os.Symlink(t.TempDir(), name); err != nil {
		t.Fatal(err)
	}
	if _, _, err := PrivateRoot(); err == nil || !strings.Contains(err.Error(), "not a folder") {
		t.Fatalf("PrivateRoot over a link = %v, want an error", err)
	}
}

// Under a git repository the root says which folder holds the .git, for the
// runner to trust.
func TestPrivateRootUnderGit(t *testing.T) {
	repo := t.TempDir()
	if err := os.Mkdir(filepath.Join(repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	base := filepath.Join(repo, "deep", "er")
	if err := os.MkdirAll(base, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv(RootEnv, base)
	_, gitRoot, err := PrivateRoot()
	if err != nil {
		t.Fatal(err)
	}
	if gitRoot != repo {
		t.Errorf("gitRoot = %q, want %q", gitRoot, repo)
	}
	if GitAbove(t.TempDir()) != "" {
		t.Errorf("GitAbove found a .git above a fresh temp folder")
	}
}

func TestNewSlot(t *testing.T) {
	root := t.TempDir()
	seen := map[string]bool{}
	for range 50 {
		s, err := NewSlot(root)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(s)
		if len(name) != SlotNameLen || strings.Trim(name, "0123456789abcdef") != "" || seen[name] || filepath.Dir(s) != root {
			t.Fatalf("slot %s: want a new %d-hex-digit name in %s", s, SlotNameLen, root)
		}
		seen[name] = true
		if fi, err := os.Stat(s); err != nil || fi.Mode().Perm() != 0o700 {
			t.Fatalf("slot mode %v (%v)", fi.Mode(), err)
		}
	}
	if HomeDir(filepath.Join(root, "0a0a0a0a", "case-1")) != filepath.Join(root, "0a0a0a0a") {
		t.Errorf("the home is not the workspace's slot")
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
