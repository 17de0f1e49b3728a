package score

import (
	"github.com/agent-eval/agent-eval/internal/config"
)

// newCodeJudge runs upstream's module/function judge: the function is
// imported with python3 from the project root and called with outputs=…
// and the arguments as keyword arguments.
func newCodeJudge(j config.Judge, i int, env *Env) (Judge, error) {
	if env.Python == "" {
		return nil, configError(env.Eval, judgeField(i, "module"), "judge %q is a Python module judge, and python3 is not on PATH; install python3, or use an exec: judge", j.Name)
	}
	return &pythonJudge{kind: "code", name: j.Name, j: j, program: codeProgram(j.Module, j.Function), python: env.Python, dir: env.Dir, limit: timeout(j)}, nil
}
