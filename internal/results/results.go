// Package results defines run_result.json, per case and for a whole run, and
// writes it atomically so a crash or an interrupt never leaves half a file.
package results

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"github.com/agent-eval/agent-eval/internal/atomicfile"
	"github.com/agent-eval/agent-eval/internal/transcript"
)

// SchemaVersion is the version of run_result.json.
const SchemaVersion = 1

// Status is how a case's agent run ended. It says nothing of whether the
// agent did the task well: judges own "passed".
type Status string

// The statuses of a case.
const (
	StatusCompleted   Status = "completed"   // the agent exited 0
	StatusFailed      Status = "failed"      // it exited non-zero (or changed the project in repo mode)
	StatusTimeout     Status = "timeout"     // it was killed at the timeout
	StatusError       Status = "error"       // the harness could not run it
	StatusInterrupted Status = "interrupted" // the run was interrupted while it ran
	// StatusTampered: what scoring reads (eval.yaml's folder, the dataset,
	// the judge cache) changed while the case ran; Tampered says what. Its
	// verdicts are failures, whatever the judges would say.
	StatusTampered Status = "tampered"
	// StatusInfraError: the infrastructure that ran the case failed (a
	// Harbor trial whose environment did not start or whose agent could
	// not be set up): nothing the agent did. Score judges no such case
	// (never a 0); Harbor.InfraError says what. A verifier that left no
	// reward is not one (Harbor.VerifierError): it ran where the agent had
	// been, and the agent must not escape its verdict by crashing it.
	StatusInfraError Status = "infra_error"
	// StatusDiverged: a replayed case (run --replay) asked the model what
	// its recording does not hold (the prompt, the skill or the harness
	// changed); Divergence says at which turn and how. Score counts it as
	// it counts error: not judged, and no pass.
	StatusDiverged Status = "diverged"
)

// Case is one case's result (cases/<id>/run_result.json, and per_case.<id> of
// the run's).
type Case struct {
	CaseID string `json:"case_id"`
	// Attempt is which attempt of the case this is, 1 to the run's
	// repeats (absent in a run without repeats); attempt n ≥ 2 is in
	// cases/<id>/attempts/<n>/.
	Attempt           int                              `json:"attempt,omitempty"`
	ExitCode          int                              `json:"exit_code"`
	Status            Status                           `json:"status"`
	Error             string                           `json:"error,omitempty"`
	TimedOut          bool                             `json:"timed_out,omitempty"`
	Interrupted       bool                             `json:"interrupted,omitempty"`
	DurationS         float64                          `json:"duration_s"`
	CostUSD           float64                          `json:"cost_usd"`
	TokenUsage        transcript.Usage                 `json:"token_usage"`
	NumTurns          int                              `json:"num_turns"`
	PerModelUsage     map[string]transcript.ModelUsage `json:"per_model_usage"`
	Model             string                           `json:"model,omitempty"`
	Result            string                           `json:"result,omitempty"`
	IsError           bool                             `json:"is_error"`
	PermissionDenials []transcript.Denial              `json:"permission_denials"`
	// Answers counts the AskUserQuestion questions the hook answered and
	// Claude Code delivered (the call's tool_result came back without an
	// error); AnswerLog says which, and by which tier. AnswersNotDelivered
	// counts answers in the ledger whose call was denied or never returned
	// (a hook killed at its timeout, say).
	Answers             int      `json:"answered_questions"`
	AnswerLog           []Answer `json:"answers,omitempty"`
	AnswersNotDelivered int      `json:"answers_not_delivered,omitempty"`
	// AnswersByTier counts the delivered answers by tier (case_override,
	// llm, fallback); a fallback answer means neither answers.yaml nor the
	// hook model answered the question.
	AnswersByTier map[string]int `json:"answers_by_tier,omitempty"`
	// ToolCalls are the agent's tool calls (all steps'), for the run's own
	// bookkeeping; stdout.log has them.
	ToolCalls []transcript.ToolCall `json:"-"`
	Prompt    string                `json:"prompt"`
	// Tampered lists what scoring reads that changed while the case ran
	// ("<path>: added|removed|changed"), when its status is tampered.
	Tampered []string `json:"tampered,omitempty"`
	// RepoModified: in repo mode, the case changed the repository (its
	// refs, index, configuration, hooks or work tree); RepoChanges says
	// what, one "what: how" line each. The harness undid them.
	RepoModified bool     `json:"repo_modified,omitempty"`
	RepoChanges  []string `json:"repo_changes,omitempty"`
	// Steps are the step results of a multi-step pipeline, in order.
	Steps []*Case `json:"steps,omitempty"`
	// AbortedAtStep names the failed step that stopped the pipeline.
	AbortedAtStep string `json:"aborted_at_step,omitempty"`
	// ModifiedFiles are the files the agent added or changed in its workspace
	// (copied to _modified/), outputs and harness files left out.
	ModifiedFiles []string `json:"modified_files,omitempty"`
	Workspace     string   `json:"workspace,omitempty"`
	// Ungated: the runner wired the hook, but the decision ledger has no
	// canary line, so the agent ran without it (engine.MarkUngated); the
	// case is then an error.
	Ungated bool `json:"ungated,omitempty"`
	// Retries are why the agent was run again (an infrastructure error:
	// the model API's 429 or 5xx, an agent that could not start), one
	// entry a retry; with status infra_error every try failed so.
	Retries []string `json:"retries,omitempty"`
	// Refused are the hosts the boundary's proxy did not let the agent
	// reach, with how often it tried.
	Refused []Refusal `json:"boundary_refused,omitempty"`
	// Harbor is the Harbor trial the case was imported from (agent-eval
	// harbor import), nil for a local run.
	Harbor *HarborTrial `json:"harbor,omitempty"`
	// OverLimit: the agent left more than execution.limits lets a case
	// leave in the run directory, and what did not fit was not collected;
	// the case is then an error. Nil when everything was collected.
	OverLimit *OverLimit `json:"over_limit,omitempty"`
	// OverQuota says how the agent's files passed the boundary's quota
	// (execution.limits.disk_bytes, disk_files), when it was stopped for it.
	OverQuota string `json:"over_quota,omitempty"`
	// Violations are what the agent tried that its world refused (denied
	// calls, hidden paths, refused connections, quota hits, tampering),
	// counted when the case finished; absent in a run before layout 8,
	// for which score counts them from the same files (rundir).
	Violations *Violations `json:"violations,omitempty"`
	// Divergence: a replay's request that its recording did not hold
	// (status diverged).
	Divergence *Divergence `json:"divergence,omitempty"`
}

