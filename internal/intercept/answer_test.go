package intercept_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agent-eval/agent-eval/internal/intercept"
)

// slowAnswerer answers every question with its first option after a delay,
// or after block when the question is "Stuck?", and counts the calls in
// flight at once.
type slowAnswerer struct {
	delay, block   time.Duration
	inFlight, peak atomic.Int32
}

func (s *slowAnswerer) Answer(ctx context.Context, q intercept.Question) (string, error) {
	n := s.inFlight.Add(1)
	defer s.inFlight.Add(-1)
	for {
		p := s.peak.Load()
		if n <= p || s.peak.CompareAndSwap(p, n) {
			break
		}
	}
	d := s.delay
	if q.Question == "Stuck?" {
		d = s.block
	}
	select {
	case <-time.After(d):
		return q.Options[len(q.Options)-1], nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

func askPolicy(t *testing.T) *intercept.Policy {
	t.Helper()
	p, err := intercept.Prepare(intercept.File{Handlers: []intercept.Handler{{Match: "questions", Patterns: []string{"AskUserQuestion"},
		CaseOverrides: map[string]string{"Override?": "no"}}}})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func questions(qs ...string) map[string]any {
	var out []any
	for _, q := range qs {
		out = append(out, map[string]any{"question": q, "options": []any{map[string]any{"label": "yes"}, map[string]any{"label": "no"}}})
	}
	return map[string]any{"questions": out}
}

// TestAnswerConcurrently: three questions whose tier-2 calls each take more
// than a third of the deadline are all answered by the model within it —
// asked at once, not one after the other.
func TestAnswerConcurrently(t *testing.T) {
	t.Parallel()
	const deadline = 1200 * time.Millisecond
	llm := &slowAnswerer{delay: deadline / 2}
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	start := time.Now()
	d := intercept.Decide(ctx, askPolicy(t), intercept.Request{ToolName: "AskUserQuestion", ToolInput: questions("One?", "Two?", "Three?", "Override?")}, llm)
	if took := time.Since(start); took > deadline {
		t.Errorf("Decide took %v, past the %v deadline", took, deadline)
	}
	if d.Kind != intercept.Allow {
		t.Fatalf("decision %s (%s), want allow", d.Kind, d.Reason)
	}
	for _, q := range []string{"One?", "Two?", "Three?"} {
		if d.Answers[q] != "no" || d.Tiers[q] != intercept.TierLLM {
			t.Errorf("%s answered %q by %q; want the model's %q (warnings: %v)", q, d.Answers[q], d.Tiers[q], "no", d.Warnings)
		}
	}
	if d.Tiers["Override?"] != intercept.TierOverride {
		t.Errorf("Override? answered by %q, want the case override", d.Tiers["Override?"])
	}
	if got := llm.peak.Load(); got != 3 {
		t.Errorf("%d tier-2 calls at once, want 3", got)
	}
}

// TestAnswerDeadline: a question the model has not answered by the deadline
// gets the fallback with a warning, and Decide returns at the deadline,
// with the questions answered in time kept.
func TestAnswerDeadline(t *testing.T) {
	t.Parallel()
	const deadline = 300 * time.Millisecond
	llm := &slowAnswerer{delay: 10 * time.Millisecond, block: time.Hour}
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	start := time.Now()
	d := intercept.Decide(ctx, askPolicy(t), intercept.Request{ToolName: "AskUserQuestion", ToolInput: questions("Quick?", "Stuck?")}, llm)
	if took := time.Since(start); took > deadline+500*time.Millisecond {
		t.Errorf("Decide took %v; it must return at the %v deadline", took, deadline)
	}
	if d.Kind != intercept.Allow || d.Tiers["Quick?"] != intercept.TierLLM || d.Tiers["Stuck?"] != intercept.TierFallback || d.Answers["Stuck?"] != "yes" {
		t.Fatalf("decision %s, answers %v, tiers %v; want Quick? by the model, Stuck? by the fallback", d.Kind, d.Answers, d.Tiers)
	}
	if w := strings.Join(d.Warnings, "\n"); !strings.Contains(w, `could not answer "Stuck?"`) || !strings.Contains(w, "deadline") {
		t.Errorf("warnings %q; want one naming Stuck? and the deadline", w)
	}
}
