package score

import (
	"context"
	"debug/elf"
	"path/filepath"
	"regexp"

	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/rundir"
)

// TrialOptions configure the scoring of one case inside a Harbor trial's
// container, after its agent ran (agent-eval harbor verify).
type TrialOptions struct {
	// Dir is a one-case run directory holding the case as collected.
	Dir rundir.Dir
	// Eval is the eval as exported; its folder (tests/) holds the judges'
	// own files, which Harbor uploads after the agent ran.
	Eval *config.Eval
	// CaseID is the case; CaseSource its folder from the dataset
	// (tests/case/).
	CaseID, CaseSource string
	// Step is the pipeline step this verifier runs after ("" without
	// steps): the judges with that step, and at the last step the judges
	// without one.
	Step string
	// Environ is the judges' environment (os.Environ when nil).
	Environ []string
	// TestsVerified: eval.yaml's folder holds only what the export put
	// there (harbor.CaseInfo.Tests checked); else no exec judge runs (its
	// program could be one the agent planted before the upload).
	TestsVerified bool
}

// TrialJudge is one judge's part in a trial's verdict: run (Verdict) or not
// (Why says why).
type TrialJudge struct {
	Name, Kind string
	Verdict    *rundir.Verdict
	Why        string
}

// TrialVerdict is what the container could judge of a case.
type TrialVerdict struct {
	// Reward in [0, 1], composed as score composes it (reward.go) from the
	// judges that ran; nil when no judge the reward needs could run here.
	Reward *float64
	// Judges are the step's judges in eval.yaml's order.
	Judges []TrialJudge
}

// ScoreTrial judges one case inside a trial's container with the judges
// that can run there: those that call no model and run nothing the agent
// could have written (TrialRunnable). A configuration problem of those is
// an error, as score would report it.
func ScoreTrial(ctx context.Context, opts TrialOptions) (*TrialVerdict, error) {
	ev := opts.Eval
	env := &Env{Eval: ev, Dir: ev.Dir(), RunDir: opts.Dir.Path, Environ: opts.Environ}
	out := &TrialVerdict{}
	why := map[string]string{}
	inStep := func(j config.Judge) bool { return j.Name != Pairwise && judgeInStep(ev, j, opts.Step) }
	runnable := func(j config.Judge) bool {
		if !inStep(j) {
			return false
		}
		w := TrialRunnable(ev, j, opts.TestsVerified)
		why[j.Name] = w
		return w == ""
	}
	judges, err := build(ev, env, Kinds(), runnable)
	if err != nil {
		return nil, err
	}
	rec, err := buildRecord(opts.Dir, ev, opts.CaseID, opts.CaseSource)
	if err != nil {
		return nil, err
	}
	red, err := runRedactor(opts.Dir)
	if err != nil {
		return nil, err
	}
	cs := rundir.CaseSummary{ID: opts.CaseID}
	byName := map[string]*rundir.Verdict{}
	for _, b := range judges {
		v := caseVerdict(ctx, b, rec, red)
		cs.Verdicts = append(cs.Verdicts, v)
		byName[b.name] = &v
	}
	var notRun []string
	for _, j := range ev.Judges {
		if !inStep(j) {
			continue
		}
		tj := TrialJudge{Name: j.Name, Kind: j.Type(), Verdict: byName[j.Name], Why: why[j.Name]}
		if tj.Verdict == nil {
			notRun = append(notRun, j.Name)
		}
		out.Judges = append(out.Judges, tj)
	}
	if len(judges) == 0 || rewardNeeds(ev, notRun) {
		return out, nil
	}
	r := round(caseReward(&cs, ev, judges, rewardFormula(ev)))
	out.Reward = &r
	return out, nil
}

// judgeInStep says whether j judges step ("" without a pipeline: every
// judge does): a judge with a step judges that step, one without judges
// the last.
func judgeInStep(ev *config.Eval, j config.Judge, step string) bool {
	if step == "" {
		return true
	}
	if j.Step != "" {
		return j.Step == step
	}
	steps := ev.Execution.Steps
	return len(steps) == 0 || steps[len(steps)-1].ID == step
}

// rewardNeeds says whether the eval's reward is made of a judge in
// notRun: reward.judge, or a name its formula uses. Composed without it,
// the reward would be a made-up number (a formula failing on a missing
// name is 0).
func rewardNeeds(ev *config.Eval, notRun []string) bool {
	rw := ev.Reward
	if rw == nil {
		return false
	}
	for _, n := range notRun {
		if rw.Judge == n {
			return true
		}
		if rewardFormula(ev) != nil && regexp.MustCompile(`(^|[^A-Za-z0-9_])`+regexp.QuoteMeta(n)+`($|[^A-Za-z0-9_])`).MatchString(rw.Formula) {
			return true
		}
	}
	return false
}

// TrialRunnable says why judge j cannot run inside a trial's container, or
// "" when it can. The container is the agent's: it may have changed any
// program in it, python3 and sh included, and no model key belongs there.
// What runs is Go inside agent-eval (expr judges, the builtins that call no
// model) and exec judges whose program is a statically linked executable
// in eval.yaml's folder, which Harbor uploads after the agent ran (tests/),
// when testsVerified says that folder holds only what the export put
// there. A script there would run the container's sh or python3, a
// dynamically linked program its libraries.
func TrialRunnable(ev *config.Eval, j config.Judge, testsVerified bool) string {
	switch kind := j.Type(); kind {
	case "expr":
		return ""
	case "llm":
		return "it calls a model, which the container has no key for; score runs it after the import"
	case "builtin":
		if full, ok := resolveBuiltin(j.Builtin); ok && llmBuiltins[full] != nil {
			return "it calls a model, which the container has no key for; score runs it after the import"
		}
		return ""
	case "check", "code":
		return "it runs python3 from the container, which the agent could have replaced; score runs it after the import"
	case "exec":
		if !testsVerified {
			return "the task's case.json lists no digests of tests/, so its program could be one the agent planted there; score runs it after the import"
		}
		dir := absReal(ev.Dir())
		argv := execArgv(dir, j.Exec)
		p := argv[0]
		real, err := filepath.EvalSymlinks(p)
		if !filepath.IsAbs(p) || err != nil || !inAny(p, []string{dir}) || !inAny(real, []string{dir}) || pythonExec(dir, argv, j.Env) != nil {
			return "its program " + p + " is not a file of the task's tests/ (a program of the container, which the agent could have replaced); score runs it after the import"
		}
		if !staticELF(real) {
			return "its program " + p + " is a script or a dynamically linked program, which runs the container's interpreter or libraries (the agent could have replaced them); score runs it after the import"
		}
		return ""
	default:
		return "" // Build reports the kind it cannot build
	}
}

// staticELF says whether p is an ELF executable that needs no interpreter
// (no PT_INTERP: no dynamic loader, no shared libraries).
func staticELF(p string) bool {
	f, err := elf.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	if f.Type != elf.ET_EXEC && f.Type != elf.ET_DYN {
		return false
	}
	for _, prog := range f.Progs {
		if prog.Type == elf.PT_INTERP {
			return false
		}
	}
	return true
}
