package score

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/agent-eval/agent-eval/internal/clip"
	"github.com/agent-eval/agent-eval/internal/config"
)

// rangeList is a score_range as [min, max] (nil when undeclared).
func rangeList(r *config.ScoreRange) []float64 {
	if r == nil {
		return nil
	}
	return []float64{r.Min, r.Max}
}

// pythonShim wraps a check body (or imports a code judge's function) into
// a program speaking the exec protocol: the case as JSON on stdin, one
// {value, rationale} or {error} JSON object on stdout. What the judge
// prints goes to stderr, so it cannot forge a verdict.
const pythonShim = pySite + `import json, os, sys
_out = sys.stdout
sys.stdout = sys.stderr
_data = json.load(sys.stdin)
%s
try:
    _r = _judge(_data["outputs"], _data.get("arguments") or {})
except Exception as _e:
    json.dump({"error": "%%s: %%s" %% (type(_e).__name__, _e)}, _out)
    sys.exit(0)
if isinstance(_r, tuple) and len(_r) == 2:
    _v, _why = _r
elif hasattr(_r, "value"):
    _v, _why = _r.value, getattr(_r, "rationale", "")
else:
    _v, _why = _r, ""
if not isinstance(_v, (bool, int, float)) or _v is None:
    json.dump({"error": "the check returned %%r, not a bool or a number" %% (_v,)}, _out)
else:
    json.dump({"value": _v, "rationale": "" if _why is None else str(_why)}, _out)
`

// pySite adds what Python's site module would add to sys.path (a
// virtualenv's site-packages, the installed packages, the folders .pth
// files name) to a program run with -S, and runs none of the code site
// would run: the "import" lines of .pth files, sitecustomize and
// usercustomize. An interpreter's site-packages is often the user's own (a
// virtualenv, pyenv, conda), which an agent with the sandbox off can
// write, and that code would run before the judge's own.
const pySite = `import os as _os, site as _site, sys as _sys
def _site_pth(sitedir, name, known_paths):
    reset = known_paths is None
    if reset:
        known_paths = _site._init_pathinfo()
    try:
        with open(_os.path.join(sitedir, name), encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        lines = []
    for line in lines:
        line = line.rstrip()
        if not line or line.startswith("#") or line.startswith(("import ", "import\t")):
            continue
        d, dcase = _site.makepath(sitedir, line)
        if dcase not in known_paths and _os.path.exists(d):
            _sys.path.append(d)
            known_paths.add(dcase)
    return None if reset else known_paths
_site.addpackage = _site_pth
_site.execsitecustomize = _site.execusercustomize = lambda: None
_site.main()
`

// checkProgram is the Python program running a check body unchanged, as
// the body of a function of (outputs, arguments). Modules of eval.yaml's
// folder (root) stay importable from it, behind _source_only.
func checkProgram(root, body string) string {
	return fmt.Sprintf(pythonShim, pySourceOnly+fmt.Sprintf("_source_only(%s)\n", pyString(root))+checkFunc(body))
}

// checkFunc is a check body as the function _judge(outputs, arguments).
func checkFunc(body string) string {
	var b strings.Builder
	b.WriteString("def _judge(outputs, arguments):\n")
	for _, l := range strings.Split(strings.TrimRight(body, "\n"), "\n") {
		b.WriteString("    " + l + "\n")
	}
	return b.String()
}

// pySourceOnly defines _source_only(root): put root after the standard
// library and the installed packages on sys.path, and compile whatever is
// imported from under it from its .py source only, so a file planted
// there shadows no standard module and no planted extension module (.so),
// .pyc or __pycache__ entry is ever loaded from there. _Source is that
// loader.
const pySourceOnly = `import importlib.machinery as _im
class _Source(_im.SourceFileLoader):
    def get_code(self, fullname):
        p = self.get_filename(fullname)
        return compile(self.get_data(p), p, "exec", dont_inherit=True)
def _source_only(root):
    def hook(p):
        if (p == root or p.startswith(root + os.sep)) and os.path.isdir(p):
            return _im.FileFinder(p, (_Source, [".py"]))
        raise ImportError("not under " + root)
    sys.path_hooks.insert(0, hook)
    sys.path_importer_cache.clear()
    sys.path.append(root)
`

