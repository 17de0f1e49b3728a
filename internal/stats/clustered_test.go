package stats

import (
	"math"
	"testing"
)

func nearly(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// TestWilsonClustered: attempts that agree within their case count as
// one trial per case (ICC 1), independent-looking ones as every attempt
// (ICC 0), and in between the sample shrinks by the design effect.
func TestWilsonClustered(t *testing.T) {
	// Every case all-pass or all-fail: ICC 1, Wilson over the 4 cases.
	got := WilsonClustered([]int{3, 3, 0, 3}, []int{3, 3, 3, 3}, 0.95)
	want := Wilson(3, 4, 0.95)
	if !nearly(got.Low, want.Low, 1e-9) || !nearly(got.High, want.High, 1e-9) || got.Method != MethodWilsonClustered {
		t.Errorf("ICC 1: %+v, want Wilson(3, 4) %+v", got, want)
	}
	// The same share in every case: ICC 0 (clamped), Wilson over the 6
	// attempts: MSB 1/6, MSW 1/6 for [1,1,1], [1,0,1].
	got = WilsonClustered([]int{3, 2}, []int{3, 3}, 0.95)
	want = Wilson(5, 6, 0.95)
	if !nearly(got.Low, want.Low, 1e-9) || !nearly(got.High, want.High, 1e-9) {
		t.Errorf("ICC 0: %+v, want Wilson(5, 6) %+v", got, want)
	}
	// In between: ICC 0.5 from cases [3/4, 1/4, 4/4, 0/4]… lies between.
	mid := WilsonClustered([]int{3, 1, 4, 0}, []int{4, 4, 4, 4}, 0.95)
	all, cases := Wilson(8, 16, 0.95), Wilson(2, 4, 0.95)
	if !(mid.Low < all.Low && mid.Low > cases.Low && mid.High > all.High && mid.High < cases.High) {
		t.Errorf("between: %+v; all attempts %+v; cases %+v", mid, all, cases)
	}
	// One case: one trial's worth.
	if got := WilsonClustered([]int{2}, []int{3}, 0.95); !nearly(got.High-got.Low, WilsonRate(2.0/3, 1, 0.95).High-WilsonRate(2.0/3, 1, 0.95).Low, 1e-9) {
		t.Errorf("one case: %+v", got)
	}
}
