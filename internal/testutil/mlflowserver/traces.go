package mlflowserver

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"testing"

	"github.com/agent-eval/agent-eval/internal/export/otlpvalue"
)

// NewExperiment creates an experiment named name and returns its id.
func (s *Server) NewExperiment(t testing.TB, name string) string {
	t.Helper()
	var out struct {
		ExperimentID string `json:"experiment_id"`
	}
	if err := s.call(http.MethodPost, "/api/2.0/mlflow/experiments/create", nil, map[string]any{"name": name}, &out); err != nil {
		t.Fatal(err)
	}
	return out.ExperimentID
}

// TraceInfo is one trace as MLflow's trace search lists it.
type TraceInfo struct {
	TraceID string            `json:"trace_id"`
	State   string            `json:"state"`
	Tags    map[string]string `json:"tags"`
	// Metadata holds mlflow.sourceRun, the run a trace is linked to.
	Metadata map[string]string `json:"trace_metadata"`
}

// Assessment is an assessment of a trace (feedback, say) as MLflow
// returns it.
type Assessment struct {
	ID     string `json:"assessment_id"`
	Name   string `json:"assessment_name"`
	Source struct {
		Type string `json:"source_type"`
		ID   string `json:"source_id"`
	} `json:"source"`
	Feedback *struct {
		Value any `json:"value"`
	} `json:"feedback"`
	Rationale string            `json:"rationale"`
	Metadata  map[string]string `json:"metadata"`
	Valid     *bool             `json:"valid"`
}

// Assessments lists the assessments of MLflow trace traceID (tr-…), read
// through the trace's info (GET /api/3.0/mlflow/traces/{id}).
func (s *Server) Assessments(traceID string) ([]Assessment, error) {
	var out struct {
		Trace struct {
			Info struct {
				Assessments []Assessment `json:"assessments"`
			} `json:"trace_info"`
		} `json:"trace"`
	}
	err := s.call(http.MethodGet, "/api/3.0/mlflow/traces/"+url.PathEscape(traceID), nil, nil, &out)
	return out.Trace.Info.Assessments, err
}

// SearchTraces lists the traces of experiment id (at most 500).
func (s *Server) SearchTraces(t testing.TB, experimentID string) []TraceInfo {
	t.Helper()
	out, err := s.Traces(t.Context(), experimentID)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Traces is SearchTraces for a caller without a testing.TB (a testscript
// command).
func (s *Server) Traces(_ context.Context, experimentID string) ([]TraceInfo, error) {
	return s.TracesOfRun(experimentID, "")
}

// TracesOfRun lists the traces of experiment id linked to the MLflow run
// runID (all of them when runID is empty).
func (s *Server) TracesOfRun(experimentID, runID string) ([]TraceInfo, error) {
	var out struct {
		Traces []TraceInfo `json:"traces"`
	}
	body := map[string]any{
		"locations":   []any{map[string]any{"type": "MLFLOW_EXPERIMENT", "mlflow_experiment": map[string]any{"experiment_id": experimentID}}},
		"max_results": 500,
	}
	if runID != "" {
		body["filter"] = "metadata.`mlflow.sourceRun` = '" + runID + "'"
	}
	err := s.call(http.MethodPost, "/api/3.0/mlflow/traces/search", nil, body, &out)
	return out.Traces, err
}

// Span is one span of a trace as MLflow stores it: ids in hex, times in
// Unix nanoseconds, attributes by key (their OTLP values decoded: string,
// int64, float64, bool, or []any).
type Span struct {
	SpanID, ParentID string
	Name             string
	Start, End       int64
	Attrs            map[string]any
	StatusCode       string
	StatusMessage    string
}

// TraceSpans returns the spans of MLflow trace traceID (tr-…).
func (s *Server) TraceSpans(t testing.TB, traceID string) []Span {
	t.Helper()
	spans, err := s.Spans(t.Context(), traceID)
	if err != nil {
		t.Fatal(err)
	}
	return spans
}

// Spans is TraceSpans for a caller without a testing.TB.
func (s *Server) Spans(ctx context.Context, traceID string) ([]Span, error) {
	var out struct {
		Trace struct {
			Spans []struct {
				SpanID       string      `json:"span_id"`
				ParentSpanID string      `json:"parent_span_id"`
				Name         string      `json:"name"`
				Start        json.Number `json:"start_time_unix_nano"`
				End          json.Number `json:"end_time_unix_nano"`
				Attributes   []struct {
					Key   string          `json:"key"`
					Value json.RawMessage `json:"value"`
				} `json:"attributes"`
				Status struct {
					Code    string `json:"code"`
					Message string `json:"message"`
				} `json:"status"`
			} `json:"spans"`
		} `json:"trace"`
	}
	if err := s.call(http.MethodGet, "/api/3.0/mlflow/traces/get", url.Values{"trace_id": {traceID}}, nil, &out); err != nil {
		return nil, err
	}
	var spans []Span
	for _, sp := range out.Trace.Spans {
		x := Span{SpanID: b64hex(sp.SpanID), ParentID: b64hex(sp.ParentSpanID), Name: sp.Name, Attrs: map[string]any{},
			StatusCode: sp.Status.Code, StatusMessage: sp.Status.Message}
		x.Start, _ = sp.Start.Int64()
		x.End, _ = sp.End.Int64()
		for _, a := range sp.Attributes {
			x.Attrs[a.Key] = otlpvalue.Decode(a.Value)
		}
		spans = append(spans, x)
	}
	return spans, nil
}

func b64hex(s string) string {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return s
	}
	return hex.EncodeToString(b)
}

// CheckTree fails t unless spans form one tree (Tree) and returns the
// children of each span id ("" for the root's parent).
func CheckTree(t testing.TB, spans []Span) map[string][]Span {
	t.Helper()
	kids, problems := Tree(spans)
	for _, p := range problems {
		t.Error(p)
	}
	return kids
}

// Tree returns the children of each span id ("" for the root's parent),
// and what keeps spans from being one tree (one root, every parent
// present) with every span inside its parent's time.
func Tree(spans []Span) (map[string][]Span, []string) {
	byID := map[string]Span{}
	kids := map[string][]Span{}
	var problems []string
	for _, s := range spans {
		byID[s.SpanID] = s
	}
	for _, s := range spans {
		kids[s.ParentID] = append(kids[s.ParentID], s)
		if s.End < s.Start {
			problems = append(problems, fmt.Sprintf("span %q ends before it starts", s.Name))
		}
		if s.ParentID == "" {
			continue
		}
		p, ok := byID[s.ParentID]
		switch {
		case !ok:
			problems = append(problems, fmt.Sprintf("span %q: its parent %s is not in the trace", s.Name, s.ParentID))
		case s.Start < p.Start || s.End > p.End:
			problems = append(problems, fmt.Sprintf("span %q [%d, %d] is not inside its parent %q [%d, %d]", s.Name, s.Start, s.End, p.Name, p.Start, p.End))
		}
	}
	if n := len(kids[""]); n != 1 {
		problems = append(problems, fmt.Sprintf("%d root spans, want 1", n))
	}
	return kids, problems
}
