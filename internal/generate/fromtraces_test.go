package generate

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// planted is a credential-shaped value a production trace may hold.
const planted = "sk-ant-api03-SCRIPTplanted0123456789abcdefghijABCDEFGH_-xyz"

type fakeTraces struct {
	exp    string
	max    int
	traces []Trace
	found  bool
}

func (f *fakeTraces) Traces(_ context.Context, exp string, max int) ([]Trace, bool, error) {
	f.exp, f.max = exp, max
	return f.traces, f.found, nil
}

func TestFromTraces(t *testing.T) {
	ev := parse(t, "name: my-eval\nexecution: {prompt: p}\ndataset: {path: d}\n", nil)
	src := &fakeTraces{found: true, traces: []Trace{
		{ID: "tr-0a1b", Inputs: "Summarise the release notes", Outputs: "Here is the summary", Tags: map[string]string{"eval_run_id": "r7"},
			Questions: []map[string]any{{"input": map[string]any{"question": "Which release?"}, "output": "1.2"}}},
		{ID: "tr-2c3d", Inputs: map[string]any{"prompt": "Fix the bug", "repo": "x"}, Outputs: map[string]any{"text": "fixed"}},
		{ID: "tr-4e5f"},
		{ID: "tr-6071", Inputs: []any{"a", "b"}, Outputs: map[string]any{"log": []any{"key=" + planted}}},
	}}
	var log strings.Builder
	cases, failed, err := fromTraces{}.Generate(context.Background(), Request{Eval: ev, Progress: &log}, Deps{Traces: src})
	if err != nil {
		t.Fatal(err)
	}
	if src.exp != "my-eval" || src.max != DefaultTraceCount {
		t.Errorf("asked experiment %q max %d", src.exp, src.max)
	}
	if len(cases) != 3 || len(failed) != 0 || !strings.Contains(log.String(), "trace tr-4e5f left out: it has no inputs") {
		t.Fatalf("cases %+v failed %q\n%s", cases, failed, log.String())
	}
	c := cases[0]
	if c.ID != "trace-0a1b" || c.Input["prompt"] != "Summarise the release notes" || c.Annotations["reference"] != "Here is the summary" ||
		c.Annotations["eval_run_id"] != "r7" || c.Annotations["trace_id"] != "tr-0a1b" || !c.KeepExisting {
		t.Errorf("case 1 = %+v", c)
	}
	if qs, _ := c.Annotations["tool_interactions"].([]any); len(qs) != 1 || qs[0].(map[string]any)["tool"] != "AskUserQuestion" || qs[0].(map[string]any)["output"] != "1.2" {
		t.Errorf("tool_interactions = %#v", c.Annotations["tool_interactions"])
	}
	if _, ok := cases[1].Annotations["tool_interactions"]; ok {
		t.Errorf("case 2 has tool_interactions: %v", cases[1].Annotations)
	}
	if cases[1].Input["repo"] != "x" || cases[1].Annotations["reference"].(map[string]any)["text"] != "fixed" {
		t.Errorf("case 2 = %+v", cases[1])
	}
	if cases[2].Input["prompt"] != `["a","b"]` {
		t.Errorf("case 3 = %+v", cases[2])
	}
	if got := cases[2].Annotations["reference"].(map[string]any)["log"].([]any)[0].(string); strings.Contains(got, planted) {
		t.Errorf("a credential in a trace reached the case: %q", got)
	}

	// --experiment and --count; mlflow.experiment otherwise.
	_, _, _ = fromTraces{}.Generate(context.Background(), Request{Eval: ev, Experiment: "prod", Count: 3}, Deps{Traces: src})
	if src.exp != "prod" || src.max != 3 {
		t.Errorf("asked experiment %q max %d", src.exp, src.max)
	}
	withBlock := parse(t, "name: my-eval\nexecution: {prompt: p}\ndataset: {path: d}\nmlflow: {experiment: from-block}\n", nil)
	_, _, _ = fromTraces{}.Generate(context.Background(), Request{Eval: withBlock}, Deps{Traces: src})
	if src.exp != "from-block" {
		t.Errorf("asked experiment %q, want mlflow.experiment", src.exp)
	}

	// No such experiment: a usage error naming it (upstream exits 2 too).
	_, _, err = fromTraces{}.Generate(context.Background(), Request{Eval: ev}, Deps{Traces: &fakeTraces{}})
	var missing *ErrMissing
	if !errors.As(err, &missing) || !strings.Contains(err.Error(), `no experiment "my-eval"`) {
		t.Errorf("err = %v", err)
	}
}
