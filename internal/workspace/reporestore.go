package workspace

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/agent-eval/agent-eval/internal/pathutil"
)

// SaveWorktree writes what the agent changed in the work tree into dir:
// a copy of every file it added or changed under files/ and
// worktree.patch (a binary git diff from the snapshot to now), within the
// case's collection c (nil: no limit). A file that does not fit is left out
// of both (c lists it); so is a patch that grows past what is left (it is
// written as git makes it, never held whole). It writes nothing when the
// work tree is as it was.
func (s *RepoState) SaveWorktree(ctx context.Context, dir string, c *Collection) error {
	if err := s.checkBaselineFiles(); err != nil {
		return err
	}
	after, err := s.worktreeTree(ctx, false)
	if err != nil || after == s.tree {
		return err
	}
	changes, err := s.worktreeChanges(ctx)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var errs []error
	var left []string
	for _, ch := range changes {
		if ch.How == "removed" {
			continue
		}
		skipped := c.skippedCount()
		if err := c.CopyTree(filepath.Join(s.Top, filepath.FromSlash(ch.What)), filepath.Join(dir, "files", filepath.FromSlash(ch.What)), ch.What); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
		if c.skippedCount() > skipped {
			left = append(left, ch.What)
		}
	}
	// The files left out are left out of the patch too (as literal paths).
	args := []string{"diff-tree", "-p", "--binary", "--no-renames", "--full-index", s.tree, after, "--", "."}
	for _, p := range left {
		args = append(args, ":(exclude,literal)"+p)
	}
	pctx, cancel := context.WithCancel(ctx)
	defer cancel()
	_, err = c.WriteBounded(filepath.Join(dir, "worktree.patch"), "worktree.patch", cancel, func(w io.Writer) error {
		return s.baselineGitTo(pctx, w, args...)
	})
	if err != nil {
		errs = append(errs, fmt.Errorf("save the work tree's changes: %w", err))
	}
	return errors.Join(errs...)
}

// Restore puts the repository back as the snapshot found it: its git files
// (a file the agent added is removed, one it changed or removed is written
// back from the copy), its configuration files, its hooks, and its work
// tree (what the agent added is removed, what it changed or removed is
// checked out from the baseline; the user's own uncommitted work is in the
// baseline, so it comes back as it was). Save the work tree's changes
// first (SaveWorktree). It returns what it could not put back.
func (s *RepoState) Restore(ctx context.Context) error {
	var errs []error
	// Folders first: one the agent swapped for a link (or a file) would be
	// written through, outside the repository.
	dirs := slices.Sorted(maps.Keys(s.dirs))
	for _, d := range dirs {
		st, err := os.Lstat(d)
		if err == nil && st.IsDir() {
			continue
		}
		if err == nil {
			if err := os.Remove(d); err != nil {
				errs = append(errs, fmt.Errorf("remove %s, which was a folder: %w", s.show(d), err))
				continue
			}
		}
		if err := os.Mkdir(d, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			errs = append(errs, fmt.Errorf("restore the folder %s: %w", s.show(d), err))
		}
	}
	paths, err := s.watched(ctx)
	if err != nil {
		errs = append(errs, err)
	}
	for _, p := range paths {
		if _, ok := s.objects[p]; ok || s.dirs[p] {
			continue
		}
		rec, isDir, err := s.record(p, false, nil)
		if err != nil || isDir {
			continue
		}
		if _, had := s.files[p]; had || rec == nil || objectFile(s, p) {
			continue
		}
		// Only what the agent added where the snapshot looked: a file a
		// changed include.path names may be anybody's.
		root := ""
		for _, r := range []string{s.GitDir, s.CommonDir, s.hooksDir} {
			if r != "" && pathutil.Within(p, r) {
				root = r
				break
			}
		}
		if root == "" && !s.absent[p] {
			continue
		}
		if err := os.Remove(p); err != nil {
			errs = append(errs, fmt.Errorf("remove %s: %w", s.show(p), err))
		}
		if root != "" {
			s.pruneDirs(filepath.Dir(p), root)
		}
	}
	for p, before := range s.files {
		rec, _, err := s.record(p, false, nil)
		if err == nil && rec != nil && rec.sum == before.sum && rec.mode == before.mode {
			continue
		}
		if err := s.put(p, before); err != nil {
			errs = append(errs, fmt.Errorf("restore %s: %w", s.show(p), err))
		}
	}
	// The work tree last, the repository's own files being back (a .git
	// file the agent repointed).
	if err := s.checkRecord(ctx); err != nil {
		return errors.Join(append(errs, err)...)
	}
	nested, err := s.newNested(ctx)
	if err != nil {
		errs = append(errs, err)
	}
	for _, p := range nested {
		if err := removeAll(filepath.Join(s.Top, filepath.FromSlash(p), ".git")); err != nil {
			errs = append(errs, fmt.Errorf("remove %s/.git: %w", p, err))
		}
	}
	// A .gitignore of the agent's that ignores itself hides its folder
	// until it is gone.
	hiders, err := s.newHiders(ctx)
	if err != nil {
		errs = append(errs, err)
	}
	for _, p := range hiders {
		abs := filepath.Join(s.Top, filepath.FromSlash(p))
		if err := os.Remove(abs); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, fmt.Errorf("remove %s: %w", p, err))
		}
		s.pruneDirs(filepath.Dir(abs), s.Top)
	}
	// Twice: a folder the agent made a repository of (a gitlink) hides the
	// files in it until its .git is gone.
	for range 2 {
		if err := s.restoreWorktree(ctx); err != nil {
			errs = append(errs, err)
			break
		}
	}
	return errors.Join(errs...)
}

