package rundir

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/agent-eval/agent-eval/internal/atomicfile"
)

// ReviewFile is review.yaml: a person's verdicts on the run's cases
// (agent-eval review), beside the judges'.
const ReviewFile = "review.yaml"

// Human verdicts of a review.
const (
	HumanPass = "pass"
	HumanFail = "fail"
)

// Review is review.yaml. Its first fields are the ones upstream's
// eval-review writes and its eval-optimize and eval-mlflow read (a comment
// per case under feedback); Cases holds what agent-eval adds per case: a
// pass/fail verdict, who gave it and when. Reading a file with feedback
// only (upstream's) gives each commented case a review without a verdict;
// writing keeps feedback in step with Cases, so both read the file.
// Keys this package does not know (upstream's mlflow_feedback) are kept.
type Review struct {
	RunID         string            `yaml:"run_id"`
	ReviewedCases int               `yaml:"reviewed_cases"`
	FeedbackCases int               `yaml:"feedback_cases"`
	Reviewer      string            `yaml:"reviewer"`
	Feedback      map[string]string `yaml:"feedback"`
	// Cases are the reviews by case id.
	Cases map[string]CaseReview `yaml:"cases,omitempty"`
	// Other are the file's other top-level keys, written back as read.
	Other map[string]any `yaml:",inline"`
}

// CaseReview is a person's review of one case.
type CaseReview struct {
	// Verdict is pass or fail; "" for a comment without a verdict.
	Verdict  string `yaml:"verdict,omitempty"`
	Comment  string `yaml:"comment,omitempty"`
	Reviewer string `yaml:"reviewer,omitempty"`
	Time     string `yaml:"time,omitempty"` // RFC 3339
}

// Passed is the review's verdict as a bool; ok is false without one.
func (c CaseReview) Passed() (passed, ok bool) {
	switch c.Verdict {
	case HumanPass:
		return true, true
	case HumanFail:
		return false, true
	}
	return false, false
}

// Review is the run's review.yaml.
func (d Dir) Review() string { return filepath.Join(d.Path, ReviewFile) }

// ReadReview reads the run's review.yaml; nil, nil when there is none.
func (d Dir) ReadReview() (*Review, error) {
	b, err := os.ReadFile(d.Review())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", d.Review(), err)
	}
	r, err := ParseReview(b)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", d.Review(), err)
	}
	return r, nil
}

// ParseReview reads a review.yaml (ours or upstream's) and checks it: case
// ids are single path segments and verdicts pass or fail.
func ParseReview(b []byte) (*Review, error) {
	var r Review
	if err := yaml.Unmarshal(b, &r); err != nil {
		return nil, err
	}
	if r.Cases == nil {
		r.Cases = map[string]CaseReview{}
	}
	for id, c := range r.Cases {
		if !SafeSegment(id) {
			return nil, fmt.Errorf("cases: %q is not a case id", id)
		}
		v := strings.ToLower(strings.TrimSpace(c.Verdict))
		if v != "" && v != HumanPass && v != HumanFail {
			return nil, fmt.Errorf("cases.%s.verdict: %q is neither pass nor fail", id, c.Verdict)
		}
		c.Verdict = v
		r.Cases[id] = c
	}
	for id, comment := range r.Feedback {
		if !SafeSegment(id) {
			return nil, fmt.Errorf("feedback: %q is not a case id", id)
		}
		if _, ok := r.Cases[id]; !ok {
			r.Cases[id] = CaseReview{Comment: comment, Reviewer: r.Reviewer}
		}
	}
	return &r, nil
}

// Set records c as case id's review, replacing an earlier one.
func (r *Review) Set(id string, c CaseReview) {
	if r.Cases == nil {
		r.Cases = map[string]CaseReview{}
	}
	r.Cases[id] = c
}

// IDs are the reviewed cases, sorted.
func (r *Review) IDs() []string {
	ids := make([]string, 0, len(r.Cases))
	for id := range r.Cases {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// sync brings upstream's fields in step with Cases: a feedback entry per
// reviewed case (an empty comment: reviewed, nothing to say), the counts,
// and the reviewer of the latest review.
func (r *Review) sync() {
	r.Feedback = map[string]string{}
	r.FeedbackCases = 0
	latest := ""
	for id, c := range r.Cases {
		r.Feedback[id] = c.Comment
		if c.Comment != "" {
			r.FeedbackCases++
		}
		if c.Reviewer != "" && c.Time >= latest {
			latest, r.Reviewer = c.Time, c.Reviewer
		}
	}
	r.ReviewedCases = len(r.Cases)
	if r.Reviewer == "" {
		r.Reviewer = "human"
	}
}

// WriteReview writes r as the run's review.yaml, atomically.
func (d Dir) WriteReview(r *Review) error {
	r.sync()
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(r); err != nil {
		return fmt.Errorf("write %s: %w", d.Review(), err)
	}
	if err := enc.Close(); err != nil {
		return fmt.Errorf("write %s: %w", d.Review(), err)
	}
	if err := atomicfile.Write(d.Review(), b.Bytes(), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", d.Review(), err)
	}
	return nil
}
