// Package workspace materialises the folder an agent runs a case in: the
// files it may see, the handlers of the interception hook and the
// .claude/settings.json that wires the hook and the permissions. It never
// follows a symlink out of the folders it copies from.
package workspace

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"

	yaml "go.yaml.in/yaml/v3"

	"github.com/agent-eval/agent-eval/internal/intercept"
)

// InputNames are the case files that hold a case's input, in lookup order.
var InputNames = []string{"input.yaml", "input.yml", "input.json"}

// AnswersFile guides AskUserQuestion answers; it may hold case_overrides.
const AnswersFile = "answers.yaml"

// ProtectedDenies returns a copy of the deny rules that keep the agent from
// editing what the harness relies on: its settings, the hook's handlers and
// the decision ledger.
func ProtectedDenies() []string { return slices.Clone(protectedDenies) }

var protectedDenies = []string{"Edit(.claude/**)", "Edit(tool_handlers.yaml)", "Edit(hook_decisions.jsonl)"}

// CopyTree copies src (a file or a directory) to dst. Symlinks are not
// followed and not copied; nothing outside src is read. It copies with no
// limit: what a case left is copied by its Collection.
func CopyTree(src, dst string) error { return copyTree(nil, src, dst, "") }

func copyTree(c *Collection, src, dst, name string) error {
	src = filepath.Clean(src) // "link/" would resolve the link
	if name != "" {
		name = path.Clean(name) // git names a nested repository "dir/"
	}
	st, err := os.Lstat(src)
	if err != nil {
		return err
	}
	if st.Mode()&fs.ModeSymlink != 0 {
		return nil
	}
	if !st.IsDir() {
		if !st.Mode().IsRegular() {
			return nil // a FIFO, socket or device: nothing to copy, and a FIFO would block
		}
		return copyFile(c, src, dst, name, st.Mode().Perm())
	}
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		shown := name
		if rel != "." {
			shown = path.Join(name, filepath.ToSlash(rel))
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			return nil
		case d.IsDir():
			if d.Name() == ".git" && p != src {
				return filepath.SkipDir
			}
			// A folder past the count is not made; what is in it is
			// walked all the same, to be counted as left out.
			if !c.admit(shown+"/", 0, true) {
				return nil
			}
			return os.MkdirAll(target, 0o755)
		case d.Type().IsRegular():
			info, err := d.Info()
			if err != nil {
				return err
			}
			return copyFile(c, p, target, shown, info.Mode().Perm())
		}
		return nil
	})
}

// CopyOut copies rel under root (a case's output in its workspace) to dst
// as CopyTree does, and nothing when a folder on the way from root to it
// is a symbolic link: out/answer.txt with out a link to ~/.aws would read
// outside the workspace.
func CopyOut(root, rel, dst string) error { return copyOut(nil, root, rel, dst, "") }

func copyOut(c *Collection, root, rel, dst, name string) error {
	p := root
	parts := strings.Split(filepath.Clean(rel), string(filepath.Separator))
	for _, part := range parts[:len(parts)-1] {
		if part == ".." {
			return fmt.Errorf("%s leaves the workspace", rel)
		}
		p = filepath.Join(p, part)
		st, err := os.Lstat(p)
		if err != nil {
			return err
		}
		if !st.IsDir() {
			return nil // a link (or not a folder): what is under it is not the workspace's
		}
	}
	return copyTree(c, filepath.Join(root, rel), dst, name)
}

// copyFile copies the regular file src to dst when it fits in c (name:
// src as Skip.Path names it). Its size is read from the open file, and no
// more than that is copied: a file that grows meanwhile (a process of the
// agent's still writing) does not go past what was counted.
func copyFile(c *Collection, src, dst, name string, mode fs.FileMode) error {
	// Not following a link and not blocking on a FIFO: src may have been
	// swapped for one since it was looked at.
	in, err := os.OpenFile(src, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			return nil
		}
		return err
	}
	defer in.Close()
	st, err := in.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return err
	}
	size := st.Size()
	if !c.admit(name, size, false) {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		c.unadmit(size)
		return err
	}
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, mode|0o200)
	if err != nil {
		c.unadmit(size)
		return err
	}
	var r io.Reader = in
	if c != nil {
		r = io.LimitReader(in, size)
	}
	_, err = io.Copy(out, r)
	return errors.Join(err, out.Close())
}

