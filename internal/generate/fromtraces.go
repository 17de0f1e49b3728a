package generate

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agent-eval/agent-eval/internal/redact"
)

// fromTraces makes a case of each of an MLflow experiment's recent traces:
// the root span's inputs become input.yaml, its outputs the reference in
// annotations.yaml.
type fromTraces struct{}

// DefaultTraceCount is how many traces from-traces reads without --count
// (upstream's default too).
const DefaultTraceCount = 10

func (fromTraces) Generate(ctx context.Context, req Request, deps Deps) ([]Case, []string, error) {
	if deps.Traces == nil {
		return nil, nil, &ErrMissing{What: "strategy from-traces needs an MLflow tracking server"}
	}
	exp := req.Experiment
	if exp == "" {
		exp = req.Eval.MLflowExperiment()
	}
	if exp == "" {
		exp = req.Eval.DisplayName()
	}
	n := req.Count
	if n <= 0 {
		n = DefaultTraceCount
	}
	progressf(req.Progress, "reading up to %d trace(s) of MLflow experiment %q", n, exp)
	traces, found, err := deps.Traces.Traces(ctx, exp, n)
	if err != nil {
		return nil, nil, err
	}
	if !found {
		return nil, nil, &ErrMissing{What: fmt.Sprintf("MLflow has no experiment %q (give --experiment, or set mlflow.experiment)", exp)}
	}
	var cases []Case
	for _, t := range traces {
		c, problem := traceCase(t)
		if problem != "" {
			// Not a failure: a trace without inputs is no case (upstream
			// passes over it too).
			progressf(req.Progress, "trace %s left out: %s", t.ID, problem)
			continue
		}
		cases = append(cases, c)
	}
	progressf(req.Progress, "%d trace(s) read, %d usable", len(traces), len(cases))
	return cases, nil, nil
}

// traceCase is trace t as a case; problem says why it cannot be one.
// Production traces may hold credentials: every string of the case is
// redacted before it is written into a dataset that is likely committed.
func traceCase(t Trace) (Case, string) {
	var input map[string]any
	switch v := redactValue(t.Inputs).(type) {
	case nil:
		return Case{}, "it has no inputs"
	case map[string]any:
		if len(v) == 0 {
			return Case{}, "its inputs are empty"
		}
		input = v
	case string:
		if strings.TrimSpace(v) == "" {
			return Case{}, "its inputs are empty"
		}
		input = map[string]any{"prompt": v}
	default:
		b, _ := json.Marshal(v)
		input = map[string]any{"prompt": string(b)}
	}
	ann := map[string]any{"source": "mlflow-trace", "trace_id": t.ID}
	if t.Outputs != nil {
		ann["reference"] = redactValue(t.Outputs)
	}
	if len(t.Questions) > 0 {
		qs := make([]any, len(t.Questions))
		for i, q := range t.Questions {
			qs[i] = redactValue(map[string]any{"tool": "AskUserQuestion", "input": q["input"], "output": q["output"]})
		}
		ann["tool_interactions"] = qs
	}
	if r := t.Tags["eval_run_id"]; r != "" {
		ann["eval_run_id"] = r
	}
	return Case{ID: "trace-" + slug(strings.TrimPrefix(t.ID, "tr-")), Source: "trace " + t.ID, Input: input, Annotations: ann, KeepExisting: true}, ""
}

// redactValue is v with every string in it (keys too) redacted.
func redactValue(v any) any {
	switch x := v.(type) {
	case string:
		return redact.String(x)
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[redact.String(k)] = redactValue(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = redactValue(e)
		}
		return out
	}
	return v
}
