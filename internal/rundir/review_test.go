package rundir

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestReviewUpstream: upstream's review.yaml (feedback only) reads as
// comment-only reviews, and writing keeps its fields (and its other keys)
// for upstream's readers.
func TestReviewUpstream(t *testing.T) {
	d := Dir{t.TempDir()}
	up := "run_id: r1\nreviewed_cases: 2\nfeedback_cases: 1\nreviewer: human\nfeedback:\n  case-a: \"too verbose\"\n  case-b: \"\"\nmlflow_feedback:\n  t1/x: {value: 1}\n"
	if err := os.WriteFile(d.Review(), []byte(up), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := d.ReadReview()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]CaseReview{"case-a": {Comment: "too verbose", Reviewer: "human"}, "case-b": {Reviewer: "human"}}
	if diff := cmp.Diff(want, r.Cases); diff != "" {
		t.Fatalf("cases (-want +got):\n%s", diff)
	}
	r.Set("case-b", CaseReview{Verdict: HumanFail, Comment: "wrong file", Reviewer: "ann", Time: "2026-01-02T00:00:00Z"})
	if err := d.WriteReview(r); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(d.Review())
	for _, s := range []string{"reviewed_cases: 2", "feedback_cases: 2", "reviewer: ann", "case-b: wrong file", "mlflow_feedback:", "verdict: fail"} {
		if !strings.Contains(string(b), s) {
			t.Errorf("review.yaml lacks %q:\n%s", s, b)
		}
	}
	again, err := d.ReadReview()
	if err != nil {
		t.Fatal(err)
	}
	if got := again.Cases["case-b"]; got.Verdict != HumanFail || again.Cases["case-a"].Comment != "too verbose" {
		t.Fatalf("round trip lost a review: %+v", again.Cases)
	}
}

func TestReviewBad(t *testing.T) {
	for name, in := range map[string]string{
		"verdict":  "cases:\n  a: {verdict: maybe}\n",
		"id":       "cases:\n  ../x: {verdict: pass}\n",
		"feedback": "feedback:\n  a/b: hi\n",
		"yaml":     "cases: [\n",
	} {
		if _, err := ParseReview([]byte(in)); err == nil {
			t.Errorf("%s: no error for %q", name, in)
		}
	}
	if r, err := (Dir{t.TempDir()}).ReadReview(); r != nil || err != nil {
		t.Fatalf("no review.yaml: got %v, %v", r, err)
	}
}

func TestHuman(t *testing.T) {
	yes, no := true, false
	s := &Summary{
		Judges: []JudgeSummary{{Name: "ok", Type: "bool"}, {Name: "score", Type: "float"}},
		Cases: []CaseSummary{
			{ID: "a", Verdicts: []Verdict{{Judge: "ok", Passed: &yes}}},
			{ID: "b", Verdicts: []Verdict{{Judge: "ok", Passed: &no}}},
			{ID: "c", Verdicts: []Verdict{{Judge: "ok", Error: "boom"}}},
			{ID: "d", Verdicts: []Verdict{{Judge: "ok", Passed: &yes}}},
		},
	}
	r := &Review{Cases: map[string]CaseReview{
		"a": {Verdict: HumanPass}, "b": {Verdict: HumanPass, Comment: "judge too strict"},
		"c": {Verdict: HumanFail}, "d": {Comment: "no verdict"}, "zz": {Verdict: HumanFail},
	}}
	h := Human(s, r)
	rate := func(f float64) *float64 { return &f }
	want := &HumanSummary{Reviewed: 3, Commented: 2, Passed: 2, PassRate: rate(2.0 / 3),
		CaseVerdict: &Agreement{Compared: 3, Agreed: 2, Rate: rate(2.0 / 3), Disagree: []string{"b"}},
		Judges:      []Agreement{{Judge: "ok", Compared: 2, Agreed: 1, Rate: rate(0.5), Disagree: []string{"b"}}}}
	if diff := cmp.Diff(want, h); diff != "" {
		t.Fatalf("human (-want +got):\n%s", diff)
	}
	if Human(s, &Review{Cases: map[string]CaseReview{"zz": {Verdict: HumanPass}}}) != nil {
		t.Fatal("a review of none of the cases gave a human block")
	}
}
