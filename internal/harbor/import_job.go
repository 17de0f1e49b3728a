package harbor

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/agent-eval/agent-eval/internal/lazyre"
)

// The files of a Harbor job folder that import reads (Harbor 0.26's
// harbor/models/{job,trial} and trial/paths.py):
//
//	<job>/config.json  result.json (JobResult: started_at, finished_at)
//	<job>/<trial>/config.json (TrialConfig: task.path, agent) result.json (TrialResult) exception.txt
//	<job>/<trial>/agent/claude-code.txt      the claude-code agent's stdout and stderr
//	<job>/<trial>/verifier/reward.json, judges.json, agent-eval/   what agent-eval harbor verify left
//	<job>/<trial>/steps/<step>/{agent,verifier}/   a multi-step trial's, per step
const (
	jobConfigFile   = "config.json"
	jobResultFile   = "result.json"
	trialAgentDir   = "agent"
	trialVerifier   = "verifier"
	trialStepsDir   = "steps"
	claudeCodeLog   = "claude-code.txt"
	exceptionFile   = "exception.txt"
	maxMetadataSize = 16 << 20 // a result.json, reward.json or judges.json larger than this is refused
)

// jobResult is the part of Harbor's JobResult import reads.
type jobResult struct {
	StartedAt  *stamp `json:"started_at"`
	FinishedAt *stamp `json:"finished_at"`
}

// stamp is one of Harbor's times. Its trials' are UTC with a Z, its job's
// result.json naive (Python's datetime.now(), the local time of the machine
// that ran harbor): a time without a zone is read as local.
type stamp struct{ time.Time }

func (s *stamp) UnmarshalJSON(b []byte) error {
	var v string
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
		s.Time = t
		return nil
	}
	t, err := time.ParseInLocation("2006-01-02T15:04:05.999999999", v, time.Local)
	if err != nil {
		return fmt.Errorf("harbor time %q: %w", v, err)
	}
	s.Time = t
	return nil
}

// trialConfig is the part of Harbor's TrialConfig import reads.
type trialConfig struct {
	TrialName string `json:"trial_name"`
	Task      struct {
		Path string `json:"path"`
	} `json:"task"`
	Agent struct {
		Name      string `json:"name"`
		ModelName string `json:"model_name"`
	} `json:"agent"`
}

// timing is Harbor's TimingInfo.
type timing struct {
	StartedAt  *stamp `json:"started_at"`
	FinishedAt *stamp `json:"finished_at"`
}

// started says the phase began (Harbor sets started_at as the agent's
// phase starts, before the agent runs).
func (t *timing) started() bool { return t != nil && t.StartedAt != nil }

func (t *timing) seconds() float64 {
	if t == nil || t.StartedAt == nil || t.FinishedAt == nil {
		return 0
	}
	return t.FinishedAt.Sub(t.StartedAt.Time).Seconds()
}

// agentContext is Harbor's AgentContext (n_input_tokens includes the cache).
type agentContext struct {
	NInputTokens  *int64   `json:"n_input_tokens"`
	NCacheTokens  *int64   `json:"n_cache_tokens"`
	NOutputTokens *int64   `json:"n_output_tokens"`
	CostUSD       *float64 `json:"cost_usd"`
}

// exceptionInfo is Harbor's ExceptionInfo.
type exceptionInfo struct {
	Type    string `json:"exception_type"`
	Message string `json:"exception_message"`
}

// stepResult is Harbor's StepResult.
type stepResult struct {
	StepName       string         `json:"step_name"`
	AgentResult    *agentContext  `json:"agent_result"`
	ExceptionInfo  *exceptionInfo `json:"exception_info"`
	AgentExecution *timing        `json:"agent_execution"`
}

// trialResult is the part of Harbor's TrialResult import reads.
type trialResult struct {
	TaskName  string `json:"task_name"`
	TrialName string `json:"trial_name"`
	AgentInfo struct {
		Name      string `json:"name"`
		Version   string `json:"version"`
		ModelInfo *struct {
			Name string `json:"name"`
		} `json:"model_info"`
	} `json:"agent_info"`
	AgentResult    *agentContext  `json:"agent_result"`
	ExceptionInfo  *exceptionInfo `json:"exception_info"`
	StartedAt      *stamp         `json:"started_at"`
	AgentExecution *timing        `json:"agent_execution"`
	StepResults    []stepResult   `json:"step_results"`
}

// The exceptions Harbor records that are the agent's own failure (its
// error policy gives them a valid reward: harbor/models/trial/error_policy.py);
// every other one is the infrastructure's.
// (A switch, not a map: nothing built at start-up, which the hook pays
// for on every tool call.)
func agentsException(typ string) bool {
	switch typ {
	case "NonZeroAgentExitCodeError", "AgentTimeoutError", "ContextWindowExceededError", "OutputTokenExceededError",
		"ContextLengthExceededError", "OutputLengthExceededError", "AgentSafetyRefusalError", "ContentPolicyViolationError":
		return true
	}
	return false
}

// The exceptions of the verification, after the agent ended: the agent's
// exit code is its own (0, unless its stream ended in an error).
func verifierException(typ string) bool {
	switch typ {
	case "VerifierTimeoutError", "RewardFileNotFoundError", "RewardFileEmptyError", "VerifierOutputParseError",
		"AddTestsDirError", "DownloadVerifierDirError":
		return true
	}
	return false
}

const (
	agentTimeout   = "AgentTimeoutError"
	agentCancelled = "CancelledError"
)

// exitRE finds the agent's exit code in NonZeroAgentExitCodeError's
// message ("Command failed (exit 2): …").
var exitRE = lazyre.New(`\(exit (-?\d+)\)`)

func (e *exceptionInfo) exitCode() int {
	if m := exitRE().FindStringSubmatch(e.Message); m != nil {
		if n, err := strconv.Atoi(m[1]); err == nil && n != 0 {
			return n
		}
	}
	return 1
}

// String is "<type>: <first line of the message>", clipped.
func (e *exceptionInfo) String() string {
	msg, _, _ := strings.Cut(strings.TrimSpace(e.Message), "\n")
	if len(msg) > 300 {
		msg = msg[:297] + "..."
	}
	if msg == "" {
		return e.Type
	}
	return e.Type + ": " + msg
}

// readMeta reads a JSON file Harbor (or the verifier) wrote into v: a
// regular file, reached through no symbolic link below root.
func readMeta(root, rel string, v any) error {
	b, err := readUntrusted(root, rel, maxMetadataSize)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("read %s: %w", filepath.Join(root, rel), err)
	}
	return nil
}

// trialDirs lists the job's trial folders (those with a config.json),
// sorted; a symbolic link among them is refused.
func trialDirs(job string) ([]string, error) {
	entries, err := os.ReadDir(job)
	if err != nil {
		return nil, fmt.Errorf("list the trials of %s: %w", job, err)
	}
	var out []string
	for _, e := range entries {
		if e.Type()&fs.ModeSymlink != 0 {
			return nil, fmt.Errorf("%s: a symbolic link where a trial folder should be", filepath.Join(job, e.Name()))
		}
		if !e.IsDir() {
			continue
		}
		if _, err := os.Lstat(filepath.Join(job, e.Name(), jobConfigFile)); errors.Is(err, fs.ErrNotExist) {
			continue
		}
		out = append(out, e.Name())
	}
	return out, nil
}
