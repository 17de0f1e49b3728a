package otlp

import (
	"slices"
	"strings"
	"testing"

	"github.com/agent-eval/agent-eval/internal/testutil/mlflowserver"
)

// TestMLflowReceivesTheTrace exports the fixture run to a real MLflow
// tracking server's OTLP endpoint and reads the spans back through its
// REST API.
func TestMLflowReceivesTheTrace(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an MLflow server")
	}
	srv := mlflowserver.Start(t)
	exp := srv.NewExperiment(t, "otlp-test")
	d := fixture(t, "PLANTED")
	opt := Options{Endpoint: srv.URL + TracesPath, Headers: map[string]string{"x-mlflow-experiment-id": exp},
		RunAttrs: map[string]string{"mlflow.source.run_id": "r1"}}
	if err := Export(t.Context(), d, opt); err != nil {
		t.Fatal(err)
	}
	traces := srv.SearchTraces(t, exp)
	if len(traces) != 1 {
		t.Fatalf("%d traces in the experiment, want 1", len(traces))
	}
	if want := "tr-" + TraceID(TraceKey("otel-fixture", "20261201-100000.000-fake")).String(); traces[0].TraceID != want {
		t.Errorf("trace id %s, want %s", traces[0].TraceID, want)
	}
	spans := srv.TraceSpans(t, traces[0].TraceID)
	kids := mlflowserver.CheckTree(t, spans)
	root := kids[""][0]
	if root.Name != "agent-eval run otel-fixture" || root.Attrs[AttrRunID] != "20261201-100000.000-fake" || root.Attrs["mlflow.source.run_id"] != "r1" {
		t.Errorf("root span %q with %v", root.Name, root.Attrs)
	}
	var cases []string
	byName := map[string]mlflowserver.Span{}
	for _, c := range kids[root.SpanID] {
		cases = append(cases, c.Name)
		byName[c.Name] = c
	}
	slices.Sort(cases)
	if want := []string{"case bad", "case crashed", "case good"}; !slices.Equal(cases, want) {
		t.Fatalf("the run's children are %q, want %q", cases, want)
	}
	if bad := byName["case bad"]; bad.StatusCode != "STATUS_CODE_ERROR" || bad.Attrs[AttrCaseStatus] != "failed" {
		t.Errorf("case bad: status %s, %v; want an error of status failed", bad.StatusCode, bad.Attrs[AttrCaseStatus])
	}
	if c := byName["case crashed"]; c.StatusCode != "STATUS_CODE_ERROR" {
		t.Errorf("case crashed: status %s, want an error", c.StatusCode)
	}
	good := byName["case good"]
	var turns, judges int
	var denied *mlflowserver.Span
	for _, c := range kids[good.SpanID] {
		switch {
		case strings.HasPrefix(c.Name, "chat "):
			turns++
			for _, tool := range kids[c.SpanID] {
				if tool.Attrs["gen_ai.tool.call.id"] == "toolu_02" {
					denied = &tool
				}
			}
		case strings.HasPrefix(c.Name, "judge "):
			judges++
		}
	}
	if turns != 3 || judges != 1 {
		t.Errorf("case good has %d turns and %d judge spans, want 3 and 1", turns, judges)
	}
	if denied == nil {
		t.Fatal("no span of the denied call toolu_02 under a turn of case good")
	}
	for k, want := range map[string]any{"gen_ai.tool.name": "Bash", AttrHookDecision: "deny", AttrHookReason: "Jira is blocked in evals",
		AttrHookHandler: int64(0), AttrDenied: true, "gen_ai.operation.name": "execute_tool"} {
		if got := denied.Attrs[k]; got != want {
			t.Errorf("denied call: %s = %v (%T), want %v", k, got, got, want)
		}
	}
	// The hook's ledger time is the call's start: 10:00:06.
	if want := int64(1796119206) * 1e9; denied.Start != want {
		t.Errorf("denied call starts at %d, want %d (its ledger ts)", denied.Start, want)
	}

	// Again: the same ids, so MLflow keeps one trace of as many spans.
	if err := Export(t.Context(), d, opt); err != nil {
		t.Fatal(err)
	}
	if again := srv.SearchTraces(t, exp); len(again) != 1 || len(srv.TraceSpans(t, again[0].TraceID)) != len(spans) {
		t.Errorf("after a second export: %d traces, want 1 with %d spans", len(again), len(spans))
	}
}
