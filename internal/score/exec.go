package score

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agent-eval/agent-eval/internal/config"
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
}

func newExecJudge(j config.Judge, i int, env *Env) (Judge, error) {
	h := env.host()
	argv := execArgv(h.project, j.Exec)
	if len(argv) > 0 && strings.Contains(argv[0], "/") {
		if why := h.untrustedProgram(argv[0]); why != "" {
			return nil, configError(env.Eval, judgeField(i, "exec"), "judge %q runs %s", j.Name, why)
		}
	}
	return &execJudge{name: j.Name, j: j, argv: argv, host: h, limit: timeout(j)}, nil
}

// execArgv is an exec judge's argv with its paths relative to eval.yaml's
// folder (root) made absolute, since the judge's working folder is a
// fresh one: the program when it holds a "/" (./judges/check.sh), and an
// argument that names a file or folder there and holds a "/" or a "."
// (judges/score.py, expected.json). A lone argument that names no file
// there is a shell command line: sh -c.
func execArgv(root string, exec config.StringList) []string {
	argv := append([]string(nil), exec...)
	exists := func(a string) bool {
		_, err := os.Stat(filepath.Join(root, a))
		return err == nil
	}
	if len(argv) == 1 && !(filepath.IsAbs(argv[0]) || exists(argv[0])) {
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

func (e *execJudge) Kind() string { return "exec" }

func (e *execJudge) Score(ctx context.Context, rec *Record) Outcome {
	return e.host.judge(ctx, rec, e.name, e.j, e.limit, func(*judgeRun) ([]string, error) {
		argv := append([]string(nil), e.argv...)
		p, err := e.host.lookPath(argv[0])
		if err != nil {
			return nil, err
		}
		if why := e.host.untrustedProgram(p); why != "" {
			return nil, fmt.Errorf("the judge's program %s", why)
		}
		argv[0] = p
		return argv, nil
	})
}
