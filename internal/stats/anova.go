package stats

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Obs is one observation of an experiment matrix: the level of each factor
// (factor name to level name) and the measured response Y.
type Obs struct {
	Levels map[string]string
	Y      float64
}

// Row is one line of an ANOVA table.
type Row struct {
	// Term is a factor name, an interaction of factors joined by ":" such as
	// "model:prompt", or "Residual".
	Term string
	// SS is the Type II sum of squares of the term (the residual sum of
	// squares on the Residual row).
	SS float64
	// DF is the term's degrees of freedom.
	DF float64
	// MS is SS/DF.
	MS float64
	// F is MS over the residual MS, and P its upper tail probability in the F
	// distribution with (DF, residual DF) degrees of freedom. Both are NaN on
	// the Residual row and when there are no residual degrees of freedom.
	F, P float64
	// EtaSq is the classic η² = SS/SS_total, SS_total being the corrected total
	// sum of squares of Y. With an unbalanced design the Type II SS need not
	// add up to SS_total.
	EtaSq float64
	// PartialEtaSq is SS/(SS + SS_residual); NaN on the Residual row.
	PartialEtaSq float64
}

// Table is an ANOVA table: a row per main effect, then per interaction in
// order of degree, then the Residual row last.
type Table struct {
	Rows []Row
	// N is the number of observations.
	N int
	// SSTotal is the corrected total sum of squares of Y.
	SSTotal float64
}

// ErrNoResidualDF is returned, with a complete table, when the full model
// leaves no residual degrees of freedom (e.g. one replication per cell with
// the interaction in the model): the sums of squares stand, F and P are NaN.
var ErrNoResidualDF = errors.New("anova: no residual degrees of freedom, F and P are NaN")

// ANOVA fits the full factorial model of Y on the given factors (every main
// effect and every interaction, up to the one of all factors) by ordinary least
// squares with treatment (dummy) coding, and returns the Type II ANOVA table:
// the sum of squares of each term is the drop in residual sum of squares when
// the term is added to the model of all terms that do not contain it. This is
// what statsmodels' anova_lm(ols("y ~ C(a) * C(b)", data), typ=2) reports, and
// it holds for balanced and unbalanced designs. Degrees of freedom come from
// matrix ranks, so empty cells of an unbalanced design are handled.
//
// It fails when there are no observations or no factors, a factor name is
// empty, repeated or contains ":", an observation lacks a factor, or a Y is not
// finite. When no residual degrees of freedom are left it returns the table
// together with ErrNoResidualDF.
func ANOVA(rows []Obs, factors []string) (Table, error) {
	if err := checkANOVA(rows, factors); err != nil {
		return Table{}, err
	}
	n := len(rows)
	y := mat.NewVecDense(n, nil)
	ys := make([]float64, n)
	for i, o := range rows {
		y.SetVec(i, o.Y)
		ys[i] = o.Y
	}
	ybar := Mean(ys)
	var ssTotal float64
	for _, v := range ys {
		ssTotal += (v - ybar) * (v - ybar)
	}

	dummies := factorDummies(rows, factors)
	terms := allTerms(len(factors))
	var fitErr error
	fit := func(include func(term []int) bool) (rss float64, rank int) {
		cols := [][]float64{ones(n)}
		for _, t := range terms {
			if include(t) {
				cols = append(cols, termColumns(t, dummies, n)...)
			}
		}
		rss, rank, err := leastSquares(cols, y)
		if err != nil {
			fitErr = err
		}
		return rss, rank
	}

	rssFull, rankFull := fit(func([]int) bool { return true })
	dfRes := float64(n - rankFull)
	if dfRes == 0 {
		rssFull = 0
	}
	msRes := math.NaN()
	if dfRes > 0 {
		msRes = rssFull / dfRes
	}

	tab := Table{N: n, SSTotal: ssTotal}
	for _, t := range terms {
		without := func(u []int) bool { return !containsAll(u, t) }
		rssW, rankW := fit(without)
		rssT, rankT := fit(func(u []int) bool { return without(u) || slices.Equal(u, t) })
		r := Row{Term: termName(t, factors), SS: math.Max(0, rssW-rssT), DF: float64(rankT - rankW)}
		r.MS = r.SS / r.DF
		r.F, r.P = math.NaN(), math.NaN()
		if dfRes > 0 && r.DF > 0 {
			r.F = r.MS / msRes
			r.P = distuv.F{D1: r.DF, D2: dfRes}.Survival(r.F)
		}
		r.EtaSq = r.SS / ssTotal
		r.PartialEtaSq = r.SS / (r.SS + rssFull)
		tab.Rows = append(tab.Rows, r)
	}
	if fitErr != nil {
		return Table{}, fitErr
	}
	tab.Rows = append(tab.Rows, Row{
		Term: "Residual", SS: rssFull, DF: dfRes, MS: msRes,
		F: math.NaN(), P: math.NaN(), EtaSq: rssFull / ssTotal, PartialEtaSq: math.NaN(),
	})
	if dfRes == 0 {
		return tab, ErrNoResidualDF
	}
	return tab, nil
}

