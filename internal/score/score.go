package score

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/agent-eval/agent-eval/internal/agentcall"
	"github.com/agent-eval/agent-eval/internal/clip"
	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/expr"
	"github.com/agent-eval/agent-eval/internal/llm"
	"github.com/agent-eval/agent-eval/internal/redact"
	"github.com/agent-eval/agent-eval/internal/results"
	"github.com/agent-eval/agent-eval/internal/rundir"
)

// Options configure one scoring of a run.
type Options struct {
	// Dir is the finished run; Eval its configuration.
	Dir  rundir.Dir
	Eval *config.Eval
	// Baseline, when set, is an earlier scored run to compare with.
	Baseline *rundir.Dir
	// NoCache makes every LLM judge call the model again.
	NoCache bool
	// Concurrency bounds the cases scored at once and the model calls in
	// flight (default 4).
	Concurrency int
	// Getenv reads $EVAL_JUDGE_MODEL (os.Getenv when nil).
	Getenv func(string) string
	// Environ is the environment check, module and exec judges draw their
	// allowlisted variables and PATH from (os.Environ when nil).
	Environ []string
	// Observer hears about progress (may be nil).
	Observer Observer
	// Now stamps scored_at (time.Now when nil).
	Now func() time.Time
	// FakeModelURL, when set, is the built-in fake Messages API the LLM
	// judges ask instead of the real one (score --fake-model): no key is
	// needed, the judge model defaults to FakeJudgeModel, and the verdicts
	// are cached apart from real ones.
	FakeModelURL string
	// FakeScript is the content of the script the fake answers from: its
	// verdicts are cached under it, so an edited script is asked again.
	FakeScript []byte
	// Dropped is what NoModelJudges left out of Eval (score
	// --no-llm-judges): recorded in the summary, their gates skipped.
	Dropped Dropped
	// Agents runs the agent judges (each in a run directory of its own
	// under the scored run's judges/). Nil: every agent judge's verdict
	// is an error.
	Agents agentcall.Caller
	// FakeAgents: the agent judges are answered offline (--fake-model),
	// from the dataset's fake_judge.<judge>.yaml, else fake_judge.yaml.
	FakeAgents bool
}

// FakeJudgeModel is the judge model under --fake-model when the eval names
// none.
const FakeJudgeModel = "claude-fake-judge"

// Observer hears what scoring does; the CLI prints it, tests ignore it.
type Observer interface {
	// CaseScored is called once per case, from any goroutine, one call at
	// a time.
	CaseScored(id string, done, total int)
	// Warn is told what scoring goes on past (a verdict it could not
	// cache), from any goroutine.
	Warn(msg string)
}

// ErrNoCredentials: the eval has LLM judges and the environment no key.
var ErrNoCredentials = errors.New("the eval's LLM judges need ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN (and ANTHROPIC_BASE_URL for a gateway)")

// Pairwise is the reserved name of the A/B judge; it is never scored per
// case.
const Pairwise = "pairwise"

// built is a judge ready to score, with its condition.
type built struct {
	name  string
	cfg   config.Judge
	judge Judge
	cond  *expr.Program
}

// Build makes the eval's judges. Every configuration problem is reported
// at once, as config.Errors naming file:line.
func Build(ev *config.Eval, env *Env, reg *Registry) ([]built, error) {
	return build(ev, env, reg, nil)
}

// build is Build of the judges keep keeps (every judge when nil), each at
// its own index in eval.yaml.
func build(ev *config.Eval, env *Env, reg *Registry, keep func(j config.Judge) bool) ([]built, error) {
	var out []built
	var problems config.Errors
	add := func(err error) {
		var es config.Errors
		if errors.As(err, &es) {
			problems = append(problems, es...)
		} else {
			problems = append(problems, config.Error{File: ev.Path(), Msg: err.Error(), Code: config.CodeSemantic})
		}
	}
	for i, j := range ev.Judges {
		if j.Name == Pairwise || keep != nil && !keep(j) {
			continue
		}
		kind := j.Type()
		f, ok := reg.Lookup(kind)
		if !ok {
			add(configError(ev, judgeField(i, ""), "judge %q is an %s judge, which score cannot run yet (it runs %v)", j.Name, kind, reg.Names()))
			continue
		}
		jd, err := f(j, i, env)
		if err != nil {
			add(err)
			continue
		}
		b := built{name: j.Name, cfg: j, judge: jd}
		if j.If != "" {
			p, err := compileCond(j.If)
			if err != nil {
				add(configError(ev, judgeField(i, "if"), "%v", err))
				continue
			}
			b.cond = p
		}
		out = append(out, b)
	}
	if len(problems) > 0 {
		problems.Sort()
		return nil, problems
	}
	return out, nil
}