// codeProgram calls function(outputs=..., **arguments) of a module
// judge's module: file (absolute, under eval.yaml's folder root) loaded as
// the module named mod, or, when file is "", mod imported by name (an
// installed package), with root behind _source_only.
func codeProgram(root, file, mod, function string) string {
	def := pySourceOnly + fmt.Sprintf(`import importlib, importlib.util
_source_only(%s)
_file, _name = %s, %s
if _file:
    _pkg = os.path.basename(_file) == "__init__.py"
    _spec = importlib.util.spec_from_file_location(_name, _file, loader=_Source(_name, _file), submodule_search_locations=[os.path.dirname(_file)] if _pkg else None)
    _m = importlib.util.module_from_spec(_spec)
    sys.modules[_name] = _m
    _spec.loader.exec_module(_m)
else:
    _m = importlib.import_module(_name)
def _judge(outputs, arguments):
    return getattr(_m, %s)(outputs=outputs, **arguments)
`, pyString(root), pyString(file), pyString(mod), pyString(function))
	return fmt.Sprintf(pythonShim, def)
}

// pyLauncher runs an exec judge's Python script, module or -c code
// isolated (python3 -I -S -B -c pyLauncher script|module|command TARGET
// ROOT ARGS...): the script with its own folder, or the module with
// eval.yaml's folder (ROOT), behind _source_only instead of first on
// sys.path, as python3 script.py and python3 -m module would put them; -c
// code as python3 -c would run it, with site's folders but not its code
// (pySite).
const pyLauncher = pySite + `import os, runpy, sys
` + pySourceOnly + `_mode, _target, _root = sys.argv[1], sys.argv[2], sys.argv[3]
if _mode == "command":
    sys.argv = ["-c"] + sys.argv[4:]
    exec(compile(_target, "<string>", "exec"), {"__name__": "__main__", "__builtins__": __builtins__})
elif _mode == "script":
    _source_only(os.path.dirname(os.path.abspath(_target)))
    sys.argv = [_target] + sys.argv[4:]
    runpy.run_path(_target, run_name="__main__")
else:
    _source_only(_root)
    sys.argv = [_target] + sys.argv[4:]
    runpy.run_module(_target, run_name="__main__", alter_sys=True)
`

// pyString is s as a Python string literal (a JSON string is one).
func pyString(s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		panic("score: a string does not encode as JSON: " + err.Error())
	}
	return string(b)
}

// moduleFile is the source file under root that module names: a dotted
// name (judges.mod: judges/mod.py, else judges/mod/__init__.py) or a .py
// path relative to root. Only source is loaded: a planted mod.so,
// mod.pyc or __pycache__ entry, which Python's own import would prefer,
// is never read, and neither is a planted mod/ package beside mod.py. ""
// when there is none (an installed module, or a missing one: importing it
// is then an error sample).
func moduleFile(root, module string) (dotted, file string) {
	dotted = strings.TrimSuffix(strings.ReplaceAll(strings.TrimPrefix(module, "./"), "/", "."), ".py")
	base := filepath.Join(append([]string{root}, strings.Split(dotted, ".")...)...)
	for _, f := range []string{base + ".py", filepath.Join(base, "__init__.py")} {
		if st, err := os.Stat(f); err == nil && st.Mode().IsRegular() {
			return dotted, f
		}
	}
	return dotted, ""
}

// maxJudgeStdout bounds what a judge may write to stdout.
const maxJudgeStdout = 16 << 20

// proc is one judge process: its argv (argv[0] a path), working folder
// and whole environment.
type proc struct {
	argv []string
	dir  string
	env  []string
}

// command is p as a command under ctx, in its own process group: at the
// timeout or cancellation the judge and whatever it started are killed.
func (p proc) command(ctx context.Context) *exec.Cmd {
	cmd := exec.CommandContext(ctx, p.argv[0], p.argv[1:]...)
	cmd.Dir, cmd.Env = p.dir, p.env
	if cmd.Env == nil {
		cmd.Env = []string{}
	}
	cmd.SysProcAttr = sysProcAttr()
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 2 * time.Second
	return cmd
}

