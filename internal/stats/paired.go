package stats

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// binomTwoSided is the exact two-sided p-value of k successes in n fair
// trials: twice the smaller tail, capped at 1. n = 0 gives 1.
func binomTwoSided(k, n int) float64 {
	if n == 0 {
		return 1
	}
	small := min(k, n-k)
	p := 2 * distuv.Binomial{N: float64(n), P: 0.5}.CDF(float64(small))
	return math.Min(1, p)
}

// McNemarExact is the exact two-sided McNemar test for paired pass/fail
// outcomes, b and c being the discordant counts (passed in one arm only, and in
// the other only). It is the exact binomial test of min(b, c) out of b+c with
// probability 1/2: p = min(1, 2·P[X <= min(b, c)]). No discordant pairs give
// p = 1; a negative count gives NaN.
func McNemarExact(b, c int) float64 {
	if b < 0 || c < 0 {
		return math.NaN()
	}
	return binomTwoSided(b, b+c)
}

// SignTest is the exact two-sided sign test of paired differences against a
// median of zero. Zero differences are dropped (NaNs too); with none left p = 1.
func SignTest(diffs []float64) float64 {
	var pos, n int
	for _, d := range diffs {
		switch {
		case d > 0:
			pos++
			n++
		case d < 0:
			n++
		}
	}
	return binomTwoSided(pos, n)
}

// WilcoxonExactMax is the largest number of non-zero differences for which
// Wilcoxon uses the exact null distribution (when there are also no ties and
// no zeros).
const WilcoxonExactMax = 25

// Wilcoxon is the two-sided Wilcoxon signed-rank test of paired differences
// against a median of zero. It returns the statistic T = min(R+, R-), the
// smaller of the rank sums of the positive and the negative differences, and
// its p-value.
//
// Zero differences are dropped before ranking (scipy's zero_method="wilcox");
// NaNs are dropped too, and tied absolute differences share their mean rank.
// The p-value is exact (the null distribution of T by enumeration) when at most
// WilcoxonExactMax differences remain and there were neither zeros nor ties;
// otherwise it is the normal approximation without continuity correction, its
// variance reduced by Σ(t³-t)/48 over groups of t tied ranks (scipy's
// method="approx"). With no non-zero difference T = 0 and p = 1.
func Wilcoxon(diffs []float64) (stat, p float64) {
	hadZero := false
	nz := make([]float64, 0, len(diffs))
	for _, d := range diffs {
		switch {
		case math.IsNaN(d):
		case d == 0:
			hadZero = true
		default:
			nz = append(nz, d)
		}
	}
	n := len(nz)
	if n == 0 {
		return 0, 1
	}
	ranks, tieGroups := absRanks(nz)
	var rPlus, rMinus float64
	for i, d := range nz {
		if d > 0 {
			rPlus += ranks[i]
		} else {
			rMinus += ranks[i]
		}
	}
	t := math.Min(rPlus, rMinus)
	nf := float64(n)
	if n <= WilcoxonExactMax && !hadZero && len(tieGroups) == 0 {
		return t, math.Min(1, 2*signedRankCDF(n, int(t)))
	}
	mean := nf * (nf + 1) / 4
	variance := nf * (nf + 1) * (2*nf + 1) / 24
	for _, g := range tieGroups {
		tg := float64(g)
		variance -= (tg*tg*tg - tg) / 48
	}
	if variance <= 0 {
		return t, 1
	}
	z := (t - mean) / math.Sqrt(variance)
	return t, math.Min(1, 2*distuv.UnitNormal.CDF(-math.Abs(z)))
}

// absRanks ranks the absolute values of xs from 1, giving tied values their
// mean rank, and returns the sizes of the groups of ties (groups of one left
// out).
func absRanks(xs []float64) (ranks []float64, tieGroups []int) {
	idx := make([]int, len(xs))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int {
		return cmp.Compare(math.Abs(xs[a]), math.Abs(xs[b]))
	})
	ranks = make([]float64, len(xs))
	for start := 0; start < len(idx); {
		end := start + 1
		for end < len(idx) && math.Abs(xs[idx[end]]) == math.Abs(xs[idx[start]]) {
			end++
		}
		// positions start..end-1 hold ranks start+1..end; their mean:
		r := float64(start+1+end) / 2
		for _, j := range idx[start:end] {
			ranks[j] = r
		}
		if end-start > 1 {
			tieGroups = append(tieGroups, end-start)
		}
		start = end
	}
	return ranks, tieGroups
}