// Divergence is where a replayed case left its recording: the main-loop
// turn (from 0), a unified diff of the recorded request's last message
// against the one the agent sent (also in divergence.txt), and the
// cassette replayed.
type Divergence struct {
	Turn     int    `json:"turn"`
	Diff     string `json:"diff"`
	Cassette string `json:"cassette"`
}

// OverLimit is what a case's collection left out for its limits.
type OverLimit struct {
	// Limits are the case's (execution.limits).
	Limits CollectLimits `json:"limits"`
	// SeenBytes and SeenFiles are what the agent left to collect (files
	// and folders); CollectedBytes and CollectedFiles what was collected.
	SeenBytes      int64 `json:"seen_bytes"`
	SeenFiles      int   `json:"seen_files"`
	CollectedBytes int64 `json:"collected_bytes"`
	CollectedFiles int   `json:"collected_files"`
	// Skipped are the first files left out (at most 100); SkippedFiles
	// and SkippedBytes count them all.
	Skipped      []SkippedFile `json:"skipped"`
	SkippedFiles int           `json:"skipped_files"`
	SkippedBytes int64         `json:"skipped_bytes"`
}

// CollectLimits are execution.limits as a case ran with them.
type CollectLimits struct {
	CollectBytes int64 `json:"collect_bytes"`
	FileBytes    int64 `json:"file_bytes"`
	Files        int   `json:"files"`
}

// SkippedFile is one file (or folder: a path ending in /) not collected.
type SkippedFile struct {
	// Path is where the agent left it: relative to its workspace (in repo
	// mode, to the project; worktree.patch is the harness's diff of it).
	Path string `json:"path"`
	// Bytes is its apparent size (a sparse file's whole size); AtLeast:
	// it was left out before it was known whole.
	Bytes   int64 `json:"bytes"`
	AtLeast bool  `json:"at_least,omitempty"`
	// Limit is the one it would have gone past: collect_bytes, file_bytes
	// or files.
	Limit string `json:"limit"`
}

