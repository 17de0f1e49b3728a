package workspace

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gitRepo makes a repository with a commit and the user's own uncommitted
// work: a changed tracked file, a staged change, an untracked file.
func gitRepo(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	dir := filepath.Join(t.TempDir(), "project")
	write(t, filepath.Join(dir, "README.md"), "the project\n")
	write(t, filepath.Join(dir, "notes.txt"), "original\n")
	write(t, filepath.Join(dir, "staged.txt"), "v1\n")
	write(t, filepath.Join(dir, ".gitignore"), "runs/\n")
	rgit(t, dir, "init", "-q", "-b", "main")
	rgit(t, dir, "add", "-A")
	rgit(t, dir, "commit", "-q", "-m", "init")
	write(t, filepath.Join(dir, "notes.txt"), "original\nuser's edit\n")
	write(t, filepath.Join(dir, "staged.txt"), "v2 staged\n")
	rgit(t, dir, "add", "staged.txt")
	write(t, filepath.Join(dir, "draft.txt"), "user's draft\n")
	write(t, filepath.Join(dir, "sub", "user.txt"), "user's untracked file\n")
	return dir
}

func rgit(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.email=t@t", "-c", "user.name=t"}, args...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v: %s", args, err, out)
	}
	return string(out)
}

func write(t *testing.T, p, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// repoView is everything a user would notice of a repository.
func repoView(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	for _, args := range [][]string{
		{"rev-parse", "HEAD"}, {"symbolic-ref", "HEAD"}, {"for-each-ref"}, {"config", "--list", "--show-origin"},
		{"status", "--porcelain", "--untracked-files=all"}, {"ls-files", "--stage"}, {"diff"}, {"diff", "--cached"},
		{"stash", "list"}, {"worktree", "list", "--porcelain"},
	} {
		b.WriteString("$ git " + strings.Join(args, " ") + "\n" + rgit(t, dir, args...))
	}
	hooks, _ := os.ReadDir(filepath.Join(dir, ".git", "hooks"))
	for _, h := range hooks {
		b.WriteString("hook " + h.Name() + "\n")
	}
	for _, f := range []string{"notes.txt", "draft.txt", "staged.txt", "sub/user.txt"} {
		c, _ := os.ReadFile(filepath.Join(dir, f))
		b.WriteString(f + ": " + string(c))
	}
	return b.String()
}

func TestRepoStateDetectsAndRestores(t *testing.T) {
	tests := []struct {
		name   string
		attack func(t *testing.T, dir string)
		want   []string // substrings of the reported changes
	}{
		{"hooksPath", func(t *testing.T, dir string) {
			rgit(t, dir, "config", "core.hooksPath", ".evil-hooks")
		}, []string{".git/config: changed"}},
		{"hook file", func(t *testing.T, dir string) {
			write(t, filepath.Join(dir, ".git", "hooks", "pre-commit"), "#!/bin/sh\necho owned\n")
		}, []string{".git/hooks/pre-commit: added"}},
		{"sample hook changed", func(t *testing.T, dir string) {
			write(t, filepath.Join(dir, ".git", "hooks", "pre-push.sample"), "#!/bin/sh\necho owned\n")
		}, []string{".git/hooks/pre-push.sample: changed"}},
		{"tag", func(t *testing.T, dir string) {
			rgit(t, dir, "-C", ".", "tag", "evil-tag")
		}, []string{".git/refs/tags/evil-tag: added"}},
		{"branch switched", func(t *testing.T, dir string) {
			rgit(t, dir, "-c", "core.x=1", "switch", "-q", "-c", "evil")
		}, []string{".git/HEAD: changed", ".git/refs/heads/evil: added"}},
		{"index", func(t *testing.T, dir string) {
			rgit(t, dir, "-C", ".", "add", "notes.txt")
		}, []string{".git/index: staged files changed"}},
		{"index unstaged", func(t *testing.T, dir string) {
			rgit(t, dir, "reset", "-q")
		}, []string{".git/index: staged files changed"}},
		{"config", func(t *testing.T, dir string) {
			rgit(t, dir, "config", "alias.st", "!sh -c 'echo owned'")
		}, []string{".git/config: changed"}},
		{"commit", func(t *testing.T, dir string) {
			rgit(t, dir, "-C", ".", "commit", "-q", "-m", "evil")
		}, []string{".git/refs/heads/main: changed", ".git/logs/HEAD: changed"}},
		{"commit of everything", func(t *testing.T, dir string) {
			rgit(t, dir, "add", "-A")
			rgit(t, dir, "commit", "-q", "-m", "evil")
		}, []string{".git/refs/heads/main: changed"}},
		{"packed refs", func(t *testing.T, dir string) {
			rgit(t, dir, "tag", "v1")
			rgit(t, dir, "pack-refs", "--all")
		}, []string{".git/packed-refs: added"}},
		{"stash", func(t *testing.T, dir string) {
			rgit(t, dir, "stash", "-q")
		}, []string{".git/refs/stash: added", "notes.txt: changed"}},
		{"notes", func(t *testing.T, dir string) {
			rgit(t, dir, "notes", "add", "-m", "x")
		}, []string{".git/refs/notes/commits: added"}},
		{"update-ref", func(t *testing.T, dir string) {
			rgit(t, dir, "update-ref", "refs/heads/x", "HEAD")
		}, []string{".git/refs/heads/x: added"}},
		{"info exclude", func(t *testing.T, dir string) {
			write(t, filepath.Join(dir, ".git", "info", "exclude"), "*\n")
		}, []string{".git/info/exclude: changed"}},
		{"config.worktree", func(t *testing.T, dir string) {
			write(t, filepath.Join(dir, ".git", "config.worktree"), "[core]\n\thooksPath = /tmp\n")
		}, []string{".git/config.worktree: added"}},
		{"global config", func(t *testing.T, dir string) {
			rgit(t, dir, "config", "--global", "core.hooksPath", "/tmp/evil")
		}, []string{".gitconfig: added"}},
		{"work tree", func(t *testing.T, dir string) {
			write(t, filepath.Join(dir, "notes.txt"), "agent's version\n")
			write(t, filepath.Join(dir, "new", "file.txt"), "agent's file\n")
			if err := os.Remove(filepath.Join(dir, "draft.txt")); err != nil {
				t.Fatal(err)
			}
		}, []string{"notes.txt: changed", "new/file.txt: added", "draft.txt: removed"}},
		{"gitattributes", func(t *testing.T, dir string) {
			write(t, filepath.Join(dir, ".gitattributes"), "* filter=evil\n")
		}, []string{".gitattributes: added"}},
		{"nested repository", func(t *testing.T, dir string) {
			// The user's untracked file sits in the folder the agent makes
			// a repository of.
			rgit(t, dir, "init", "-q", filepath.Join(dir, "sub"))
			write(t, filepath.Join(dir, "sub", "agent.txt"), "x\n")
		}, []string{"sub/.git: added"}},
		{"worktree add", func(t *testing.T, dir string) {
			rgit(t, dir, "worktree", "add", "-q", filepath.Join(filepath.Dir(dir), "wt"), "-b", "wt")
		}, []string{".git/worktrees/wt/HEAD: added", ".git/refs/heads/wt: added"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			dir := gitRepo(t)
			before := repoView(t, dir)
			s, err := SnapshotRepo(ctx, dir, t.TempDir(), nil)
			if err != nil {
				t.Fatal(err)
			}
			tt.attack(t, dir)
			changes, err := s.Diff(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, c := range changes {
				got = append(got, c.String())
			}
			all := strings.Join(got, "\n")
			for _, w := range tt.want {
				if !strings.Contains(all, w) {
					t.Errorf("Diff = %q, want it to report %q", got, w)
				}
			}
			saved := t.TempDir()
			if err := s.SaveWorktree(ctx, saved, nil); err != nil {
				t.Fatal(err)
			}
			if err := s.Restore(ctx); err != nil {
				t.Fatalf("Restore: %v", err)
			}
			if after := repoView(t, dir); after != before {
				t.Errorf("after Restore the repository differs:\n--- before\n%s\n--- after\n%s", before, after)
			}
			if left, err := s.Diff(ctx); err != nil || len(left) > 0 {
				t.Errorf("Diff after Restore = %v, %v; want nothing", left, err)
			}
		})
	}
}

// TestRepoStateIgnoredHooksPath: core.hooksPath naming a folder git
// ignores (husky's .husky/_) is recorded all the same.
func TestRepoStateIgnoredHooksPath(t *testing.T) {
	ctx := context.Background()
	dir := gitRepo(t)
	write(t, filepath.Join(dir, ".husky", "_", ".gitignore"), "*\n")
	write(t, filepath.Join(dir, ".husky", "_", "pre-commit"), "#!/bin/sh\n")
	rgit(t, dir, "config", "core.hooksPath", ".husky/_")
	s, err := SnapshotRepo(ctx, dir, t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, ".husky", "_", "pre-commit"), "#!/bin/sh\necho owned\n")
	write(t, filepath.Join(dir, ".husky", "_", "pre-push"), "#!/bin/sh\necho owned\n")
	changes, err := s.Diff(ctx)
	if err != nil {
		t.Fatal(err)
	}
	all := fmt.Sprint(changes)
	if !strings.Contains(all, "pre-commit: changed") || !strings.Contains(all, "pre-push: added") {
		t.Fatalf("Diff = %s; want the ignored hooks folder's changes", all)
	}
	if err := s.Restore(ctx); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, ".husky", "_", "pre-commit")); string(b) != "#!/bin/sh\n" {
		t.Errorf("pre-commit after Restore = %q", b)
	}
	if _, err := os.Stat(filepath.Join(dir, ".husky", "_", "pre-push")); err == nil {
		t.Error("the added hook is still there")
	}
}

