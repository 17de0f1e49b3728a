package score

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/agent-eval/agent-eval/internal/config"
)

// TestNoModelJudges: --no-llm-judges drops the llm judge, the builtin LLM
// judge and an unknown builtin, keeps the rest, skips the dropped judges'
// gates and needs no key.
func TestNoModelJudges(t *testing.T) {
	evalYAML := strings.Replace(scoreEval, "judges:\n", `judges:
  - name: complete
    builtin: quality/output_completeness
  - name: future
    builtin: someday/not_yet
`, 1) + "  complete:\n    min_pass_rate: 1.0\n"
	ev, dir := writeProject(t, evalYAML, scoreFixture(t)...)
	kept, d, err := NoModelJudges(ev)
	must(t, err)
	var names []string
	for _, j := range d.Judges {
		names = append(names, j.Name+":"+j.Kind)
	}
	if got := strings.Join(names, ","); got != "complete:builtin,future:builtin,quality:llm" {
		t.Errorf("dropped = %s", got)
	}
	if len(kept.Judges) != 4 || kept.Judges[0].Name != "has_output" {
		t.Errorf("kept %d judges, first %q; want 4 from has_output", len(kept.Judges), kept.Judges[0].Name)
	}
	if _, ok := kept.Thresholds["quality"]; ok {
		t.Errorf("quality's threshold kept")
	}
	if _, ok := ev.Thresholds["quality"]; !ok {
		t.Errorf("the original eval lost quality's threshold")
	}
	// The kept judges' positions moved with them.
	if line, _ := kept.Position("judges[0].name"); line == 0 {
		t.Errorf("judges[0] of the copy has no position")
	}
	if a, _ := kept.Position("judges[1].name"); a != func() int { l, _ := ev.Position("judges[4].name"); return l }() {
		t.Errorf("judges[1] of the copy (respected_denials) is at line %d, not its own", a)
	}
	s, err := Score(context.Background(), Options{Dir: dir, Eval: kept, Dropped: d, Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatalf("Score without a key after --no-llm-judges: %v", err)
	}
	if len(s.DroppedJudges) != 3 || s.LLM.Made != 0 {
		t.Errorf("summary: %d dropped, %d LLM calls", len(s.DroppedJudges), s.LLM.Made)
	}
	skipped := 0
	for _, th := range s.Thresholds {
		if th.Skipped {
			skipped++
			if th.OK || th.Breached() || (th.Judge != "quality" && th.Judge != "complete") {
				t.Errorf("skipped gate %+v", th)
			}
		}
	}
	if skipped != 3 { // quality's min_mean and max_error_rate, complete's min_pass_rate
		t.Errorf("%d gates skipped; want 3: %+v", skipped, s.Thresholds)
	}
	if !s.Passed {
		t.Errorf("not passed: %v", Regressions(s))
	}
}

// TestNoModelJudgesFailsClosed: a judge of a kind it cannot classify is a
// configuration error naming its place, not kept.
func TestNoModelJudgesFailsClosed(t *testing.T) {
	ev, _ := writeProject(t, scoreEval, scoreFixture(t)...)
	ev.Judges[0].Expr = ""
	ev.Judges[0].Name = "odd"
	ev.Judges = append(ev.Judges, config.Judge{Name: Pairwise}) // no prompt of its own: still a model's
	_, _, err := NoModelJudges(ev)
	if err == nil || strings.Contains(err.Error(), Pairwise) {
		t.Errorf("err = %v; want one on odd, none on pairwise", err)
	}
	var es config.Errors
	if !errors.As(err, &es) || !strings.Contains(err.Error(), `judge "odd"`) || es[0].Line == 0 {
		t.Errorf("err = %v; want a config error at judge odd's line", err)
	}
}

// TestNoModelJudgesPairwise: the pairwise judge, with or without a prompt
// of its own, is dropped.
func TestNoModelJudgesPairwise(t *testing.T) {
	ev, _ := writeProject(t, scoreEval, scoreFixture(t)...)
	ev.Judges = append(ev.Judges, config.Judge{Name: Pairwise})
	kept, d, err := NoModelJudges(ev)
	must(t, err)
	if judgeByName(kept, Pairwise) != nil || d.Judges[len(d.Judges)-1].Name != Pairwise {
		t.Errorf("pairwise kept: dropped %+v", d.Judges)
	}
}

func TestPruneReward(t *testing.T) {
	gone := map[string]bool{"q": true}
	for _, tc := range []struct {
		name string
		in   *config.Reward
		kept bool
		note string
	}{
		{"judge gone", &config.Reward{Judge: "q"}, false, `its judge "q"`},
		{"judge kept", &config.Reward{Judge: "p"}, true, ""},
		{"formula names it", &config.Reward{Formula: "0.5*p + 0.5*q"}, false, `dropped judge "q"`},
		{"formula without it", &config.Reward{Formula: "p*qq"}, true, ""},
		{"weights pruned", &config.Reward{Weights: map[string]float64{"p": 1, "q": 2}}, true, "weights of q"},
		{"weights emptied", &config.Reward{Weights: map[string]float64{"q": 2}}, false, "every weighted"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, note := pruneReward(tc.in, gone)
			if (got != nil) != tc.kept || !strings.Contains(note, tc.note) || (tc.note == "" && note != "") {
				t.Errorf("pruneReward = %+v, %q", got, note)
			}
			if got != nil && got.Weights["q"] != 0 {
				t.Errorf("q's weight kept")
			}
			if tc.in.Weights != nil && tc.in.Weights["q"] != 2 {
				t.Errorf("the eval's own weights were edited")
			}
		})
	}
}