// InputFile returns the path of a case's input file, or "" when it has none.
// A symlink is not an input file: its target is outside what the case may
// bring in (ReadInput says so).
func InputFile(caseDir string) string {
	for _, n := range InputNames {
		p := filepath.Join(caseDir, n)
		if st, err := os.Lstat(p); err == nil && st.Mode().IsRegular() {
			return p
		}
	}
	return ""
}

// ReadInput reads a case's input file into a map (nil when there is none).
func ReadInput(caseDir string) (map[string]any, error) {
	p := InputFile(caseDir)
	if p == "" {
		for _, n := range InputNames {
			if err := notSymlink(filepath.Join(caseDir, n)); err != nil {
				return nil, err
			}
		}
		return nil, nil
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	var v map[string]any
	if strings.HasSuffix(p, ".json") {
		err = json.Unmarshal(b, &v)
	} else {
		err = yaml.Unmarshal(b, &v)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	return v, nil
}

// MergeInput is input with overrides set over it (input itself is left
// alone): a matrix cell's factors over a case's input. It is input when
// there are no overrides.
func MergeInput(input, overrides map[string]any) map[string]any {
	if len(overrides) == 0 {
		return input
	}
	out := make(map[string]any, len(input)+len(overrides))
	for k, v := range input {
		out[k] = v
	}
	for k, v := range overrides {
		out[k] = v
	}
	return out
}

// CaseOverrides reads the case_overrides map of a case's answers.yaml.
func CaseOverrides(caseDir string) (map[string]string, error) {
	if err := notSymlink(filepath.Join(caseDir, AnswersFile)); err != nil {
		return nil, err
	}
	b, err := os.ReadFile(filepath.Join(caseDir, AnswersFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var doc struct {
		CaseOverrides map[string]string `yaml:"case_overrides"`
	}
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(caseDir, AnswersFile), err)
	}
	return doc.CaseOverrides, nil
}

// MarshalHandlers is the hook's handlers file and its sha256 (the hook's
// --sha256 pin).
func MarshalHandlers(f intercept.File) (b []byte, digest string, err error) {
	if b, err = yaml.Marshal(f); err != nil {
		return nil, "", err
	}
	sum := sha256.Sum256(b)
	return b, hex.EncodeToString(sum[:]), nil
}

// WriteHandlers writes the hook's handlers into the workspace.
func WriteHandlers(dir string, f intercept.File) (path, digest string, err error) {
	b, digest, err := MarshalHandlers(f)
	if err != nil {
		return "", "", err
	}
	path = filepath.Join(dir, "tool_handlers.yaml")
	return path, digest, os.WriteFile(path, b, 0o644)
}

// WriteSettings writes the workspace's .claude/settings.json.
func WriteSettings(dir string, settings map[string]any) (string, error) {
	path := filepath.Join(dir, ".claude", "settings.json")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", err
	}
	b, err := json.MarshalIndent(settings, "", "  ")
	if err != nil {
		return "", err
	}
	return path, os.WriteFile(path, append(b, '\n'), 0o644)
}

// notSymlink fails when path is a symlink: case files are read only from
// the dataset itself, as CopyTree copies them.
func notSymlink(path string) error {
	if st, err := os.Lstat(path); err == nil && st.Mode()&fs.ModeSymlink != 0 {
		return fmt.Errorf("%s is a symlink; agent-eval reads case files only from the dataset itself, never through links", path)
	}
	return nil
}

// DeepMerge merges src into dst: mappings recurse, lists are extended with
// the items they lack, anything else is replaced. Lists of any element type
// count as lists ([]string from the permission compiler, []any from YAML),
// so merging runner.settings never drops a compiled deny rule. What is
// taken from src is copied, so later merges into dst leave src alone. It
// returns dst.
func DeepMerge(dst, src map[string]any) map[string]any {
	for k, v := range src {
		if sv, ok := v.(map[string]any); ok {
			if dv, ok := dst[k].(map[string]any); ok {
				dst[k] = DeepMerge(dv, sv)
				continue
			}
		}
		if sv, ok := asList(v); ok {
			if dv, ok := asList(dst[k]); ok {
				for _, x := range sv {
					if !containsJSON(dv, x) {
						dv = append(dv, clone(x))
					}
				}
				dst[k] = dv
				continue
			}
		}
		dst[k] = clone(v)
	}
	return dst
}

// asList returns v's elements when v is a slice (not bytes), as a new []any.
// AsList returns v's elements when v is a slice (not bytes) of a decoded
// JSON or YAML value, as a new []any.
func AsList(v any) ([]any, bool) { return asList(v) }

func asList(v any) ([]any, bool) {
	if l, ok := v.([]any); ok {
		return slices.Clone(l), true
	}
	rv := reflect.ValueOf(v)
	if !rv.IsValid() || rv.Kind() != reflect.Slice || rv.Type().Elem().Kind() == reflect.Uint8 {
		return nil, false
	}
	out := make([]any, rv.Len())
	for i := range out {
		out[i] = rv.Index(i).Interface()
	}
	return out, true
}

// clone copies the maps and lists of a decoded settings value.
// Clone returns a deep copy of a decoded JSON or YAML value (maps and lists
// copied, scalars shared), which a DeepMerge into the original leaves as it
// was.
func Clone(v any) any { return clone(v) }

func clone(v any) any {
	if m, ok := v.(map[string]any); ok {
		out := make(map[string]any, len(m))
		for k, x := range m {
			out[k] = clone(x)
		}
		return out
	}
	if l, ok := asList(v); ok {
		for i, x := range l {
			l[i] = clone(x)
		}
		return l
	}
	return v
}

func containsJSON(list []any, x any) bool {
	xb, _ := json.Marshal(x)
	for _, y := range list {
		yb, _ := json.Marshal(y)
		if string(xb) == string(yb) {
			return true
		}
	}
	return false
}

// Harness files are never reported as the agent's modifications.
var harnessFiles = []string{".claude", ".cursor", ".git", ".staged-plugins", "tool_handlers.yaml", "hook_decisions.jsonl", ".hook-outputs.yaml", ".hook-outputs.json"}

// Baseline records the workspace as it is before the agent runs, so
// Modified can tell what the agent changed. It needs git. The record is a
// git index (every file staged, blobs written) in gitDir, a repository
// kept outside the workspace: one inside it (.git/) would hold a copy of
// every file, denied ones included, where no rule on their paths reaches
// (`git show :secret/key.txt`). A .git the workspace itself holds (a dataset
// may ship one) is left alone. Calling it again with the same gitDir
// records the workspace anew.
//
// It runs one git process (`git add -A`): the repository is laid out here
// rather than by `git init`, and nothing is committed (a commit needs an
// identity, may be signed, runs hooks and `gc --auto`; Modified compares
// the work tree with the index, which is all a baseline needs).
func Baseline(dir, gitDir string) error {
	if _, err := os.Stat(dir); err != nil {
		return fmt.Errorf("git init: %w", err)
	}
	if err := initGitDir(gitDir); err != nil {
		return fmt.Errorf("git init: %w", err)
	}
	// None of the user's git hooks or file-system monitor: a baseline must
	// work on any machine and do nothing else.
	args := append([]string{"-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false"}, gitArgs(dir, gitDir)...)
	cmd := exec.Command("git", append(args, "add", "-A")...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("git add: %v: %s", err, strings.TrimSpace(string(out)))
	}
	return nil
}

// initGitDir lays out an empty repository at gitDir, as `git init --bare`
// would but without a process: HEAD, objects/ and refs/ are what git needs
// to recognise one. An existing one is kept.
func initGitDir(gitDir string) error {
	if _, err := os.Stat(filepath.Join(gitDir, "HEAD")); err == nil {
		return nil
	}
	for _, d := range []string{"objects", filepath.Join("refs", "heads"), filepath.Join("refs", "tags")} {
		if err := os.MkdirAll(filepath.Join(gitDir, d), 0o755); err != nil {
			return err
		}
	}
	if err := os.WriteFile(filepath.Join(gitDir, "config"), []byte("[core]\n\trepositoryformatversion = 0\n\tbare = true\n"), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(gitDir, "HEAD"), []byte("ref: refs/heads/main\n"), 0o644)
}

// gitArgs point git at a baseline repository kept outside the workspace.
func gitArgs(dir, gitDir string) []string {
	return []string{"--git-dir=" + gitDir, "--work-tree=" + dir, "-c", "core.bare=false"}
}

// Modified lists the files the agent added or changed since Baseline,
// relative to dir, leaving out the harness's own files and the paths in
// skip (the outputs, collected separately). gitDir is Baseline's.
func Modified(dir, gitDir string, skip []string) ([]string, error) {
	if _, err := os.Stat(filepath.Join(gitDir, "HEAD")); err != nil {
		return nil, fmt.Errorf("no baseline in %s: %w", gitDir, err)
	}
	cmd := exec.Command("git", append(gitArgs(dir, gitDir), "status", "--porcelain", "-z", "--untracked-files=all")...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return nil, err
	}
	return modifiedFiles(out, skip), nil
}

// modifiedFiles reads `git status --porcelain -z` against Baseline's index:
// "??" is a new file; otherwise the second column compares the work tree
// with the index (M changed, T changed type, D deleted, blank unchanged).
// The first column compares the index with HEAD, which a baseline leaves
// unborn: every file is "A", and no entry is a rename.
func modifiedFiles(out []byte, skip []string) []string {
	var files []string
	for _, e := range strings.Split(string(out), "\x00") {
		if len(e) < 4 {
			continue
		}
		status, path := e[:2], e[3:]
		changed := status == "??" || status[1] == 'M' || status[1] == 'T'
		if !changed || excluded(path, skip) {
			continue
		}
		files = append(files, path)
	}
	return files
}

func excluded(path string, skip []string) bool {
	for _, s := range append(slices.Clone(harnessFiles), skip...) {
		s = strings.TrimSuffix(s, "/")
		if path == s || strings.HasPrefix(path, s+"/") {
			return true
		}
	}
	return false
}

// Claude Code's sandbox keeps the agent's commands from creating files that
// configure tools (package.json, .npmrc, .env, …) in the working directory:
// for each one that does not exist it bind-mounts an empty file, which
// bubblewrap leaves behind on the host as an empty regular file (and
// node_modules as an empty directory). These are not the agent's work.
var sandboxPlaceholders = []string{
	".env", ".env.local", ".env.development", ".env.development.local", ".env.production", ".env.production.local",
	".env.test", ".env.test.local", ".gitmodules", ".npmrc", ".yarnrc", ".yarnrc.yml", "bunfig.toml",
	"package.json", "package-lock.json", "pnpm-lock.yaml", "yarn.lock", "node_modules",
	".bashrc", ".bash_profile", ".profile", ".zshrc", ".zprofile", ".gitconfig", ".ripgreprc", ".mcp.json",
	".github", ".idea", ".vscode", "scripts",
}

// TopLevel lists the names directly in dir (nil when it cannot be read).
func TopLevel(dir string) map[string]bool {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	names := make(map[string]bool, len(entries))
	for _, e := range entries {
		names[e.Name()] = true
	}
	return names
}

// RemoveSandboxPlaceholders removes from dir what Claude Code's sandbox left
// there: the names of its placeholder list that were not in before (a
// TopLevel taken before the agent ran) and are an empty regular file or an
// empty directory (node_modules: or one holding an empty .bin alone). Anything with content, and anything that was there
// before, stays. It returns the names removed.
func RemoveSandboxPlaceholders(dir string, before map[string]bool) []string {
	if before == nil {
		return nil
	}
	var removed []string
	for _, name := range sandboxPlaceholders {
		if before[name] {
			continue
		}
		p := filepath.Join(dir, name)
		st, err := os.Lstat(p)
		if err != nil {
			continue
		}
		empty := st.Mode().IsRegular() && st.Size() == 0
		if st.IsDir() {
			empty = emptyDir(p)
			if !empty && name == "node_modules" && emptyDir(filepath.Join(p, ".bin")) {
				// 2.1.332 mounts over node_modules/.bin too: the folder is
				// left holding that empty folder alone.
				entries, err := os.ReadDir(p)
				empty = err == nil && len(entries) == 1 && entries[0].Name() == ".bin" && os.Remove(filepath.Join(p, ".bin")) == nil
			}
		}
		if empty && os.Remove(p) == nil {
			removed = append(removed, name)
		}
	}
	return removed
}

// emptyDir reports p being a folder (not a link to one) with nothing in it.
func emptyDir(p string) bool {
	if st, err := os.Lstat(p); err != nil || !st.IsDir() {
		return false
	}
	entries, err := os.ReadDir(p)
	return err == nil && len(entries) == 0
}

// RemoveAll removes every path in paths (workspaces, their baselines), a
// few at a time in parallel: removing a thousand workspaces one by one at
// the end of a run is mostly waiting on the file system, one unlink at a
// time. A missing path is no error; the errors of the others are joined.
func RemoveAll(paths []string) error {
	workers := min(max(2*runtime.GOMAXPROCS(0), 4), 16, len(paths))
	next := make(chan string)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range next {
				if err := removeAll(p); err != nil {
					errs[w] = errors.Join(errs[w], err)
				}
			}
		}()
	}
	for _, p := range paths {
		next <- p
	}
	close(next)
	wg.Wait()
	return errors.Join(errs...)
}

