package mlflow

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"

	"github.com/agent-eval/agent-eval/internal/redact"
	"github.com/agent-eval/agent-eval/internal/rundir"
)

// HumanAssessment is the name of the assessment a case's review becomes on
// its trace; its metadata's agent_eval key says agent-eval logged it, so
// that logging the run again replaces it instead of adding another.
const (
	HumanAssessment = "human_review"
	metaKey         = "agent_eval"
	metaValue       = "review"
)

// errNoTrace: the case has no trace on the server.
var errNoTrace = errors.New("no trace")

// assessment is MLflow's assessment of a trace (REST API 3.0).
type assessment struct {
	ID        string            `json:"assessment_id,omitempty"`
	Name      string            `json:"assessment_name"`
	TraceID   string            `json:"trace_id"`
	Source    assessmentSource  `json:"source"`
	Feedback  *feedbackValue    `json:"feedback,omitempty"`
	Rationale string            `json:"rationale,omitempty"`
	Metadata  map[string]string `json:"metadata,omitempty"`
}

type assessmentSource struct {
	Type string `json:"source_type"`
	ID   string `json:"source_id,omitempty"`
}

type feedbackValue struct {
	Value any `json:"value"`
}

// humanFeedback puts each case's review in review.yaml on the case's
// trace (traceOf names it) as human feedback: source type HUMAN, the
// reviewer as its source, the verdict as a boolean value (a comment
// without a verdict: the comment, as upstream's eval-mlflow logs it) and
// the comment as its rationale. It returns how many it logged.
func humanFeedback(ctx context.Context, c *Client, d rundir.Dir, traceOf func(string) string, red *redact.Redactor) (int, error) {
	r, err := d.ReadReview()
	if err != nil || r == nil {
		return 0, err
	}
	n := 0
	for _, id := range r.IDs() {
		cr := r.Cases[id]
		var value any = red.String(cr.Comment)
		if passed, ok := cr.Passed(); ok {
			value = passed
		} else if cr.Comment == "" {
			continue // reviewed, nothing said: no feedback
		}
		traceID := traceOf(id)
		if traceID == "" {
			continue
		}
		a := assessment{Name: HumanAssessment, TraceID: traceID,
			Source:   assessmentSource{Type: "HUMAN", ID: red.String(cmpOr(cr.Reviewer, "human"))},
			Feedback: &feedbackValue{Value: value}, Rationale: red.String(cr.Comment),
			Metadata: map[string]string{metaKey: metaValue, "case_id": id}}
		err := c.replaceAssessment(ctx, a)
		if errors.Is(err, errNoTrace) {
			continue // a case of a batch run has no trace of its own
		}
		if err != nil {
			return n, fmt.Errorf("case %s: %w", id, err)
		}
		n++
	}
	return n, nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// replaceAssessment deletes the trace's earlier human_review of ours,
// then creates a.
func (c *Client) replaceAssessment(ctx context.Context, a assessment) error {
	var got struct {
		Trace struct {
			Info struct {
				Assessments []assessment `json:"assessments"`
			} `json:"trace_info"`
		} `json:"trace"`
	}
	base := "/api/3.0/mlflow/traces/" + url.PathEscape(a.TraceID)
	if err := c.call(ctx, http.MethodGet, base, nil, nil, &got); err != nil {
		var ae *APIError
		if errors.As(err, &ae) && ae.Status == http.StatusNotFound {
			return errNoTrace
		}
		return fmt.Errorf("read the trace: %w", err)
	}
	for _, old := range got.Trace.Info.Assessments {
		if old.Name == HumanAssessment && old.Metadata[metaKey] == metaValue && old.ID != "" {
			if err := c.call(ctx, http.MethodDelete, base+"/assessments/"+url.PathEscape(old.ID), nil, nil, nil); err != nil {
				return fmt.Errorf("replace the earlier human feedback: %w", err)
			}
		}
	}
	if err := c.call(ctx, http.MethodPost, base+"/assessments", nil, map[string]any{"assessment": a}, nil); err != nil {
		return fmt.Errorf("log the human feedback: %w", err)
	}
	return nil
}
