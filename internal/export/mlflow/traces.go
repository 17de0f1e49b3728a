package mlflow

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/agent-eval/agent-eval/internal/export/otlpvalue"
)

// Trace is what dataset generation reads of one MLflow trace: its id, its
// tags, and its root span's inputs and outputs (the request and the
// response), decoded from JSON when they are JSON.
type Trace struct {
	ID       string
	Time     int64 // request time, Unix milliseconds
	Tags     map[string]string
	Metadata map[string]string
	Inputs   any
	Outputs  any
	// Questions are the spans below the root that asked the user
	// (AskUserQuestion): what was asked and answered, in span order.
	Questions []Interaction
}

// Interaction is one question a trace's agent asked and its answer.
type Interaction struct {
	Input, Output any
}

// ExperimentID finds the experiment named name without creating it; ok is
// false when there is none (or it is deleted).
func (c *Client) ExperimentID(ctx context.Context, name string) (id string, ok bool, err error) {
	var got struct {
		Experiment Experiment `json:"experiment"`
	}
	err = c.call(ctx, http.MethodGet, "/api/2.0/mlflow/experiments/get-by-name", url.Values{"experiment_name": {name}}, nil, &got)
	switch {
	case isCode(err, "RESOURCE_DOES_NOT_EXIST"):
		return "", false, nil
	case err != nil:
		return "", false, fmt.Errorf("find experiment %q: %w", name, err)
	case got.Experiment.LifecycleStage == "deleted":
		return "", false, nil
	}
	return got.Experiment.ID, true, nil
}

// Traces lists up to max traces of the experiment expID, newest first, each
// read whole for its root span's inputs and outputs (falling back to the
// server's request and response previews for a trace without spans).
func (c *Client) Traces(ctx context.Context, expID string, max int) ([]Trace, error) {
	var found []traceInfo
	token := ""
	for len(found) < max {
		body := map[string]any{
			"locations":   []any{map[string]any{"type": "MLFLOW_EXPERIMENT", "mlflow_experiment": map[string]any{"experiment_id": expID}}},
			"max_results": min(max-len(found), 500),
			"order_by":    []string{"timestamp_ms DESC"},
		}
		if token != "" {
			body["page_token"] = token
		}
		var page struct {
			Traces []traceInfo `json:"traces"`
			Next   string      `json:"next_page_token"`
		}
		if err := c.call(ctx, http.MethodPost, "/api/3.0/mlflow/traces/search", nil, body, &page); err != nil {
			return nil, fmt.Errorf("search the traces of experiment %s: %w", expID, err)
		}
		found = append(found, page.Traces...)
		if page.Next == "" || len(page.Traces) == 0 {
			break
		}
		token = page.Next
	}
	if len(found) > max {
		found = found[:max]
	}
	out := make([]Trace, 0, len(found))
	for _, ti := range found {
		t := Trace{ID: ti.TraceID, Tags: ti.Tags, Metadata: ti.Metadata, Inputs: jsonOrText(ti.RequestPreview), Outputs: jsonOrText(ti.ResponsePreview)}
		t.Time = ti.requestMillis()
		in, outv, qs, ok, err := c.rootIO(ctx, ti.TraceID)
		if err != nil {
			return nil, err
		}
		if ok {
			t.Inputs, t.Outputs = in, outv
		}
		t.Questions = qs
		out = append(out, t)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Time > out[j].Time })
	return out, nil
}

type traceInfo struct {
	TraceID         string            `json:"trace_id"`
	RequestTime     string            `json:"request_time"` // RFC 3339
	RequestPreview  string            `json:"request_preview"`
	ResponsePreview string            `json:"response_preview"`
	Tags            map[string]string `json:"tags"`
	Metadata        map[string]string `json:"trace_metadata"`
}

func (ti traceInfo) requestMillis() int64 {
	t, err := time.Parse(time.RFC3339Nano, ti.RequestTime)
	if err != nil {
		return 0
	}
	return t.UnixMilli()
}

// rootIO reads trace id whole and returns its root span's
// mlflow.spanInputs and mlflow.spanOutputs (ok is false without a root
// span that has inputs) and the AskUserQuestion spans below it.
func (c *Client) rootIO(ctx context.Context, id string) (in, out any, qs []Interaction, ok bool, err error) {
	var got struct {
		Trace struct {
			Spans []struct {
				Parent     string `json:"parent_span_id"`
				Name       string `json:"name"`
				Attributes []struct {
					Key   string          `json:"key"`
					Value json.RawMessage `json:"value"`
				} `json:"attributes"`
			} `json:"spans"`
		} `json:"trace"`
	}
	if err := c.call(ctx, http.MethodGet, "/api/3.0/mlflow/traces/get", url.Values{"trace_id": {id}}, nil, &got); err != nil {
		return nil, nil, nil, false, fmt.Errorf("read trace %s: %w", id, err)
	}
	for _, sp := range got.Trace.Spans {
		var spIn, spOut any
		hasIn := false
		for _, a := range sp.Attributes {
			switch a.Key {
			case "mlflow.spanInputs":
				spIn, hasIn = anyValue(a.Value), true
			case "mlflow.spanOutputs":
				spOut = anyValue(a.Value)
			}
		}
		switch {
		case sp.Parent == "":
			in, out, ok = spIn, spOut, hasIn
		case strings.Contains(sp.Name, "AskUserQuestion"):
			qs = append(qs, Interaction{Input: spIn, Output: spOut})
		}
	}
	return in, out, qs, ok, nil
}

// jsonOrText is s decoded as JSON when it is a JSON object, array or
// string, else s itself ("" is nil).
func jsonOrText(s string) any {
	if s == "" {
		return nil
	}
	var v any
	if json.Unmarshal([]byte(s), &v) == nil {
		switch v.(type) {
		case map[string]any, []any, string:
			return v
		}
	}
	return s
}

// anyValue decodes an OTLP AnyValue in its JSON form (as MLflow's trace
// API answers it); a string holding a JSON object or array (another
// client's span inputs) is decoded too.
func anyValue(raw json.RawMessage) any {
	v := otlpvalue.Decode(raw)
	if s, ok := v.(string); ok {
		if t := strings.TrimSpace(s); strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[") {
			return jsonOrText(s)
		}
	}
	return v
}