func TestRepoStateReadsChangeNothing(t *testing.T) {
	ctx := context.Background()
	dir := gitRepo(t)
	runs := filepath.Join(dir, "out")
	s, err := SnapshotRepo(ctx, dir, t.TempDir(), []string{runs})
	if err != nil {
		t.Fatal(err)
	}
	// What an agent does that reads only (status refreshes the index's stat
	// data), and the harness writing its runs folder (not ignored here).
	write(t, filepath.Join(dir, "notes.txt"), "original\nuser's edit\n") // same content, new mtime
	for _, args := range [][]string{{"status"}, {"log", "--oneline"}, {"diff"}, {"show", "HEAD"}, {"branch", "--list"}, {"ls-files"}} {
		rgit(t, dir, args...)
	}
	write(t, filepath.Join(runs, "r1", "stdout.log"), "the harness's\n")
	changes, err := s.Diff(ctx)
	if err != nil || len(changes) > 0 {
		t.Fatalf("Diff = %v, %v; want nothing", changes, err)
	}
	if err := s.Restore(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(runs, "r1", "stdout.log")); err != nil {
		t.Errorf("Restore removed the excluded runs folder: %v", err)
	}
}

func TestRepoStateSavesTheAgentsWork(t *testing.T) {
	ctx := context.Background()
	dir := gitRepo(t)
	s, err := SnapshotRepo(ctx, dir, t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "notes.txt"), "original\nuser's edit\nagent-line\n")
	write(t, filepath.Join(dir, "newdir", "new.txt"), "agent's new file\n")
	out := t.TempDir()
	if err := s.SaveWorktree(ctx, out, nil); err != nil {
		t.Fatal(err)
	}
	patch, err := os.ReadFile(filepath.Join(out, "worktree.patch"))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"+agent-line", "newdir/new.txt", "+agent's new file"} {
		if !strings.Contains(string(patch), w) {
			t.Errorf("worktree.patch lacks %q:\n%s", w, patch)
		}
	}
	if b, err := os.ReadFile(filepath.Join(out, "files", "newdir", "new.txt")); err != nil || string(b) != "agent's new file\n" {
		t.Errorf("files/newdir/new.txt = %q, %v", b, err)
	}
	if err := s.Restore(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "newdir")); err == nil {
		t.Error("Restore left the folder the agent made")
	}
	// The patch brings the agent's work back onto the user's.
	rgit(t, dir, "apply", filepath.Join(out, "worktree.patch"))
	if b, _ := os.ReadFile(filepath.Join(dir, "notes.txt")); string(b) != "original\nuser's edit\nagent-line\n" {
		t.Errorf("notes.txt after applying the patch = %q", b)
	}
}