// Answer is one AskUserQuestion question the hook answered and Claude Code
// delivered to the agent.
type Answer struct {
	ToolUseID string `json:"tool_use_id"`
	Question  string `json:"question"`
	Answer    string `json:"answer"`
	Tier      string `json:"tier"` // case_override, llm or fallback
	// Why says, for a fallback answer, why the hook model did not answer
	// (the hook's warning, from the ledger).
	Why string `json:"why,omitempty"`
}

// TierCounts counts answers by tier; nil when there are none.
func TierCounts(answers []Answer) map[string]int {
	if len(answers) == 0 {
		return nil
	}
	out := map[string]int{}
	for _, a := range answers {
		out[a.Tier]++
	}
	return out
}

// RunResult is the run's run_result.json.
type RunResult struct {
	SchemaVersion int `json:"schema_version"`
	// LayoutVersion is the run directory's layout (rundir.LayoutVersion);
	// absent (0) in runs of an agent-eval before it, which are layout 1.
	LayoutVersion int                              `json:"layout_version,omitempty"`
	RunID         string                           `json:"run_id"`
	EvalName      string                           `json:"eval_name"`
	ExitCode      int                              `json:"exit_code"`
	Interrupted   bool                             `json:"interrupted,omitempty"`
	DurationS     float64                          `json:"duration_s"`
	WallClockS    float64                          `json:"wall_clock_s"`
	CostUSD       float64                          `json:"cost_usd"`
	TokenUsage    transcript.Usage                 `json:"token_usage"`
	NumTurns      int                              `json:"num_turns"`
	PerModelUsage map[string]transcript.ModelUsage `json:"per_model_usage"`
	NumCases      int                              `json:"num_cases"`
	Model         string                           `json:"model"`
	Agent         string                           `json:"agent"`
	AgentVersion  string                           `json:"agent_version"`
	HarnessVer    string                           `json:"agent_eval_version"`
	ExecutionMode string                           `json:"execution_mode"`
	// Repeats is how many attempts each case has (execution.repeats,
	// --repeat); absent: 1. per_case holds attempt 1; the totals count
	// every attempt.
	Repeats    int            `json:"repeats,omitempty"`
	EvalParams map[string]any `json:"eval_params"`
	// Containment is how the agents' processes were kept from outliving
	// their cases (pid-namespace, subreaper, process-group) and
	// ContainmentDetail why not a pid namespace, or what it lacked.
	Containment       string `json:"containment,omitempty"`
	ContainmentDetail string `json:"containment_detail,omitempty"`
	// Boundary is the world the harness drew for each agent (files,
	// network, processes, limits), or why it drew none.
	Boundary *Boundary `json:"boundary,omitempty"`
	// PerCase holds each case's result in case mode.
	PerCase map[string]*Case `json:"per_case,omitempty"`
	// AnswersByTier sums the cases' answers by tier.
	AnswersByTier map[string]int `json:"answers_by_tier,omitempty"`
	// Violations sums the cases' violations, every attempt's (a batch's
	// once); its cases counts the attempts with any.
	Violations *ViolationTotals `json:"violations,omitempty"`
	// PermissionDenials holds the denials of the single agent run in batch
	// mode ([] when there were none); per case in case mode.
	PermissionDenials *[]transcript.Denial `json:"permission_denials,omitempty"`
	// Batch is the batch run's own record in batch mode.
	Batch *Case `json:"batch,omitempty"`

	// What the run ran (its config/ folder holds the files).
	//
	// StartedAt and EndedAt are this attempt's start and end (RFC 3339).
	StartedAt string `json:"started_at,omitempty"`
	EndedAt   string `json:"ended_at,omitempty"`
	// AgentBin is the agent CLI's path (Agent names the runner).
	AgentBin string `json:"agent_bin,omitempty"`
	// HarnessRevision is agent-eval's VCS revision, when it was built from
	// a checkout.
	HarnessRevision string `json:"agent_eval_revision,omitempty"`
	// Models are the models as configured.
	Models *Models `json:"models,omitempty"`
	// Config is the eval.yaml the run loaded.
	Config *ConfigSource `json:"config,omitempty"`
	// Project is the git state of eval.yaml's work tree, when it is in one.
	Project *Project `json:"project,omitempty"`
	// CommandLine is the command that made the run, secret-looking values
	// redacted.
	CommandLine []string `json:"command_line,omitempty"`
	// HarborJobDir is the Harbor job folder an imported run was read from,
	// and InfraErrors its cases whose infrastructure failed (status
	// infra_error, or a step without a reward), kept apart from failures.
	HarborJobDir string       `json:"harbor_job_dir,omitempty"`
	InfraErrors  []InfraError `json:"infra_errors,omitempty"`
}

