// Package stats holds the statistics the scorer reports: confidence
// intervals of a pass rate and of a mean, and the reducers of a case's
// repeated attempts. Distributions come from gonum, not from here.
package stats

import (
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Interval is a confidence interval at Level by Method.
type Interval struct {
	Low, High, Level float64
	Method           string
}

// The intervals' methods.
const (
	MethodWilson = "wilson"
	// MethodWilsonClustered: Wilson's over trials in clusters, with the
	// design effect (WilsonClustered).
	MethodWilsonClustered = "wilson-clustered"
	MethodT               = "t"
	MethodBootstrap       = "bootstrap"
)

// Wilson is the Wilson score interval of successes out of n at level (the
// whole [0, 1] when n is 0).
func Wilson(successes, n int, level float64) Interval {
	if n <= 0 {
		return Interval{Low: 0, High: 1, Level: level, Method: MethodWilson}
	}
	return wilson(float64(successes)/float64(n), float64(n), level)
}

// wilson is the Wilson interval of a proportion p over an effective
// sample of n (not necessarily whole).
func wilson(p, n, level float64) Interval {
	iv := Interval{Low: 0, High: 1, Level: level, Method: MethodWilson}
	z := distuv.UnitNormal.Quantile(1 - (1-level)/2)
	den := 1 + z*z/n
	centre := (p + z*z/(2*n)) / den
	half := z * math.Sqrt(p*(1-p)/n+z*z/(4*n*n)) / den
	iv.Low, iv.High = math.Max(0, centre-half), math.Min(1, centre+half)
	return iv
}

// WilsonClustered is the Wilson interval of the share of trials passed
// when they come in clusters (a case's repeated attempts: passed[i] of
// trials[i]), which are not independent: the sample is shrunk by Kish's
// design effect 1 + (m̄-1)·ICC, the intra-class correlation estimated by
// one-way ANOVA (clamped to [0, 1]; a single cluster counts as one
// trial). With ICC 0 it is Wilson over every trial, with ICC 1 over the
// clusters.
func WilsonClustered(passed, trials []int, level float64) Interval {
	k := len(trials)
	total, succ := 0, 0
	for i := range trials {
		total += trials[i]
		succ += passed[i]
	}
	if k == 0 || total == 0 {
		return Interval{Low: 0, High: 1, Level: level, Method: MethodWilsonClustered}
	}
	p := float64(succ) / float64(total)
	mbar := float64(total) / float64(k)
	icc := 1.0
	if k > 1 && total > k {
		// One-way ANOVA estimator with unequal cluster sizes.
		var ssb, ssw, sumSq float64
		for i := range trials {
			m := float64(trials[i])
			if m == 0 {
				continue
			}
			pi := float64(passed[i]) / m
			ssb += m * (pi - p) * (pi - p)
			ssw += float64(passed[i]) * (1 - pi) // Σ (x - p_i)² for 0/1 x
			sumSq += m * m
		}
		msb := ssb / float64(k-1)
		msw := ssw / float64(total-k)
		m0 := (float64(total) - sumSq/float64(total)) / float64(k-1)
		if d := msb + (m0-1)*msw; d > 0 {
			icc = (msb - msw) / d
		} else {
			icc = 0 // every trial alike
		}
		icc = math.Min(1, math.Max(0, icc))
	}
	neff := float64(total) / (1 + (mbar-1)*icc)
	iv := wilson(p, neff, level)
	iv.Method = MethodWilsonClustered
	return iv
}

// MeanT is the mean of xs and its Student-t interval at level. Fewer than
// two values have no spread to estimate: the interval is the mean itself
// (NaN for none).
func MeanT(xs []float64, level float64) (float64, Interval) {
	iv := Interval{Level: level, Method: MethodT}
	if len(xs) == 0 {
		iv.Low, iv.High = math.NaN(), math.NaN()
		return math.NaN(), iv
	}
	m := stat.Mean(xs, nil)
	iv.Low, iv.High = m, m
	if len(xs) < 2 {
		return m, iv
	}
	se := stat.StdDev(xs, nil) / math.Sqrt(float64(len(xs)))
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(len(xs) - 1)}.Quantile(1 - (1-level)/2)
	iv.Low, iv.High = m-t*se, m+t*se
	return m, iv
}

// Bootstrap is the percentile bootstrap interval of statistic over xs at
// level, from resamples resamples drawn with a generator seeded by seed:
// the same inputs give the same interval.
func Bootstrap(xs []float64, statistic func([]float64) float64, level float64, resamples int, seed uint64) Interval {
	iv := Interval{Level: level, Method: MethodBootstrap}
	if len(xs) == 0 || resamples <= 0 {
		iv.Low, iv.High = math.NaN(), math.NaN()
		return iv
	}
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	draws := make([]float64, resamples)
	buf := make([]float64, len(xs))
	for r := range draws {
		for i := range buf {
			buf[i] = xs[rng.IntN(len(xs))]
		}
		draws[r] = statistic(buf)
	}
	slices.Sort(draws)
	alpha := (1 - level) / 2
	iv.Low = stat.Quantile(alpha, stat.Empirical, draws, nil)
	iv.High = stat.Quantile(1-alpha, stat.Empirical, draws, nil)
	return iv
}

// Mean is the arithmetic mean of xs (NaN for none).
func Mean(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	return stat.Mean(xs, nil)
}

// Median is the middle value of xs, the mean of the two middle ones for
// an even count (NaN for none).
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if n := len(s); n%2 == 1 {
		return s[n/2]
	} else {
		return (s[n/2-1] + s[n/2]) / 2
	}
}

// PassAtK is the unbiased estimate that at least one of k attempts drawn
// from n, c of which passed, passes: 1 - C(n-c, k) / C(n, k).
func PassAtK(n, c, k int) float64 {
	if k <= 0 || n <= 0 || k > n {
		return math.NaN()
	}
	if n-c < k {
		return 1
	}
	// C(n-c, k)/C(n, k) = Π_{i=n-c+1}^{n} (1 - k/i), a product of terms
	// in (0, 1]: no factorial overflows.
	q := 1.0
	for i := n - c + 1; i <= n; i++ {
		q *= 1 - float64(k)/float64(i)
	}
	return 1 - q
}

// PassHatK (pass^k) is the chance that k attempts drawn from n without
// replacement, c of which passed, all pass: C(c, k) / C(n, k).
func PassHatK(n, c, k int) float64 {
	if k <= 0 || n <= 0 || k > n {
		return math.NaN()
	}
	if c < k {
		return 0
	}
	p := 1.0
	for i := 0; i < k; i++ {
		p *= float64(c-i) / float64(n-i)
	}
	return p
}