// needsModel says whether any judge calls a model.
func needsModel(ev *config.Eval) bool { return ModelJudge(ev, false) != "" }

// ModelJudge names the first judge that calls a model when the run is
// scored ("" when none does): an llm judge, a builtin LLM judge, or, with
// a baseline, the pairwise judge.
func ModelJudge(ev *config.Eval, baseline bool) string {
	for _, j := range ev.Judges {
		switch j.Type() {
		case "llm":
			return j.Name
		case "builtin":
			if full, ok := resolveBuiltin(j.Builtin); ok && llmBuiltins[full] != nil {
				return j.Name
			}
		}
		if j.Name == Pairwise && baseline {
			return j.Name
		}
	}
	return ""
}

// JudgeModel is the default judge model: models.judge, else
// $EVAL_JUDGE_MODEL.
func JudgeModel(ev *config.Eval, getenv func(string) string) string {
	if ev != nil && ev.Models.Judge != "" {
		return ev.Models.Judge
	}
	return getenv("EVAL_JUDGE_MODEL")
}

// Score scores the run in opts.Dir with opts.Eval's judges, writes
// summary.yaml and returns it. A configuration problem is a
// config.Errors; the verdict (thresholds) is in the summary's Passed.
func Score(ctx context.Context, opts Options) (*rundir.Summary, error) {
	opts = withDefaults(opts)
	ev := opts.Eval
	env, err := judgeEnv(opts)
	if err != nil {
		return nil, err
	}
	judges, err := buildJudges(ev, env, opts)
	if err != nil {
		return nil, err
	}
	cases, err := scoreCases(ctx, opts, judges)
	if err != nil {
		return nil, err
	}
	s, batch, err := newSummary(opts, cases)
	if err != nil {
		return nil, err
	}
	s.Judges = aggregate(judges, cases, confidenceLevels(opts.Eval))
	s.DroppedJudges = opts.Dropped.Judges
	applyReward(s, ev, judges)
	if opts.Baseline != nil {
		if err := compareBaseline(ctx, s, opts, env); err != nil {
			return nil, err
		}
	}
	if err := verdict(s, opts, judges, cases, batch); err != nil {
		return nil, err
	}
	if env.LLM != nil {
		s.LLM.Made, s.LLM.Cached, s.LLM.Failed = env.LLM.Counts()
	}
	// A person's verdicts stand beside the judges'; they never gate.
	if r, err := opts.Dir.ReadReview(); err != nil && opts.Observer != nil {
		opts.Observer.Warn(fmt.Sprintf("the human review is left out of the summary: %v", err))
	} else {
		s.Human = rundir.Human(s, r)
	}
	s.JudgeAgents = env.agentCounts()
	if err := opts.Dir.WriteSummary(s); err != nil {
		return nil, err
	}
	return s, nil
}

