package score

import (
	"context"
	"time"

	"github.com/agent-eval/agent-eval/internal/config"
)

// execJudge runs any program: the case as JSON on stdin
// ({case_id, outputs, arguments, judge}), {value, rationale} on stdout. A
// list is the program's argv; one string is run with sh -c.
type execJudge struct {
	name  string
	j     config.Judge
	argv  []string
	dir   string
	limit time.Duration
}

func newExecJudge(j config.Judge, _ int, env *Env) (Judge, error) {
	argv := []string(j.Exec)
	if len(argv) == 1 {
		argv = []string{"sh", "-c", argv[0]}
	}
	return &execJudge{name: j.Name, j: j, argv: argv, dir: env.Dir, limit: timeout(j)}, nil
}

func (e *execJudge) Kind() string { return "exec" }

func (e *execJudge) Score(ctx context.Context, rec *Record) Outcome {
	in, err := caseInput(rec, e.name, e.j)
	if err != nil {
		return Outcome{Err: err}
	}
	return runProtocol(ctx, e.argv, e.dir, in, e.limit)
}
