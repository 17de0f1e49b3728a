package score

import (
	"github.com/agent-eval/agent-eval/internal/config"
)

// newCodeJudge runs upstream's module/function judge: the function is
// imported with python3 from eval.yaml's folder (its file loaded by its
// absolute path there, not found through the current folder) and called
// with outputs=… and the arguments as keyword arguments.
func newCodeJudge(j config.Judge, i int, env *Env) (Judge, error) {
	py, err := env.python(j.Env)
	if err != nil {
		return nil, configError(env.Eval, judgeField(i, "module"), "judge %q is a Python module judge, and %v; install python3, or use an exec: judge", j.Name, err)
	}
	h := env.host()
	mod, file := moduleFile(h.project, j.Module)
	return &pythonJudge{kind: "code", name: j.Name, j: j, program: codeProgram(h.project, file, mod, j.Function), py: py, host: h, limit: timeout(j)}, nil
}
