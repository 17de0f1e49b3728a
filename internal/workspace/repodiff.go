package workspace

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"
)

// Diff lists what changed in the repository since the snapshot: its git
// files (the index by what it stages), its objects (removed ones only: new
// objects change nothing), its effective configuration and its work tree.
func (s *RepoState) Diff(ctx context.Context) ([]RepoChange, error) {
	if err := specialFiles(s.Top); err != nil {
		return nil, err
	}
	var out []RepoChange
	paths, err := s.watched(ctx)
	if err != nil {
		return nil, err
	}
	for _, d := range []string{s.GitDir, s.CommonDir} {
		// A git folder swapped for a link elsewhere would be read through.
		if st, err := os.Lstat(d); err != nil || !st.IsDir() {
			out = append(out, RepoChange{What: s.show(d), How: "replaced: no longer a folder"})
		}
	}
	if err := s.checkRecord(ctx); err != nil {
		return nil, err
	}
	now := map[string]bool{}
	index := filepath.Join(s.GitDir, "index")
	for _, p := range paths {
		now[p] = true
		rec, isDir, err := s.record(p, false, nil)
		if err != nil {
			return nil, fmt.Errorf("compare the repository: %w", err)
		}
		if isDir || p == index {
			continue
		}
		if _, ok := s.objects[p]; ok {
			continue
		}
		before, had := s.files[p]
		switch {
		case rec == nil:
			continue // removed: found below
		case !had && objectFile(s, p):
			continue // a new object
		case !had:
			out = append(out, RepoChange{What: s.show(p), How: "added", Stub: s.stubFile(p, nil)})
		case before.sum != rec.sum || before.mode != rec.mode:
			out = append(out, RepoChange{What: s.show(p), How: "changed", Stub: before.mode == rec.mode && s.stubFile(p, &before)})
		}
	}
	gone, rewritten := 0, 0
	for p, sum := range s.objects {
		rec, _, err := s.record(p, false, nil)
		switch {
		case err != nil || rec == nil:
			gone++
		case rec.sum != sum:
			rewritten++ // git writes an object once; this one was overwritten
		}
	}
	if gone > 0 {
		out = append(out, RepoChange{What: "objects", How: fmt.Sprintf("%d object files removed (repacked or pruned)", gone)})
	}
	if rewritten > 0 {
		out = append(out, RepoChange{What: "objects", How: fmt.Sprintf("%d object files rewritten (not recoverable from the record: check with git fsck)", rewritten)})
	}
	for p := range s.files {
		if p == index {
			continue
		}
		if _, err := os.Lstat(p); errors.Is(err, fs.ErrNotExist) {
			out = append(out, RepoChange{What: s.show(p), How: "removed"})
		}
	}
	if _, had := s.files[index]; had || fileExists(index) {
		idx, err := indexState(ctx, s.Top)
		switch {
		case err != nil:
			out = append(out, RepoChange{What: s.show(index), How: "unreadable: " + err.Error()})
		case idx != s.index:
			out = append(out, RepoChange{What: s.show(index), How: "staged files changed"})
		}
	}
	cfg, err := inspectGit(ctx, s.Top, "config", "--list", "--show-origin", "--includes")
	if err != nil && !isExit(err) {
		return nil, fmt.Errorf("read the repository's configuration: %w", err)
	}
	if cfg != s.config && !slices.ContainsFunc(out, func(c RepoChange) bool { return strings.Contains(c.What, "config") }) {
		out = append(out, RepoChange{What: "git config", How: "changed"})
	}
	wt, err := s.worktreeChanges(ctx)
	if err != nil {
		return nil, err
	}
	out = append(out, wt...)
	nested, err := s.newNested(ctx)
	if err != nil {
		out = append(out, RepoChange{What: "git status", How: "unreadable: " + err.Error()})
	}
	for _, p := range nested {
		out = append(out, RepoChange{What: p + "/.git", How: "added (a repository inside the project)", Worktree: true})
	}
	hiders, err := s.newHiders(ctx)
	if err != nil {
		return nil, err
	}
	for _, p := range hiders {
		out = append(out, RepoChange{What: p, How: "added (a file git ignores, hiding what is beside it from the record)", Worktree: true})
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Worktree != out[j].Worktree {
			return !out[i].Worktree
		}
		return out[i].What < out[j].What
	})
	return out, nil
}

