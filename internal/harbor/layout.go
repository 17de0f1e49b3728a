// Package harbor makes agent-eval's cases into Harbor task packages and
// reads Harbor's job folders back into run directories. We build no
// scheduler: Harbor (PyPI harbor) runs the trials, in containers on Docker
// or a cloud sandbox; this package writes what it runs and reads what it
// writes.
//
//	export:  eval.yaml + cases → <dir>/<task>/{task.toml, instruction.md, environment/, tests/}
//	verify:  inside the trial, after the agent: the case's deterministic judges → /logs/verifier/reward.json
//	import:  <jobs>/<job>/<trial>/… → a run directory, the same shape a local run writes
//
// The names below are the contract between the three: the export writes
// them, the in-container verifier (agent-eval harbor verify) reads and
// writes them, the import reads them.
package harbor

// Paths inside the container (Harbor's own, and the workdir the export
// sets). Every verb that runs in the container takes them as flags with
// these defaults, so tests run it on temporary folders.
const (
	// Workdir is [environment].workdir: where Harbor uploads the task's
	// environment/ folder and the agent's cwd.
	Workdir = "/workspace"
	// AgentLogsDir is where Harbor's agents write their logs
	// (claude-code.txt); Harbor downloads it to <trial>/agent/.
	AgentLogsDir = "/logs/agent"
	// VerifierLogsDir is where the verifier writes reward.json; Harbor
	// downloads it to <trial>/verifier/.
	VerifierLogsDir = "/logs/verifier"
	// TestsDir is where Harbor uploads the task's tests/ folder, after the
	// agent has run (so nothing there is the agent's).
	TestsDir = "/tests"
)

// Files and folders of one task package.
const (
	TaskFile        = "task.toml"
	InstructionFile = "instruction.md"
	EnvironmentDir  = "environment"
	TestsDirName    = "tests"
	StepsDirName    = "steps" // multi-step: steps/<step>/{instruction.md,tests/}
	TestScript      = "test.sh"
	// BinaryName is the static linux/amd64 agent-eval: tests/agent-eval
	// (the verifier) and, in the workdir, HookBinary (the hook).
	BinaryName = "agent-eval"
	// HookBinary is the hook's agent-eval relative to the workdir: under
	// .claude/, which the compiled permissions deny the agent's edits of
	// (and the sandbox, where it is on, its writes).
	HookBinary = ".claude/agent-eval"
	// EvalFile is tests/eval.yaml: the eval as exported (the run's config
	// copy), which the verifier builds the judges from.
	EvalFile = "eval.yaml"
	// CaseFile is tests/case.json (CaseInfo): which case this task is.
	CaseFile = "case.json"
	// CaseDataDir is tests/case/: the case's dataset folder. Answer keys
	// travel only here, never in environment/, which the agent sees.
	CaseDataDir = "case"
	// BaselineFile is tests/baseline.json: a JSON object, the path of every
	// file the export put in environment/ (relative to the workdir,
	// slash-separated) → the sha256 of its content in hex. The verifier
	// lists what differs from it (new files included) as the agent's
	// changes (_modified/), as a local run lists what differs from its
	// baseline.
	BaselineFile = "baseline.json"
)

// What the verifier leaves in /logs/verifier (Harbor downloads it to
// <trial>/verifier/).
const (
	// RewardJSON is written last, and only when the verifier judged: a flat
	// object of numbers, "reward" in [0, 1] and one number per judge that
	// has a value (a bool as 1 or 0). No reward file means the verifier
	// failed (Harbor raises RewardFileNotFoundError: an infrastructure
	// error, never a 0).
	RewardJSON = "reward.json"
	// RewardTXT is Harbor's other reward file; the verifier only removes
	// it (the agent may have planted one).
	RewardTXT = "reward.txt"
	// JudgesJSON is Judges: every judge of the case, and why one did not
	// run in the container.
	JudgesJSON = "judges.json"
	// CollectedDir is a one-case run directory (rundir.Dir) of what only
	// the container has, as a local run writes it:
	//
	//	agent-eval/cases/<case id>/run_result.json       results.Case: model, usage, cost, turns, denials, answers, result, status
	//	agent-eval/cases/<case id>/transcript.jsonl      parsed from <agent logs>/claude-code.txt (the stream parser the claude-code runner uses)
	//	agent-eval/cases/<case id>/hook_decisions.jsonl  the hook's ledger
	//	agent-eval/cases/<case id>/outputs/              eval.yaml's outputs
	//	agent-eval/cases/<case id>/_modified/            the other files that differ from tests/baseline.json
	//
	// The import copies <trial>/verifier/agent-eval/cases/<case id>/
	// unchanged into <run>/cases/<case id>/ (<case id> is CaseInfo.CaseID).
	// It has no run_result.json of its own (the run's is the import's);
	// of the case's run_result.json the import reads only a status
	// "tampered" (files planted in /tests), which it keeps.
	// Its case's exit_code is 1 when the stream's result is an error, else
	// 0 (Harbor keeps the agent's exit code); its duration_s is 0 (Harbor's
	// result.json has the agent's timing).
	CollectedDir = "agent-eval"
	// UnjudgedKey marks a reward.json whose case had no judge the
	// container could run: the import records no reward (never a 0).
	UnjudgedKey = "agent_eval_unjudged"
)

// Judges is judges.json.
type Judges struct {
	// Reward is reward.json's reward; nil when no judge the reward needs
	// could run in the container (reward.json then holds UnjudgedKey).
	Reward *float64 `json:"reward"`
	// PerJudge is every judge of the case (of the step) by name.
	PerJudge map[string]JudgeResult `json:"per_judge"`
}

// JudgeResult is one judge's entry in judges.json.
type JudgeResult struct {
	// Value is the judge's number (a bool as 1 or 0); nil when it has none
	// (an error, skipped by its if:, or not run here).
	Value *float64 `json:"value"`
	// Passed is the bool a pass/fail judge returned.
	Passed    *bool  `json:"passed,omitempty"`
	Rationale string `json:"rationale,omitempty"`
	// JudgeType is the judge's kind: expr, builtin, exec, check, llm, ...
	JudgeType string `json:"judge_type"`
	Error     string `json:"error,omitempty"`
	// Skipped: its if: condition was false.
	Skipped bool `json:"skipped,omitempty"`
	// NotRun says why the container did not run it (it calls a model, or
	// runs a program the agent could have replaced); score runs it after
	// the import.
	NotRun string `json:"not_run,omitempty"`
}

// CaseInfo is tests/case.json.
type CaseInfo struct {
	// CaseID is the case's id in the dataset (the task's folder and
	// [task].name are sanitised spellings of it).
	CaseID string `json:"case_id"`
	// EvalName is eval.yaml's name.
	EvalName string `json:"eval_name"`
	// Step is the pipeline step this tests/ folder verifies, or "".
	Step string `json:"step,omitempty"`
	// AgentEvalVersion is the agent-eval that exported the task.
	AgentEvalVersion string `json:"agent_eval_version"`
	// Tests is every file the export put in tests/ but case.json (its
	// path relative to tests/, slash-separated → the sha256 of its content
	// in hex). Harbor uploads tests/ after the agent ran but does not empty
	// the folder first: a file the agent planted there beforehand (an exec
	// judge's program the export did not write, an annotations.yaml in
	// case/) stays beside the uploaded ones. The verifier finds such files
	// by this list and marks the case tampered (its judges fail). Without
	// it, the verifier runs no exec judge (its program could be the
	// agent's).
	Tests map[string]string `json:"tests,omitempty"`
}
