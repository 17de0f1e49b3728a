package score

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/agent-eval/agent-eval/internal/config"
)

// pythonJudge runs a Python program through python3 in a subprocess, with
// the case's input on stdin: upstream's check (a function body over the
// outputs dict, unchanged) or its module/function judge (code.go).
type pythonJudge struct {
	kind    string // check or code
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
	if err := pythonSyntax(env.Python, checkFunc(j.Check)); err != nil {
		return nil, configError(env.Eval, judgeField(i, "check"), "judge %q: the check is not valid Python: %v", j.Name, err)
	}
	return &pythonJudge{kind: "check", name: j.Name, j: j, program: checkProgram(j.Check), python: env.Python, dir: env.Dir, limit: timeout(j)}, nil
}

// pythonSyntax compiles program without running it, so a check with a
// syntax error is a config error once, not an error sample per case.
func pythonSyntax(python, program string) error {
	cmd := exec.Command(python, "-c", "import sys\ntry:\n    compile(sys.stdin.read(), '<check>', 'exec')\nexcept SyntaxError as e:\n    print('%s (line %s of the check)' % (e.msg, (e.lineno or 2) - 1)); sys.exit(1)")
	cmd.Stdin = strings.NewReader(program)
	out, err := cmd.Output()
	if err != nil {
		if msg := strings.TrimSpace(string(out)); msg != "" {
			return errors.New(msg)
		}
		return fmt.Errorf("run %s: %w", python, err)
	}
	return nil
}

func (c *pythonJudge) Kind() string { return c.kind }

func (c *pythonJudge) Score(ctx context.Context, rec *Record) Outcome {
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