// signedRankCDF is P[T <= t] for the sum T of a uniformly random subset of the
// ranks 1..n, the null distribution of either Wilcoxon rank sum without ties.
func signedRankCDF(n, t int) float64 {
	maxSum := n * (n + 1) / 2
	if t < 0 {
		return 0
	}
	if t >= maxSum {
		return 1
	}
	// ways[s] counts the subsets of the ranks seen so far whose sum is s.
	ways := make([]float64, maxSum+1)
	ways[0] = 1
	for r := 1; r <= n; r++ {
		for s := maxSum; s >= r; s-- {
			ways[s] += ways[s-r]
		}
	}
	var below float64
	for s := 0; s <= t; s++ {
		below += ways[s]
	}
	return below / math.Exp2(float64(n))
}

// pairedDiffs is a[i]-b[i]; it panics when the lengths differ, which is a
// pairing mistake of the caller.
func pairedDiffs(a, b []float64) []float64 {
	if len(a) != len(b) {
		panic(fmt.Sprintf("stats: paired samples of different lengths %d and %d", len(a), len(b)))
	}
	d := make([]float64, len(a))
	for i := range a {
		d[i] = a[i] - b[i]
	}
	return d
}

// PairedBootstrapMeanDiff is the mean of the paired differences a[i]-b[i] and
// its percentile bootstrap interval, resampling the pairs (see Bootstrap for
// resamples and seed). It panics if a and b differ in length.
func PairedBootstrapMeanDiff(a, b []float64, level float64, resamples int, seed uint64) (float64, Interval) {
	d := pairedDiffs(a, b)
	iv := Bootstrap(d, Mean, level, resamples, seed)
	iv.Method = "paired percentile bootstrap"
	return Mean(d), iv
}

// CohenDPaired is the paired effect size d = mean(diffs)/sd(diffs), with the
// sample standard deviation (n-1). It is NaN when fewer than two differences
// are given or they are all equal (sd = 0), where d is undefined.
func CohenDPaired(diffs []float64) float64 {
	sd := sampleSD(diffs)
	if math.IsNaN(sd) || sd == 0 {
		return math.NaN()
	}
	return Mean(diffs) / sd
}

// PairedProportionDiff compares paired pass/fail outcomes of a run (a) and a
// baseline (b) on the same cases: it returns the difference of pass rates
// p(a) - p(b) and its confidence interval by Newcombe's hybrid score method for
// paired data (Newcombe 1998, method 10: the Wilson intervals of both rates,
// combined with the phi correlation of the 2×2 table, without continuity
// correction). Empty input gives a NaN difference and bounds; it panics if a
// and b differ in length.
func PairedProportionDiff(a, b []bool, level float64) (float64, Interval) {
	const method = "newcombe paired (hybrid wilson)"
	if len(a) != len(b) {
		panic(fmt.Sprintf("stats: paired samples of different lengths %d and %d", len(a), len(b)))
	}
	n := len(a)
	if n == 0 || !validLevel(level) {
		return math.NaN(), nanInterval(level, method)
	}
	var both, onlyA, onlyB, neither int
	for i := range a {
		switch {
		case a[i] && b[i]:
			both++
		case a[i]:
			onlyA++
		case b[i]:
			onlyB++
		default:
			neither++
		}
	}
	nf := float64(n)
	p1 := float64(both+onlyA) / nf
	p2 := float64(both+onlyB) / nf
	w1 := Wilson(both+onlyA, n, level)
	w2 := Wilson(both+onlyB, n, level)
	phi := 0.0
	if den := float64(both+onlyA) * float64(neither+onlyB) * float64(both+onlyB) * float64(neither+onlyA); den > 0 {
		phi = (float64(both)*float64(neither) - float64(onlyA)*float64(onlyB)) / math.Sqrt(den)
	}
	diff := p1 - p2
	dl1, du1 := p1-w1.Low, w1.High-p1
	dl2, du2 := p2-w2.Low, w2.High-p2
	lowSq := dl1*dl1 - 2*phi*dl1*du2 + du2*du2
	highSq := du1*du1 - 2*phi*du1*dl2 + dl2*dl2
	return diff, Interval{
		Low:    math.Max(-1, diff-math.Sqrt(math.Max(0, lowSq))),
		High:   math.Min(1, diff+math.Sqrt(math.Max(0, highSq))),
		Level:  level,
		Method: method,
	}
}
