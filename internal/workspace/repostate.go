package workspace

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/agent-eval/agent-eval/internal/pathutil"
)

// RepoState is what a repository was before an agent worked in it (repo
// mode): every file of its git folders (HEAD, refs, packed-refs, the index,
// config, config.worktree, info/, hooks/, worktrees/, logs/ …) with a copy
// to put back, the names of its object files, the files its effective
// configuration comes from, the hooks folder core.hooksPath names, and
// its work tree (every file git does not ignore, kept as blobs in a
// repository of its own). Diff says what changed since; Restore puts the
// repository back.
//
// Everything it keeps lives in the folder given to SnapshotRepo, outside
// the repository; the copies are checked against their hashes, taken in
// memory, before they are put back.
type RepoState struct {
	// Top is the work tree's top level; GitDir the repository's git
	// folder (a worktree's own), CommonDir the one its refs and objects
	// live in (the same for a plain repository).
	Top, GitDir, CommonDir string
	saved                  string
	exclude                []string // work-tree paths (relative, slash) that are not the agent's
	files                  map[string]fileRecord
	dirs                   map[string]bool
	hooksDir               string              // core.hooksPath outside the repository, "" for none
	absent                 map[string]bool     // configuration files that did not exist
	objects                map[string][32]byte // a loose one by its content, a pack by its size
	index                  string
	config                 string
	tree                   string              // the work tree's baseline tree
	indexSum               [32]byte            // of the baseline's index, which Restore checks out from
	baseline               map[string][32]byte // the baseline repository's own files but its objects, by hash
	nested                 map[string]bool     // repositories inside the work tree (git status shows "?? dir/")
	hiders                 map[string]bool     // .gitignore/.gitattributes files git ignores (work-tree paths)
}

type fileRecord struct {
	sum  [32]byte
	mode fs.FileMode
	// copy is where the content is kept ("" for an object file, whose
	// name is its content); link is a symlink's target; dir the folder it
	// is in with every link resolved (a folder on the way swapped for a
	// link elsewhere is not written through).
	copy, link, dir string
}

// RepoChange is one difference between a repository and its RepoState.
type RepoChange struct {
	// What is a path (relative to the git folder as .git/…, to the work
	// tree, or absolute for a configuration file elsewhere) or a name
	// (index, objects).
	What string `json:"what"`
	// How: added, changed, removed; for the index, "staged files changed".
	How string `json:"how"`
	// Worktree: a change of the project's files rather than of its git
	// state.
	Worktree bool `json:"worktree,omitempty"`
	// Stub: what Claude Code's sandbox itself leaves in the project for
	// its mounts (an empty .env, .git/config.worktree, the lines it adds to
	// .git/info/exclude), not the agent's doing. Restore undoes it too.
	Stub bool `json:"stub,omitempty"`
}

func (c RepoChange) String() string { return c.What + ": " + c.How }

// ErrNotRepo is SnapshotRepo's answer for a folder outside any git work
// tree.
var ErrNotRepo = errors.New("not in a git work tree")

// maxHooksFiles bounds the hooks folder outside the repository that a
// snapshot copies (core.hooksPath may name any folder).
const maxHooksFiles = 2000

