package stats

import (
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// Wilson is the Wilson score interval for a proportion of successes out of n
// trials. With n = 0 nothing is known and the interval is [0, 1]. Successes
// outside [0, n] or an invalid level give NaN bounds. The bounds are clipped to
// [0, 1] against rounding.
func Wilson(successes, n int, level float64) Interval {
	const method = "wilson"
	if !validLevel(level) || n < 0 || successes < 0 || successes > n {
		return nanInterval(level, method)
	}
	if n == 0 {
		return Interval{Low: 0, High: 1, Level: level, Method: method}
	}
	return wilsonAt(float64(successes)/float64(n), float64(n), level, method)
}

// wilsonAt is the Wilson score interval of a proportion p over n trials,
// n not necessarily whole (an effective sample, a rate whose ties count
// half), for a valid level and n > 0.
func wilsonAt(p, n, level float64, method string) Interval {
	z := zCrit(level)
	z2n := z * z / n
	denom := 1 + z2n
	centre := (p + z2n/2) / denom
	half := z / denom * math.Sqrt(p*(1-p)/n+z2n/(4*n))
	return Interval{
		Low:    math.Max(0, centre-half),
		High:   math.Min(1, centre+half),
		Level:  level,
		Method: method,
	}
}

// MeanT returns the mean of xs and its Student-t confidence interval,
// mean ± t(level, n-1) · sd/√n with the sample standard deviation (n-1).
//
// With a single observation there is no spread to estimate: the interval is
// the degenerate [x, x] and Method says "t (n<2: degenerate)", so the result
// stays finite (and JSON-encodable) but must not be read as certainty. An empty
// xs gives a NaN mean and NaN bounds.
func MeanT(xs []float64, level float64) (float64, Interval) {
	const method = "t"
	mean := Mean(xs)
	if len(xs) == 0 || !validLevel(level) {
		return mean, nanInterval(level, method)
	}
	if len(xs) == 1 {
		return mean, Interval{Low: mean, High: mean, Level: level, Method: method + " (n<2: degenerate)"}
	}
	df := float64(len(xs) - 1)
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile(0.5 + level/2)
	half := t * sampleSD(xs) / math.Sqrt(float64(len(xs)))
	return mean, Interval{Low: mean - half, High: mean + half, Level: level, Method: method}
}

// DefaultResamples is the number of bootstrap resamples used when a caller
// passes resamples <= 0.
const DefaultResamples = 2000

// pcgStream is the fixed second word of the PCG state; the caller's seed is
// the first, so one seed always gives the same resamples.
const pcgStream = 0x9e3779b97f4a7c15

// Bootstrap is the percentile bootstrap interval of stat over xs: it draws
// resamples samples of len(xs) with replacement (DefaultResamples when
// resamples <= 0), evaluates stat on each, and takes the (1-level)/2 and
// (1+level)/2 quantiles of those values (linear interpolation between order
// statistics). The draws come from a PCG generator seeded with seed, so the
// result is deterministic. stat receives a scratch slice that is overwritten
// between calls and must not keep it. An empty xs or an invalid level gives
// NaN bounds; NaN values of stat are dropped before the quantiles are taken.
func Bootstrap(xs []float64, stat func([]float64) float64, level float64, resamples int, seed uint64) Interval {
	const method = "percentile bootstrap"
	if len(xs) == 0 || !validLevel(level) {
		return nanInterval(level, method)
	}
	if resamples <= 0 {
		resamples = DefaultResamples
	}
	rng := rand.New(rand.NewPCG(seed, pcgStream))
	buf := make([]float64, len(xs))
	vals := make([]float64, 0, resamples)
	for range resamples {
		for i := range buf {
			buf[i] = xs[rng.IntN(len(xs))]
		}
		if v := stat(buf); !math.IsNaN(v) {
			vals = append(vals, v)
		}
	}
	if len(vals) == 0 {
		return nanInterval(level, method)
	}
	slices.Sort(vals)
	alpha := (1 - level) / 2
	return Interval{
		Low:    quantileSorted(vals, alpha),
		High:   quantileSorted(vals, 1-alpha),
		Level:  level,
		Method: method,
	}
}
