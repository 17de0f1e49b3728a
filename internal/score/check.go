package score

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/agent-eval/agent-eval/internal/clip"
	"github.com/agent-eval/agent-eval/internal/config"
)

// pythonJudge runs a Python program through python3 in a subprocess, with
// the case's input on stdin: upstream's check (a function body over the
// outputs dict, unchanged) or its module/function judge (code.go). It runs
// isolated (isolate.go): python3 -I in a fresh folder, with the
// allowlisted environment.
type pythonJudge struct {
	kind    string // check or code
	name    string
	j       config.Judge
	program string
	py      *interpreter
	host    *host
	limit   time.Duration
}

func newCheckJudge(j config.Judge, i int, env *Env) (Judge, error) {
	py, err := env.python(j.Env)
	if err != nil {
		return nil, configError(env.Eval, judgeField(i, "check"), "judge %q is a Python check, and %v; install python3, or rewrite the check as expr: (no Python needed)", j.Name, err)
	}
	if err := pythonSyntax(env.host(), py, j.Env, checkFunc(j.Check)); err != nil {
		return nil, configError(env.Eval, judgeField(i, "check"), "judge %q: the check is not valid Python: %v", j.Name, err)
	}
	return &pythonJudge{kind: "check", name: j.Name, j: j, program: checkProgram(env.host().project, j.Check), py: py, host: env.host(), limit: timeout(j)}, nil
}

// pythonSyntax compiles program without running it, so a check with a
// syntax error is a config error once, not an error sample per case.
func pythonSyntax(h *host, py *interpreter, pass []string, program string) error {
	const compile = "import sys\ntry:\n    compile(sys.stdin.read(), '<check>', 'exec')\nexcept SyntaxError as e:\n    print('%s (line %s of the check)' % (e.msg, (e.lineno or 2) - 1)); sys.exit(1)"
	out, err := h.runPlain(context.Background(), func(*judgeRun) []string { return py.argv(compile) }, pass, []byte(program))
	if err != nil {
		if msg := strings.TrimSpace(string(out)); msg != "" {
			return errors.New(msg)
		}
		return fmt.Errorf("run %s: %w", py.path, err)
	}
	return nil
}

func (c *pythonJudge) Kind() string { return c.kind }

func (c *pythonJudge) Score(ctx context.Context, rec *Record) Outcome {
	return c.host.judge(ctx, rec, c.name, c.j, c.limit, func(*judgeRun) ([]string, error) { return c.py.argv(c.program), nil })
}

// interpreter is the Python that judges run: the interpreter itself
// (sys.executable, not a shim) and its version.
type interpreter struct {
	path         string
	major, minor int
}

// argv runs program isolated: -I (no current or script folder on
// sys.path, no user site, no PYTHON* variables), -P where the interpreter
// has it (3.11; -I implies it there), no site module at startup (-S: the
// program adds site's folders itself, pySite, without the code of .pth
// files and sitecustomize) and no bytecode written (-B: nothing lands in
// eval.yaml's folder). A module judge's code is compiled from
// source (codeProgram).
func (py *interpreter) argv(program string) []string {
	a := []string{py.path, "-I"}
	if py.atLeast(3, 11) {
		a = append(a, "-P")
	}
	return append(a, "-S", "-B", "-c", program)
}

func (py *interpreter) atLeast(major, minor int) bool {
	return py.major > major || py.major == major && py.minor >= minor
}

// python is the interpreter of a Python judge whose env: is pass, probed
// once: env.Python (or, for a judge that passes PATH, the first python3
// on score's PATH), which must not be a program the agent could have
// written unless the judge passes PATH, resolved to the interpreter it
// runs (a pyenv shim to the real python3), run isolated as judges are.
func (e *Env) python(pass []string) (*interpreter, error) {
	e.pyMu.Lock()
	defer e.pyMu.Unlock()
	raw := passesPath(pass)
	if p, ok := e.pys[raw]; ok {
		return p.py, p.err
	}
	h, candidate := e.host(), e.Python
	if raw {
		candidate, _ = h.lookPath("python3", pass)
	}
	py, err := probePython(h, candidate, raw)
	if e.pys == nil {
		e.pys = map[bool]pyProbe{}
	}
	e.pys[raw] = pyProbe{py, err}
	return py, err
}

