package score

import (
	"context"
	"fmt"

	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/expr"
)

// exprJudge evaluates an expr-lang expression over the record: a bool or
// a number, [value, "message"] or {value: v, rationale: "message"}.
type exprJudge struct {
	p    *expr.Program
	args map[string]any
}

func newExprJudge(j config.Judge, i int, env *Env) (Judge, error) {
	p, err := expr.Compile(j.Expr, false)
	if err != nil {
		return nil, configError(env.Eval, judgeField(i, "expr"), "%v", err)
	}
	return &exprJudge{p: p, args: j.Arguments}, nil
}

func (e *exprJudge) Kind() string { return "expr" }

func (e *exprJudge) Score(ctx context.Context, rec *Record) Outcome {
	if err := ctx.Err(); err != nil {
		return Outcome{Err: err}
	}
	out, err := e.p.Run(exprEnv(rec, e.args))
	if err != nil {
		return Outcome{Err: err}
	}
	var why any
	switch x := out.(type) {
	case []any:
		if len(x) != 2 {
			return errOutcome("the expression returned a list of %d items; want [value, \"message\"]", len(x))
		}
		out, why = x[0], x[1]
	case map[string]any:
		out, why = x["value"], x["rationale"]
	}
	v, err := valueOf(out)
	if err != nil {
		return Outcome{Err: err}
	}
	o := Outcome{Value: v}
	if why != nil {
		o.Rationale = fmt.Sprint(why)
	}
	return o
}

// exprEnv is the environment of expr judges and if: conditions: the
// outputs dict's fields at the top level, plus outputs, annotations and
// arguments.
func exprEnv(rec *Record, args map[string]any) map[string]any {
	env := make(map[string]any, len(rec.Outputs)+3)
	for k, v := range rec.Outputs {
		env[k] = v
	}
	env["outputs"] = rec.Outputs
	env["annotations"] = rec.Annotations
	if args == nil {
		args = map[string]any{}
	}
	env["arguments"] = args
	return env
}

func number(v any) (float64, bool) { return expr.Number(v) }
