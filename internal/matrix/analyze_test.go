package matrix

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/rundir"
)

func summary(cost float64, values map[string][]float64) *rundir.Summary {
	s := &rundir.Summary{CostUSD: cost}
	for _, j := range []string{"ok", "score"} {
		if _, has := values[j]; has {
			s.Judges = append(s.Judges, rundir.JudgeSummary{Name: j})
		}
	}
	n := 0
	for _, vs := range values {
		n = max(n, len(vs))
	}
	for i := range n {
		c := rundir.CaseSummary{ID: string(rune('a' + i))}
		for _, j := range []string{"ok", "score"} {
			if i < len(values[j]) {
				v := values[j][i]
				c.Verdicts = append(c.Verdicts, rundir.Verdict{Judge: j, Value: &v})
			}
		}
		s.Cases = append(s.Cases, c)
	}
	return s
}

// One replication of a 2-level factor: the table has its SS but no
// residual, the pass/fail judge's means are pass rates, and an unscored
// cell is named, not counted.
func TestAnalyze(t *testing.T) {
	t.Parallel()
	m := &config.Matrix{Factors: map[string][]any{"model": {"a", "b"}, "ctx": {"x"}}}
	ix := NewIndex("m", "demo", m, time.Unix(0, 0))
	sums := map[string]*rundir.Summary{
		ix.Cells[0].Name: summary(1, map[string][]float64{"ok": {1, 0}, "score": {2, 4}}),
		ix.Cells[1].Name: summary(2, map[string][]float64{"ok": {1, 1}, "score": {5, 7}}),
	}
	r := Analyze(ix, sums)
	if len(r.Cells) != 2 || r.Unscored != nil || r.Cells[0].Means["ok"] != 0.5 || r.Cells[1].Means["score"] != 6 {
		t.Fatalf("cells %+v, unscored %v", r.Cells, r.Unscored)
	}
	if len(r.Judges) != 2 || r.Judges[0].Judge != "ok" || !reflect.DeepEqual(r.Judges[1].ANOVAFactors, []string{"model"}) {
		t.Fatalf("judges %+v", r.Judges)
	}
	sc := r.Judges[1]
	// y = 2 4 | 5 7 (mean 4.5): SS_model = 4·1.5² = 9, residual 4 on 2 DF.
	if sc.Observations != 4 || len(sc.ANOVA) != 2 || sc.ANOVA[0].Term != "model" || sc.ANOVA[0].SS != 9 || sc.ANOVA[1].SS != 4 || sc.ANOVA[1].DF != 2 {
		t.Errorf("anova %+v", sc.ANOVA)
	}
	if sc.ANOVA[0].F == nil || *sc.ANOVA[0].F != 4.5 || sc.ANOVA[1].F != nil || sc.ANOVA[1].PartialEtaSq != nil {
		t.Errorf("F and the residual row %+v", sc.ANOVA)
	}
	if !reflect.DeepEqual(sc.Pareto, []string{ix.Cells[0].Name, ix.Cells[1].Name}) {
		t.Errorf("front %v", sc.Pareto)
	}

	delete(sums, ix.Cells[1].Name)
	r = Analyze(ix, sums)
	if !reflect.DeepEqual(r.Unscored, []string{ix.Cells[1].Name}) || r.Judges[1].ANOVA != nil || !strings.Contains(r.Judges[1].ANOVANote, "two or more levels") {
		t.Errorf("one cell: unscored %v, judge %+v", r.Unscored, r.Judges[1])
	}

	page, err := HTML(Analyze(ix, map[string]*rundir.Summary{ix.Cells[0].Name: sums[ix.Cells[0].Name], ix.Cells[1].Name: summary(2, map[string][]float64{"score": {5, 7}})}))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<svg", "<polyline", "partial η²"} {
		if !bytes.Contains(page, []byte(want)) {
			t.Errorf("matrix.html lacks %s", want)
		}
	}
	for _, bad := range []string{"<script", "<link", "src="} {
		if bytes.Contains(page, []byte(bad)) {
			t.Errorf("matrix.html has %s: it must load nothing", bad)
		}
	}
}

// With one observation per cell and the interaction in the model there is
// no residual: the SS stand, F and P are left out, and a note says why.
func TestAnalyzeNoResidual(t *testing.T) {
	t.Parallel()
	m := &config.Matrix{Factors: map[string][]any{"a": {"1", "2"}, "b": {"x", "y"}}}
	ix := NewIndex("m", "demo", m, time.Unix(0, 0))
	sums := map[string]*rundir.Summary{}
	for i, c := range ix.Cells {
		sums[c.Name] = summary(float64(i), map[string][]float64{"score": {float64(i * i)}})
	}
	j := Analyze(ix, sums).Judges[0]
	if len(j.ANOVA) != 4 || !strings.Contains(j.ANOVANote, "no residual degrees of freedom") || j.ANOVA[0].F != nil || j.ANOVA[0].P != nil {
		t.Errorf("judge %+v", j)
	}
}