// probePython resolves candidate; unless anywhere, a python3 the agent
// could have written is refused.
func probePython(h *host, candidate string, anywhere bool) (*interpreter, error) {
	if candidate == "" {
		if anywhere {
			return nil, errors.New("python3 is not on PATH")
		}
		return nil, errors.New("python3 is not on PATH outside the folders the agent could write (the run, the temporary folder, eval.yaml's folder; env: [PATH] on the judge takes score's PATH as it is)")
	}
	if why := h.untrustedProgram(candidate); why != "" && !anywhere {
		return nil, fmt.Errorf("python3 %s", why)
	}
	const probe = "import sys; print(sys.executable); print(sys.version_info[0]); print(sys.version_info[1])"
	var pass []string
	if anywhere {
		pass = []string{"PATH"}
	}
	out, err := h.runPlain(context.Background(), func(*judgeRun) []string { return []string{candidate, "-I", "-S", "-c", probe} }, pass, nil)
	if err != nil {
		return nil, fmt.Errorf("python3 (%s) does not run: %v: %s", candidate, err, clip.String(strings.TrimSpace(string(out)), 200))
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 3 {
		return nil, fmt.Errorf("python3 (%s) answered %q to a version probe", candidate, clip.String(string(out), 200))
	}
	py := &interpreter{path: strings.TrimSpace(lines[0])}
	py.major, err = strconv.Atoi(strings.TrimSpace(lines[1]))
	if err == nil {
		py.minor, err = strconv.Atoi(strings.TrimSpace(lines[2]))
	}
	if err != nil {
		return nil, fmt.Errorf("python3 (%s) answered %q to a version probe", candidate, clip.String(string(out), 200))
	}
	if py.path == "" {
		py.path = candidate
	}
	if why := h.untrustedProgram(py.path); why != "" && !anywhere {
		return nil, fmt.Errorf("python3 runs %s", why)
	}
	return py, nil
}

// FindPython is the python3 judges run with: the first on PATH outside
// the folders the agent could write (trustedPath), or "" when there is
// none.
func FindPython() string {
	p, err := newHost(&Env{}).lookPath("python3", nil)
	if err != nil {
		return ""
	}
	return p
}

// runPlain runs a short helper program of the judges' (a syntax check, a
// probe) isolated as a judge is, and returns its stdout.
func (h *host) runPlain(ctx context.Context, argv func(*judgeRun) []string, pass []string, stdin []byte) ([]byte, error) {
	c, err := newCall("")
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, DefaultTimeout)
	defer cancel()
	cmd := proc{argv: argv(c), dir: c.work, env: h.environOf(c, pass)}.command(ctx)
	cmd.Stdin = bytes.NewReader(stdin)
	var stdout bytes.Buffer
	out := &limitedBuffer{b: &stdout, n: 64 << 10}
	cmd.Stdout, cmd.Stderr = out, out // one writer: one pipe
	err = cmd.Run()
	return stdout.Bytes(), errors.Join(err, c.close())
}

// judge runs one judge call isolated: a fresh folder with the case's
// read-only copy, the allowlisted environment, argv built for that folder.
func (h *host) judge(ctx context.Context, rec *Record, name string, j config.Judge, limit time.Duration, argv func(*judgeRun) ([]string, error)) Outcome {
	c, err := newCall(rec.caseDir())
	if err != nil {
		return Outcome{Err: err}
	}
	o := func() Outcome {
		in, err := caseInput(rec, name, j, c)
		if err != nil {
			return Outcome{Err: err}
		}
		a, err := argv(c)
		if err != nil {
			return Outcome{Err: err}
		}
		return runProtocol(ctx, proc{argv: a, dir: c.work, env: h.environOf(c, j.Env)}, in, limit)
	}()
	if err := c.close(); err != nil && o.Err == nil {
		return Outcome{Err: err, Rationale: o.Rationale}
	}
	return o
}