// restoreWorktree removes what the agent added to the work tree and checks
// out what it changed or removed from the baseline.
func (s *RepoState) restoreWorktree(ctx context.Context) error {
	var errs []error
	wt, err := s.worktreeChanges(ctx)
	if err != nil {
		return err
	}
	var checkout []string
	for _, c := range wt {
		p := filepath.Join(s.Top, filepath.FromSlash(c.What))
		st, lerr := os.Lstat(p)
		if c.How == "added" {
			switch {
			case lerr == nil && st.IsDir():
				// A repository the agent made (git records a gitlink): its
				// .git goes; what is in the folder is judged next round.
				if err := removeAll(filepath.Join(p, ".git")); err != nil {
					errs = append(errs, fmt.Errorf("remove %s/.git: %w", c.What, err))
				}
			case lerr == nil:
				if err := os.Remove(p); err != nil {
					errs = append(errs, fmt.Errorf("remove %s: %w", c.What, err))
				}
				s.pruneDirs(filepath.Dir(p), s.Top)
			}
			continue
		}
		if lerr == nil && st.IsDir() {
			// A file the agent replaced with a folder.
			if err := removeAll(p); err != nil {
				errs = append(errs, err)
			}
		}
		checkout = append(checkout, c.What)
	}
	if len(checkout) > 0 {
		in := strings.Join(checkout, "\x00") + "\x00"
		if _, err := s.baselineGit(ctx, "", strings.NewReader(in), "checkout-index", "-f", "-z", "--stdin"); err != nil {
			errs = append(errs, fmt.Errorf("restore the work tree: %w", err))
		}
	}
	return errors.Join(errs...)
}

// put writes a recorded file back, from a copy whose hash still matches.
func (s *RepoState) put(p string, r fileRecord) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	if dir, err := filepath.EvalSymlinks(filepath.Dir(p)); err != nil || r.dir != "" && dir != r.dir {
		return fmt.Errorf("its folder is now %s, not %s (a link was put on the way); not written through", dir, r.dir)
	}
	if st, err := os.Lstat(p); err == nil && (st.IsDir() || st.Mode()&fs.ModeSymlink != 0 || r.link != "") {
		if err := removeAll(p); err != nil {
			return err
		}
	}
	if r.link != "" {
		return os.Symlink(r.link, p)
	}
	if r.copy == "" {
		return fmt.Errorf("no copy was kept")
	}
	in, err := os.OpenFile(r.copy, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return err
	}
	defer in.Close()
	// A fresh name (O_EXCL): a link the agent planted at a fixed one would
	// be written through. The copy is checked as it is written, and put in
	// place only when its hash still matches.
	f, err := os.CreateTemp(filepath.Dir(p), "."+filepath.Base(p)+".agent-eval-restore-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	h := sha256.New()
	_, err = io.Copy(io.MultiWriter(f, h), in)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && [32]byte(h.Sum(nil)) != r.sum {
		err = fmt.Errorf("the copy kept in %s was changed since the snapshot; not put back", r.copy)
	}
	if err == nil {
		err = os.Chmod(tmp, r.mode.Perm())
	}
	if err == nil {
		err = os.Rename(tmp, p)
	}
	if err != nil {
		_ = os.Remove(tmp)
	}
	return err
}

// pruneDirs removes the empty folders from dir up to root (not root
// itself) that the snapshot did not see.
func (s *RepoState) pruneDirs(dir, root string) {
	for d := dir; d != root && pathutil.Within(d, root) && !s.dirs[d]; d = filepath.Dir(d) {
		if os.Remove(d) != nil {
			return
		}
	}
}