// Models are a run's models: the agent's (the model under test), the
// interception hook's and the judges' (models.judge; "" when unset).
type Models struct {
	Agent string `json:"agent"`
	Hook  string `json:"hook"`
	Judge string `json:"judge"`
}

// ConfigSource is the eval.yaml a run loaded: where it was (its folder is
// the base of the copy's relative paths) and the sha256 of its content as
// loaded, for telling whether it has changed since.
type ConfigSource struct {
	Path   string `json:"path"`
	Dir    string `json:"dir"`
	SHA256 string `json:"sha256"`
}

// NewConfigSource records the eval.yaml at path, in folder dir, whose
// content is content.
func NewConfigSource(path, dir string, content []byte) *ConfigSource {
	return &ConfigSource{Path: path, Dir: dir, SHA256: configDigest(content)}
}

// Matches reports whether content is the content the run loaded.
func (c *ConfigSource) Matches(content []byte) bool { return configDigest(content) == c.SHA256 }

func configDigest(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// Project is the git state of the work tree holding eval.yaml when the run
// started: its commit and whether tracked files differed from it.
type Project struct {
	Root   string `json:"root"`
	Commit string `json:"commit"`
	Dirty  bool   `json:"dirty"`
}

// Add folds a finished case into the run's totals.
func (r *RunResult) Add(c *Case) {
	r.PerCase[c.CaseID] = c
	r.DurationS += c.DurationS
	r.CostUSD += c.CostUSD
	r.TokenUsage.Add(c.TokenUsage)
	r.NumTurns += c.NumTurns
	for tier, n := range c.AnswersByTier {
		if r.AnswersByTier == nil {
			r.AnswersByTier = map[string]int{}
		}
		r.AnswersByTier[tier] += n
	}
	if c.Violations != nil {
		if r.Violations == nil {
			r.Violations = &ViolationTotals{}
		}
		r.Violations.AddCase(c.Violations)
	}
	transcript.AddPerModel(r.PerModelUsage, c.PerModelUsage)
	r.NumCases = len(r.PerCase)
	// A failure is never masked: the first non-zero exit code stays.
	if r.ExitCode == 0 && c.ExitCode != 0 {
		r.ExitCode = c.ExitCode
	}
}

// AddAttempt counts a case's other attempt (2 and up) in the run's totals
// — what the agents spent — though not among its cases: per_case is
// attempt 1's.
func (r *RunResult) AddAttempt(c *Case) {
	r.DurationS += c.DurationS
	r.CostUSD += c.CostUSD
	r.TokenUsage.Add(c.TokenUsage)
	r.NumTurns += c.NumTurns
	if c.Violations != nil {
		if r.Violations == nil {
			r.Violations = &ViolationTotals{}
		}
		r.Violations.AddCase(c.Violations)
	}
	transcript.AddPerModel(r.PerModelUsage, c.PerModelUsage)
}

// WriteJSON writes v to path atomically and synced (atomicfile.Write):
// for a case's result, which a crash must not lose.
func WriteJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(path, append(b, '\n'), 0o644)
}

// Boundary is what run_result.json says of the world the harness drew for
// the agents (package boundary).
type Boundary struct {
	On        bool   `json:"on"`
	Why       string `json:"why,omitempty"` // why there was none
	Files     string `json:"files,omitempty"`
	Network   string `json:"network,omitempty"`
	Processes string `json:"processes,omitempty"`
	Limits    string `json:"limits,omitempty"`
}

// Refusal is a host the boundary's proxy refused the agent, and how often.
type Refusal struct {
	Host  string `json:"host"`
	Count int    `json:"count"`
	// CLIHost: the host is one the agent CLI contacts on its own (update
	// checks, telemetry): unless a tool call names it, the refusal is the
	// CLI's traffic, not the model's (ViolationCLITraffic).
	CLIHost bool `json:"cli_host,omitempty"`
}

// ViolationKind is what kind of thing the agent tried that its world
// refused (docs/violations.md).
type ViolationKind string