// checkANOVA validates ANOVA's arguments.
func checkANOVA(rows []Obs, factors []string) error {
	if len(rows) == 0 {
		return errors.New("anova: no observations")
	}
	if len(factors) == 0 {
		return errors.New("anova: no factors")
	}
	seen := map[string]bool{}
	for _, f := range factors {
		if f == "" || strings.Contains(f, ":") {
			return fmt.Errorf("anova: bad factor name %q", f)
		}
		if seen[f] {
			return fmt.Errorf("anova: factor %q named twice", f)
		}
		seen[f] = true
	}
	for i, o := range rows {
		if math.IsNaN(o.Y) || math.IsInf(o.Y, 0) {
			return fmt.Errorf("anova: observation %d: y is %v", i, o.Y)
		}
		for _, f := range factors {
			if _, ok := o.Levels[f]; !ok {
				return fmt.Errorf("anova: observation %d has no level for factor %q", i, f)
			}
		}
	}
	return nil
}

// factorDummies gives, per factor, one 0/1 column per level but the first in
// sorted order (the reference level).
func factorDummies(rows []Obs, factors []string) [][][]float64 {
	out := make([][][]float64, len(factors))
	for fi, f := range factors {
		var levels []string
		for _, o := range rows {
			levels = append(levels, o.Levels[f])
		}
		slices.Sort(levels)
		levels = slices.Compact(levels)
		for _, lv := range levels[1:] {
			col := make([]float64, len(rows))
			for i, o := range rows {
				if o.Levels[f] == lv {
					col[i] = 1
				}
			}
			out[fi] = append(out[fi], col)
		}
	}
	return out
}

// allTerms lists every non-empty subset of the factor indices 0..k-1, each
// sorted, by size and then lexicographically: main effects first.
func allTerms(k int) [][]int {
	var terms [][]int
	for mask := 1; mask < 1<<k; mask++ {
		var t []int
		for i := range k {
			if mask&(1<<i) != 0 {
				t = append(t, i)
			}
		}
		terms = append(terms, t)
	}
	slices.SortStableFunc(terms, func(a, b []int) int {
		if len(a) != len(b) {
			return len(a) - len(b)
		}
		return slices.Compare(a, b)
	})
	return terms
}

// termColumns is the design columns of a term: the elementwise products of one
// dummy column of each of its factors, over every combination.
func termColumns(term []int, dummies [][][]float64, n int) [][]float64 {
	cols := [][]float64{ones(n)}
	for _, f := range term {
		var next [][]float64
		for _, c := range cols {
			for _, d := range dummies[f] {
				p := make([]float64, n)
				for i := range p {
					p[i] = c[i] * d[i]
				}
				next = append(next, p)
			}
		}
		cols = next
	}
	return cols
}

// containsAll reports whether every factor of sub is in term.
func containsAll(term, sub []int) bool {
	for _, f := range sub {
		if !slices.Contains(term, f) {
			return false
		}
	}
	return true
}

// termName joins a term's factor names with ":".
func termName(term []int, factors []string) string {
	names := make([]string, len(term))
	for i, f := range term {
		names[i] = factors[f]
	}
	return strings.Join(names, ":")
}

// ones is a column of n ones.
func ones(n int) []float64 {
	c := make([]float64, n)
	for i := range c {
		c[i] = 1
	}
	return c
}

// rankTol is the relative singular value below which a design direction
// counts as absent (collinear columns, empty cells).
const rankTol = 1e-10

// leastSquares fits y on the given columns by SVD and returns the residual sum
// of squares and the rank of the design.
func leastSquares(cols [][]float64, y *mat.VecDense) (rss float64, rank int, err error) {
	n := y.Len()
	x := mat.NewDense(n, len(cols), nil)
	for j, c := range cols {
		x.SetCol(j, c)
	}
	var svd mat.SVD
	if !svd.Factorize(x, mat.SVDThin) {
		return 0, 0, errors.New("anova: SVD of the design did not converge")
	}
	rank = svd.Rank(rankTol)
	if rank == 0 {
		return mat.Dot(y, y), 0, nil
	}
	var beta, fitted mat.VecDense
	svd.SolveVecTo(&beta, y, rank)
	fitted.MulVec(x, &beta)
	for i := range n {
		r := y.AtVec(i) - fitted.AtVec(i)
		rss += r * r
	}
	return rss, rank, nil
}
