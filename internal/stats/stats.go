// Package stats holds the statistics the scorer uses to summarise and compare
// runs: confidence intervals for proportions and means, paired tests of a run
// against a baseline, reducers over repeated attempts of one case, a Type II
// ANOVA for an experiment matrix, and a cost-versus-score Pareto front.
//
// Everything here is pure computation: no I/O, no terminal, no global state.
// Distributions come from gonum (stat/distuv) and least squares from gonum's
// mat package; random resampling uses math/rand/v2's PCG seeded by the caller,
// so every result is reproducible.
//
// Conventions: a confidence level is a fraction in (0, 1) such as 0.95; a level
// outside that range gives an interval whose bounds are NaN. An empty sample
// gives NaN estimates and intervals, except where a function's doc says
// otherwise. A test with nothing to test (no discordant pairs, no non-zero
// difference) gives p = 1; every p-value of valid input is in [0, 1]. The
// ANOVA is the one function that returns errors.
package stats

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Interval is a two-sided confidence interval.
type Interval struct {
	// Low and High are the bounds, Low <= High.
	Low, High float64
	// Level is the confidence level the interval was asked for, e.g. 0.95.
	Level float64
	// Method names how the interval was computed, e.g. "wilson".
	Method string
}

// Contains reports whether x lies within the closed interval [Low, High].
func (iv Interval) Contains(x float64) bool {
	return iv.Low <= x && x <= iv.High
}

// nanInterval is the interval returned when the inputs admit none.
func nanInterval(level float64, method string) Interval {
	return Interval{Low: math.NaN(), High: math.NaN(), Level: level, Method: method}
}

// validLevel reports whether level is a usable confidence level.
func validLevel(level float64) bool {
	return level > 0 && level < 1
}

// zCrit is the standard normal quantile that leaves (1-level)/2 in each tail.
func zCrit(level float64) float64 {
	return distuv.UnitNormal.Quantile(0.5 + level/2)
}

// Mean is the arithmetic mean of xs; NaN when xs is empty.
func Mean(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	return stat.Mean(xs, nil)
}

// Median is the middle value of xs, the mean of the two middle values when
// len(xs) is even; NaN when xs is empty. xs is not modified.
func Median(xs []float64) float64 {
	n := len(xs)
	if n == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// sampleSD is the standard deviation of xs with the n-1 denominator; NaN when
// len(xs) < 2.
func sampleSD(xs []float64) float64 {
	if len(xs) < 2 {
		return math.NaN()
	}
	return stat.StdDev(xs, nil)
}

// quantileSorted is the p-quantile of the sorted sample s, interpolating
// linearly between order statistics at position p*(len(s)-1).
func quantileSorted(s []float64, p float64) float64 {
	pos := p * float64(len(s)-1)
	lo := int(math.Floor(pos))
	if lo >= len(s)-1 {
		return s[len(s)-1]
	}
	frac := pos - float64(lo)
	return s[lo] + frac*(s[lo+1]-s[lo])
}