// nestedRepos are the untracked repositories inside the work tree: git
// lists each as one "dir/" among the untracked files, and the work tree's
// record does not look into them. ls-files, not status: status hashes
// files whose stat data changed, through the filter drivers the agent may
// have configured (.gitattributes and a [filter] section), which would run
// in the harness after the agent has ended.
func (s *RepoState) nestedRepos(ctx context.Context) (map[string]bool, error) {
	out, err := inspectGit(ctx, s.Top, "ls-files", "--others", "--exclude-standard", "-z")
	if err != nil {
		return nil, fmt.Errorf("list the repository's untracked files: %w", err)
	}
	m := map[string]bool{}
	for _, p := range strings.Split(out, "\x00") {
		if strings.HasSuffix(p, "/") {
			m[strings.TrimSuffix(p, "/")] = true
		}
	}
	return m, nil
}

// ignoredHiders are the .gitignore and .gitattributes files that git
// ignores (one whose own rules name it: a new folder holding ".gitignore:
// *"): the work tree's record does not see them nor what they hide. Asked
// of the baseline repository, which runs nothing of the agent's.
func (s *RepoState) ignoredHiders(ctx context.Context) (map[string]bool, error) {
	out, err := s.baselineGit(ctx, "", nil, "ls-files", "--others", "--ignored", "--exclude-standard", "-z", "--",
		":(glob)**/.gitignore", ":(glob)**/.gitattributes")
	if err != nil {
		return nil, fmt.Errorf("list the ignored .gitignore files: %w", err)
	}
	m := map[string]bool{}
	for _, p := range strings.Split(out, "\x00") {
		if p != "" {
			m[p] = true
		}
	}
	return m, nil
}

// newHiders are the ignored .gitignore/.gitattributes files the agent
// added.
func (s *RepoState) newHiders(ctx context.Context) ([]string, error) {
	return s.added(ctx, s.ignoredHiders, s.hiders)
}

// newNested are the repositories the agent made inside the work tree.
func (s *RepoState) newNested(ctx context.Context) ([]string, error) {
	return s.added(ctx, s.nestedRepos, s.nested)
}

