package score

import (
	"context"
	"os/exec"
	"time"

	"github.com/agent-eval/agent-eval/internal/config"
)

// checkJudge runs upstream's check: a Python function body over the
// outputs dict, unchanged, through python3 in a subprocess.
type checkJudge struct {
	name    string
	j       config.Judge
	program string
	python  string
	dir     string
	limit   time.Duration
}

func newCheckJudge(j config.Judge, i int, env *Env) (Judge, error) {
	if env.Python == "" {
		return nil, configError(env.Eval, judgeField(i, "check"), "judge %q is a Python check, and python3 is not on PATH; install python3, or rewrite the check as expr: (no Python needed)", j.Name)
	}
	return &checkJudge{name: j.Name, j: j, program: checkProgram(j.Check), python: env.Python, dir: env.Dir, limit: timeout(j)}, nil
}

func (c *checkJudge) Kind() string { return "check" }

func (c *checkJudge) Score(ctx context.Context, rec *Record) Outcome {
	in, err := caseInput(rec, c.name, c.j)
	if err != nil {
		return Outcome{Err: err}
	}
	return runProtocol(ctx, []string{c.python, "-c", c.program}, c.dir, in, c.limit)
}

// FindPython is the python3 check judges run with, or "" when there is
// none on PATH.
func FindPython() string {
	p, err := exec.LookPath("python3")
	if err != nil {
		return ""
	}
	return p
}
