package workspace

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Issue 17 §2, attacked: a hostile agent (sandbox off) against the
// repository's record, its compare and its restore.

// evilScript writes a script that leaves marker when run; it returns both.
func evilScript(t *testing.T) (script, marker string) {
	t.Helper()
	d := t.TempDir()
	marker = filepath.Join(d, "ran")
	script = filepath.Join(d, "evil.sh")
	write(t, script, "#!/bin/sh\ntouch "+marker+"\ncat\n")
	if err := os.Chmod(script, 0o755); err != nil {
		t.Fatal(err)
	}
	return script, marker
}

// TestRepoAttackCompareRunsNothing: a filter driver the agent configured
// (in the repository's config, with a .gitattributes naming it) is not run
// by the harness when it compares and restores the repository, after the
// agent has ended and with the harness's environment.
func TestRepoAttackCompareRunsNothing(t *testing.T) {
	ctx := context.Background()
	dir := gitRepo(t)
	s, err := SnapshotRepo(ctx, dir, t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	script, marker := evilScript(t)
	f, err := os.OpenFile(filepath.Join(dir, ".git", "config"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = f.WriteString("[filter \"x\"]\n\tclean = " + script + "\n\tsmudge = " + script + "\n[diff \"x\"]\n\ttextconv = " + script + "\n")
	f.Close()
	write(t, filepath.Join(dir, ".gitattributes"), "* filter=x diff=x\n")
	write(t, filepath.Join(dir, "README.md"), "changed by the agent\n")
	changes, err := s.Diff(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(joinChanges(changes), ".git/config: changed") {
		t.Errorf("changes = %v, want .git/config", changes)
	}
	if err := s.SaveWorktree(ctx, t.TempDir(), nil); err != nil {
		t.Fatal(err)
	}
	if err := s.Restore(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the harness ran the agent's filter driver while comparing or restoring the repository")
	}
}

// TestRepoAttackBaselineConfig: the agent rewrites the baseline
// repository's own files (its config, info/exclude, info/attributes) so that
// its additions are not seen or the harness runs its program; the record is
// not believed.
func TestRepoAttackBaselineConfig(t *testing.T) {
	ctx := context.Background()
	for name, tamper := range map[string]func(t *testing.T, base, script string){
		"exclude": func(t *testing.T, base, _ string) {
			write(t, filepath.Join(base, "info", "exclude"), "*\n")
		},
		"config excludesFile": func(t *testing.T, base, _ string) {
			write(t, filepath.Join(base, "everything"), "*\n")
			appendFile(t, filepath.Join(base, "config"), "[core]\n\texcludesFile = "+filepath.Join(base, "everything")+"\n")
		},
		"config filter": func(t *testing.T, base, script string) {
			appendFile(t, filepath.Join(base, "config"), "[filter \"x\"]\n\tclean = "+script+"\n")
			write(t, filepath.Join(base, "info", "attributes"), "* filter=x\n")
		},
		"alternates": func(t *testing.T, base, _ string) {
			write(t, filepath.Join(base, "objects", "info", "alternates"), "/tmp/elsewhere\n")
		},
	} {
		t.Run(name, func(t *testing.T) {
			dir := gitRepo(t)
			saved := t.TempDir()
			s, err := SnapshotRepo(ctx, dir, saved, nil)
			if err != nil {
				t.Fatal(err)
			}
			write(t, filepath.Join(dir, "planted.sh"), "#!/bin/sh\n")
			script, marker := evilScript(t)
			tamper(t, filepath.Join(saved, "worktree.git"), script)
			changes, err := s.Diff(ctx)
			if _, serr := os.Stat(marker); serr == nil {
				t.Fatal("the harness ran a program the agent configured in the record")
			}
			if err == nil && !strings.Contains(joinChanges(changes), "planted.sh") {
				t.Fatalf("Diff = %v, nil: the agent's file is hidden by a changed record", changes)
			}
		})
	}
}

// TestRepoAttackRestoreThroughLink: the agent swaps a folder of the git
// folder (hooks, refs) for a link elsewhere; Restore writes nothing through
// it and puts the folder back.
func TestRepoAttackRestoreThroughLink(t *testing.T) {
	ctx := context.Background()
	for _, sub := range []string{"hooks", "refs/heads", "info"} {
		t.Run(sub, func(t *testing.T) {
			dir := gitRepo(t)
			before := repoView(t, dir)
			s, err := SnapshotRepo(ctx, dir, t.TempDir(), nil)
			if err != nil {
				t.Fatal(err)
			}
			outside := t.TempDir()
			p := filepath.Join(dir, ".git", filepath.FromSlash(sub))
			if err := os.Rename(p, p+".old"); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(outside, p); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Diff(ctx); err != nil {
				t.Fatal(err)
			}
			_ = s.Restore(ctx)
			if es, _ := os.ReadDir(outside); len(es) > 0 {
				t.Errorf("Restore wrote %d files into the folder the link points at (%s …)", len(es), es[0].Name())
			}
			if st, err := os.Lstat(p); err != nil || !st.IsDir() {
				t.Errorf(".git/%s after Restore: %v, %v; want the folder back", sub, st, err)
			}
			_ = os.RemoveAll(p + ".old")
			if after := repoView(t, dir); after != before {
				t.Errorf("the repository after Restore differs:\n%s\nwant\n%s", after, before)
			}
		})
	}
}

// TestRepoAttackIncludedFile: the user's configuration includes a file
// that does not exist (an includeIf for some folders, a local extra); the
// agent creates it with a hooks path. That is a change, and it is undone.
func TestRepoAttackIncludedFile(t *testing.T) {
	ctx := context.Background()
	dir := gitRepo(t)
	home := os.Getenv("HOME")
	write(t, filepath.Join(home, ".gitconfig"), "[include]\n\tpath = ~/.gitconfig.local\n[includeIf \"gitdir:/nowhere/\"]\n\tpath = work.cfg\n")
	rgit(t, dir, "config", "include.path", "../extra.cfg")
	s, err := SnapshotRepo(ctx, dir, t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	planted := []string{filepath.Join(home, ".gitconfig.local"), filepath.Join(home, "work.cfg"), filepath.Join(dir, ".git", "..", "extra.cfg")}
	for _, p := range planted {
		write(t, p, "[core]\n\thooksPath = /tmp/evil\n")
	}
	changes, err := s.Diff(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := joinChanges(changes)
	for _, p := range planted[:2] {
		if !strings.Contains(got, p+": added") {
			t.Errorf("changes = %v, want %s added", changes, p)
		}
	}
	if err := s.Restore(ctx); err != nil {
		t.Fatal(err)
	}
	for _, p := range planted {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s is still there after Restore", p)
		}
	}
}

func joinChanges(cs []RepoChange) string {
	var b strings.Builder
	for _, c := range cs {
		b.WriteString(c.String() + "\n")
	}
	return b.String()
}

func appendFile(t *testing.T, p, s string) {
	t.Helper()
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}

// TestRepoAttackRestoreTempLink: the agent changes the global git
// configuration and plants a link where Restore would write its temporary
// copy; Restore writes nothing through it.
func TestRepoAttackRestoreTempLink(t *testing.T) {
	ctx := context.Background()
	dir := gitRepo(t)
	cfg := filepath.Join(os.Getenv("HOME"), ".gitconfig")
	write(t, cfg, "[user]\n\tname = dev\n")
	s, err := SnapshotRepo(ctx, dir, t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	victim := filepath.Join(t.TempDir(), "victim")
	write(t, victim, "the user's file\n")
	write(t, cfg, "[core]\n\thooksPath = /tmp/evil\n")
	if err := os.Symlink(victim, cfg+".agent-eval-restore"); err != nil {
		t.Fatal(err)
	}
	if err := s.Restore(ctx); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "the user's file\n" {
		t.Errorf("Restore wrote through the planted link: %q", b)
	}
	if b, _ := os.ReadFile(cfg); string(b) != "[user]\n\tname = dev\n" {
		t.Errorf("~/.gitconfig after Restore: %q", b)
	}
}

// TestRepoAttackSelfIgnored: a .gitignore that ignores itself (a new
// folder holding ".gitignore: *" and what the agent plants, a VS Code task
// that runs when the folder is opened) hides the folder from the work
// tree's record; it is a change, and undone.
func TestRepoAttackSelfIgnored(t *testing.T) {
	ctx := context.Background()
	dir := gitRepo(t)
	write(t, filepath.Join(dir, "build", ".gitignore"), "*\n") // the user's own, there before
	s, err := SnapshotRepo(ctx, dir, t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, ".vscode", ".gitignore"), "*\n")
	write(t, filepath.Join(dir, ".vscode", "tasks.json"), `{"tasks":[{"command":"sh evil","runOptions":{"runOn":"folderOpen"}}]}`)
	write(t, filepath.Join(dir, "sub", "deep", ".gitattributes"), "* filter=x\n")
	write(t, filepath.Join(dir, "sub", "deep", ".gitignore"), ".git*\n")
	changes, err := s.Diff(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := joinChanges(changes)
	for _, want := range []string{".vscode/.gitignore: added", "sub/deep/.gitattributes: added"} {
		if !strings.Contains(got, want) {
			t.Errorf("changes = %v, want %q", changes, want)
		}
	}
	if strings.Contains(got, "build/") {
		t.Errorf("changes = %v: the user's own ignored folder is not the agent's", changes)
	}
	if err := s.Restore(ctx); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{".vscode", "sub/deep"} {
		if _, err := os.Stat(filepath.Join(dir, p)); err == nil {
			t.Errorf("%s is still there after Restore", p)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "build", ".gitignore")); err != nil {
		t.Errorf("the user's build/.gitignore: %v", err)
	}
}

// TestRepoAttackLinkedConfig: ~/.gitconfig is a link into the user's
// dotfiles (common); the agent writes through it. The change is found and
// the dotfile put back.
func TestRepoAttackLinkedConfig(t *testing.T) {
	ctx := context.Background()
	dir := gitRepo(t)
	dotfile := filepath.Join(t.TempDir(), "dotfiles", "gitconfig")
	write(t, dotfile, "[user]\n\tname = dev\n")
	if err := os.Symlink(dotfile, filepath.Join(os.Getenv("HOME"), ".gitconfig")); err != nil {
		t.Fatal(err)
	}
	s, err := SnapshotRepo(ctx, dir, t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	appendFile(t, filepath.Join(os.Getenv("HOME"), ".gitconfig"), "[core]\n\thooksPath = /tmp/evil\n")
	changes, err := s.Diff(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(joinChanges(changes), dotfile+": changed") {
		t.Errorf("changes = %v, want %s changed", changes, dotfile)
	}
	if err := s.Restore(ctx); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(dotfile); string(b) != "[user]\n\tname = dev\n" {
		t.Errorf("the dotfile after Restore: %q", b)
	}
	if left, err := s.Diff(ctx); err != nil || len(left) > 0 {
		t.Errorf("after Restore: %v, %v", left, err)
	}
}

// TestRepoAttackObjectRewritten: the agent overwrites a loose object (same
// size: the repository's history is corrupt); that is a change.
func TestRepoAttackObjectRewritten(t *testing.T) {
	ctx := context.Background()
	dir := gitRepo(t)
	s, err := SnapshotRepo(ctx, dir, t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var obj string
	for p := range s.objects {
		if strings.Contains(p, "/objects/") && !strings.Contains(p, "/pack/") {
			obj = p
			break
		}
	}
	b, err := os.ReadFile(obj)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(obj, 0o644); err != nil {
		t.Fatal(err)
	}
	b[len(b)-1] ^= 0xff
	if err := os.WriteFile(obj, b, 0o444); err != nil {
		t.Fatal(err)
	}
	changes, err := s.Diff(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(joinChanges(changes), "objects: 1 object files rewritten") {
		t.Errorf("changes = %v, want the rewritten object", changes)
	}
}

// TestRepoAttackFifo: a FIFO named .gitattributes (or .gitignore) makes
// git wait for ever on the work tree; comparing and restoring end with an
// error instead of hanging the run.
func TestRepoAttackFifo(t *testing.T) {
	ctx := context.Background()
	defer func(d time.Duration) { gitTimeout = d }(gitTimeout)
	gitTimeout = 2 * time.Second
	for _, name := range []string{".gitattributes", "sub/.gitignore"} {
		t.Run(name, func(t *testing.T) {
			dir := gitRepo(t)
			s, err := SnapshotRepo(ctx, dir, t.TempDir(), nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := syscall.Mkfifo(filepath.Join(dir, filepath.FromSlash(name)), 0o644); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() {
				_, err := s.Diff(ctx)
				done <- errors.Join(err, s.Restore(ctx))
			}()
			select {
			case err := <-done:
				if err == nil {
					t.Error("Diff and Restore found nothing wrong with a FIFO git blocks on")
				}
			case <-time.After(30 * time.Second):
				t.Fatal("comparing the repository hangs on a FIFO the agent left")
			}
		})
	}
}