// withDefaults fills the options left zero: the process environment, the
// clock, four judges at a time.
func withDefaults(opts Options) Options {
	if opts.Getenv == nil {
		opts.Getenv = os.Getenv
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Concurrency < 1 {
		opts.Concurrency = 4
	}
	return opts
}

// judgeEnv is what the judges run with: the eval, python3, the judge
// model and, when a judge calls a model, the LLM runner (the fake model's,
// or the API's, which needs credentials).
func judgeEnv(opts Options) (*Env, error) {
	ev := opts.Eval
	env := &Env{Eval: ev, Dir: ev.Dir(), RunDir: opts.Dir.Path, Environ: opts.Environ, Model: JudgeModel(ev, opts.Getenv), Agents: opts.Agents}
	if opts.FakeAgents {
		env.FakeDir = ev.DatasetDir()
	}
	if p, err := env.host().lookPath("python3", nil); err == nil {
		env.Python = p
	}
	if (opts.FakeModelURL != "" || opts.FakeAgents) && env.Model == "" {
		env.Model = FakeJudgeModel
	}
	if needsModel(ev) || judgeByName(ev, Pairwise) != nil && opts.Baseline != nil {
		switch {
		case opts.FakeModelURL != "":
			env.LLM = NewFakeLLMRunner(opts.Dir, opts.Concurrency, opts.NoCache, opts.FakeModelURL, opts.FakeScript)
		case opts.Getenv("ANTHROPIC_API_KEY") == "" && opts.Getenv("ANTHROPIC_AUTH_TOKEN") == "" && opts.Getenv(llm.FakeModelEnv) != "1":
			return nil, ErrNoCredentials
		default:
			env.LLM = NewLLMRunner(opts.Dir, opts.Concurrency, opts.NoCache)
		}
		if opts.Observer != nil {
			env.LLM.warn = opts.Observer.Warn
		}
	}
	return env, nil
}

// buildJudges builds the eval's judges; the pairwise judge, run with
// --baseline, needs a model.
func buildJudges(ev *config.Eval, env *Env, opts Options) ([]built, error) {
	judges, err := Build(ev, env, Kinds())
	if err != nil {
		return nil, err
	}
	if pj := judgeByName(ev, Pairwise); pj != nil && opts.Baseline != nil && cmp.Or(pj.Model, env.Model) == "" {
		for i := range ev.Judges {
			if ev.Judges[i].Name == Pairwise {
				return nil, configError(ev, judgeField(i, "model"), "the pairwise judge compares with --baseline: %v", errNoModel)
			}
		}
	}
	return judges, nil
}

// scoreCases scores the run's cases, opts.Concurrency at a time, telling
// the observer as each is scored.
func scoreCases(ctx context.Context, opts Options, judges []built) ([]rundir.CaseSummary, error) {
	ev := opts.Eval
	ids, err := opts.Dir.CaseIDs()
	if err != nil {
		return nil, err
	}
	red, err := runRedactor(opts.Dir)
	if err != nil {
		return nil, err
	}
	// With repeats, every attempt is judged on its own, then reduced.
	repeats := opts.Dir.Repeats()
	keys := rundir.AttemptKeys(ids, repeats)
	scored := make([]rundir.CaseSummary, len(keys))
	errs := make([]error, len(keys))
	var wg sync.WaitGroup
	var mu sync.Mutex
	done := 0
	sem := make(chan struct{}, opts.Concurrency)
	for i, id := range keys {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				errs[i] = ctx.Err()
				return
			}
			defer func() { <-sem }()
			if _, n := rundir.SplitAttempt(id); n > 1 && !opts.Dir.HasCase(id) {
				scored[i] = rundir.CaseSummary{ID: id, Status: "missing"} // not run (an interrupted run)
			} else {
				scored[i], errs[i] = scoreCase(ctx, opts.Dir, ev, id, judges, red)
			}
			mu.Lock()
			defer mu.Unlock()
			done++
			if opts.Observer != nil {
				opts.Observer.CaseScored(id, done, len(keys))
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if repeats <= 1 {
		return scored, nil
	}
	return reduceAttempts(ev, judges, ids, scored), nil
}

// confidenceLevels are the thresholds' confidence levels by judge.
func confidenceLevels(ev *config.Eval) map[string]float64 {
	out := map[string]float64{}
	if ev == nil {
		return out
	}
	for name, t := range ev.Thresholds {
		if t.Confidence != nil {
			out[name] = *t.Confidence
		}
	}
	return out
}

// newSummary starts the run's summary: its cases, what run_result.json
// says of the run (id, eval, model, cost, duration) and the cases'
// denials and answers. batch says the run was a batch.
func newSummary(opts Options, cases []rundir.CaseSummary) (_ *rundir.Summary, batch bool, _ error) {
	s := &rundir.Summary{SchemaVersion: rundir.SummaryVersion, ScoredAt: opts.Now().UTC().Format(time.RFC3339), NumCases: len(cases), Cases: cases}
	// A run killed before its end has no run_result.json; one that is
	// there but unreadable is an error, not a run of no cost and no model.
	switch run, err := opts.Dir.ReadRun(); {
	case err == nil:
		batch = run.ExecutionMode == "batch"
		s.RunID, s.EvalName, s.Model, s.CostUSD, s.DurationS = run.RunID, run.EvalName, run.Model, run.CostUSD, run.DurationS
		if run.WallClockS > 0 {
			s.DurationS = run.WallClockS
		}
	case !errors.Is(err, fs.ErrNotExist):
		return nil, false, fmt.Errorf("read the run's result: %w", err)
	}
	if s.EvalName == "" {
		s.EvalName = opts.Eval.EvalName()
	}
	if s.RunID == "" {
		s.RunID = baseName(opts.Dir.Path)
	}
	s.CostUSD, s.DurationS = math.Round(s.CostUSD*1e6)/1e6, math.Round(s.DurationS*1e3)/1e3
	for i, c := range cases {
		// A batch's cases share its one agent run: its denials and answers
		// are counted once.
		if batch && i > 0 {
			break
		}
		s.Denials += c.Denials
		s.Violations.Add(c.Violations, true)
		for tier, n := range c.Answers {
			if s.AnswersByTier == nil {
				s.AnswersByTier = map[string]int{}
			}
			s.AnswersByTier[tier] += n
		}
	}
	return s, batch, nil
}

// compareBaseline compares the run with opts.Baseline's summary, and
// runs the pairwise judge if the eval has one.
func compareBaseline(ctx context.Context, s *rundir.Summary, opts Options, env *Env) error {
	ev := opts.Eval
	before, err := opts.Baseline.ReadSummary()
	if err != nil {
		return fmt.Errorf("read the baseline (score it first): %w", err)
	}
	s.Baseline = Compare(s, before, opts.Baseline.Path)
	if pj := judgeByName(ev, Pairwise); pj != nil {
		pw, err := RunPairwise(ctx, PairwiseOptions{Run: opts.Dir, Baseline: *opts.Baseline, Eval: ev, Judge: pj, Model: cmp.Or(pj.Model, env.Model), LLM: env.LLM})
		if err != nil {
			return err
		}
		s.Baseline.Pairwise = pw
	}
	return nil
}

// verdict decides s.Passed: the thresholds hold, and no case was tampered
// with, no judge was broken, no case is foreign and every case was judged.
func verdict(s *rundir.Summary, opts Options, judges []built, cases []rundir.CaseSummary, batch bool) (err error) {
	ev := opts.Eval
	s.Thresholds = append(checkThresholds(ev, s), opts.Dropped.Gates...)
	s.Passed = true
	for _, t := range s.Thresholds {
		s.Passed = s.Passed && !t.Breached()
	}
	// A judge that could judge no case (every one it did not skip was an
	// error sample) fails the verdict even without a threshold: a broken
	// judge is never a silent pass.
	for _, c := range cases {
		if c.Status == string(results.StatusTampered) {
			s.Tampered = append(s.Tampered, c.ID)
			s.Passed = false
		}
	}
	for _, j := range s.Judges {
		if j.Scored == 0 && j.Errors > 0 {
			s.BrokenJudges = append(s.BrokenJudges, j.Name)
			s.Passed = false
		}
	}
	if s.Foreign, err = opts.Dir.ForeignCases(); err != nil {
		return err
	}
	if len(s.Foreign) > 0 {
		s.Passed = false
	}
	s.JudgedCases, s.NotJudged = judgedCases(judges, cases, batch)
	if s.NotJudged != "" {
		s.Passed = false
	}
	return nil
}

// runRedactor hides the secrets of this process's environment and those
// the run marked in the files it kept as the agent wrote them (an output
// holding a runner.env token): score may run later, elsewhere, without the
// run's environment.
func runRedactor(dir rundir.Dir) (*redact.Redactor, error) {
	red, _, err := dir.Redactor(os.Environ())
	if err != nil {
		return nil, err
	}
	return red, nil
}

// scoreCase runs every judge over one case.
func scoreCase(ctx context.Context, dir rundir.Dir, ev *config.Eval, id string, judges []built, red *redact.Redactor) (rundir.CaseSummary, error) {
	rec, err := BuildRecord(dir, ev, id)
	if err != nil {
		return rundir.CaseSummary{}, err
	}
	cs := rundir.CaseSummary{ID: id, Status: "missing", Denials: len(rec.Denials), Violations: rundir.CountsOf(rec.Violations)}
	if c := rec.Result; c != nil {
		cs.Status, cs.CostUSD, cs.DurationS, cs.Turns, cs.Answers = string(c.Status), c.CostUSD, c.DurationS, c.NumTurns, c.AnswersByTier
	}
	for _, b := range judges {
		cs.Verdicts = append(cs.Verdicts, caseVerdict(ctx, b, rec, red))
	}
	return cs, nil
}

// caseVerdict is one judge's verdict on a case: tampered, an error when
// the record could not read the case's files, else judged.
func caseVerdict(ctx context.Context, b built, rec *Record, red *redact.Redactor) rundir.Verdict {
	switch {
	case rec.Result != nil && rec.Result.Status == results.StatusTampered:
		return tamperedVerdict(b, rec.Result)
	case rec.Result != nil && rec.Result.Status == results.StatusInfraError:
		// The infrastructure failed (a Harbor trial with no reward): what
		// the case left says nothing of the agent, and a 0 would say it did.
		return rundir.Verdict{Judge: b.name, Lost: true, Rationale: "not judged: infrastructure error: " + clip.String(red.String(rec.Result.Error), 200)}
	case rec.filesErr != nil:
		return rundir.Verdict{Judge: b.name, Error: red.String(rec.filesErr.Error())}
	}
	return judgeCase(ctx, b, rec, red)
}

// tamperedVerdict is a judge's verdict on a case whose agent changed what
// scoring reads: a failure at the bottom of the judge's scale, never run
// (its code, prompt or cache may be the agent's).
func tamperedVerdict(b built, c *results.Case) rundir.Verdict {
	low := 0.0
	if r := b.cfg.ScoreRange; r != nil {
		low = r.Min
	}
	v := rundir.Verdict{Judge: b.name, Value: &low,
		Rationale: "not judged: the case is tampered (" + strings.Join(c.Tampered, "; ") + ")"}
	if t := b.cfg.FeedbackType; t != "int" && t != "float" {
		no := false
		v.Passed = &no
	}
	return v
}

// judgeCase is one judge's verdict on one case: skipped when its if: is
// false, an error sample when the condition fails.
func judgeCase(ctx context.Context, b built, rec *Record, red *redact.Redactor) rundir.Verdict {
	v := rundir.Verdict{Judge: b.name}
	if b.cfg.Step != "" {
		rec = rec.ForStep(b.cfg.Step)
	}
	if b.cond != nil {
		ok, err := b.cond.Run(exprEnv(rec, b.cfg.Arguments))
		if err != nil {
			v.Error = "condition error: " + err.Error()
			return v
		}
		if !expr.Truthy(ok) {
			v.Skipped = true
			v.Rationale = fmt.Sprintf("Skipped: condition %q is false", b.cfg.If)
			return v
		}
	}
	o := enforce(b.name, b.cfg, b.judge.Score(ctx, rec))
	// A rationale may quote what the agent read or wrote, or what an exec
	// or check judge found in its environment (this process's): it is
	// redacted like every other value the harness writes, with the known
	// values of this environment and of the run (runRedactor).
	v.Rationale = red.String(o.Rationale)
	v.Samples, v.Spread = o.Samples, o.Spread
	v.Cached = o.Cached > 0 && o.Calls == 0
	if o.Err != nil {
		v.Error = red.String(o.Err.Error())
		return v
	}
	f, ok := asFloat(o.Value)
	if !ok {
		// A value that is neither a bool nor a number is no verdict: it
		// is not recorded as 0.
		v.Error = red.String(fmt.Sprintf("judge %q returned %T %s, not a bool or a number", b.name, o.Value, clip.String(fmt.Sprint(o.Value), 80)))
		return v
	}
	v.Value = &f
	if p, ok := o.Value.(bool); ok {
		v.Passed = &p
	}
	return v
}

func baseName(p string) string {
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] == '/' || p[i] == os.PathSeparator {
			return p[i+1:]
		}
	}
	return p
}

// compileCond compiles an if: condition (upstream's Python subset).
func compileCond(src string) (*expr.Program, error) { return expr.Compile(src, true) }
