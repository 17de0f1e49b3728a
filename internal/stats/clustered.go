package stats

import "math"

// MethodWilsonClustered names WilsonClustered's intervals.
const MethodWilsonClustered = "wilson-clustered"

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
	return wilsonAt(p, neff, level, MethodWilsonClustered)
}

// WilsonRate is the Wilson interval of a rate p observed over n trials,
// n not necessarily whole (a win rate whose ties count half).
func WilsonRate(p, n, level float64) Interval {
	if n <= 0 {
		return Interval{Low: 0, High: 1, Level: level, Method: "wilson"}
	}
	return wilsonAt(p, n, level, "wilson")
}