// SnapshotRepo records the repository dir is in; saved is a folder of its
// own outside it (made if missing) for the copies. exclude are absolute
// paths inside the work tree that are the harness's (the runs folder): not
// recorded, never restored.
func SnapshotRepo(ctx context.Context, dir, saved string, exclude []string) (*RepoState, error) {
	out, err := inspectGit(ctx, dir, "rev-parse", "--path-format=absolute", "--show-toplevel", "--git-dir", "--git-common-dir")
	if err != nil {
		return nil, ErrNotRepo
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 {
		return nil, fmt.Errorf("git rev-parse in %s: unexpected output %q", dir, out)
	}
	s := &RepoState{Top: lines[0], GitDir: lines[1], CommonDir: lines[2], saved: saved,
		files: map[string]fileRecord{}, dirs: map[string]bool{}, objects: map[string][32]byte{}, absent: map[string]bool{}}
	for _, e := range exclude {
		if rel, err := filepath.Rel(s.Top, e); err == nil && rel != "." && !strings.HasPrefix(rel, "..") {
			s.exclude = append(s.exclude, filepath.ToSlash(rel))
		}
	}
	if err := os.MkdirAll(filepath.Join(saved, "files"), 0o700); err != nil {
		return nil, fmt.Errorf("snapshot the repository: %w", err)
	}
	if hp, _ := inspectGit(ctx, s.Top, "config", "--get", "core.hooksPath"); strings.TrimSpace(hp) != "" {
		hp = expandHome(strings.TrimSpace(hp))
		if !filepath.IsAbs(hp) {
			hp = filepath.Join(s.Top, hp)
		}
		// Also inside the work tree: a hooks folder there is often one git
		// ignores (husky's .husky/_), which the work tree's record leaves out.
		if !s.inGit(hp) {
			s.hooksDir = filepath.Clean(hp)
		}
	}
	paths, err := s.watched(ctx)
	if err != nil {
		return nil, err
	}
	n := 0
	for _, p := range paths {
		rec, isDir, err := s.record(p, true, &n)
		if err != nil {
			return nil, fmt.Errorf("snapshot the repository: %w", err)
		}
		switch {
		case rec == nil && !isDir:
			s.absent[p] = true
		case isDir:
			s.dirs[p] = true
		case rec != nil && rec.copy == "" && rec.link == "" && objectFile(s, p):
			s.objects[p] = rec.sum
		case rec != nil:
			s.files[p] = *rec
		}
	}
	if s.index, err = indexState(ctx, s.Top); err != nil {
		return nil, err
	}
	if s.config, err = inspectGit(ctx, s.Top, "config", "--list", "--show-origin", "--includes"); err != nil && !isExit(err) {
		return nil, fmt.Errorf("read the repository's configuration: %w", err)
	}
	if s.tree, err = s.worktreeTree(ctx, true); err != nil {
		return nil, err
	}
	b, err := os.ReadFile(filepath.Join(saved, "worktree.git", "index"))
	if err != nil {
		return nil, fmt.Errorf("snapshot the work tree: %w", err)
	}
	s.indexSum = sha256.Sum256(b)
	if s.nested, err = s.nestedRepos(ctx); err != nil {
		return nil, err
	}
	if s.hiders, err = s.ignoredHiders(ctx); err != nil {
		return nil, err
	}
	if s.baseline, err = s.baselineFiles(); err != nil {
		return nil, fmt.Errorf("snapshot the work tree: %w", err)
	}
	return s, nil
}

// watched lists every path a snapshot records: the git folders walked,
// the hooks folder outside them, the configuration files (existing or
// not; at Diff, also those a changed configuration now includes).
func (s *RepoState) watched(ctx context.Context) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	add := func(p string) {
		if p != "" && !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	walk := func(root string, limit int) error {
		n := 0
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					return nil
				}
				return err
			}
			if n++; limit > 0 && n > limit {
				return fmt.Errorf("%s holds more than %d files", root, limit)
			}
			add(p)
			return nil
		})
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}
	// The work tree's .git itself: a .git file names where the repository
	// is, and git leaves it out of the work tree's record.
	add(filepath.Join(s.Top, ".git"))
	for _, d := range []string{s.GitDir, s.CommonDir} {
		if err := walk(d, 0); err != nil {
			return nil, fmt.Errorf("snapshot the repository: %w", err)
		}
	}
	if s.hooksDir != "" {
		add(s.hooksDir)
		if err := walk(s.hooksDir, maxHooksFiles); err != nil {
			return nil, fmt.Errorf("snapshot core.hooksPath: %w", err)
		}
	}
	for _, p := range configFiles(ctx, s.Top) {
		add(p)
		// A link (~/.gitconfig into the user's dotfiles): what it points at
		// is what git reads, and what an agent writes through it.
		if st, err := os.Lstat(p); err == nil && st.Mode()&fs.ModeSymlink != 0 {
			if t, err := filepath.EvalSymlinks(p); err == nil {
				add(t)
			}
		}
	}
	return out, nil
}

