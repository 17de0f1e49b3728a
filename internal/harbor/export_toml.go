package harbor

import (
	"bytes"

	"github.com/BurntSushi/toml"
)

// The task.toml the export writes: Harbor 0.26's TaskConfig
// (models/task/config.py), the fields we set. Struct order is file order:
// the encoder writes a table's plain keys before its sub-tables, so the
// root keys (schema_version, multi_step_reward_strategy) come before the
// first [table], where Harbor would otherwise read them as that table's.
type taskTOML struct {
	SchemaVersion           string         `toml:"schema_version"`
	MultiStepRewardStrategy string         `toml:"multi_step_reward_strategy,omitempty"`
	Task                    taskInfo       `toml:"task"`
	Metadata                taskMetadata   `toml:"metadata"`
	Environment             taskEnv        `toml:"environment"`
	Agent                   timeoutSection `toml:"agent"`
	Verifier                timeoutSection `toml:"verifier"`
	Steps                   []taskStep     `toml:"steps,omitempty"`
}

type taskInfo struct {
	Name        string `toml:"name"`
	Description string `toml:"description"`
}

// taskMetadata is [metadata]: free-form for Harbor; the raw ids the
// sanitised names stand for.
type taskMetadata struct {
	EvalName         string `toml:"eval_name"`
	CaseID           string `toml:"case_id"`
	GeneratedBy      string `toml:"generated_by"`
	AgentEvalVersion string `toml:"agent_eval_version"`
}

type taskEnv struct {
	DockerImage string `toml:"docker_image"`
	Workdir     string `toml:"workdir"`
	// Env are Harbor env templates (${VAR}), resolved from the host that
	// runs harbor: never a value.
	Env map[string]string `toml:"env,omitempty"`
}

type timeoutSection struct {
	TimeoutSec float64 `toml:"timeout_sec"`
}

type taskStep struct {
	Name     string         `toml:"name"`
	Agent    timeoutSection `toml:"agent"`
	Verifier timeoutSection `toml:"verifier"`
}

func encodeTOML(t taskTOML) ([]byte, error) {
	var b bytes.Buffer
	if err := toml.NewEncoder(&b).Encode(t); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
