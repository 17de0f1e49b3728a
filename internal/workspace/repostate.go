package workspace

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

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