// removeAll is os.RemoveAll that also removes what the agent made
// read-only (a folder without write permission keeps its entries).
func removeAll(p string) error {
	err := os.RemoveAll(p)
	if err == nil || !errors.Is(err, fs.ErrPermission) {
		return err
	}
	// The walk and its chmods are best effort: what they miss, the second
	// RemoveAll reports.
	_ = filepath.WalkDir(p, func(q string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			_ = os.Chmod(q, 0o700)
		}
		return nil
	})
	return os.RemoveAll(p)
}

// ModifiedSince lists the files under dir that are not as baseline records
// them (a path relative to dir, slash-separated → the sha256 of its
// content, in hex): changed, or new. It is Modified for a workspace whose
// record was taken elsewhere (a Harbor task's baseline.json, made when
// the task was exported), with the same exclusions: the harness's files
// and skip. A symlink the agent left, or put in a file's place, is listed
// as git lists it and never followed; other non-regular files (a FIFO) and
// removed files are not listed.
func ModifiedSince(dir string, baseline map[string]string, skip []string) ([]string, error) {
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if rel == "." {
			return nil
		}
		if excluded(rel, skip) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		switch {
		case d.IsDir():
			return nil
		case d.Type()&fs.ModeSymlink != 0:
			files = append(files, rel)
		case d.Type().IsRegular():
			// A file that cannot be read as the regular file it was listed
			// as (swapped since for a FIFO) is listed too: unread, it is
			// not known to be unchanged.
			if sum, err := FileSHA256(p); err != nil || baseline[rel] != sum {
				files = append(files, rel)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list the workspace's changes: %w", err)
	}
	return files, nil
}

// FileSHA256 is the hex sha256 of the regular file at p, opened without
// following a link or blocking on a FIFO put in its place since it was
// listed.
func FileSHA256(p string) (string, error) {
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return "", err
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return "", fmt.Errorf("%s is not a regular file any more", p)
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
