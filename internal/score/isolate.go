package score

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/agent-eval/agent-eval/internal/guard"
)

// Judges that run a program (check, module/function, exec) are isolated
// from anything the agent could have written, since the agent is the
// adversary and the verdict is what it would forge:
//
//   - each call runs in a fresh temporary folder, removed afterwards: an
//     empty working folder, its own HOME and TMPDIR, and a read-only copy
//     of the case's folder in the run (the record's case_dir and *_file
//     paths point there), so a judge neither reads what was planted in a
//     current folder nor changes the run's files;
//   - the environment is built from an allowlist (allowedEnv), not taken
//     from score's: no API key, token, PYTHONPATH, PYTHONSTARTUP,
//     LD_PRELOAD or BASH_ENV reaches a judge unless its env: names it;
//   - PATH keeps only folders the agent could not have planted a program
//     in (trustedPath), and programs are looked up in it, never in the
//     working folder;
//   - Python runs isolated (-I: no current folder or script folder on
//     sys.path, no user site, no PYTHON* variables; -P where the
//     interpreter has it; -B), a module judge's own file is loaded by its
//     absolute path under eval.yaml's folder, and that folder (or an exec
//     judge's script's) comes after the standard library and installed
//     packages on sys.path, its modules compiled from .py source only (a
//     planted json.py, .so, .pyc or __pycache__ entry is never loaded in
//     place of what the judge meant).
//
// What eval.yaml's folder holds (the judges' own code) is the eval
// author's: with the sandbox off the agent may be able to change it, and
// the run's tamper check is what catches that.

// allowedEnv are the variables a judge gets from score's environment
// (besides the names its env: lists): the locale, the time zone, who the
// user is, and where the machine's TLS certificate authorities are (paths,
// never secrets). LC_* is a prefix. Proxies are not passed: their URLs
// may hold credentials.
var allowedEnv = []string{"LANG", "LANGUAGE", "TZ", "USER", "LOGNAME",
	"SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "NODE_EXTRA_CA_CERTS"}

// Variables every judge call gets.
const (
	// EnvConfigDir is eval.yaml's folder, absolute: where a judge's own
	// files are (a judge's working folder is a fresh one).
	EnvConfigDir = "AGENT_EVAL_CONFIG_DIR"
	// EnvCaseDir is the read-only copy of the case's folder in the run.
	EnvCaseDir = "AGENT_EVAL_CASE_DIR"
)

// host is what the judge programs of one scoring share: the trusted PATH,
// the environment the allowlist draws from, eval.yaml's folder and the
// folders the agent could write.
type host struct {
	path    []string // the trusted PATH
	rawPath []string // score's PATH, its absolute entries (a judge's env: [PATH])
	environ []string
	project string // eval.yaml's folder, absolute
	runDir  string // the run being scored, absolute
	tmp     string // the temporary folder
}

// newHost builds the host of env: the untrusted folders are the run's
// directory, eval.yaml's folder (for PATH) and the temporary folder, where
// workspaces live.
func newHost(env *Env) *host {
	environ := env.Environ
	if environ == nil {
		environ = os.Environ()
	}
	h := &host{environ: environ, project: absReal(env.Dir), runDir: absReal(env.RunDir), tmp: absReal(os.TempDir())}
	h.path = trustedPath(lookupEnv(environ, "PATH"), []string{h.tmp, h.runDir, h.project})
	for _, d := range filepath.SplitList(lookupEnv(environ, "PATH")) {
		if d = filepath.Clean(d); filepath.IsAbs(d) && !slices.Contains(h.rawPath, d) {
			h.rawPath = append(h.rawPath, d)
		}
	}
	return h
}

// passesPath reports whether a judge's env: asks for score's own PATH:
// then its programs (and a check's python3) are looked up there, relative
// entries excepted, and it is the judge's PATH.
func passesPath(pass []string) bool { return slices.Contains(pass, "PATH") }

// dirs is the PATH of a judge whose env: is pass.
func (h *host) dirs(pass []string) []string {
	if passesPath(pass) {
		return h.rawPath
	}
	return h.path
}

// absReal is p absolute, its links resolved when it exists ("" for "").
func absReal(p string) string {
	if p == "" {
		return ""
	}
	a, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	if r, err := filepath.EvalSymlinks(a); err == nil {
		return r
	}
	return a
}

// trustedPath keeps the entries of a PATH list that the agent cannot have
// put a program in: absolute folders that exist, are not inside any of
// untrusted (the run, the workspaces' temporary folder, eval.yaml's
// folder), and are not in a world-writable folder (/tmp, /var/tmp,
// /dev/shm: a sandboxed agent may write there too). A relative entry (".",
// "", "bin") is the working folder's and is dropped.
func trustedPath(list string, untrusted []string) []string {
	var out []string
	for _, d := range filepath.SplitList(list) {
		if !filepath.IsAbs(d) {
			continue
		}
		d = filepath.Clean(d)
		real, err := filepath.EvalSymlinks(d)
		if err != nil {
			continue
		}
		if st, err := os.Stat(real); err != nil || !st.IsDir() {
			continue
		}
		if inAny(real, untrusted) || inAny(d, untrusted) || worldWritable(real) != "" || slices.Contains(out, d) {
			continue
		}
		out = append(out, d)
	}
	return out
}

// worldWritable is p or the first folder above it that anyone may write
// in, or "".
func worldWritable(p string) string {
	for {
		if st, err := os.Stat(p); err == nil && st.IsDir() && st.Mode().Perm()&0o002 != 0 {
			return p
		}
		up := filepath.Dir(p)
		if up == p {
			return ""
		}
		p = up
	}
}

// inAny reports whether p is one of roots or inside one.
func inAny(p string, roots []string) bool {
	for _, r := range roots {
		if r == "" {
			continue
		}
		if rel, err := filepath.Rel(r, p); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
			return true
		}
	}
	return false
}

