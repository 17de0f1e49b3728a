package score

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/lazyre"
)

// execJudge runs any program: the case as JSON on stdin
// ({case_id, outputs, arguments, judge}), {value, rationale} on stdout. A
// list is the program's argv; one argument that is not a file in eval.yaml's
// folder is run with sh -c. It runs isolated (isolate.go): in a fresh
// folder, with the allowlisted environment, the program found on the
// trusted PATH or in eval.yaml's folder.
type execJudge struct {
	name  string
	j     config.Judge
	argv  []string
	host  *host
	limit time.Duration
	// py is set when argv runs a Python script or module: it runs through
	// pyLauncher instead.
	py *pyExec
}

// pyExec is an exec judge that is python3 SCRIPT.py ARGS, python3 -m
// MODULE ARGS or python3 -c CODE ARGS.
type pyExec struct {
	flags        []string // the interpreter's own options before it (-u, -X utf8)
	mode, target string   // "script" and its path, "module" and its name, or "command" and its code
	args         []string
}

func newExecJudge(j config.Judge, i int, env *Env) (Judge, error) {
	h := env.host()
	argv := execArgv(h.project, j.Exec)
	e := &execJudge{name: j.Name, j: j, argv: argv, host: h, limit: timeout(j), py: pythonExec(h.project, argv, j.Env)}
	for _, p := range []string{argv[0], e.scriptPath()} {
		if strings.Contains(p, "/") {
			if why := h.untrustedProgram(p); why != "" {
				return nil, configError(env.Eval, judgeField(i, "exec"), "judge %q runs %s", j.Name, why)
			}
		}
	}
	return e, nil
}

func (e *execJudge) scriptPath() string {
	if e.py != nil && e.py.mode == "script" {
		return e.py.target
	}
	return ""
}

// pythonRE names a Python interpreter: python, python3, python3.12.
var pythonRE = lazyre.New(`^python(3(\.[0-9]+)?)?$`)

// pythonExec recognises argv running a Python script (python3
// judges/score.py …) or module (python3 -m judges.score …), which would
// put the script's folder or the working folder first on sys.path: a
// json.py planted beside the script would shadow the standard one. Such a
// judge runs through pyLauncher (python3 -I, the folder after the standard
// library, source only). nil for any other command, and when the judge's
// env: passes a PYTHON* variable (its author asked for Python's own
// handling of the environment).
func pythonExec(root string, argv, pass []string) *pyExec {
	if len(argv) < 2 || !pythonRE().MatchString(filepath.Base(argv[0])) {
		return nil
	}
	for _, k := range pass {
		if strings.HasPrefix(k, "PYTHON") {
			return nil
		}
	}
	i, flags := 1, []string(nil)
	for ; i < len(argv); i++ {
		a := argv[i]
		if pyFlagsRE().MatchString(a) || len(a) > 2 && (strings.HasPrefix(a, "-X") || strings.HasPrefix(a, "-W")) {
			flags = append(flags, a)
			continue
		}
		if (a == "-X" || a == "-W") && i+1 < len(argv) {
			flags = append(flags, a, argv[i+1])
			i++
			continue
		}
		break
	}
	if i >= len(argv) {
		return nil
	}
	switch a := argv[i]; {
	case a == "-c" && i+1 < len(argv):
		return &pyExec{flags: flags, mode: "command", target: argv[i+1], args: argv[i+2:]}
	case a == "-m" && i+1 < len(argv) && !strings.HasPrefix(argv[i+1], "-"):
		return &pyExec{flags: flags, mode: "module", target: argv[i+1], args: argv[i+2:]}
	case strings.HasSuffix(a, ".py") && !strings.HasPrefix(a, "-"):
		if !filepath.IsAbs(a) {
			a = filepath.Join(root, a)
		}
		return &pyExec{flags: flags, mode: "script", target: a, args: argv[i+1:]}
	}
	return nil
}

// pyFlagsRE is a cluster of Python's options that take no argument and
// leave sys.path to -I (not -c, -m, -i or -h).
var pyFlagsRE = lazyre.New(`^-[bBdEIOPqsSuv]+$`)

// execArgv is an exec judge's argv with its paths relative to eval.yaml's
// folder (root) made absolute, since the judge's working folder is a
// fresh one: the program when it holds a "/" (./judges/check.sh), and an
// argument that names a file or folder there and holds a "/" or a "."
// (judges/score.py, expected.json). A lone argument that names no file
// there, or holds a blank or a shell character, is a shell command line:
// sh -c.
func execArgv(root string, exec config.StringList) []string {
	argv := append([]string(nil), exec...)
	exists := func(a string) bool {
		_, err := os.Stat(filepath.Join(root, a))
		return err == nil
	}
	// A lone argument with a blank or a shell character is a shell line
	// whatever files there are: a file the agent planted in eval.yaml's
	// folder under that name would otherwise be run instead.
	if len(argv) == 1 && (strings.ContainsAny(argv[0], shellChars) || !(filepath.IsAbs(argv[0]) || exists(argv[0]))) {
		return []string{"sh", "-c", argv[0]}
	}
	for k, a := range argv {
		switch {
		case filepath.IsAbs(a) || strings.HasPrefix(a, "-") || a == "." || a == "..":
		case k == 0 && (strings.Contains(a, "/") || len(argv) == 1):
			argv[k] = filepath.Join(root, a)
		case k > 0 && strings.ContainsAny(a, "/.") && exists(a):
			argv[k] = filepath.Join(root, a)
		}
	}
	return argv
}

// shellChars are the characters that make a lone exec argument a shell
// line: blanks and what a shell gives a meaning to.
const shellChars = " \t\n;&|<>()$`\\\"'*?[]{}~#=%!"

func (e *execJudge) Kind() string { return "exec" }

func (e *execJudge) Score(ctx context.Context, rec *Record) Outcome {
	return e.host.judge(ctx, rec, e.name, e.j, e.limit, func(*judgeRun) ([]string, error) {
		argv := append([]string(nil), e.argv...)
		p, err := e.host.lookPath(argv[0], e.j.Env)
		if err != nil {
			return nil, err
		}
		if why := e.host.untrustedProgram(p); why != "" && !(passesPath(e.j.Env) && !strings.Contains(argv[0], "/")) {
			return nil, fmt.Errorf("the judge's program %s", why)
		}
		argv[0] = p
		if e.py != nil {
			argv = append(append(append([]string{p, "-I", "-S", "-B"}, e.py.flags...), "-c", pyLauncher, e.py.mode, e.py.target, e.host.project), e.py.args...)
		}
		return argv, nil
	})
}