// runProtocol runs p (with stdin) under a timeout and reads its
// {value, rationale, error} answer. A non-zero exit, a timeout or output
// that is not that JSON object is an error sample.
func runProtocol(ctx context.Context, p proc, stdin []byte, limit time.Duration) Outcome {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	cmd := p.command(ctx)
	cmd.Stdin = bytes.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	// Its answer is small: a judge flooding stdout is bounded, then an
	// error sample.
	limited := &limitedBuffer{b: &stdout, n: maxJudgeStdout}
	cmd.Stdout, cmd.Stderr = limited, &limitedBuffer{b: &stderr, n: 4 << 10}
	err := cmd.Run()
	switch {
	case ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) && err != nil:
		return errOutcome("the judge did not finish within %s", limit)
	case ctx.Err() != nil:
		return Outcome{Err: ctx.Err()}
	case err != nil:
		msg := strings.TrimSpace(stderr.String())
		if msg != "" {
			msg = ": " + clip.String(lastLine(msg), 300)
		}
		return errOutcome("the judge failed (%v)%s", err, msg)
	}
	if limited.over {
		return errOutcome("the judge wrote more than %d MiB to stdout; its answer is one JSON object (log to stderr)", maxJudgeStdout>>20)
	}
	var reply struct {
		Value     any    `json:"value"`
		Rationale any    `json:"rationale"`
		Error     string `json:"error"`
	}
	// The answer is stdout, or its last line when the judge logged before
	// it.
	out := bytes.TrimSpace(stdout.Bytes())
	if !json.Valid(out) {
		if i := bytes.LastIndexByte(out, '\n'); i >= 0 {
			out = out[i+1:]
		}
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.UseNumber()
	if err := dec.Decode(&reply); err != nil {
		return errOutcome("the judge's output is not a JSON object {value, rationale}: %s", clip.String(strings.TrimSpace(stdout.String()), 200))
	}
	why := ""
	if reply.Rationale != nil {
		why = fmt.Sprint(reply.Rationale)
	}
	if reply.Error != "" {
		return Outcome{Err: errors.New(reply.Error), Rationale: why}
	}
	if n, ok := reply.Value.(json.Number); ok {
		f, err := n.Float64()
		if err != nil {
			return errOutcome("the judge's value %s is not a number", n)
		}
		reply.Value = f
	}
	v, err := valueOf(reply.Value)
	if err != nil {
		return Outcome{Err: err, Rationale: why}
	}
	return Outcome{Value: v, Rationale: why}
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// limitedBuffer keeps the first n bytes written to it.
type limitedBuffer struct {
	b    *bytes.Buffer
	n    int
	over bool // more than n bytes were written
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	l.over = l.over || len(p) > l.n-l.b.Len()
	if room := l.n - l.b.Len(); room > 0 {
		if len(p) > room {
			l.b.Write(p[:room])
		} else {
			l.b.Write(p)
		}
	}
	return len(p), nil
}

// caseInput is what a check, code or exec judge reads on stdin.
// The paths into the run's case folder in outputs point at c's read-only
// copy instead.
func caseInput(rec *Record, name string, j config.Judge, c *judgeRun) ([]byte, error) {
	args := j.Arguments
	if args == nil {
		args = map[string]any{}
	}
	outputs := rec.Outputs
	if src := rec.caseDir(); c != nil && src != "" {
		outputs = retarget(outputs, src, c.caseDir)
	}
	b, err := json.Marshal(map[string]any{"case_id": rec.CaseID, "outputs": outputs, "arguments": args,
		"judge": map[string]any{"name": name, "feedback_type": j.FeedbackType, "score_range": rangeList(j.ScoreRange)}})
	if err != nil {
		return nil, fmt.Errorf("encode the record of %s: %w", rec.CaseID, err)
	}
	return b, nil
}