// untrustedProgram says why a judge must not run the program at p, or
// "": a file in the run or in the temporary folder (where the workspaces
// are) could be the agent's. eval.yaml's folder holds the judges' own code
// (the run's tamper check guards it), even when it lies in the temporary
// folder; the run inside it does not.
func (h *host) untrustedProgram(p string) string {
	real := p
	if r, err := filepath.EvalSymlinks(p); err == nil {
		real = r
	}
	in := func(root string) bool { return root != "" && (inAny(p, []string{root}) || inAny(real, []string{root})) }
	switch {
	case in(h.runDir):
		return fmt.Sprintf("%s is inside the run being scored, which the agent could write", p)
	case in(h.project):
		return ""
	case in(h.tmp):
		return fmt.Sprintf("%s is inside the temporary folder %s, which the agent could write", p, h.tmp)
	}
	if w := worldWritable(filepath.Dir(real)); w != "" {
		return fmt.Sprintf("%s is inside %s, which anyone may write", p, w)
	}
	return ""
}

// lookPath finds a program on the PATH of a judge whose env: is pass (a
// name with a slash is resolved against eval.yaml's folder instead).
func (h *host) lookPath(name string, pass []string) (string, error) {
	if strings.Contains(name, "/") {
		if !filepath.IsAbs(name) {
			name = filepath.Join(h.project, name)
		}
		return name, nil
	}
	if passesPath(pass) {
		for _, d := range h.rawPath {
			p := filepath.Join(d, name)
			if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode().Perm()&0o111 != 0 {
				return p, nil
			}
		}
		return "", fmt.Errorf("%s is not on PATH", name)
	}
	for _, d := range h.path {
		p := filepath.Join(d, name)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode().Perm()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s is not on PATH (the folders on it outside the run, the temporary folder and eval.yaml's folder: %s)", name, strings.Join(h.path, ":"))
}

// environOf is the environment of one judge call: the allowlist's and
// pass's variables from score's environment, PATH as the trusted folders,
// HOME and TMPDIR in the call's folder, and where eval.yaml and the case
// are. A name in pass overrides HOME or TMPDIR (an eval that wants the
// user's home says so); PATH in pass is score's (dirs).
func (h *host) environOf(c *judgeRun, pass []string) []string {
	set := map[string]string{}
	for _, kv := range h.environ {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		if slices.Contains(allowedEnv, k) || strings.HasPrefix(k, "LC_") {
			set[k] = v
		}
	}
	set["HOME"], set["TMPDIR"] = c.home, c.tmp
	for _, k := range pass {
		if v, ok := lookupEnvOK(h.environ, k); ok {
			set[k] = v
		}
	}
	set["PATH"] = strings.Join(h.dirs(pass), string(os.PathListSeparator))
	set[EnvConfigDir], set[EnvCaseDir] = h.project, c.caseDir
	out := make([]string, 0, len(set))
	for k, v := range set {
		out = append(out, k+"="+v)
	}
	slices.Sort(out)
	return out
}

func lookupEnv(environ []string, name string) string {
	v, _ := lookupEnvOK(environ, name)
	return v
}

func lookupEnvOK(environ []string, name string) (string, bool) {
	for i := len(environ) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(environ[i], "="); ok && k == name {
			return v, true
		}
	}
	return "", false
}

// judgeRun is one judge call's own temporary folder: work (its working
// folder, empty), home (HOME), tmp (TMPDIR, and Python's bytecode cache)
// and caseDir (a read-only copy of the case's folder in the run).
type judgeRun struct {
	root, work, home, tmp, caseDir string
}

// newCall makes a call's folder, with a read-only copy of caseSrc (the
// case's folder in the run; "" or missing: an empty folder).
func newCall(caseSrc string) (*judgeRun, error) {
	root, err := os.MkdirTemp("", "agent-eval-judge-")
	if err != nil {
		return nil, fmt.Errorf("make the judge's folder: %w", err)
	}
	c := &judgeRun{root: root, work: filepath.Join(root, "work"), home: filepath.Join(root, "home"),
		tmp: filepath.Join(root, "tmp"), caseDir: filepath.Join(root, "case")}
	for _, d := range []string{c.work, c.home, c.tmp} {
		if err := os.Mkdir(d, 0o700); err != nil {
			return nil, errors.Join(fmt.Errorf("make the judge's folder: %w", err), c.close())
		}
	}
	if err := copyReadOnly(caseSrc, c.caseDir); err != nil {
		return nil, errors.Join(fmt.Errorf("copy the case for the judge: %w", err), c.close())
	}
	return c, nil
}

// close removes the call's folder, whatever the judge made read-only in
// it.
func (c *judgeRun) close() error {
	_ = filepath.WalkDir(c.root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			_ = os.Chmod(p, 0o700)
		}
		return nil
	})
	if err := os.RemoveAll(c.root); err != nil {
		return fmt.Errorf("remove the judge's folder: %w", err)
	}
	return nil
}

