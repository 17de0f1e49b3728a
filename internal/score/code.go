package score

import (
	"context"
	"time"

	"github.com/agent-eval/agent-eval/internal/config"
)

// codeJudge runs upstream's module/function judge: the function is
// imported with python3 from the project root and called with
// outputs=… and the arguments as keyword arguments.
type codeJudge struct {
	name    string
	j       config.Judge
	program string
	python  string
	dir     string
	limit   time.Duration
}

func newCodeJudge(j config.Judge, i int, env *Env) (Judge, error) {
	if env.Python == "" {
		return nil, configError(env.Eval, judgeField(i, "module"), "judge %q is a Python module judge, and python3 is not on PATH; install python3, or use an exec: judge", j.Name)
	}
	return &codeJudge{name: j.Name, j: j, program: codeProgram(j.Module, j.Function), python: env.Python, dir: env.Dir, limit: timeout(j)}, nil
}

func (c *codeJudge) Kind() string { return "code" }

func (c *codeJudge) Score(ctx context.Context, rec *Record) Outcome {
	in, err := caseInput(rec, c.name, c.j)
	if err != nil {
		return Outcome{Err: err}
	}
	return runProtocol(ctx, []string{c.python, "-c", c.program}, c.dir, in, c.limit)
}
