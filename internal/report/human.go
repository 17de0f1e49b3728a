package report

import (
	"fmt"

	"github.com/agent-eval/agent-eval/internal/rundir"
)

// humanView is a case's human review, as the report shows it.
type humanView struct {
	Verdict  string // pass, fail, or "" for a comment only
	Comment  string
	Reviewer string
	Time     string
	// Disagree: the person's verdict is not the case's own.
	Disagree bool
}

// humanOf is case c's review in r (nil when it has none), Disagree set
// against the case's verdict; texts redacted by red.
func humanOf(r *rundir.Review, c *rundir.CaseSummary, id string, red func(string) string) *humanView {
	if r == nil {
		return nil
	}
	cr, ok := r.Cases[id]
	if !ok {
		return nil
	}
	h := &humanView{Verdict: cr.Verdict, Comment: red(cr.Comment), Reviewer: red(cr.Reviewer), Time: cr.Time}
	if human, ok := cr.Passed(); ok && c != nil {
		if judged, ok := c.CasePassed(); ok && judged != human {
			h.Disagree = true
		}
	}
	return h
}

// humanLine sums up the human block in a sentence.
// name shows a judge's name (escaped for Markdown, say).
func humanLine(h *rundir.HumanSummary, name func(string) string) string {
	s := fmt.Sprintf("%d case(s) with a human verdict", h.Reviewed)
	if h.PassRate != nil {
		s += ", " + pct(h.PassRate) + " passed"
	}
	if a := h.CaseVerdict; a != nil {
		s += fmt.Sprintf("; agrees with the case verdict on %d of %d", a.Agreed, a.Compared)
	}
	for _, a := range h.Judges {
		s += fmt.Sprintf(", with %s on %d of %d", name(a.Judge), a.Agreed, a.Compared)
	}
	return s
}
