package results

// HarborTrial is what a Harbor trial said of a case beyond what a local run
// records: which trial and attempt it was, the reward its in-container
// verifier wrote and why there is none.
type HarborTrial struct {
	// Trial is the trial's folder name in the job, Attempt which of the
	// case's trials it was (1, 2, … in the order of their start; -k N gives
	// N) and Attempts how many the case had.
	Trial    string `json:"trial"`
	Attempt  int    `json:"attempt"`
	Attempts int    `json:"attempts"`
	// Reward is reward.json's reward; nil when there is none (unjudged, an
	// infrastructure error): never a 0 in its place.
	Reward *float64 `json:"reward"`
	// Rewards are reward.json's other numbers: one per judge.
	Rewards map[string]float64 `json:"rewards,omitempty"`
	// Judges are judges.json's per_judge verdicts.
	Judges map[string]HarborJudge `json:"judges,omitempty"`
	// Unjudged: the case had no judge the container could run.
	Unjudged bool `json:"unjudged,omitempty"`
	// InfraError says what of the infrastructure failed before the agent
	// had the container; "" when nothing did.
	InfraError string `json:"infra_error,omitempty"`
	// VerifierError says why the in-container verifier left no reward (it
	// failed, timed out, or its reward does not read). It ran in the
	// container the agent had, so the agent may have caused it: this is
	// no infrastructure error, and score judges the case as any other
	// from what was collected (what is missing fails its judges).
	VerifierError string `json:"verifier_error,omitempty"`
	// Exception is Harbor's exception_info: "<type>: <message>" (first line).
	Exception string `json:"exception,omitempty"`
}

// HarborJudge is one judge's verdict in the trial's judges.json.
type HarborJudge struct {
	Value     *float64 `json:"value"`
	Rationale string   `json:"rationale,omitempty"`
	JudgeType string   `json:"judge_type,omitempty"`
	Error     string   `json:"error,omitempty"`
}

// InfraError is a case (or one attempt or step of it) whose infrastructure
// failed.
type InfraError struct {
	Case    string `json:"case"`
	Attempt int    `json:"attempt,omitempty"`
	Step    string `json:"step,omitempty"`
	Reason  string `json:"reason"`
}
