package stats

import (
	"math"
	"testing"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// TestWilson: the Wilson score interval, each value worked by hand from
// its formula (centre (p + z²/2n)/(1 + z²/n), half-width
// z·√(p(1-p)/n + z²/4n²)/(1 + z²/n)).
func TestWilson(t *testing.T) {
	for _, tc := range []struct {
		s, n      int
		level     float64
		low, high float64
	}{
		{8, 10, 0.95, 0.4901624, 0.9433178},
		{0, 10, 0.95, 0, 0.2775328},
		{10, 10, 0.95, 0.7224672, 1},
		{2, 3, 0.95, 0.2076596, 0.9385081},
		{50, 100, 0.90, 0.4188478, 0.5811522},
		{0, 0, 0.95, 0, 1},
	} {
		iv := Wilson(tc.s, tc.n, tc.level)
		if !near(iv.Low, tc.low, 1e-6) || !near(iv.High, tc.high, 1e-6) || iv.Method != MethodWilson {
			t.Errorf("Wilson(%d, %d, %v) = [%.7f, %.7f], want [%.7f, %.7f]", tc.s, tc.n, tc.level, iv.Low, iv.High, tc.low, tc.high)
		}
	}
}

// TestMeanT: mean ± t(0.975, n-1)·s/√n, with t(0.975, 4) = 2.776445.
func TestMeanT(t *testing.T) {
	m, iv := MeanT([]float64{1, 2, 3, 4, 5}, 0.95)
	if m != 3 || !near(iv.Low, 1.0367568, 1e-6) || !near(iv.High, 4.9632432, 1e-6) {
		t.Errorf("MeanT = %v [%v, %v]", m, iv.Low, iv.High)
	}
	if m, iv := MeanT([]float64{4}, 0.95); m != 4 || iv.Low != 4 || iv.High != 4 {
		t.Errorf("one value: %v [%v, %v]", m, iv.Low, iv.High)
	}
}

// TestBootstrap: the same seed gives the same interval, which holds the
// mean and lies within the data's range.
func TestBootstrap(t *testing.T) {
	xs := []float64{0, 1, 1, 0.5, 1, 0, 1, 1, 0.5, 1}
	a := Bootstrap(xs, Mean, 0.95, 2000, 7)
	b := Bootstrap(xs, Mean, 0.95, 2000, 7)
	if a != b {
		t.Errorf("not deterministic: %+v vs %+v", a, b)
	}
	if m := Mean(xs); !(a.Low < m && m < a.High) || a.Low < 0 || a.High > 1 {
		t.Errorf("interval %+v around mean %v", a, m)
	}
	if c := Bootstrap(xs, Mean, 0.95, 2000, 8); c == a {
		t.Errorf("another seed gave the very same interval %+v", c)
	}
}

func TestReducers(t *testing.T) {
	for _, tc := range []struct {
		name string
		got  float64
		want float64
	}{
		{"pass@1 of 2/3", PassAtK(3, 2, 1), 2.0 / 3},
		{"pass@2 of 2/3", PassAtK(3, 2, 2), 1},
		{"pass@2 of 2/5", PassAtK(5, 2, 2), 0.7},
		{"pass@3 of 0/5", PassAtK(5, 0, 3), 0},
		{"pass@10 of 13/200", PassAtK(200, 13, 10), 1 - math.Exp(lchoose(187, 10)-lchoose(200, 10))},
		{"pass^2 of 2/3", PassHatK(3, 2, 2), 1.0 / 3},
		{"pass^1 of 2/3", PassHatK(3, 2, 1), 2.0 / 3},
		{"pass^3 of 2/3", PassHatK(3, 2, 3), 0},
		{"median even", Median([]float64{1, 3, 2, 4}), 2.5},
		{"median odd", Median([]float64{5, 1, 3}), 3},
		{"mean", Mean([]float64{1, 0, 1}), 2.0 / 3},
	} {
		if !near(tc.got, tc.want, 1e-12) {
			t.Errorf("%s = %v, want %v", tc.name, tc.got, tc.want)
		}
	}
	if !math.IsNaN(PassAtK(2, 1, 3)) {
		t.Errorf("pass@3 of 2 attempts is not NaN")
	}
}

func lchoose(n, k float64) float64 {
	a, _ := math.Lgamma(n + 1)
	b, _ := math.Lgamma(k + 1)
	c, _ := math.Lgamma(n - k + 1)
	return a - b - c
}

// TestWilsonClustered: attempts that agree within their case count as
// one trial per case (ICC 1), independent-looking ones as every attempt
// (ICC 0), and in between the sample shrinks by the design effect.
func TestWilsonClustered(t *testing.T) {
	// Every case all-pass or all-fail: ICC 1, Wilson over the 4 cases.
	got := WilsonClustered([]int{3, 3, 0, 3}, []int{3, 3, 3, 3}, 0.95)
	want := Wilson(3, 4, 0.95)
	if !near(got.Low, want.Low, 1e-9) || !near(got.High, want.High, 1e-9) || got.Method != MethodWilsonClustered {
		t.Errorf("ICC 1: %+v, want Wilson(3, 4) %+v", got, want)
	}
	// The same share in every case: ICC 0 (clamped), Wilson over the 6
	// attempts: MSB 1/6, MSW 1/6 for [1,1,1], [1,0,1].
	got = WilsonClustered([]int{3, 2}, []int{3, 3}, 0.95)
	want = Wilson(5, 6, 0.95)
	if !near(got.Low, want.Low, 1e-9) || !near(got.High, want.High, 1e-9) {
		t.Errorf("ICC 0: %+v, want Wilson(5, 6) %+v", got, want)
	}
	// In between: ICC 0.5 from cases [3/4, 1/4, 4/4, 0/4]… lies between.
	mid := WilsonClustered([]int{3, 1, 4, 0}, []int{4, 4, 4, 4}, 0.95)
	all, cases := Wilson(8, 16, 0.95), Wilson(2, 4, 0.95)
	if !(mid.Low < all.Low && mid.Low > cases.Low && mid.High > all.High && mid.High < cases.High) {
		t.Errorf("between: %+v; all attempts %+v; cases %+v", mid, all, cases)
	}
	// One case: one trial's worth.
	if got := WilsonClustered([]int{2}, []int{3}, 0.95); !near(got.High-got.Low, wilson(2.0/3, 1, 0.95).High-wilson(2.0/3, 1, 0.95).Low, 1e-9) {
		t.Errorf("one case: %+v", got)
	}
}