// added lists what list finds now that was not in before, leaving out
// the harness's own paths, sorted.
func (s *RepoState) added(ctx context.Context, list func(context.Context) (map[string]bool, error), before map[string]bool) ([]string, error) {
	now, err := list(ctx)
	if err != nil {
		return nil, err
	}
	var out []string
	for p := range now {
		if !before[p] && !slices.ContainsFunc(s.exclude, func(e string) bool { return p == e || strings.HasPrefix(p, e+"/") }) {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out, nil
}

// checkRecord verifies the work tree's record against what is held in
// memory (an agent with the sandbox off can reach the folder it is in):
// the baseline index by its hash, the objects by git's own check.
func (s *RepoState) checkRecord(ctx context.Context) error {
	if err := s.checkBaselineFiles(); err != nil {
		return err
	}
	b, err := os.ReadFile(filepath.Join(s.saved, "worktree.git", "index"))
	if err != nil || sha256.Sum256(b) != s.indexSum {
		return fmt.Errorf("the record of the work tree in %s was changed since the snapshot (%v); nothing is compared or put back from it", s.saved, err)
	}
	if _, err := s.baselineGit(ctx, "", nil, "fsck", "--no-dangling", "--no-progress", "--no-reflogs"); err != nil {
		return fmt.Errorf("the record of the work tree in %s was changed since the snapshot: %w", s.saved, err)
	}
	return nil
}

// baselineFiles hashes the baseline repository's own files (config,
// HEAD, info/exclude, …) but its objects and the index.after beside the
// index; what git itself adds there while the harness compares
// (objects/xx/…, objects/pack/…) is left out.
func (s *RepoState) baselineFiles() (map[string][32]byte, error) {
	root := filepath.Join(s.saved, "worktree.git")
	m := map[string][32]byte{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() && rel != "objects" && strings.HasPrefix(rel, "objects/") && rel != "objects/info" {
			return filepath.SkipDir
		}
		if d.IsDir() || strings.HasPrefix(rel, "index.after") {
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 || !d.Type().IsRegular() {
			m[rel] = sha256.Sum256([]byte("not a file: " + d.Type().String()))
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		m[rel] = sha256.Sum256(b)
		return nil
	})
	return m, err
}

// checkBaselineFiles: the baseline repository's own files are as the
// snapshot left them. Its config, info/exclude or info/attributes changed
// would hide the agent's additions or make the harness's git run a
// program of the agent's (a filter driver), so nothing is run there then.
func (s *RepoState) checkBaselineFiles() error {
	now, err := s.baselineFiles()
	if err == nil && len(now) != len(s.baseline) {
		err = fmt.Errorf("%d files where there were %d", len(now), len(s.baseline))
	}
	for rel, sum := range now {
		if err == nil && s.baseline[rel] != sum {
			err = fmt.Errorf("%s differs", rel)
		}
	}
	if err != nil {
		return fmt.Errorf("the record of the work tree in %s was changed since the snapshot (%v); nothing is compared or put back from it", s.saved, err)
	}
	return nil
}

// worktreeChanges compares the work tree with its baseline tree.
func (s *RepoState) worktreeChanges(ctx context.Context) ([]RepoChange, error) {
	after, err := s.worktreeTree(ctx, false)
	if err != nil {
		return nil, err
	}
	if after == s.tree {
		return nil, nil
	}
	out, err := s.baselineGit(ctx, "", nil, "diff-tree", "-r", "-z", "--no-renames", "--name-status", s.tree, after)
	if err != nil {
		return nil, fmt.Errorf("compare the work tree: %w", err)
	}
	var changes []RepoChange
	f := strings.Split(out, "\x00")
	for i := 0; i+1 < len(f); i += 2 {
		how := map[string]string{"A": "added", "D": "removed", "M": "changed", "T": "changed type"}[f[i]]
		if how == "" {
			how = "changed (" + f[i] + ")"
		}
		stub := false
		if how == "added" && slices.Contains(sandboxPlaceholders, f[i+1]) {
			st, err := os.Lstat(filepath.Join(s.Top, f[i+1]))
			stub = err == nil && st.Mode().IsRegular() && st.Size() == 0
		}
		changes = append(changes, RepoChange{What: f[i+1], How: how, Worktree: true, Stub: stub})
	}
	return changes, nil
}

// stubMarker heads the lines Claude Code's sandbox adds to
// .git/info/exclude (2.1.332) for the files it mounts over.
const stubMarker = "# claude-code scrub-mode stubs"

// stubFile: p is what Claude Code makes in a repository and the git
// configuration around it for its sandbox's mounts (measured with
// 2.1.332): an empty .git/config.worktree or .git/objects/info/alternates,
// a .git/commondir of ".", an empty global git configuration file,
// .git/info/exclude with only its block of placeholder names appended, a
// global ignore file with only its **/.claude/.cc-writes/ line appended
// (before is the recorded file, nil when there was none).
func (s *RepoState) stubFile(p string, before *fileRecord) bool {
	b, err := readSmall(p, maxStubFile)
	if err != nil {
		return false
	}
	rel := ""
	for _, d := range []string{s.GitDir, s.CommonDir} {
		if r, err := filepath.Rel(d, p); err == nil && !strings.HasPrefix(r, "..") {
			rel = filepath.ToSlash(r)
			break
		}
	}
	// Lines it appends: to .git/info/exclude the names it mounts over, to
	// the global ignore file its own scratch folder.
	allowed := func(l string) bool {
		if rel == "info/exclude" {
			return l == stubMarker || slices.Contains(sandboxPlaceholders, strings.TrimPrefix(l, "/"))
		}
		return rel == "" && filepath.Base(p) == "ignore" && l == "**/.claude/.cc-writes/"
	}
	var old []byte
	switch {
	case before == nil && rel == "commondir":
		return string(b) == "."
	case before == nil && (rel == "config.worktree" || rel == "objects/info/alternates" || s.absent[p] && rel == "") && len(b) == 0:
		return true
	case before == nil && !s.absent[p]:
		return false
	case before != nil:
		if before.copy == "" {
			return false
		}
		if old, err = readSmall(before.copy, maxStubFile); err != nil {
			return false
		}
	}
	if !bytes.HasPrefix(b, old) || len(b) == len(old) {
		return false
	}
	for _, l := range strings.Split(string(b[len(old):]), "\n") {
		if l = strings.TrimSpace(l); l != "" && !allowed(l) {
			return false
		}
	}
	return true
}

// maxStubFile bounds the files stubFile reads: what the sandbox leaves is
// a few lines, and a larger file (a 4 GiB sparse one the agent put in
// .git/) is not read whole to learn it is not one.
const maxStubFile = 1 << 20

// readSmall reads the file p when it holds at most max bytes.
func readSmall(p string, max int64) ([]byte, error) {
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err == nil && int64(len(b)) > max {
		err = fmt.Errorf("%s holds more than %d bytes", p, max)
	}
	return b, err
}

// show names a path for a report: .git/… inside the git folder.
func (s *RepoState) show(p string) string {
	for _, d := range []string{s.GitDir, s.CommonDir} {
		if rel, err := filepath.Rel(d, p); err == nil && !strings.HasPrefix(rel, "..") {
			if d == s.CommonDir && s.CommonDir != s.GitDir {
				return filepath.ToSlash(filepath.Join(s.CommonDir, rel))
			}
			return ".git/" + filepath.ToSlash(rel)
		}
	}
	return p
}
