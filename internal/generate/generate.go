// Package generate writes eval cases into an eval's dataset: one folder
// per case holding input.yaml and annotations.yaml, the layout run reads.
// Where the cases come from is generation.strategy, one Strategy each
// (synthetic.go, fromtraces.go, skill.go); Write (write.go) is shared by
// all of them: it validates every case, never replaces a case folder that
// exists, and writes each folder whole or not at all.
package generate

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/llm"
)

// Case is one generated case.
type Case struct {
	// ID is the case folder's name.
	ID string `json:"id" yaml:"id"`
	// Category is the seed's category (synthetic), else "".
	Category string `json:"category,omitempty" yaml:"category,omitempty"`
	// Source says where the case came from: the seed's prompt (a builtin's
	// name, a prompt_file or "inline"), "trace <id>", or "skill".
	Source      string         `json:"source" yaml:"source"`
	Input       map[string]any `json:"input" yaml:"input"`
	Annotations map[string]any `json:"annotations,omitempty" yaml:"annotations,omitempty"`
	// Files are further files of the case folder (the skill strategy's
	// agent may write companion files), by slash-separated relative path.
	Files map[string]string `json:"files,omitempty" yaml:"files,omitempty"`
	// KeepExisting: a case folder of this id already there is this case
	// generated before (a trace imported again), so it is skipped; else
	// the new case is renamed.
	KeepExisting bool `json:"-" yaml:"-"`
}

// Model is the LLM the synthetic strategy asks (an *llm.Client).
type Model interface {
	ForcedTool(ctx context.Context, req llm.ToolRequest) (json.RawMessage, string, error)
}

// TraceSource lists an MLflow experiment's traces (an *mlflow.Client
// behind a small adapter in the CLI).
type TraceSource interface {
	// Traces lists up to max traces of the experiment named experiment,
	// newest first; found is false when there is no such experiment.
	Traces(ctx context.Context, experiment string, max int) (traces []Trace, found bool, err error)
}

// Trace is one trace: its id, tags, and its root span's inputs and
// outputs.
type Trace struct {
	ID      string
	Tags    map[string]string
	Inputs  any
	Outputs any
	// Questions are what the traced agent asked the user (AskUserQuestion
	// spans), each {input, output}.
	Questions []map[string]any
}

// Request is one generation.
type Request struct {
	Eval *config.Eval
	// Count, when > 0, overrides the number of cases: per seed
	// (synthetic), traces read (from-traces), cases asked for (skill).
	Count int
	// Model names the model of the synthetic strategy.
	Model string
	// SkillDescription is the description of the skill under test
	// (execution.skill's SKILL.md), "" when there is none.
	SkillDescription string
	// SkillFiles are the files of the skill's folder (SKILL.md first of
	// all) and ExampleCase those of one case already in the dataset, by
	// relative path, for the skill strategy's agent.
	SkillFiles, ExampleCase map[string]string
	// Experiment names the MLflow experiment of from-traces.
	Experiment string
	// Existing are the case ids already in the dataset.
	Existing []string
	// Timeout bounds one model call or one agent run (0: a default).
	Timeout time.Duration
	// Progress gets one line per step (stderr).
	Progress io.Writer
}

// Deps are what the strategies call out to; a strategy refuses to start
// without the one it needs.
type Deps struct {
	Model  Model
	Traces TraceSource
	Agent  AgentRunner
}

// Strategy generates cases.
type Strategy interface {
	// Generate returns the cases it made; failed lists the parts that
	// failed (a seed, a trace) while others went on. An error stops the
	// whole generation.
	Generate(ctx context.Context, req Request, deps Deps) (cases []Case, failed []string, err error)
}

// strategies is the registry: generation.strategy's values.
var strategies = sync.OnceValue(func() map[string]Strategy {
	return map[string]Strategy{
		"synthetic":   synthetic{},
		"from-traces": fromTraces{},
		"skill":       skill{},
	}
})

// Lookup returns the strategy named name ("" is skill, as upstream's
// default).
func Lookup(name string) (Strategy, error) {
	if name == "" {
		name = "skill"
	}
	s, ok := strategies()[name]
	if !ok {
		return nil, fmt.Errorf("unknown generation strategy %q (known: %s)", name, strings.Join(Names(), ", "))
	}
	return s, nil
}

// Names lists the strategies.
func Names() []string {
	var out []string
	for n := range strategies() {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// ErrMissing is a dependency a strategy needs that this build or this
// invocation does not have; the CLI exits with a usage error.
type ErrMissing struct{ What string }

func (e *ErrMissing) Error() string { return e.What }

func progressf(w io.Writer, format string, args ...any) {
	if w != nil {
		fmt.Fprintf(w, "agent-eval: generate: "+format+"\n", args...)
	}
}

// defaultTimeout bounds one model call when Request.Timeout is 0.
const defaultTimeout = 5 * time.Minute

func (r Request) timeout() time.Duration {
	if r.Timeout > 0 {
		return r.Timeout
	}
	return defaultTimeout
}