// configFiles are the files git's configuration for top is read from, and
// those it would be read from if they existed (a global file the agent
// creates counts as much as one it changes).
func configFiles(ctx context.Context, top string) []string {
	var out []string
	home, _ := os.UserHomeDir()
	xdg := os.Getenv("XDG_CONFIG_HOME")
	if xdg == "" && home != "" {
		xdg = filepath.Join(home, ".config")
	}
	for _, p := range []string{os.Getenv("GIT_CONFIG_GLOBAL"), os.Getenv("GIT_CONFIG_SYSTEM"), "/etc/gitconfig"} {
		if p != "" && p != os.DevNull {
			out = append(out, p)
		}
	}
	if home != "" {
		out = append(out, filepath.Join(home, ".gitconfig"))
	}
	if xdg != "" {
		out = append(out, filepath.Join(xdg, "git", "config"), filepath.Join(xdg, "git", "attributes"), filepath.Join(xdg, "git", "ignore"))
	}
	// -z: origin NUL key LF value NUL.
	list, _ := inspectGit(ctx, top, "config", "--list", "--show-origin", "--includes", "-z")
	f := strings.Split(list, "\x00")
	for i := 0; i+1 < len(f); i += 2 {
		p, ok := strings.CutPrefix(f[i], "file:")
		if !ok {
			continue
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(top, p)
		}
		p = filepath.Clean(p)
		out = append(out, p)
		// A file an include names, taken or not (includeIf's condition may
		// hold later) and existing or not: an agent that creates it
		// changes the configuration as much as one that edits it.
		key, value, _ := strings.Cut(f[i+1], "\n")
		key = strings.ToLower(key)
		if (key == "include.path" || strings.HasPrefix(key, "includeif.") && strings.HasSuffix(key, ".path")) && value != "" {
			inc := expandHome(value)
			if !filepath.IsAbs(inc) {
				inc = filepath.Join(filepath.Dir(p), inc)
			}
			out = append(out, filepath.Clean(inc))
		}
	}
	return out
}

func (s *RepoState) inGit(p string) bool {
	return pathutil.Within(p, s.GitDir) || pathutil.Within(p, s.CommonDir)
}

// objectFile: p is one of the repository's object files (loose objects,
// packs, their indexes), recorded by name: they are named by their content,
// never rewritten, and far too many to copy.
func objectFile(s *RepoState, p string) bool {
	for _, d := range []string{s.GitDir, s.CommonDir} {
		if rel, err := filepath.Rel(d, p); err == nil && !strings.HasPrefix(rel, "..") {
			rel = filepath.ToSlash(rel)
			if strings.HasPrefix(rel, "objects/") && !strings.HasPrefix(rel, "objects/info/") || strings.HasPrefix(rel, "lfs/objects/") ||
				strings.HasPrefix(rel, "modules/") && strings.Contains(rel, "/objects/") {
				return true
			}
		}
	}
	return false
}

// record reads p: nil for a missing path. keep copies a file's content
// into the saved folder (n numbers the copies).
func (s *RepoState) record(p string, keep bool, n *int) (*fileRecord, bool, error) {
	st, err := os.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) && !keep {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	rec := &fileRecord{mode: st.Mode()}
	if keep {
		if rec.dir, err = filepath.EvalSymlinks(filepath.Dir(p)); err != nil {
			return nil, false, err
		}
	}
	switch {
	case st.IsDir():
		return nil, true, nil
	case st.Mode()&fs.ModeSymlink != 0:
		t, err := os.Readlink(p)
		if err != nil {
			return nil, false, err
		}
		rec.link, rec.sum = t, sha256.Sum256([]byte(t))
		return rec, false, nil
	case !st.Mode().IsRegular():
		return rec, false, nil // a socket or fifo: its presence only
	case objectFile(s, p):
		// A loose object by its content (small, and git touches one it
		// would write again, so not by its time); a pack by its size.
		rec.sum = sha256.Sum256([]byte(fmt.Sprint(st.Size())))
		if !strings.Contains(filepath.ToSlash(p), "/pack/") && st.Size() < 1<<20 {
			b, err := os.ReadFile(p)
			if err != nil {
				return nil, false, err
			}
			rec.sum = sha256.Sum256(b)
		}
		return rec, false, nil
	}
	copyTo := ""
	if keep {
		*n++
		copyTo = filepath.Join(s.saved, "files", fmt.Sprint(*n))
	}
	if rec.sum, err = hashFile(p, copyTo); err != nil {
		return nil, false, err
	}
	rec.copy = copyTo
	return rec, false, nil
}

// hashFile is the SHA-256 of the file p, read as a stream (what the agent
// leaves in a git folder may be a 4 GiB sparse file), and writes a copy of
// it to copyTo unless that is "". It does not follow a link put at p since
// it was looked at.
func hashFile(p, copyTo string) ([32]byte, error) {
	var sum [32]byte
	in, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return sum, err
	}
	defer in.Close()
	h := sha256.New()
	var w io.Writer = h
	var out *os.File
	if copyTo != "" {
		if out, err = os.OpenFile(copyTo, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600); err != nil {
			return sum, err
		}
		w = io.MultiWriter(h, out)
	}
	_, err = io.Copy(w, in)
	if out != nil {
		err = errors.Join(err, out.Close())
	}
	copy(sum[:], h.Sum(nil))
	return sum, err
}

