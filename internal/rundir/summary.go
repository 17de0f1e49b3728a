package rundir

import (
	"fmt"
	"os"

	yaml "go.yaml.in/yaml/v3"

	"github.com/agent-eval/agent-eval/internal/atomicfile"
	"github.com/agent-eval/agent-eval/internal/results"
)

// SummaryVersion is the version of summary.yaml.
const SummaryVersion = 1

// Summary is summary.yaml: the verdict of one scoring of a run. score
// writes it; report, compare and a later score --baseline read it.
type Summary struct {
	SchemaVersion int     `yaml:"schema_version"`
	RunID         string  `yaml:"run_id"`
	EvalName      string  `yaml:"eval_name"`
	Model         string  `yaml:"model,omitempty"`
	ScoredAt      string  `yaml:"scored_at"` // RFC 3339
	NumCases      int     `yaml:"num_cases"`
	CostUSD       float64 `yaml:"cost_usd"`   // the agent's, over the run
	DurationS     float64 `yaml:"duration_s"` // the run's wall clock
	JudgeCostUSD  float64 `yaml:"judge_cost_usd,omitempty"`
	Denials       int     `yaml:"denials"`
	// Violations sums what the agents tried that their world refused, over
	// every case and attempt (a batch's once); docs/violations.md.
	Violations ViolationCounts `yaml:"violations"`
	// AnswersByTier sums the AskUserQuestion answers by tier.
	AnswersByTier map[string]int `yaml:"answers_by_tier,omitempty"`
	// Judges aggregates each judge over the cases, in eval.yaml's order.
	Judges []JudgeSummary `yaml:"judges"`
	// Reward is the mean of the cases' rewards (nil without a reward).
	Reward *float64 `yaml:"reward,omitempty"`
	// Cases holds every case's verdicts, sorted by id.
	Cases []CaseSummary `yaml:"cases"`
	// Thresholds are the eval's thresholds, each checked.
	Thresholds []ThresholdResult `yaml:"thresholds,omitempty"`
	// Baseline compares this run with an earlier one (score --baseline).
	Baseline *Comparison `yaml:"baseline,omitempty"`
	// DroppedJudges are the judges score --no-llm-judges left out (each
	// calls a model), with why; their thresholds are Skipped.
	DroppedJudges []DroppedJudge `yaml:"dropped_judges,omitempty"`
	// BrokenJudges are the judges that judged no case: every case they
	// did not skip was an error sample. Each fails the verdict.
	BrokenJudges []string `yaml:"broken_judges,omitempty"`
	// Tampered are the cases by whose end what scoring reads had changed
	// (status tampered; by an agent, or by something else): each of their verdicts is a failure, and any one
	// fails the verdict.
	Tampered []string `yaml:"tampered,omitempty"`
	// Foreign are folders under cases/ that are none of the run's cases
	// (selection.json's, or a batch's batch_outputs.json's): the run did
	// not write them, so they are not judged, and any one fails the
	// verdict.
	Foreign []string `yaml:"foreign_cases,omitempty"`
	// JudgedCases counts the cases some judge gave a value to, and whose
	// agent run the harness could run (status other than error). NotJudged
	// says why none was, when none was: a verdict of no judged case is a
	// failure, whatever the thresholds say.
	JudgedCases int    `yaml:"judged_cases"`
	NotJudged   string `yaml:"not_judged,omitempty"`
	// Passed: every threshold held (and no regression against the
	// baseline); false makes score exit 1.
	Passed bool `yaml:"passed"`
	// LLM counts the LLM judge calls: made now, or answered from the cache.
	LLM LLMCalls `yaml:"llm_calls"`
	// Human sets review.yaml's human verdicts beside the judges' (nil
	// without a review of any of the cases). It never changes Passed.
	Human *HumanSummary `yaml:"human,omitempty"`

	// JudgeAgents counts the agent judges' runs, when any ran.
	JudgeAgents *JudgeAgentRuns `yaml:"judge_agents,omitempty"`
}

// ViolationCounts count violations (results.Violations): their total, by
// kind, and for a run the cases (or attempts) that had any.
type ViolationCounts struct {
	Total  int            `yaml:"total"`
	ByKind map[string]int `yaml:"by_kind,omitempty"`
	Cases  int            `yaml:"cases,omitempty"`
}

// CountsOf are v's counts; nil when v has none.
func CountsOf(v *results.Violations) *ViolationCounts {
	if v == nil || v.Total == 0 {
		return nil
	}
	c := &ViolationCounts{Total: v.Total, ByKind: map[string]int{}}
	for k, n := range v.ByKind {
		c.ByKind[string(k)] = n
	}
	return c
}

