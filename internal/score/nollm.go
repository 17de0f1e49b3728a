package score

import (
	"cmp"
	"fmt"
	"maps"
	"sort"
	"strings"

	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/rundir"
)

// Dropped is what score --no-llm-judges left out of an eval.
type Dropped struct {
	// Judges are the judges dropped, with why, in eval.yaml's order.
	Judges []rundir.DroppedJudge
	// Gates are their thresholds, each Skipped.
	Gates []rundir.ThresholdResult
	// RewardNote says what became of the reward ("" when nothing did).
	RewardNote string
}

// NoModelJudges is the eval without the judges that call a model (score
// --no-llm-judges): llm and agent judges and the builtin LLM judges. It
// fails closed: a builtin this version cannot resolve is dropped too, and
// a judge of a kind it cannot classify is a configuration error. The
// dropped judges' thresholds and reward terms go with them.
func NoModelJudges(ev *config.Eval) (*config.Eval, Dropped, error) {
	var d Dropped
	gone := map[string]bool{}
	for i, j := range ev.Judges {
		why, err := modelCaller(ev, i, j)
		if err != nil {
			return nil, Dropped{}, err
		}
		if why != "" {
			gone[j.Name] = true
			d.Judges = append(d.Judges, rundir.DroppedJudge{Name: j.Name, Kind: cmp.Or(j.Type(), "llm"), Reason: why})
		}
	}
	if len(d.Judges) == 0 {
		return ev, d, nil
	}
	d.Gates = skippedThresholds(ev, d.Judges)
	out := ev.KeepJudges(func(j config.Judge) bool { return !gone[j.Name] })
	out.Thresholds = maps.Clone(ev.Thresholds)
	for name := range gone {
		delete(out.Thresholds, name)
	}
	out.Reward, d.RewardNote = pruneReward(ev.Reward, gone)
	return out, d, nil
}

// modelCaller says why judge i calls a model ("" when it does not).
func modelCaller(ev *config.Eval, i int, j config.Judge) (string, error) {
	if j.Name == Pairwise {
		return "the pairwise judge asks the judge model to compare with --baseline", nil
	}
	switch kind := j.Type(); kind {
	case "llm":
		return "an llm judge calls the judge model", nil
	case "agent":
		return "an agent judge runs an agent on a model", nil
	case "builtin":
		full, ok := resolveBuiltin(j.Builtin)
		switch {
		case !ok:
			return fmt.Sprintf("builtin %q is unknown to this version, so it may call a model", j.Builtin), nil
		case llmBuiltins[full] != nil:
			return fmt.Sprintf("builtin %s calls the judge model", full), nil
		}
		return "", nil
	case "check", "code", "expr", "exec":
		return "", nil
	default:
		return "", configError(ev, judgeField(i, ""), "judge %q: --no-llm-judges cannot tell whether a judge of kind %q calls a model, so it will not score (remove the flag, or the judge)", j.Name, kind)
	}
}

// pruneReward is the reward without the gone judges: their weights
// removed, and no reward at all (the default) when its judge is gone,
// its formula names one, or no weight is left. note says which.
func pruneReward(rw *config.Reward, gone map[string]bool) (*config.Reward, string) {
	if rw == nil {
		return nil, ""
	}
	if gone[rw.Judge] {
		return nil, fmt.Sprintf("reward dropped: its judge %q was dropped", rw.Judge)
	}
	if rw.Judge != "" {
		return rw, ""
	}
	if f := strings.TrimSpace(rw.Formula); f != "" && f != "weighted" {
		for _, name := range formulaNames(f) {
			if gone[name] {
				return nil, fmt.Sprintf("reward dropped: its formula uses the dropped judge %q", name)
			}
		}
		return rw, ""
	}
	c := *rw
	c.Weights = maps.Clone(rw.Weights)
	var pruned []string
	for name := range gone {
		if _, ok := c.Weights[name]; ok {
			delete(c.Weights, name)
			pruned = append(pruned, name)
		}
	}
	if len(pruned) == 0 {
		return rw, ""
	}
	sort.Strings(pruned)
	if len(c.Weights) == 0 {
		return nil, "reward dropped: every weighted judge was dropped"
	}
	return &c, "reward weights of " + strings.Join(pruned, ", ") + " dropped"
}

// formulaNames are the identifiers in a reward formula.
func formulaNames(f string) []string {
	return strings.FieldsFunc(f, func(r rune) bool {
		return !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	})
}

// skippedThresholds are the gates on the dropped judges, reported as not
// checked.
func skippedThresholds(ev *config.Eval, dropped []rundir.DroppedJudge) []rundir.ThresholdResult {
	var out []rundir.ThresholdResult
	for _, d := range dropped {
		t, ok := ev.Thresholds[d.Name]
		if !ok {
			continue
		}
		for _, m := range []struct {
			name string
			want *float64
		}{{"min_pass_rate", t.MinPassRate}, {"min_mean", t.MinMean}, {"min_win_rate", t.MinWinRate}, {"max_error_rate", t.MaxErrorRate}, {"max_regression", t.MaxRegression}} {
			if m.want != nil {
				out = append(out, rundir.ThresholdResult{Judge: d.Name, Metric: m.name, Want: *m.want, Skipped: true, Detail: "skipped: the judge was dropped by --no-llm-judges"})
			}
		}
	}
	return out
}