// indexState is the index as git reads it (the entries with their modes,
// blobs, stages and flags), not its bytes: a `git status` refreshes the
// file's stat data without changing what is staged.
func indexState(ctx context.Context, top string) (string, error) {
	staged, err := inspectGit(ctx, top, "ls-files", "--stage", "-z")
	if err != nil {
		return "", fmt.Errorf("read the repository's index: %w", err)
	}
	flags, err := inspectGit(ctx, top, "ls-files", "-v", "-z")
	if err != nil {
		return "", fmt.Errorf("read the repository's index: %w", err)
	}
	return staged + "\x00\x00" + flags, nil
}

// worktreeTree records the work tree in the saved repository's index
// (init: a new one, else a second index beside it) and returns its tree.
func (s *RepoState) worktreeTree(ctx context.Context, init bool) (string, error) {
	gitDir := filepath.Join(s.saved, "worktree.git")
	index := filepath.Join(gitDir, "index")
	if init {
		if err := initGitDir(gitDir); err != nil {
			return "", fmt.Errorf("snapshot the work tree: %w", err)
		}
		// The user's own excludes keep what they ignore out of the record,
		// and the harness's own folders are left out.
		b, err := os.ReadFile(filepath.Join(s.CommonDir, "info", "exclude"))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("snapshot the work tree: %w", err)
		}
		for _, e := range s.exclude {
			b = append(b, "\n/"+ignoreEscape(e)+"\n"...)
		}
		if err := os.MkdirAll(filepath.Join(gitDir, "info"), 0o700); err != nil {
			return "", err
		}
		if err := os.WriteFile(filepath.Join(gitDir, "info", "exclude"), b, 0o600); err != nil {
			return "", err
		}
	} else {
		after := filepath.Join(gitDir, "index.after")
		if err := copyFile(nil, index, after, "", 0o600); err != nil {
			return "", fmt.Errorf("snapshot the work tree: %w", err)
		}
		index = after
	}
	if _, err := s.baselineGit(ctx, index, nil, "add", "-A", "--", "."); err != nil {
		return "", fmt.Errorf("snapshot the work tree: %w", err)
	}
	tree, err := s.baselineGit(ctx, index, nil, "write-tree")
	if err != nil {
		return "", fmt.Errorf("snapshot the work tree: %w", err)
	}
	return strings.TrimSpace(tree), nil
}

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

// gitTimeout bounds each git command the record runs: what the agent
// leaves can make git wait for ever (a FIFO named .gitattributes or
// .gitignore in the work tree, an include.path naming one), after the
// agent, where nothing else would end it. A command past it is an error:
// the case is not compared, and fails.
var gitTimeout = 3 * time.Minute

// gitError says why a git command of the record failed.
func gitError(ctx context.Context, args []string, err error, stderr *bytes.Buffer) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("git %s: no answer in %s (does git wait on a FIFO the agent left, as .gitattributes, .gitignore or an included configuration file?)", args[0], gitTimeout)
	}
	return fmt.Errorf("git %s: %w: %s", args[0], err, strings.TrimSpace(stderr.String()))
}

// inspectGit runs a git command that only reads the repository dir is in,
// with the user's configuration (a change to it is what Diff looks for):
// no optional locks (status would refresh the index), no fsmonitor.
func inspectGit(ctx context.Context, dir string, args ...string) (string, error) {
	// (No core.hooksPath override: these commands run no hooks, and it
	// would hide the repository's own setting from `config --get`.)
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", append([]string{"-c", "core.fsmonitor=false"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(gitEnv(), "GIT_OPTIONAL_LOCKS=0")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return string(out), gitError(ctx, args, err, &stderr)
	}
	return string(out), nil
}

// baselineGit runs git on the saved work-tree repository (index: another
// index file than its own), with no configuration but its own: neither the
// user's nor one the agent may have changed runs anything here (filters,
// fsmonitor, hooks).
func (s *RepoState) baselineGit(ctx context.Context, index string, stdin *strings.Reader, args ...string) (string, error) {
	var out bytes.Buffer
	err := s.runBaselineGit(ctx, index, stdin, &out, args)
	return out.String(), err
}