// Add adds o (nil: none) to c; cases says whether a case is counted.
func (c *ViolationCounts) Add(o *ViolationCounts, cases bool) {
	if o == nil || o.Total == 0 {
		return
	}
	c.Total += o.Total
	if cases {
		c.Cases++
	}
	for k, n := range o.ByKind {
		if c.ByKind == nil {
			c.ByKind = map[string]int{}
		}
		c.ByKind[k] += n
	}
}

// JudgeAgentRuns counts the agent judges' runs and what they cost.
type JudgeAgentRuns struct {
	Runs    int     `yaml:"runs"`
	Failed  int     `yaml:"failed,omitempty"`
	CostUSD float64 `yaml:"cost_usd"`
}

// DroppedJudge is a judge score left out, and why.
type DroppedJudge struct {
	Name   string `yaml:"name"`
	Kind   string `yaml:"kind"`
	Reason string `yaml:"reason"`
}

// GateCounts counts the summary's thresholds that held and those
// skipped (their judge dropped).
func (s *Summary) GateCounts() (met, skipped int) {
	for _, t := range s.Thresholds {
		switch {
		case t.Skipped:
			skipped++
		case t.OK:
			met++
		}
	}
	return met, skipped
}

// Breached says the gate was checked and did not hold.
func (t ThresholdResult) Breached() bool { return !t.OK && !t.Skipped }

// LLMCalls counts LLM judge calls.
type LLMCalls struct {
	Made   int `yaml:"made"`
	Cached int `yaml:"cached"`
	Failed int `yaml:"failed,omitempty"`
}

// JudgeSummary aggregates one judge over the cases.
type JudgeSummary struct {
	Name string `yaml:"name"`
	Kind string `yaml:"kind"` // check, expr, exec, llm, builtin
	// Type is the verdict type: bool, int or float.
	Type    string `yaml:"type"`
	Scored  int    `yaml:"scored"`  // cases with a value
	Skipped int    `yaml:"skipped"` // its if: was false
	Errors  int    `yaml:"errors"`  // error samples
	// Lost are the cases lost to the infrastructure (status infra_error):
	// never judged, never a 0; they count in the error rate.
	Lost int      `yaml:"lost,omitempty"`
	Mean *float64 `yaml:"mean,omitempty"`
	// PassRate is the share of scored cases that passed (bool judges, or a
	// numeric judge with a pass mark).
	PassRate  *float64 `yaml:"pass_rate,omitempty"`
	ErrorRate float64  `yaml:"error_rate"`
	// Interval is the confidence interval of the pass rate (else of the
	// mean), over the scored cases: Wilson's for a share of cases that
	// passed, a bootstrap's for a mean of attempts' shares, Student's t for
	// a mean score.
	Interval *Interval `yaml:"interval,omitempty"`
	// With repeats: Reduce is how each case's attempts became its verdict,
	// AttemptPassRate the share of all scored attempts that passed, and
	// Flaky the cases whose attempts disagreed.
	Reduce          string   `yaml:"reduce,omitempty"`
	AttemptPassRate *float64 `yaml:"attempt_pass_rate,omitempty"`
	Flaky           int      `yaml:"flaky,omitempty"`
}

// Attempts is how many attempts the summary's cases have: 1 for a run
// without repeats.
func (s *Summary) Attempts() int { return AttemptsOf(s.Cases) }

// AttemptsOf is the most attempts one of cases has (1 without repeats).
func AttemptsOf(cases []CaseSummary) int {
	n := 1
	for _, c := range cases {
		n = max(n, len(c.Attempts))
	}
	return n
}

// Interval is a confidence interval at Level (0.95) by Method.
type Interval struct {
	Low    float64 `yaml:"low"`
	High   float64 `yaml:"high"`
	Level  float64 `yaml:"level"`
	Method string  `yaml:"method"`
}