// The kinds of violation.
const (
	// ViolationDeniedCall: a tool call the hook (a handler, the git
	// layer, a command it could not read) or the agent's own permission
	// layer refused.
	ViolationDeniedCall ViolationKind = "denied_call"
	// ViolationHiddenPath: a refused call on a path the eval denies or the
	// harness hides (the hook's path layer; a file tool's call the
	// permission layer refused).
	ViolationHiddenPath ViolationKind = "hidden_path"
	// ViolationRefusedConnection: a connection the boundary's proxy
	// refused (one per attempt).
	ViolationRefusedConnection ViolationKind = "refused_connection"
	// ViolationQuota: the agent's files passed execution.limits (the
	// boundary stopped it, or the collection left files out).
	ViolationQuota ViolationKind = "quota"
	// ViolationTampered: what scoring reads changed while the case ran
	// (one per change).
	ViolationTampered ViolationKind = "tampered"
	// ViolationCLITraffic: a connection the boundary refused the agent
	// CLI's own traffic (a host of its own, Refusal.CLIHost, that no tool
	// call named): listed, but not counted in Total or ByKind, so not
	// gated either.
	ViolationCLITraffic ViolationKind = "cli_traffic"
)

// ViolationKinds are every kind that counts, in the order they are shown
// (ViolationCLITraffic is listed but never counted).
func ViolationKinds() []ViolationKind {
	return []ViolationKind{ViolationDeniedCall, ViolationHiddenPath, ViolationRefusedConnection, ViolationQuota, ViolationTampered}
}

// Violations are what a case's agent tried that its world refused: each
// kind counted, and each one listed.
type Violations struct {
	// Total is the sum of ByKind.
	Total int `json:"total"`
	// ByKind counts them by kind (absent: none).
	ByKind map[ViolationKind]int `json:"by_kind,omitempty"`
	// CLITraffic counts the refused attempts of the agent CLI's own
	// traffic (kind cli_traffic), which Total leaves out.
	CLITraffic int `json:"cli_traffic,omitempty"`
	// List says what each was, in the order found: the hook's ledger and
	// the agent's denials by call, then the boundary's and the harness's.
	List []Violation `json:"list,omitempty"`
}

// Violation is one thing the agent tried that was refused.
type Violation struct {
	Kind ViolationKind `json:"kind"`
	// Source is the layer that refused it: hook (the interception hook),
	// agent (the agent CLI's own permission layer or sandbox), boundary
	// (the harness's boundary: its proxy, its quota) or harness (what the
	// harness found after the case: tampering, files over the limits).
	Source    string `json:"source"`
	Tool      string `json:"tool,omitempty"`
	ToolUseID string `json:"tool_use_id,omitempty"`
	// Target is what the call was for, in one line (the command, the
	// path), or the host, or the file.
	Target string `json:"target,omitempty"`
	Reason string `json:"reason,omitempty"`
	// Count is how many attempts the entry stands for (a host refused
	// three times is one entry of count 3); it is at least 1.
	Count int `json:"count"`
}

// Add lists v and counts it, but for the CLI's own traffic, which it
// counts apart (CLITraffic).
func (vs *Violations) Add(v Violation) {
	v.Count = max(v.Count, 1)
	vs.List = append(vs.List, v)
	if v.Kind == ViolationCLITraffic {
		vs.CLITraffic += v.Count
		return
	}
	if vs.ByKind == nil {
		vs.ByKind = map[ViolationKind]int{}
	}
	vs.ByKind[v.Kind] += v.Count
	vs.Total += v.Count
}

// ViolationTotals sums the violations of many cases.
type ViolationTotals struct {
	Total  int                   `json:"total"`
	ByKind map[ViolationKind]int `json:"by_kind,omitempty"`
	// Cases counts the cases (each attempt of one) with at least one.
	Cases int `json:"cases"`
	// CLITraffic sums the cases' uncounted CLI traffic (Violations.CLITraffic).
	CLITraffic int `json:"cli_traffic,omitempty"`
}

// AddCase folds one case's violations (nil: none) into t.
func (t *ViolationTotals) AddCase(v *Violations) {
	if v == nil {
		return
	}
	t.CLITraffic += v.CLITraffic
	if v.Total == 0 {
		return
	}
	t.Cases++
	t.Total += v.Total
	for k, n := range v.ByKind {
		if t.ByKind == nil {
			t.ByKind = map[ViolationKind]int{}
		}
		t.ByKind[k] += n
	}
}