// baselineGitTo runs git on the saved work-tree repository as baselineGit
// does, its output written to w as it comes (a patch is not held whole).
func (s *RepoState) baselineGitTo(ctx context.Context, w io.Writer, args ...string) error {
	return s.runBaselineGit(ctx, "", nil, w, args)
}

func (s *RepoState) runBaselineGit(ctx context.Context, index string, stdin *strings.Reader, stdout io.Writer, args []string) error {
	gitDir := filepath.Join(s.saved, "worktree.git")
	full := append([]string{"-c", "core.hooksPath=" + os.DevNull, "-c", "core.fsmonitor=false", "-c", "core.autocrlf=false",
		"-c", "core.symlinks=true", "-c", "core.quotepath=false", "-c", "core.excludesFile=" + os.DevNull,
		"-c", "core.attributesFile=" + os.DevNull}, gitArgs(s.Top, gitDir)...)
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", append(full, args...)...)
	cmd.Dir = s.Top
	cmd.Env = append(gitEnv(), "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_CONFIG_NOSYSTEM=1", "GIT_ATTR_NOSYSTEM=1", "HOME="+s.saved)
	if index != "" {
		cmd.Env = append(cmd.Env, "GIT_INDEX_FILE="+index)
	}
	if stdin != nil {
		cmd.Stdin = stdin
	}
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = stdout, &stderr
	if err := cmd.Run(); err != nil {
		return gitError(ctx, args, err, &stderr)
	}
	return nil
}

// gitEnv is the harness's environment without the variables that would
// point git at another repository, index or configuration.
func gitEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "GIT_") {
			continue
		}
		env = append(env, kv)
	}
	return env
}

func isExit(err error) bool {
	var ee *exec.ExitError
	return errors.As(err, &ee)
}

// ignoreEscape spells a path literally in a gitignore file.
func ignoreEscape(p string) string {
	var b strings.Builder
	for _, r := range p {
		if strings.ContainsRune(`*?[\\!# `, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

func expandHome(p string) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, rest)
		}
	}
	return p
}

func fileExists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// GitDirs are the folders outside dir's work tree that hold its repository's
// state: its git folder and common folder (a linked worktree's or a .git
// file's, which may live anywhere) and a hooks folder core.hooksPath names;
// each absolute and cleaned, nil when dir is in no work tree. Repo mode
// keeps the agent from writing them.
func GitDirs(ctx context.Context, dir string) []string {
	out, err := inspectGit(ctx, dir, "rev-parse", "--path-format=absolute", "--show-toplevel", "--git-dir", "--git-common-dir")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if err != nil || len(lines) != 3 {
		return nil
	}
	dirs := []string{filepath.Clean(lines[1])}
	if c := filepath.Clean(lines[2]); !slices.Contains(dirs, c) {
		dirs = append(dirs, c)
	}
	if hp, _ := inspectGit(ctx, dir, "config", "--get", "core.hooksPath"); strings.TrimSpace(hp) != "" {
		hp = expandHome(strings.TrimSpace(hp))
		if !filepath.IsAbs(hp) {
			hp = filepath.Join(lines[0], hp)
		}
		if hp = filepath.Clean(hp); !slices.Contains(dirs, hp) {
			dirs = append(dirs, hp)
		}
	}
	return dirs
}

// specialFiles refuses a work tree holding a FIFO, socket or device (a
// FIFO named .gitattributes or .gitignore makes git wait for ever, or until
// gitTimeout; whether git opens it at all depends on what it reads first):
// the repository is not compared, and the case is an error, before any git
// runs there. Git folders and nested repositories' .git are not walked.
func specialFiles(top string) error {
	return filepath.WalkDir(top, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == top {
				return err
			}
			return nil // gone or unreadable: git reports what it finds
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if t := d.Type(); t&(fs.ModeNamedPipe|fs.ModeSocket|fs.ModeDevice|fs.ModeCharDevice) != 0 {
			rel, _ := filepath.Rel(top, p)
			return fmt.Errorf("compare the repository: the work tree holds %s, a %s, which git could block on; remove it", filepath.ToSlash(rel), kindOf(t))
		}
		return nil
	})
}

func kindOf(t fs.FileMode) string {
	switch {
	case t&fs.ModeNamedPipe != 0:
		return "FIFO"
	case t&fs.ModeSocket != 0:
		return "socket"
	default:
		return "device file"
	}
}