// The violations are summed per level of each factor: the agent that
// tried to break out stands out.
func TestAnalyzeViolations(t *testing.T) {
	t.Parallel()
	m := &config.Matrix{Factors: map[string][]any{"agent": {"claude", "codex"}}, Replications: ptrInt(2)}
	ix := NewIndex("m", "demo", m, time.Unix(0, 0))
	sums := map[string]*rundir.Summary{}
	for i, c := range ix.Cells {
		s := summary(1, map[string][]float64{"ok": {1, 1}})
		s.NumCases = 2
		if c.Cell().LevelTexts()["agent"] == "codex" {
			s.Violations = rundir.ViolationCounts{Total: 2 + i, Cases: 1, ByKind: map[string]int{"denied_call": 1, "refused_connection": 1 + i}}
		}
		sums[c.Name] = s
	}
	r := Analyze(ix, sums)
	if len(r.Violations) != 2 {
		t.Fatalf("violations %+v", r.Violations)
	}
	claude, codex := r.Violations[0], r.Violations[1]
	if claude.Level != "claude" || claude.Total != 0 || claude.Cells != 2 || claude.Cases != 4 || claude.CasesWith != 0 {
		t.Errorf("claude: %+v", claude)
	}
	// The codex cells are the last two (i = 2, 3): 4 + 5 violations.
	if codex.Level != "codex" || codex.Total != 9 || codex.CasesWith != 2 || codex.ByKind["denied_call"] != 2 || codex.ByKind["refused_connection"] != 7 {
		t.Errorf("codex: %+v", codex)
	}
	page, err := HTML(r)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), "<td>agent</td><td>codex</td><td>2</td><td>4</td><td>2</td><td>9</td><td>2 denied_call, 7 refused_connection</td>") {
		t.Errorf("matrix.html lacks the codex row of violations:\n%s", page)
	}
}

func ptrInt(n int) *int { return &n }

// The by-level table puts each agent's cells side by side: its mean is
// over every case of its cells, its cost their sum.
func TestAnalyzeByLevel(t *testing.T) {
	t.Parallel()
	m := &config.Matrix{Factors: map[string][]any{"runner": {
		map[string]any{"type": "claude-code", "model": "s"},
		map[string]any{"type": "codex", "model": "g"},
	}}, Replications: ptrInt(2)}
	ix := NewIndex("m", "demo", m, time.Unix(0, 0))
	sums := map[string]*rundir.Summary{}
	for i, c := range ix.Cells {
		v := map[string][]float64{"ok": {1, 1}}
		if c.Cell().LevelTexts()["runner"] == "codex" {
			v = map[string][]float64{"ok": {1, float64(i % 2)}, "score": {0.5}}
		}
		sums[c.Name] = summary(float64(i+1), v)
	}
	r := Analyze(ix, sums)
	if len(r.ByLevel) != 2 {
		t.Fatalf("by level %+v", r.ByLevel)
	}
	claude, codex := r.ByLevel[0], r.ByLevel[1]
	if claude.Level != "claude-code" || claude.Cells != 2 || claude.CostUSD != 3 || claude.Means["ok"] != 1 {
		t.Errorf("claude-code: %+v", claude)
	}
	// codex's cells are i = 2 (ok 1, 0) and 3 (ok 1, 1): 3 of 4.
	if codex.Level != "codex" || codex.CostUSD != 7 || codex.Means["ok"] != 0.75 || codex.Means["score"] != 0.5 {
		t.Errorf("codex: %+v", codex)
	}
	if j := r.Judges[0]; len(j.ANOVAFactors) != 1 || j.ANOVAFactors[0] != "runner" {
		t.Errorf("the runner is not an ANOVA factor: %+v", j.ANOVAFactors)
	}
	page, err := HTML(r)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), "<td>runner</td><td>codex</td><td>2</td><td>$7.0000</td><td>0.75</td>") {
		t.Errorf("matrix.html lacks codex's row by level:\n%s", page)
	}
}

// Every case alike (every agent passed everything): no table made of
// rounding noise, a note instead.
func TestAnalyzeConstant(t *testing.T) {
	t.Parallel()
	m := &config.Matrix{Factors: map[string][]any{"agent": {"a", "b", "c"}}, Replications: ptrInt(2)}
	ix := NewIndex("m", "demo", m, time.Unix(0, 0))
	sums := map[string]*rundir.Summary{}
	for _, c := range ix.Cells {
		sums[c.Name] = summary(0, map[string][]float64{"ok": {1, 1}})
	}
	j := Analyze(ix, sums).Judges[0]
	if j.ANOVA != nil || !strings.Contains(j.ANOVANote, "every case has the same value") {
		t.Errorf("judge %+v", j)
	}
}