// maxCaseCopy and maxCaseEntries bound the case folder copied for each
// judge call: an agent that filled its outputs cannot fill the disk, or
// the time, once per judge.
const (
	maxCaseCopy    = 1 << 30
	maxCaseEntries = 100_000
)

// copyReadOnly copies the regular files and folders under src to dst
// (files 0444, folders 0555). Symbolic links and special files are left
// out: a link could point back into the run. A missing src is an empty
// dst.
func copyReadOnly(src, dst string) error {
	var dirs []string
	defer func() {
		for i := len(dirs) - 1; i >= 0; i-- {
			_ = os.Chmod(dirs[i], 0o555)
		}
	}()
	if src == "" {
		dirs = append(dirs, dst)
		return os.Mkdir(dst, 0o700)
	}
	if _, err := os.Stat(src); errors.Is(err, fs.ErrNotExist) {
		dirs = append(dirs, dst)
		return os.Mkdir(dst, 0o700)
	}
	var total, entries int64
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if entries++; entries > maxCaseEntries {
			return fmt.Errorf("the case's folder %s holds more than %d files", src, maxCaseEntries)
		}
		if d.Type().IsRegular() {
			info, err := d.Info()
			if err != nil {
				return err
			}
			if total += info.Size(); total > maxCaseCopy {
				return fmt.Errorf("the case's folder %s holds more than %d MiB", src, maxCaseCopy>>20)
			}
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			dirs = append(dirs, to)
			return os.Mkdir(to, 0o700)
		case d.Type().IsRegular():
			info, err := d.Info()
			if err != nil {
				return err
			}
			return copyFile(p, to, info.Size())
		}
		return nil
	})
}

// copyFile copies the regular file from, at most max bytes of it (its size
// when it was counted), without following a link or blocking on a FIFO it
// may have been swapped for since.
func copyFile(from, to string, max int64) error {
	f, err := os.OpenFile(from, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			return nil
		}
		return err
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return err
	}
	b, err := io.ReadAll(io.LimitReader(f, max))
	if err != nil {
		return err
	}
	return os.WriteFile(to, b, 0o444)
}

// retarget points the paths into the run's case folder that a record's
// outputs hold (case_dir, <output>_file) at the call's read-only copy.
func retarget(outputs map[string]any, from, to string) map[string]any {
	if from == "" {
		return outputs
	}
	out := make(map[string]any, len(outputs))
	for k, v := range outputs {
		if s, ok := v.(string); ok && (s == from || strings.HasPrefix(s, from+string(filepath.Separator))) {
			v = to + s[len(from):]
		}
		out[k] = v
	}
	return out
}

// sysProcAttr puts a judge in its own process group, killed with score
// (on Linux: elsewhere there is no parent-death signal, and a judge
// outlives a score killed by SIGKILL; its isolation above is the same).
func sysProcAttr() *syscall.SysProcAttr { return guard.GroupAttr(syscall.SIGKILL) }

// caseDir is the record's case folder in the run ("" for a record read
// from no run).
func (r *Record) caseDir() string {
	if r.dir.Path == "" {
		return ""
	}
	return r.dir.Case(r.folder())
}