// CaseSummary is one case's verdicts.
type CaseSummary struct {
	ID string `yaml:"id"`
	// Status is how the agent's run ended (completed: exited 0; failed, timeout,
	// error, interrupted); it is not a verdict.
	Status    string   `yaml:"status"`
	Reward    *float64 `yaml:"reward,omitempty"`
	CostUSD   float64  `yaml:"cost_usd"`
	DurationS float64  `yaml:"duration_s"`
	Turns     int      `yaml:"turns"`
	Denials   int      `yaml:"denials"`
	// Violations are the case's (over its attempts), when it has any.
	Violations *ViolationCounts `yaml:"violations,omitempty"`
	Answers    map[string]int   `yaml:"answers_by_tier,omitempty"`
	Verdicts   []Verdict        `yaml:"verdicts"`
	// Attempts are the case's attempts of a run with repeats, each judged
	// on its own (Attempt 1 to N); the case's Verdicts are theirs reduced
	// (judges[].reduce), its cost, duration and turns their sums.
	Attempt  int           `yaml:"attempt,omitempty"`
	Attempts []CaseSummary `yaml:"attempts,omitempty"`
}

// Verdict is one judge's verdict on one case.
type Verdict struct {
	Judge string `yaml:"judge"`
	// Value is the verdict: 1/0 for a bool judge, the score for a numeric
	// one; nil when skipped or an error.
	Value     *float64 `yaml:"value,omitempty"`
	Passed    *bool    `yaml:"passed,omitempty"`
	Rationale string   `yaml:"rationale,omitempty"`
	Skipped   bool     `yaml:"skipped,omitempty"`
	Error     string   `yaml:"error,omitempty"`
	// Lost: the case was lost to the infrastructure and not judged.
	Lost bool `yaml:"lost,omitempty"`
	// Samples are the individual values of a sampled LLM judge, and Spread
	// their max - min.
	Samples []float64 `yaml:"samples,omitempty"`
	Spread  *float64  `yaml:"spread,omitempty"`
	Cached  bool      `yaml:"cached,omitempty"`
	// A verdict reduced over attempts: how many were scored and how many
	// of those passed (a pass/fail judge), and whether they disagreed.
	AttemptsScored int  `yaml:"attempts_scored,omitempty"`
	AttemptsPassed *int `yaml:"attempts_passed,omitempty"`
	Flaky          bool `yaml:"flaky,omitempty"`
}

// ThresholdResult is one threshold, checked.
type ThresholdResult struct {
	Judge  string  `yaml:"judge"`  // "" for a run-wide one (reward)
	Metric string  `yaml:"metric"` // min_mean, min_pass_rate, min_win_rate, max_error_rate
	Want   float64 `yaml:"want"`
	Got    float64 `yaml:"got"`
	OK     bool    `yaml:"ok"`
	// Detail says why, for a breach (e.g. "0.5 < 0.8", or "n/a: needs
	// --baseline").
	Detail string `yaml:"detail,omitempty"`
	// Skipped: the gate's judge was dropped (score --no-llm-judges), so
	// it was not checked; OK is false but it is no breach.
	Skipped bool `yaml:"skipped,omitempty"`
	// Interval is the metric's confidence interval when the gate has a
	// confidence: Got is then its lower bound, not the point estimate.
	Interval *Interval `yaml:"interval,omitempty"`
	Estimate *float64  `yaml:"estimate,omitempty"`
}

// Comparison is this run against an earlier one.
type Comparison struct {
	RunID  string       `yaml:"run_id"`
	Dir    string       `yaml:"dir"`
	Judges []JudgeDelta `yaml:"judges"`
	// Better and Worse list the (case, judge) pairs that changed.
	Better []CaseDelta `yaml:"better,omitempty"`
	Worse  []CaseDelta `yaml:"worse,omitempty"`
	// WinRate is the share of compared (case, judge) pairs this run won,
	// ties counting half.
	WinRate *float64 `yaml:"win_rate,omitempty"`
	// Pairwise is the pairwise LLM judge's A/B comparison, when one ran.
	Pairwise *Pairwise `yaml:"pairwise,omitempty"`
}

// Pairwise is an A/B comparison of two runs' outputs by a model, each case
// asked twice with the positions swapped: a side wins a case only if it
// wins both orders; anything else is a tie (or an error).
type Pairwise struct {
	RunA     string `yaml:"run_a"` // this run
	RunB     string `yaml:"run_b"` // the baseline
	Model    string `yaml:"model"`
	Compared int    `yaml:"cases_compared"`
	WinsA    int    `yaml:"wins_a"`
	WinsB    int    `yaml:"wins_b"`
	Ties     int    `yaml:"ties"`
	Errors   int    `yaml:"errors"`
	// WinRate is (wins_a + ties/2) / (cases_compared − errors), with its
	// Wilson interval.
	WinRate         *float64       `yaml:"win_rate,omitempty"`
	WinRateInterval *Interval      `yaml:"win_rate_interval,omitempty"`
	Cases           []PairwiseCase `yaml:"cases"`
}

