// Package matrix runs an experiment matrix (eval.yaml's matrix: block,
// upstream's eval-anova): Expand turns the factors and replications into
// cells, each one ordinary run with its model and input overrides; Dir is
// the matrix folder (matrix.json, its index, and cells/<cell>/, each a
// normal run directory); Analyze reads the scored cells into the ANOVA
// tables and the cost-versus-score Pareto fronts that matrix.yaml and
// matrix.html hold. It never runs anything itself.
package matrix

import (
	"fmt"

	"strconv"
	"strings"

	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/lazyre"
)

// ModelFactor is the factor that varies models.skill, RunnerFactor the
// one that varies the agent (runner.type with its model); every other
// factor is a case input field.
const (
	ModelFactor  = config.ModelFactorName
	RunnerFactor = config.RunnerFactor
)

// Level is one factor's level in a cell: Value as eval.yaml gave it (a
// string, number or boolean) and Text, its string form.
type Level struct {
	Factor string `json:"factor"`
	Value  any    `json:"value"`
	Text   string `json:"text"`
}

// Cell is one combination of the factors' levels in one replication.
type Cell struct {
	// Name is the cell's folder name (stable, folder-safe, unique in the
	// matrix): c<NN>.<factor>-<level>....r<rep>.
	Name string
	// Combination numbers the cell's combination of levels from 1; the
	// replications of a combination share it.
	Combination int
	// Levels are the cell's levels, one per factor, in factor-name order.
	Levels []Level
	// Replication counts from 1.
	Replication int
}

// Model is the cell's model (its model level, or its runner level's),
// or "" when neither is a factor.
func (c Cell) Model() string {
	for _, l := range c.Levels {
		if l.Factor == ModelFactor {
			return l.Text
		}
	}
	if r, ok := c.Runner(); ok {
		return r.Model
	}
	return ""
}

// Runner is the cell's runner level, when the runner is a factor.
func (c Cell) Runner() (config.RunnerLevel, bool) {
	for _, l := range c.Levels {
		if l.Factor == RunnerFactor {
			r, err := config.ParseRunnerLevel(l.Value)
			return r, err == nil
		}
	}
	return config.RunnerLevel{}, false
}

// InputOverrides are the cell's factors other than the model and the
// runner, set over every case's input; nil when there are none.
func (c Cell) InputOverrides() map[string]any {
	var out map[string]any
	for _, l := range c.Levels {
		if l.Factor == ModelFactor || l.Factor == RunnerFactor {
			continue
		}
		if out == nil {
			out = map[string]any{}
		}
		out[l.Factor] = l.Value
	}
	return out
}

// LevelTexts maps each factor to the cell's level, as text.
func (c Cell) LevelTexts() map[string]string {
	out := make(map[string]string, len(c.Levels))
	for _, l := range c.Levels {
		out[l.Factor] = l.Text
	}
	return out
}

// Replications is the matrix's replications (1 when unset).
func Replications(m *config.Matrix) int {
	if m == nil || m.Replications == nil || *m.Replications < 1 {
		return 1
	}
	return *m.Replications
}

// Expand lists m's cells: every combination of the levels (factor names
// sorted, the first varying slowest; levels in the file's order), each
// replicated; a combination's replications are adjacent. It is nil for a
// matrix without factors.
func Expand(m *config.Matrix) []Cell {
	if m == nil || len(m.Factors) == 0 {
		return nil
	}
	names := m.FactorNames()
	combos := [][]Level{nil}
	for _, name := range names {
		var next [][]Level
		for _, prefix := range combos {
			for _, v := range m.Factors[name] {
				l := append(append([]Level(nil), prefix...), Level{Factor: name, Value: v, Text: LevelText(name, v)})
				next = append(next, l)
			}
		}
		combos = next
	}
	reps := Replications(m)
	width := len(strconv.Itoa(len(combos)))
	if width < 2 {
		width = 2
	}
	cells := make([]Cell, 0, len(combos)*reps)
	for i, levels := range combos {
		for r := 1; r <= reps; r++ {
			cells = append(cells, Cell{Name: cellName(i+1, width, levels, r), Combination: i + 1, Levels: levels, Replication: r})
		}
	}
	return cells
}

// LevelText is a level's text in cell names and tables: a runner level's
// name, any other level as written.
func LevelText(factor string, v any) string {
	if factor == RunnerFactor {
		if r, err := config.ParseRunnerLevel(v); err == nil {
			return r.Name
		}
	}
	return fmt.Sprint(v)
}

var unsafeRE = lazyre.New(`[^A-Za-z0-9_-]+`)

// maxLevelText bounds a level's part of a cell's name.
const maxLevelText = 40

// cellName is c<NN>.<factor>-<level>...r<rep>, the level texts reduced to
// letters, digits, _ and - (the number keeps names apart that reduce
// alike).
func cellName(combo, width int, levels []Level, rep int) string {
	parts := []string{fmt.Sprintf("c%0*d", width, combo)}
	for _, l := range levels {
		t := strings.Trim(unsafeRE().ReplaceAllString(l.Text, "_"), "_")
		if len(t) > maxLevelText {
			t = t[:maxLevelText]
		}
		parts = append(parts, unsafeRE().ReplaceAllString(l.Factor, "_")+"-"+t)
	}
	parts = append(parts, "r"+strconv.Itoa(rep))
	return strings.Join(parts, ".")
}