func TestRepoStateLinkedWorktree(t *testing.T) {
	ctx := context.Background()
	main := gitRepo(t)
	wt := filepath.Join(filepath.Dir(main), "linked")
	rgit(t, main, "worktree", "add", "-q", wt, "-b", "feature")
	s, err := SnapshotRepo(ctx, wt, t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.GitDir == s.CommonDir || !strings.HasPrefix(s.GitDir, s.CommonDir) {
		t.Fatalf("GitDir %s, CommonDir %s: want a worktree's own folder below the common one", s.GitDir, s.CommonDir)
	}
	before := rgit(t, main, "for-each-ref") + rgit(t, main, "config", "--list")
	rgit(t, wt, "tag", "from-linked")
	rgit(t, wt, "config", "core.hooksPath", "/tmp/x")
	changes, err := s.Diff(ctx)
	if err != nil {
		t.Fatal(err)
	}
	all := ""
	for _, c := range changes {
		all += c.String() + "\n"
	}
	if !strings.Contains(all, "refs/tags/from-linked: added") || !strings.Contains(all, "config: changed") {
		t.Errorf("Diff = %s; want the tag and the config in the common folder", all)
	}
	if err := s.Restore(ctx); err != nil {
		t.Fatal(err)
	}
	if after := rgit(t, main, "for-each-ref") + rgit(t, main, "config", "--list"); after != before {
		t.Errorf("after Restore:\n%s\nwant:\n%s", after, before)
	}
}

func TestRepoStateTamperedCopy(t *testing.T) {
	ctx := context.Background()
	dir := gitRepo(t)
	saved := t.TempDir()
	s, err := SnapshotRepo(ctx, dir, saved, nil)
	if err != nil {
		t.Fatal(err)
	}
	rgit(t, dir, "config", "core.hooksPath", "/tmp/evil")
	// An agent that also rewrote the copy (sandbox off) gets nothing put back.
	cfg := filepath.Join(dir, ".git", "config")
	copy := s.files[cfg].copy
	write(t, copy, "[core]\n\thooksPath = /tmp/evil2\n")
	if err := s.Restore(ctx); err == nil || !strings.Contains(err.Error(), "changed since the snapshot") {
		t.Fatalf("Restore = %v, want the tampered copy refused", err)
	}
}

// TestGitDirs: a linked worktree's git folders are its own and the main
// repository's, both outside it; core.hooksPath's folder is one of them.
func TestGitDirs(t *testing.T) {
	main := gitRepo(t)
	wt := filepath.Join(filepath.Dir(main), "linked")
	rgit(t, main, "worktree", "add", "-q", wt, "-b", "feature")
	rgit(t, main, "config", "core.hooksPath", "/srv/hooks")
	got := GitDirs(context.Background(), wt)
	want := []string{filepath.Join(main, ".git", "worktrees", "linked"), filepath.Join(main, ".git"), "/srv/hooks"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("GitDirs = %q, want %q", got, want)
	}
	if got := GitDirs(context.Background(), t.TempDir()); got != nil {
		t.Errorf("GitDirs(not a repo) = %q", got)
	}
}

// TestRepoStateGitfile: a worktree's .git file repointed elsewhere is a
// change, and put back.
func TestRepoStateGitfile(t *testing.T) {
	ctx := context.Background()
	main := gitRepo(t)
	wt := filepath.Join(filepath.Dir(main), "linked")
	rgit(t, main, "worktree", "add", "-q", wt, "-b", "feature")
	gitfile := filepath.Join(wt, ".git")
	before, err := os.ReadFile(gitfile)
	if err != nil {
		t.Fatal(err)
	}
	s, err := SnapshotRepo(ctx, wt, t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	write(t, gitfile, "gitdir: /tmp/elsewhere\n")
	changes, err := s.Diff(ctx)
	if err != nil || !strings.Contains(fmt.Sprint(changes), gitfile+": changed") {
		t.Fatalf("Diff = %v, %v; want the .git file changed", changes, err)
	}
	if err := s.Restore(ctx); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(gitfile); string(b) != string(before) {
		t.Errorf(".git after Restore = %q, want %q", b, before)
	}
}

// TestRepoStateTamperedRecord: an agent (sandbox off) that rewrites the
// work tree's record to hide its change is found out, not believed.
func TestRepoStateTamperedRecord(t *testing.T) {
	ctx := context.Background()
	dir := gitRepo(t)
	saved := t.TempDir()
	s, err := SnapshotRepo(ctx, dir, saved, nil)
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "notes.txt"), "agent's\n")
	cmd := exec.Command("git", "--git-dir="+filepath.Join(saved, "worktree.git"), "--work-tree="+dir, "add", "notes.txt")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if _, err := s.Diff(ctx); err == nil || !strings.Contains(err.Error(), "was changed since the snapshot") {
		t.Fatalf("Diff = %v, want the changed record found", err)
	}
	if err := s.Restore(ctx); err == nil {
		t.Fatal("Restore trusted a changed record")
	}
}