// PairwiseCase is one case's A/B verdict: AB is the preference with this
// run shown first, BA with the baseline first (both in A/B/tie of that
// call's own labels).
type PairwiseCase struct {
	Case      string `yaml:"case"`
	Winner    string `yaml:"winner"` // A, B, tie or error
	AB        string `yaml:"ab,omitempty"`
	BA        string `yaml:"ba,omitempty"`
	Reasoning string `yaml:"reasoning,omitempty"`
	Error     string `yaml:"error,omitempty"`
}

// CompareSummary is compare.yaml: `agent-eval compare BASE NEW`, written
// into NEW.
type CompareSummary struct {
	SchemaVersion int    `yaml:"schema_version"`
	ComparedAt    string `yaml:"compared_at"`
	// Base and New are the runs' ids: the comparison is New's against Base.
	Base       string     `yaml:"base"`
	New        string     `yaml:"new"`
	Comparison Comparison `yaml:"comparison"`
}

// JudgeDelta is one judge's aggregate, before and now.
type JudgeDelta struct {
	Judge      string   `yaml:"judge"`
	MeanBefore *float64 `yaml:"mean_before,omitempty"`
	MeanNow    *float64 `yaml:"mean_now,omitempty"`
	PassBefore *float64 `yaml:"pass_rate_before,omitempty"`
	PassNow    *float64 `yaml:"pass_rate_now,omitempty"`
	Regression bool     `yaml:"regression,omitempty"`
	// WinRate is the share of this judge's cases, scored in both runs,
	// where this run did better, ties counting half.
	WinRate *float64 `yaml:"win_rate,omitempty"`
	// The paired test of the change: Paired (case, attempt) pairs scored in
	// both runs; Test (mcnemar-exact for pass/fail, wilcoxon for scores) and
	// its two-sided PValue; Effect the difference now − before (of pass
	// rates, or of means) with its EffectInterval (Newcombe's paired
	// interval, or a paired bootstrap), CohenD for scores; Change says
	// "better", "worse" or "no evidence of a change" at 0.05.
	Paired         int       `yaml:"paired,omitempty"`
	Test           string    `yaml:"test,omitempty"`
	PValue         *float64  `yaml:"p_value,omitempty"`
	Effect         *float64  `yaml:"effect,omitempty"`
	EffectInterval *Interval `yaml:"effect_interval,omitempty"`
	CohenD         *float64  `yaml:"cohen_d,omitempty"`
	Change         string    `yaml:"change,omitempty"`
}

// CaseDelta is one judge's verdict on one case, before and now.
type CaseDelta struct {
	Case   string   `yaml:"case"`
	Judge  string   `yaml:"judge"`
	Before *float64 `yaml:"before,omitempty"`
	Now    *float64 `yaml:"now,omitempty"`
}

// ReadSummary reads summary.yaml.
func (d Dir) ReadSummary() (*Summary, error) {
	b, err := os.ReadFile(d.Summary())
	if err != nil {
		return nil, fmt.Errorf("read the summary: %w", err)
	}
	var s Summary
	if err := yaml.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("read %s: %w", d.Summary(), err)
	}
	return &s, nil
}

// WriteSummary writes summary.yaml atomically.
func (d Dir) WriteSummary(s *Summary) error {
	b, err := yaml.Marshal(s)
	if err != nil {
		return fmt.Errorf("encode the summary: %w", err)
	}
	if err := atomicfile.Write(d.Summary(), b, 0o644); err != nil {
		return fmt.Errorf("write the summary: %w", err)
	}
	return nil
}

// ReadCompare reads compare.yaml.
func (d Dir) ReadCompare() (*CompareSummary, error) {
	b, err := os.ReadFile(d.Compare())
	if err != nil {
		return nil, fmt.Errorf("read the comparison: %w", err)
	}
	var c CompareSummary
	if err := yaml.Unmarshal(b, &c); err != nil {
		return nil, fmt.Errorf("read %s: %w", d.Compare(), err)
	}
	return &c, nil
}

// WriteCompare writes compare.yaml atomically.
func (d Dir) WriteCompare(c *CompareSummary) error {
	b, err := yaml.Marshal(c)
	if err != nil {
		return fmt.Errorf("encode the comparison: %w", err)
	}
	if err := atomicfile.Write(d.Compare(), b, 0o644); err != nil {
		return fmt.Errorf("write the comparison: %w", err)
	}
	return nil
}
