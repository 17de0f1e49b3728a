// Package score turns a finished run directory into a verdict: it builds
// one record per case from the run directory (internal/rundir), runs the
// eval's judges over it, aggregates their values per judge, composes the
// reward, checks the thresholds, compares with a baseline and writes
// summary.yaml. Scoring never re-runs the agent.
package score

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/agent-eval/agent-eval/internal/agentcall"
	"github.com/agent-eval/agent-eval/internal/clip"
	"github.com/agent-eval/agent-eval/internal/config"
)

// Judge scores one aspect of a case.
type Judge interface {
	// Kind is the judge's kind (check, code, expr, exec, llm, builtin,
	// agent).
	Kind() string
	// Score judges one case. A judge that cannot reach a verdict returns an
	// Outcome with Err set (an error sample), never a made-up value.
	Score(ctx context.Context, rec *Record) Outcome
}

// Outcome is one judge's verdict on one case.
type Outcome struct {
	// Value is a bool or a float64; nil with Err set for an error sample.
	Value     any
	Rationale string
	Err       error
	// Samples are the sample values of a judge run more than once (bools
	// as 1 and 0), Spread their max − min.
	Samples []float64
	Spread  *float64
	// Calls and Cached count model calls made and answered from the cache.
	Calls, Cached int
}

// errOutcome is an error sample.
func errOutcome(format string, args ...any) Outcome {
	return Outcome{Err: fmt.Errorf(format, args...)}
}

// Env is what judges are built with.
type Env struct {
	Eval *config.Eval
	// Dir is the project root: eval.yaml's folder (exec and check judges run
	// there, prompt_file and context resolve there).
	Dir string
	// LLM calls the Messages API; Model is the default judge model
	// (models.judge, else $EVAL_JUDGE_MODEL).
	LLM   *LLMRunner
	Model string
	// Python is the python3 to run check and module judges with ("" when
	// missing): FindPython, or the first python3 on the trusted PATH of
	// Environ.
	Python string
	// RunDir is the run being scored: no judge runs a program in it, and
	// no PATH entry inside it is kept.
	RunDir string
	// Environ is the environment the judges' allowlist draws from
	// (os.Environ when nil).
	Environ []string
	// Agents runs agent judges (nil: an agent judge is an error sample).
	Agents agentcall.Caller
	// FakeDir, under --fake-model, is the dataset folder whose
	// fake_judge[.<judge>].yaml answers the judge agents.
	FakeDir string

	agents agentRuns

	hostOnce sync.Once
	hostVal  *host
	pyMu     sync.Mutex
	pys      map[bool]pyProbe // by passesPath
}

// pyProbe is a probed interpreter, or why there is none.
type pyProbe struct {
	py  *interpreter
	err error
}

// host is the judge programs' shared setup, built once.
func (e *Env) host() *host {
	e.hostOnce.Do(func() { e.hostVal = newHost(e) })
	return e.hostVal
}

// Factory builds a judge of one kind from its configuration.
type Factory func(j config.Judge, index int, env *Env) (Judge, error)

// Registry maps judge kinds to their factories. It is explicit: Kinds
// lists every kind; nothing registers itself.
type Registry struct{ kinds map[string]Factory }

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{kinds: map[string]Factory{}} }

// Register adds a kind; registering a kind twice is a programming error
// and panics.
func (r *Registry) Register(kind string, f Factory) {
	if _, dup := r.kinds[kind]; dup {
		panic("score: judge kind " + kind + " registered twice")
	}
	r.kinds[kind] = f
}

// Lookup returns the factory of kind.
func (r *Registry) Lookup(kind string) (Factory, bool) {
	f, ok := r.kinds[kind]
	return f, ok
}

// Names lists the registered kinds, sorted.
func (r *Registry) Names() []string {
	out := make([]string, 0, len(r.kinds))
	for k := range r.kinds {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Kinds is the registry of every judge kind agent-eval has.
func Kinds() *Registry {
	r := NewRegistry()
	r.Register("check", newCheckJudge)
	r.Register("code", newCodeJudge)
	r.Register("expr", newExprJudge)
	r.Register("exec", newExecJudge)
	r.Register("llm", newLLMJudge)
	r.Register("builtin", newBuiltinJudge)
	r.Register("agent", newAgentJudge)
	return r
}

// configError is a problem with a judge's configuration, at its place in
// eval.yaml.
func configError(ev *config.Eval, field, format string, args ...any) error {
	e := config.Error{Field: field, Msg: fmt.Sprintf(format, args...), Code: config.CodeSemantic}
	if ev != nil {
		e.File = ev.Path()
		// A key that is absent (judges[0].model) is placed at its judge.
		for p := field; e.Line == 0 && p != ""; {
			e.Line, e.Col = ev.Position(p)
			i := strings.LastIndexAny(p, ".[")
			if i < 0 {
				break
			}
			p = p[:i]
		}
	}
	return config.Errors{e}
}

func judgeField(i int, key string) string {
	if key == "" {
		return fmt.Sprintf("judges[%d]", i)
	}
	return fmt.Sprintf("judges[%d].%s", i, key)
}

// timeout is a check or exec judge's time limit.
func timeout(j config.Judge) time.Duration {
	if j.Timeout != nil && *j.Timeout > 0 {
		return time.Duration(*j.Timeout) * time.Second
	}
	return DefaultTimeout
}

// DefaultTimeout bounds one check, code or exec judge call.
const DefaultTimeout = 60 * time.Second

// scale is a judge's effective numeric scale.
type scale struct {
	lo, hi   float64
	integer  bool
	declared bool
	boolean  bool
}

func scaleOf(j config.Judge) scale {
	if j.FeedbackType == "bool" {
		return scale{boolean: true}
	}
	s := scale{lo: 1, hi: 5}
	if j.ScoreRange != nil {
		s.lo, s.hi, s.declared = j.ScoreRange.Min, j.ScoreRange.Max, true
	}
	switch j.FeedbackType {
	case "float":
	case "int":
		s.integer = true
	default:
		s.integer = s.lo == math.Trunc(s.lo) && s.hi == math.Trunc(s.hi)
	}
	return s
}

// enforce makes an off-scale (or non-finite) number an error sample; it
// never clamps.
func enforce(name string, j config.Judge, o Outcome) Outcome {
	if o.Err != nil {
		return o
	}
	f, ok := o.Value.(float64)
	if !ok {
		return o
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return Outcome{Err: fmt.Errorf("judge %q returned %v, which is not a finite number", name, f), Rationale: o.Rationale, Calls: o.Calls, Cached: o.Cached}
	}
	if j.ScoreRange != nil && (f < j.ScoreRange.Min || f > j.ScoreRange.Max) {
		return Outcome{Err: fmt.Errorf("judge %q returned %s, outside its declared score_range [%s, %s]", name, num(f), num(j.ScoreRange.Min), num(j.ScoreRange.Max)),
			Rationale: o.Rationale, Calls: o.Calls, Cached: o.Cached, Samples: o.Samples, Spread: o.Spread}
	}
	return o
}

// num prints a number without a trailing .0.
func num(f float64) string { return strings.TrimSuffix(fmt.Sprintf("%g", f), ".0") }

// valueOf normalises a judge's returned value: a bool, or a number as a
// float64. Anything else is an error.
func valueOf(v any) (any, error) {
	switch x := v.(type) {
	case bool:
		return x, nil
	case nil:
		return nil, fmt.Errorf("the judge returned no value")
	}
	if f, ok := number(v); ok {
		return f, nil
	}
	return nil, fmt.Errorf("the judge returned %T %v, not a bool or a number", v, clip.String(fmt.Sprint(v), 80))
}
