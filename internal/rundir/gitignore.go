package rundir

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// gitignoreFile keeps a runs directory out of git. It is written into the
// runs root (or an eval's runs folder), never into a run: no layout change.
const gitignoreFile = ".gitignore"

// gitignoreText ignores everything beside it, itself included.
const gitignoreText = "# written by agent-eval: runs hold transcripts and logs, keep them out of git\n*\n"

// Ignoring says what EnsureIgnored did: Wrote is the .gitignore it wrote,
// Tracked a file git tracks under the runs root (which it then left
// alone); both "" when there was nothing to do (no git, no work tree, or
// the runs already ignored).
type Ignoring struct {
	Wrote   string
	Tracked string
}

// EnsureIgnored makes git ignore dir, an eval's runs directory under root,
// the runs root, when they are inside a git work tree: it writes a
// .gitignore of "*" into root when rootIsNew (the caller made it, or is
// about to), else into dir, which belongs to agent-eval alone; it never
// edits a file that was there. When git already ignores dir, or git is not
// installed, or the folder is in no work tree, it does nothing; when git
// tracks a file under root the user keeps runs in git on purpose, and it
// only says which. dir need not exist yet.
func EnsureIgnored(ctx context.Context, root, dir string, rootIsNew bool) (Ignoring, error) {
	at := existingAncestor(dir)
	if at == "" {
		return Ignoring{}, nil
	}
	if _, err := exec.LookPath("git"); err != nil {
		return Ignoring{}, nil
	}
	inside, err := git(ctx, at, "rev-parse", "--is-inside-work-tree")
	if err != nil || strings.TrimSpace(inside) != "true" {
		return Ignoring{}, nil // no repository here, or a bare one
	}
	// Paths relative to where git runs: git resolves them against its own
	// working directory, symbolic links and all.
	relDir, err := filepath.Rel(at, dir)
	if err != nil {
		return Ignoring{}, err
	}
	relRoot, err := filepath.Rel(at, root)
	if err != nil {
		return Ignoring{}, err
	}
	// check-ignore exits 0 for an ignored path and 1 for one that is not.
	if _, err := git(ctx, at, "check-ignore", "-q", "--", relDir); err == nil {
		return Ignoring{}, nil
	}
	tracked, err := git(ctx, at, "ls-files", "-z", "--full-name", "--", relRoot)
	if err != nil {
		return Ignoring{}, fmt.Errorf("ask git which files under %s it tracks: %w", root, err)
	}
	if first, _, _ := strings.Cut(tracked, "\x00"); first != "" {
		return Ignoring{Tracked: first}, nil
	}
	target := dir
	if rootIsNew {
		target = root
	}
	if err := os.MkdirAll(target, 0o755); err != nil {
		return Ignoring{}, fmt.Errorf("keep the runs out of git: %w", err)
	}
	path := filepath.Join(target, gitignoreFile)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return Ignoring{}, nil // the user's own: left as it is
	}
	if err != nil {
		return Ignoring{}, fmt.Errorf("keep the runs out of git: %w", err)
	}
	if _, err := f.WriteString(gitignoreText); err != nil {
		_ = f.Close()
		return Ignoring{}, fmt.Errorf("keep the runs out of git: write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return Ignoring{}, fmt.Errorf("keep the runs out of git: write %s: %w", path, err)
	}
	return Ignoring{Wrote: path}, nil
}

// Message is what to tell the user about i, or "" when nothing happened.
func (i Ignoring) Message(root string) string {
	switch {
	case i.Wrote != "":
		return fmt.Sprintf("wrote %s so that git ignores the runs (their transcripts and logs)", i.Wrote)
	case i.Tracked != "":
		return fmt.Sprintf("git tracks %s under %s, so the runs there are left to you: they are not ignored, and 'git add' would commit their transcripts and logs", i.Tracked, root)
	}
	return ""
}

// SameWorkTree says whether a and b (which need not exist) are in one git
// work tree; false without git or outside any.
func SameWorkTree(ctx context.Context, a, b string) bool {
	ta, tb := workTree(ctx, a), workTree(ctx, b)
	return ta != "" && ta == tb
}

// workTree is the top of the git work tree dir is in, or "".
func workTree(ctx context.Context, dir string) string {
	at := existingAncestor(dir)
	if at == "" {
		return ""
	}
	if _, err := exec.LookPath("git"); err != nil {
		return ""
	}
	top, err := git(ctx, at, "rev-parse", "--show-toplevel")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(top)
}

// existingAncestor is dir or its nearest ancestor that exists, or "".
func existingAncestor(dir string) string {
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if st, err := os.Stat(d); err == nil && st.IsDir() {
			return d
		}
		if d == filepath.Dir(d) {
			return ""
		}
	}
}

// git runs git in dir and returns its stdout.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return string(out), nil
}
