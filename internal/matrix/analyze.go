package matrix

import (
	"errors"
	"fmt"
	"math"

	"github.com/agent-eval/agent-eval/internal/rundir"
	"github.com/agent-eval/agent-eval/internal/stats"
)

// ReportVersion is the version of matrix.yaml.
const ReportVersion = 1

// Report is matrix.yaml: each scored cell's cost and judge means, and per
// judge the ANOVA table over the cells' per-case values and the cells'
// cost-versus-score Pareto front.
type Report struct {
	SchemaVersion int           `yaml:"schema_version"`
	MatrixID      string        `yaml:"matrix_id"`
	EvalName      string        `yaml:"eval_name"`
	Factors       []Factor      `yaml:"factors"`
	Replications  int           `yaml:"replications"`
	Cells         []CellReport  `yaml:"cells"`
	Judges        []JudgeReport `yaml:"judges"`
	// Unscored are the cells left out (not scored yet).
	Unscored []string `yaml:"unscored,omitempty"`
	// ByLevel is each factor's levels side by side (per agent, when the
	// runner is a factor): their cells' cost and each judge's mean.
	ByLevel []LevelScores `yaml:"by_level"`
	// Violations sums the cells' violations by each factor's level (per
	// agent, when a factor is the agent): which one tried to break out.
	Violations []LevelViolations `yaml:"violations"`
}

// LevelScores are the scored cells at one level of a factor: how many,
// their summed cost, and each judge's mean over all their cases' values
// (1/0 for pass/fail: its pass rate).
type LevelScores struct {
	Factor  string             `yaml:"factor"`
	Level   string             `yaml:"level"`
	Cells   int                `yaml:"cells"`
	CostUSD float64            `yaml:"cost_usd"`
	Means   map[string]float64 `yaml:"means"`
}

// LevelViolations are the violations of the scored cells at one level of
// a factor: their sum, by kind, over Cases cases, CasesWith of which had
// any.
type LevelViolations struct {
	Factor    string         `yaml:"factor"`
	Level     string         `yaml:"level"`
	Cells     int            `yaml:"cells"`
	Cases     int            `yaml:"cases"`
	CasesWith int            `yaml:"cases_with_violations"`
	Total     int            `yaml:"total"`
	ByKind    map[string]int `yaml:"by_kind,omitempty"`
}

// CellReport is one cell's line of the report.
type CellReport struct {
	Name        string            `yaml:"name"`
	Levels      map[string]string `yaml:"levels"`
	Replication int               `yaml:"replication"`
	RunDir      string            `yaml:"run_dir"`
	CostUSD     float64           `yaml:"cost_usd"`
	// Violations are the cell's run's (summary.yaml's).
	Violations rundir.ViolationCounts `yaml:"violations"`
	// Means is each judge's mean of the values of the cell's cases (1/0
	// for pass/fail), the score of its Pareto front; absent: no value.
	Means map[string]float64 `yaml:"means"`
}

// JudgeReport is one judge across the cells.
type JudgeReport struct {
	Judge string `yaml:"judge"`
	// Observations are the per-case values the ANOVA was fitted to.
	Observations int `yaml:"observations"`
	// ANOVAFactors are the factors in the model (those with two or more
	// levels among the judge's values), crossed with their interactions.
	ANOVAFactors []string  `yaml:"anova_factors"`
	ANOVA        []TermRow `yaml:"anova,omitempty"`
	// ANOVANote says why there is no table, or why F and P are missing.
	ANOVANote string `yaml:"anova_note,omitempty"`
	// Points are the cells' cost and mean; Pareto the names of the cells on
	// the cost-versus-score front, in increasing cost.
	Points []Point  `yaml:"points"`
	Pareto []string `yaml:"pareto"`
}

// TermRow is a row of an ANOVA table (Type II sums of squares). F, P and
// the partial η² are absent where they are undefined (the residual row, no
// residual degrees of freedom).
type TermRow struct {
	Term         string   `yaml:"term"`
	SS           float64  `yaml:"ss"`
	DF           float64  `yaml:"df"`
	MS           *float64 `yaml:"ms,omitempty"`
	F            *float64 `yaml:"f,omitempty"`
	P            *float64 `yaml:"p,omitempty"`
	EtaSq        *float64 `yaml:"eta_sq,omitempty"`
	PartialEtaSq *float64 `yaml:"partial_eta_sq,omitempty"`
}

// Point is a cell in the cost-versus-score plane of one judge.
type Point struct {
	Cell    string  `yaml:"cell"`
	CostUSD float64 `yaml:"cost_usd"`
	Score   float64 `yaml:"score"`
}

