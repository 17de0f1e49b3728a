package config

import (
	"fmt"
	"sort"
	"strings"
)

// Matrix is upstream's eval-anova experiment design: every combination of
// the factors' levels, each run replications times. run runs the base
// configuration; matrix run (internal/matrix) runs every cell.
type Matrix struct {
	Factors      map[string][]any `yaml:"factors" doc:"Factor name to its levels (a non-empty list). \"model\" varies models.skill; \"runner\" varies the agent, each level a mapping {type, model, name?, effort?, settings?} (docs/agent-matrix.md); any other name is a case input field set per cell (upstream's --input-override), usable as a {name} placeholder." check:"required"`
	Replications *int             `yaml:"replications" doc:"How many times each cell runs." default:"1" check:"atleast1"`
}

// MatrixNotice is the notice validate and run print for an eval with a
// matrix, or "" when it has none.
func (e *Eval) MatrixNotice() string {
	m := e.Matrix
	if m == nil || len(m.Factors) == 0 {
		return ""
	}
	cells := 1
	var dims []string
	for _, name := range m.FactorNames() {
		cells *= len(m.Factors[name])
		dims = append(dims, fmt.Sprintf("%s %d", name, len(m.Factors[name])))
	}
	reps := 1
	if m.Replications != nil {
		reps = *m.Replications
	}
	return fmt.Sprintf("declares %d %s (%s) × %d %s; run runs the base configuration once: run every cell with agent-eval matrix run",
		cells, plural(cells, "cell", "cells"), strings.Join(dims, " × "), reps, plural(reps, "replication", "replications"))
}

// FactorNames are the matrix's factor names, sorted.
func (m *Matrix) FactorNames() []string {
	names := make([]string, 0, len(m.Factors))
	for n := range m.Factors {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// matrix checks the factors: each a known kind of name with a non-empty
// list of distinct scalar levels.
func (v *validator) matrix() {
	m := v.e.Matrix
	if m == nil || v.failed("matrix.factors") {
		return
	}
	if len(m.Factors) == 0 {
		v.errf("matrix.factors", CodeSemantic, "a matrix needs at least one factor")
		return
	}
	before := len(v.d.errs)
	for _, name := range m.FactorNames() {
		p := "matrix.factors." + name
		levels := m.Factors[name]
		switch {
		case name == "model", name == RunnerFactor:
		case !envNameRE().MatchString(name):
			v.errf(p, CodeSemantic, "factor %q: a factor is \"model\" (models.skill), \"runner\" (the agent) or a case input field name ([A-Za-z_][A-Za-z0-9_]*)", name)
			continue
		}
		if len(levels) == 0 {
			v.errf(p, CodeSemantic, "factor %q has no levels; list at least one", name)
			continue
		}
		if name == RunnerFactor {
			v.runnerFactor(p, levels)
			continue
		}
		seen := map[string]bool{}
		for i, l := range levels {
			lp := index(p, i)
			switch l.(type) {
			case string, int, int64, uint64, float64, bool:
			default:
				v.errf(lp, CodeSemantic, "factor %q: a level must be a string, number or boolean", name)
				continue
			}
			s := fmt.Sprint(l)
			if seen[s] {
				v.errf(lp, CodeSemantic, "factor %q lists the level %q twice", name, s)
			}
			seen[s] = true
			if name == "model" && strings.TrimSpace(s) == "" {
				v.errf(lp, CodeSemantic, "factor model: a level must name a model")
			}
		}
	}
	if len(v.d.errs) == before && !v.failed("matrix") {
		v.warnf("matrix", "%s", v.e.MatrixNotice())
	}
}
