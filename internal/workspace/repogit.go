package workspace

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

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