// Analyze builds the report of ix from its cells' summaries (keyed by
// cell name; a cell without one is unscored and left out). The judges
// come in the order they first appear in the summaries.
func Analyze(ix Index, summaries map[string]*rundir.Summary) Report {
	r := Report{SchemaVersion: ReportVersion, MatrixID: ix.ID, EvalName: ix.EvalName, Factors: ix.Factors, Replications: ix.Replications}
	var judges []string
	seen := map[string]bool{}
	obs := map[string][]stats.Obs{}
	sums := map[string]map[string][2]float64{} // cell -> judge -> sum, count
	for _, c := range ix.Cells {
		s := summaries[c.Name]
		if s == nil {
			r.Unscored = append(r.Unscored, c.Name)
			continue
		}
		levels := c.Cell().LevelTexts()
		cr := CellReport{Name: c.Name, Levels: levels, Replication: c.Replication, RunDir: c.RunDir, CostUSD: s.CostUSD, Means: map[string]float64{},
			Violations: s.Violations}
		for _, j := range s.Judges {
			if !seen[j.Name] {
				seen[j.Name] = true
				judges = append(judges, j.Name)
			}
		}
		sum, n := map[string]float64{}, map[string]int{}
		for _, cs := range s.Cases {
			for _, v := range cs.Verdicts {
				if v.Value != nil && !math.IsNaN(*v.Value) && !math.IsInf(*v.Value, 0) {
					obs[v.Judge] = append(obs[v.Judge], stats.Obs{Levels: levels, Y: *v.Value})
					sum[v.Judge] += *v.Value
					n[v.Judge]++
				}
			}
		}
		sums[c.Name] = map[string][2]float64{}
		for j, k := range n {
			cr.Means[j] = sum[j] / float64(k) // a pass/fail judge's: its pass rate
			sums[c.Name][j] = [2]float64{sum[j], float64(k)}
		}
		r.Cells = append(r.Cells, cr)
	}
	r.ByLevel = levelScores(ix, r.Cells, sums)
	r.Violations = levelViolations(ix, r.Cells, summaries)
	for _, name := range judges {
		factors := varied(ix, obs[name])
		jr := JudgeReport{Judge: name, Observations: len(obs[name]), ANOVAFactors: factors}
		jr.ANOVA, jr.ANOVANote = anova(obs[name], factors)
		var pts []stats.Point
		for _, c := range r.Cells {
			if m, ok := c.Means[name]; ok {
				jr.Points = append(jr.Points, Point{Cell: c.Name, CostUSD: c.CostUSD, Score: m})
				pts = append(pts, stats.Point{Cost: c.CostUSD, Score: m})
			}
		}
		jr.Pareto = []string{}
		for _, i := range stats.Pareto(pts) {
			jr.Pareto = append(jr.Pareto, jr.Points[i].Cell)
		}
		r.Judges = append(r.Judges, jr)
	}
	return r
}

// varied are the index's factors with two or more levels among obs: a
// factor seen at one level (declared so, or its other cells unscored)
// explains nothing and cannot be in the model.
func varied(ix Index, obs []stats.Obs) []string {
	var out []string
	for _, f := range ix.Factors {
		seen := map[string]bool{}
		for _, o := range obs {
			seen[o.Levels[f.Name]] = true
		}
		if len(seen) > 1 {
			out = append(out, f.Name)
		}
	}
	return out
}

// anova fits the table, or says why there is none.
func anova(obs []stats.Obs, factors []string) ([]TermRow, string) {
	switch {
	case len(factors) == 0:
		return nil, "no factor has two or more levels among the scored cells"
	case len(obs) == 0:
		return nil, "no case has a value"
	case constant(obs):
		// The sums of squares would be rounding noise, and F and P
		// made of it.
		return nil, "every case has the same value: there is no variance to explain"
	}
	t, err := stats.ANOVA(obs, factors)
	note := ""
	switch {
	case errors.Is(err, stats.ErrNoResidualDF):
		note = "no residual degrees of freedom (add replications): F and P are undefined"
	case err != nil:
		return nil, fmt.Sprintf("no table: %v", err)
	}
	rows := make([]TermRow, len(t.Rows))
	for i, x := range t.Rows {
		rows[i] = TermRow{Term: x.Term, SS: x.SS, DF: x.DF, MS: finite(x.MS), F: finite(x.F), P: finite(x.P), EtaSq: finite(x.EtaSq), PartialEtaSq: finite(x.PartialEtaSq)}
	}
	return rows, note
}

// constant reports whether every observation has the same value.
func constant(obs []stats.Obs) bool {
	for _, o := range obs {
		if o.Y != obs[0].Y {
			return false
		}
	}
	return true
}

// finite is &v, or nil for NaN and ±Inf.
func finite(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// levelViolations sums cells' violations by each level of each factor, in
// the index's order of factors and levels.
func levelViolations(ix Index, cells []CellReport, summaries map[string]*rundir.Summary) []LevelViolations {
	out := []LevelViolations{}
	for _, f := range ix.Factors {
		for _, level := range f.Levels {
			lv := LevelViolations{Factor: f.Name, Level: level}
			for _, c := range cells {
				if c.Levels[f.Name] != level {
					continue
				}
				lv.Cells++
				lv.Cases += summaries[c.Name].NumCases
				lv.CasesWith += c.Violations.Cases
				lv.Total += c.Violations.Total
				for k, n := range c.Violations.ByKind {
					if lv.ByKind == nil {
						lv.ByKind = map[string]int{}
					}
					lv.ByKind[k] += n
				}
			}
			if lv.Cells > 0 {
				out = append(out, lv)
			}
		}
	}
	return out
}

// levelScores puts each factor's levels side by side, in the index's
// order: a level's judge mean is over every case value of its cells.
func levelScores(ix Index, cells []CellReport, sums map[string]map[string][2]float64) []LevelScores {
	out := []LevelScores{}
	for _, f := range ix.Factors {
		for _, level := range f.Levels {
			ls := LevelScores{Factor: f.Name, Level: level, Means: map[string]float64{}}
			acc := map[string][2]float64{}
			for _, c := range cells {
				if c.Levels[f.Name] != level {
					continue
				}
				ls.Cells++
				ls.CostUSD += c.CostUSD
				for j, sn := range sums[c.Name] {
					a := acc[j]
					acc[j] = [2]float64{a[0] + sn[0], a[1] + sn[1]}
				}
			}
			for j, a := range acc {
				ls.Means[j] = a[0] / a[1]
			}
			if ls.Cells > 0 {
				out = append(out, ls)
			}
		}
	}
	return out
}
