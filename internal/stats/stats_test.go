package stats

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// Known answers worked out by hand (binomial and rank-sum counts) or from
// textbook tables.

func TestWilsonKnown(t *testing.T) {
	tests := []struct {
		name      string
		x, n      int
		level     float64
		low, high float64
		tol       float64
	}{
		{"no trials", 0, 0, 0.95, 0, 1, 0},
		{"half of ten", 5, 10, 0.95, 0.2365931, 0.7634069, 1e-7},
		{"all of ten", 10, 10, 0.95, 0.7224672, 1, 1e-7},
		{"none of ten", 0, 10, 0.95, 0, 0.2775328, 1e-7},
	}
	for _, tt := range tests {
		iv := Wilson(tt.x, tt.n, tt.level)
		if math.Abs(iv.Low-tt.low) > tt.tol || math.Abs(iv.High-tt.high) > tt.tol || iv.Method != "wilson" || iv.Level != tt.level {
			t.Errorf("%s: Wilson(%d, %d, %v) = %+v, want [%v, %v]", tt.name, tt.x, tt.n, tt.level, iv, tt.low, tt.high)
		}
	}
	for _, bad := range []struct {
		x, n  int
		level float64
	}{{11, 10, 0.95}, {-1, 10, 0.95}, {3, 10, 0}, {3, 10, 1}, {3, 10, math.NaN()}} {
		if iv := Wilson(bad.x, bad.n, bad.level); !math.IsNaN(iv.Low) || !math.IsNaN(iv.High) {
			t.Errorf("Wilson(%d, %d, %v) = %+v, want NaN bounds", bad.x, bad.n, bad.level, iv)
		}
	}
}

func TestMeanTKnown(t *testing.T) {
	// mean 3, sd √2.5, t(0.975, 4) = 2.7764451051977987.
	m, iv := MeanT([]float64{1, 2, 3, 4, 5}, 0.95)
	half := 2.7764451051977987 * math.Sqrt(2.5) / math.Sqrt(5)
	if m != 3 || !near(iv.Low, 3-half) || !near(iv.High, 3+half) || iv.Method != "t" {
		t.Errorf("MeanT = %v %+v, want 3 ± %v", m, iv, half)
	}
	m, iv = MeanT([]float64{0.7}, 0.95)
	if m != 0.7 || iv.Low != 0.7 || iv.High != 0.7 || iv.Method == "t" {
		t.Errorf("MeanT of one value = %v %+v, want the degenerate [0.7, 0.7] marked in Method", m, iv)
	}
	m, iv = MeanT(nil, 0.95)
	if !math.IsNaN(m) || !math.IsNaN(iv.Low) || !math.IsNaN(iv.High) {
		t.Errorf("MeanT(nil) = %v %+v, want NaN", m, iv)
	}
	m, iv = MeanT([]float64{2, 2, 2}, 0.95)
	if m != 2 || iv.Low != 2 || iv.High != 2 {
		t.Errorf("MeanT of constant = %v %+v, want [2, 2]", m, iv)
	}
}

func TestMcNemarAndSignKnown(t *testing.T) {
	tests := []struct {
		b, c int
		p    float64
	}{
		{0, 0, 1},
		{1, 0, 1},
		{0, 5, 2.0 / 32},
		{6, 0, 2.0 / 64},
		{3, 9, 2 * (1 + 12 + 66 + 220) / 4096.0},
		{9, 3, 2 * (1 + 12 + 66 + 220) / 4096.0},
		{4, 4, 1},
	}
	for _, tt := range tests {
		if got := McNemarExact(tt.b, tt.c); !near(got, tt.p) {
			t.Errorf("McNemarExact(%d, %d) = %v, want %v", tt.b, tt.c, got, tt.p)
		}
	}
	if got := McNemarExact(-1, 3); !math.IsNaN(got) {
		t.Errorf("McNemarExact(-1, 3) = %v, want NaN", got)
	}
	signs := []struct {
		diffs []float64
		p     float64
	}{
		{[]float64{1, 2, 3, 4, 5}, 2.0 / 32},
		{[]float64{1, 2, 0, 0, 3, 4, 5, 0}, 2.0 / 32}, // zeros ignored
		{[]float64{-1, -2, -3, -4, -5, -6}, 2.0 / 64},
		{[]float64{0, 0}, 1},
		{nil, 1},
		{[]float64{1, -1, 2, -2}, 1},
	}
	for _, tt := range signs {
		if got := SignTest(tt.diffs); !near(got, tt.p) {
			t.Errorf("SignTest(%v) = %v, want %v", tt.diffs, got, tt.p)
		}
	}
}

func TestWilcoxonKnown(t *testing.T) {
	tests := []struct {
		name  string
		diffs []float64
		stat  float64
		p     float64
	}{
		// ranks 1..3 all positive: T=0, P[T<=0] = 1/8.
		{"all positive", []float64{1, 2, 3}, 0, 0.25},
		// R- = 1: P[T<=1] = 2/8.
		{"one negative", []float64{-1, 2, 3}, 1, 0.5},
		// n=5 all negative: 2/32.
		{"all negative", []float64{-0.5, -1.5, -2.5, -3.5, -4.5}, 0, 2.0 / 32},
		{"none left", []float64{0, 0, 0}, 0, 1},
		{"empty", nil, 0, 1},
	}
	for _, tt := range tests {
		stat, p := Wilcoxon(tt.diffs)
		if stat != tt.stat || !near(p, tt.p) {
			t.Errorf("%s: Wilcoxon(%v) = (%v, %v), want (%v, %v)", tt.name, tt.diffs, stat, p, tt.stat, tt.p)
		}
	}
	// Ties switch to the normal approximation: |d| = 1,1,2 share ranks
	// 1.5,1.5,3, so T = 1.5; mean 3, variance 14/4 - 6/48 = 3.375.
	stat, p := Wilcoxon([]float64{1, -1, 2})
	wantP := 2 * 0.5 * math.Erfc(1.5/math.Sqrt(3.375)/math.Sqrt2)
	if stat != 1.5 || !near(p, wantP) {
		t.Errorf("Wilcoxon with ties = (%v, %v), want (1.5, %v)", stat, p, wantP)
	}
}

func TestSignedRankCDF(t *testing.T) {
	// The null distribution sums to one and is symmetric about n(n+1)/4.
	for n := 1; n <= 12; n++ {
		maxSum := n * (n + 1) / 2
		if got := signedRankCDF(n, maxSum); got != 1 {
			t.Errorf("n=%d: CDF at max = %v", n, got)
		}
		for s := 0; s < maxSum; s++ {
			lower := signedRankCDF(n, s)
			upper := 1 - signedRankCDF(n, maxSum-s-1)
			if !near(lower, upper) {
				t.Errorf("n=%d s=%d: P[T<=s]=%v but P[T>=max-s]=%v", n, s, lower, upper)
			}
		}
	}
}

func TestPassKKnown(t *testing.T) {
	tests := []struct {
		n, c, k int
		at, hat float64
	}{
		{10, 3, 1, 0.3, 0.3},
		{10, 3, 2, 1 - 21.0/45, 3.0 / 45},
		{5, 2, 4, 1, 0},
		{4, 4, 4, 1, 1},
		{4, 0, 1, 0, 0},
		{3, 2, 3, 1, 0},
	}
	for _, tt := range tests {
		if got := PassAtK(tt.n, tt.c, tt.k); !near(got, tt.at) {
			t.Errorf("PassAtK(%d, %d, %d) = %v, want %v", tt.n, tt.c, tt.k, got, tt.at)
		}
		if got := PassHatK(tt.n, tt.c, tt.k); !near(got, tt.hat) {
			t.Errorf("PassHatK(%d, %d, %d) = %v, want %v", tt.n, tt.c, tt.k, got, tt.hat)
		}
	}
	for _, bad := range [][3]int{{0, 0, 1}, {5, 6, 1}, {5, 2, 0}, {5, 2, 6}, {5, -1, 1}} {
		if got := PassAtK(bad[0], bad[1], bad[2]); !math.IsNaN(got) {
			t.Errorf("PassAtK%v = %v, want NaN", bad, got)
		}
		if got := PassHatK(bad[0], bad[1], bad[2]); !math.IsNaN(got) {
			t.Errorf("PassHatK%v = %v, want NaN", bad, got)
		}
	}
	// Large n stays finite and accurate: pass@1 is c/n whatever n.
	if got := PassAtK(100000, 31234, 1); !near(got, 0.31234) {
		t.Errorf("PassAtK(100000, 31234, 1) = %v", got)
	}
}

func TestReducersKnown(t *testing.T) {
	xs := []float64{4, 1, 3, 2}
	if got := Median(xs); got != 2.5 {
		t.Errorf("Median(%v) = %v, want 2.5", xs, got)
	}
	if !slices.Equal(xs, []float64{4, 1, 3, 2}) {
		t.Errorf("Median modified its input: %v", xs)
	}
	if got := Median([]float64{3, 1, 2}); got != 2 {
		t.Errorf("Median odd = %v, want 2", got)
	}
	if got := Mean([]float64{1, 2, 6}); got != 3 {
		t.Errorf("Mean = %v, want 3", got)
	}
	if !math.IsNaN(Mean(nil)) || !math.IsNaN(Median(nil)) {
		t.Error("Mean or Median of nothing is not NaN")
	}
	majority := []struct {
		votes     []bool
		vote, tie bool
	}{
		{[]bool{true, true, false}, true, false},
		{[]bool{false, true, false}, false, false},
		{[]bool{true, false}, false, true},
		{nil, false, true},
		{[]bool{true}, true, false},
	}
	for _, tt := range majority {
		vote, tie := Majority(tt.votes)
		if vote != tt.vote || tie != tt.tie {
			t.Errorf("Majority(%v) = (%v, %v), want (%v, %v)", tt.votes, vote, tie, tt.vote, tt.tie)
		}
	}
}

func TestCohenDPairedKnown(t *testing.T) {
	// mean 2, sd 1.
	if got := CohenDPaired([]float64{1, 2, 3}); !near(got, 2) {
		t.Errorf("CohenDPaired = %v, want 2", got)
	}
	for _, d := range [][]float64{nil, {1}, {0.5, 0.5, 0.5}} {
		if got := CohenDPaired(d); !math.IsNaN(got) {
			t.Errorf("CohenDPaired(%v) = %v, want NaN", d, got)
		}
	}
}

func TestPairedProportionDiffKnown(t *testing.T) {
	// Identical arms: the difference is 0 and the interval straddles it.
	same := []bool{true, false, true, true, false}
	d, iv := PairedProportionDiff(same, same, 0.95)
	if d != 0 || !(iv.Low < 0 && iv.High > 0) {
		t.Errorf("identical arms: %v %+v", d, iv)
	}
	// Run passes everything the baseline failed and more.
	a := []bool{true, true, true, true, true, true, true, true, true, true}
	b := []bool{false, false, false, false, false, false, false, false, false, false}
	d, iv = PairedProportionDiff(a, b, 0.95)
	if d != 1 || iv.High != 1 || iv.Low <= 0 || iv.Low >= 1 {
		t.Errorf("all discordant for the run: %v %+v", d, iv)
	}
	if d, iv := PairedProportionDiff(nil, nil, 0.95); !math.IsNaN(d) || !math.IsNaN(iv.Low) {
		t.Errorf("empty: %v %+v", d, iv)
	}
	defer func() {
		if recover() == nil {
			t.Error("different lengths did not panic")
		}
	}()
	PairedProportionDiff([]bool{true}, nil, 0.95)
}

func TestBootstrapDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	xs := make([]float64, 50)
	for i := range xs {
		xs[i] = rng.NormFloat64()
	}
	a := Bootstrap(xs, Mean, 0.95, 1000, 42)
	b := Bootstrap(xs, Mean, 0.95, 1000, 42)
	c := Bootstrap(xs, Mean, 0.95, 1000, 43)
	if a != b {
		t.Errorf("same seed, different intervals: %+v %+v", a, b)
	}
	if a == c {
		t.Errorf("different seeds, same interval: %+v", a)
	}
	if !a.Contains(Mean(xs)) || a.Method != "percentile bootstrap" || a.Level != 0.95 {
		t.Errorf("interval %+v does not contain the mean %v", a, Mean(xs))
	}
	// Close to the t interval for a mean of 50 normal values.
	_, tv := MeanT(xs, 0.95)
	if math.Abs(a.Low-tv.Low) > 0.1 || math.Abs(a.High-tv.High) > 0.1 {
		t.Errorf("bootstrap %+v far from t %+v", a, tv)
	}
	if iv := Bootstrap(nil, Mean, 0.95, 100, 1); !math.IsNaN(iv.Low) {
		t.Errorf("empty sample: %+v", iv)
	}
	if iv := Bootstrap([]float64{5}, Mean, 0.95, 0, 1); iv.Low != 5 || iv.High != 5 {
		t.Errorf("one value: %+v", iv)
	}
}

func TestBootstrapCoverage(t *testing.T) {
	// Rough coverage of the 90% percentile interval of a normal mean (n=30):
	// near 0.9, far from 0.5 or 1.
	rng := rand.New(rand.NewPCG(7, 7))
	const trials = 200
	hits := 0
	xs := make([]float64, 30)
	for trial := range trials {
		for i := range xs {
			xs[i] = 10 + 2*rng.NormFloat64()
		}
		if Bootstrap(xs, Mean, 0.90, 400, uint64(trial)).Contains(10) {
			hits++
		}
	}
	if cov := float64(hits) / trials; cov < 0.80 || cov > 0.97 {
		t.Errorf("coverage %v, want about 0.9", cov)
	}
}

func TestPairedBootstrapMeanDiff(t *testing.T) {
	a := []float64{0.9, 0.8, 0.7, 1.0, 0.6, 0.9, 0.8, 0.95}
	b := []float64{0.5, 0.6, 0.4, 0.7, 0.5, 0.6, 0.5, 0.65}
	d, iv := PairedBootstrapMeanDiff(a, b, 0.95, 2000, 9)
	if !near(d, 0.275) || !iv.Contains(d) || iv.Low <= 0 {
		t.Errorf("PairedBootstrapMeanDiff = %v %+v, want 0.275 inside an interval above 0", d, iv)
	}
	d2, iv2 := PairedBootstrapMeanDiff(a, b, 0.95, 2000, 9)
	if d2 != d || iv2 != iv {
		t.Errorf("not deterministic: %+v %+v", iv, iv2)
	}
	defer func() {
		if recover() == nil {
			t.Error("different lengths did not panic")
		}
	}()
	PairedBootstrapMeanDiff(a, b[:3], 0.95, 10, 1)
}

func TestParetoKnown(t *testing.T) {
	tests := []struct {
		name   string
		points []Point
		want   []int
	}{
		{"empty", nil, nil},
		{"one", []Point{{1, 1}}, []int{0}},
		{"chain", []Point{{3, 0.9}, {1, 0.5}, {2, 0.7}}, []int{1, 2, 0}},
		{"dominated", []Point{{1, 0.8}, {2, 0.7}, {1, 0.6}, {3, 0.9}}, []int{0, 3}},
		{"equal points both kept in input order", []Point{{2, 0.5}, {1, 0.4}, {2, 0.5}}, []int{1, 0, 2}},
		{"same score higher cost dominated", []Point{{1, 0.5}, {2, 0.5}}, []int{0}},
		{"NaN left out", []Point{{math.NaN(), 1}, {1, math.NaN()}, {2, 0.1}}, []int{2}},
	}
	for _, tt := range tests {
		if got := Pareto(tt.points); !slices.Equal(got, tt.want) {
			t.Errorf("%s: Pareto = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestParetoBruteForce checks the sweep against the definition on random
// points with many ties.
func TestParetoBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 200 {
		pts := make([]Point, rng.IntN(12))
		for i := range pts {
			pts[i] = Point{Cost: float64(rng.IntN(5)), Score: float64(rng.IntN(5))}
		}
		got := Pareto(pts)
		var want []int
		for i, p := range pts {
			dominated := false
			for _, q := range pts {
				if q.Cost <= p.Cost && q.Score >= p.Score && (q.Cost < p.Cost || q.Score > p.Score) {
					dominated = true
				}
			}
			if !dominated {
				want = append(want, i)
			}
		}
		gotSorted := slices.Sorted(slices.Values(got))
		if !slices.Equal(gotSorted, want) {
			t.Fatalf("Pareto(%v) = %v, want the set %v", pts, got, want)
		}
		for j := 1; j < len(got); j++ {
			p, q := pts[got[j-1]], pts[got[j]]
			if q.Cost < p.Cost || (q.Cost == p.Cost && got[j] < got[j-1]) {
				t.Fatalf("Pareto(%v) = %v: not in cost order, then input order", pts, got)
			}
		}
	}
}

func balanced(reps int, interaction float64) []Obs {
	var obs []Obs
	k := 0
	for _, a := range []string{"a1", "a2", "a3"} {
		for _, b := range []string{"b1", "b2"} {
			for r := range reps {
				y := float64(len(a)+int(a[1])) + 0.5*float64(b[1]-'0') + 0.1*float64(r) + 0.03*float64(k%4)
				if a == "a3" && b == "b2" {
					y += interaction
				}
				obs = append(obs, Obs{Levels: map[string]string{"a": a, "b": b}, Y: y})
				k++
			}
		}
	}
	return obs
}

func TestANOVABalancedAddsUp(t *testing.T) {
	// In a balanced design the Type II sums of squares and the residual add
	// up to the total, and so do the classic η².
	tab, err := ANOVA(balanced(3, 0.4), []string{"a", "b"})
	if err != nil {
		t.Fatal(err)
	}
	var ss, eta float64
	var terms []string
	for _, r := range tab.Rows {
		ss += r.SS
		eta += r.EtaSq
		terms = append(terms, r.Term)
	}
	if !near(ss, tab.SSTotal) || !near(eta, 1) {
		t.Errorf("SS add up to %v of %v, η² to %v", ss, tab.SSTotal, eta)
	}
	if !slices.Equal(terms, []string{"a", "b", "a:b", "Residual"}) {
		t.Errorf("terms %v", terms)
	}
	wantDF := []float64{2, 1, 2, 12}
	for i, r := range tab.Rows {
		if r.DF != wantDF[i] {
			t.Errorf("%s: DF %v, want %v", r.Term, r.DF, wantDF[i])
		}
		if r.Term != "Residual" && (r.P < 0 || r.P > 1 || r.F < 0) {
			t.Errorf("%s: F %v P %v", r.Term, r.F, r.P)
		}
	}
}

func TestANOVANoResidual(t *testing.T) {
	tab, err := ANOVA(balanced(1, 0.4), []string{"a", "b"})
	if !errors.Is(err, ErrNoResidualDF) {
		t.Fatalf("err = %v, want ErrNoResidualDF", err)
	}
	if len(tab.Rows) != 4 {
		t.Fatalf("rows %+v", tab.Rows)
	}
	for _, r := range tab.Rows {
		if !math.IsNaN(r.F) || !math.IsNaN(r.P) {
			t.Errorf("%s: F %v P %v, want NaN", r.Term, r.F, r.P)
		}
	}
	if res := tab.Rows[3]; res.DF != 0 || res.SS != 0 {
		t.Errorf("residual %+v", res)
	}
	if tab.Rows[0].SS <= 0 || tab.Rows[0].DF != 2 {
		t.Errorf("main effect lost: %+v", tab.Rows[0])
	}
}

func TestANOVAEmptyCell(t *testing.T) {
	// Drop the a3/b2 cell: the interaction loses one degree of freedom.
	var obs []Obs
	for _, o := range balanced(2, 0) {
		if o.Levels["a"] != "a3" || o.Levels["b"] != "b2" {
			obs = append(obs, o)
		}
	}
	tab, err := ANOVA(obs, []string{"a", "b"})
	if err != nil {
		t.Fatal(err)
	}
	if tab.Rows[2].DF != 1 || tab.Rows[3].DF != 5 {
		t.Errorf("DFs with an empty cell: %+v", tab.Rows)
	}
}

func TestANOVAErrors(t *testing.T) {
	good := balanced(2, 0)
	tests := []struct {
		name    string
		obs     []Obs
		factors []string
	}{
		{"no observations", nil, []string{"a"}},
		{"no factors", good, nil},
		{"repeated factor", good, []string{"a", "a"}},
		{"colon in name", good, []string{"a:b"}},
		{"missing level", good, []string{"a", "c"}},
		{"NaN y", []Obs{{Levels: map[string]string{"a": "x"}, Y: math.NaN()}}, []string{"a"}},
	}
	for _, tt := range tests {
		if _, err := ANOVA(tt.obs, tt.factors); err == nil {
			t.Errorf("%s: no error", tt.name)
		}
	}
}

// FuzzIntervals checks properties that hold for any input: Wilson within
// [0, 1] and containing the observed rate, the t interval containing the mean,
// Newcombe's interval within [-1, 1] and containing the difference.
func FuzzIntervals(f *testing.F) {
	f.Add(3, 10, 0.95, 1.0, 2.0, 4.0)
	f.Add(0, 1, 0.5, -1.0, 0.0, 1e9)
	f.Add(7, 7, 0.999, 0.0, 0.0, 0.0)
	f.Fuzz(func(t *testing.T, x, n int, level, y1, y2, y3 float64) {
		if n < 0 || n > 1e6 || x < 0 || x > n || !(level > 0.01 && level < 0.9999) {
			return
		}
		iv := Wilson(x, n, level)
		if iv.Low < 0 || iv.High > 1 || iv.Low > iv.High {
			t.Fatalf("Wilson(%d, %d, %v) = %+v", x, n, level, iv)
		}
		if n > 0 {
			if p := float64(x) / float64(n); !(iv.Low <= p+1e-12 && p <= iv.High+1e-12) {
				t.Fatalf("Wilson(%d, %d, %v) = %+v misses %v", x, n, level, iv, p)
			}
		}
		xs := []float64{y1, y2, y3}
		for _, v := range xs {
			if math.IsNaN(v) || math.Abs(v) > 1e12 {
				return
			}
		}
		m, tv := MeanT(xs, level)
		if !(tv.Low <= m && m <= tv.High) {
			t.Fatalf("MeanT(%v, %v) = %v %+v", xs, level, m, tv)
		}
		a := make([]bool, n%50)
		b := make([]bool, n%50)
		for i := range a {
			a[i] = (x>>(i%20))&1 == 1
			b[i] = (i*7+x)%3 == 0
		}
		if len(a) > 0 {
			d, pv := PairedProportionDiff(a, b, level)
			if pv.Low < -1 || pv.High > 1 || !(pv.Low <= d+1e-12 && d <= pv.High+1e-12) {
				t.Fatalf("PairedProportionDiff(%v, %v) = %v %+v", a, b, d, pv)
			}
		}
	})
}

// FuzzPValues checks that every test's p-value lies in [0, 1].
func FuzzPValues(f *testing.F) {
	f.Add(3, 9, []byte{1, 200, 3, 3, 0, 128})
	f.Add(0, 0, []byte{})
	f.Add(40, 1, []byte{0, 0, 0, 5, 5, 250, 250, 7})
	f.Fuzz(func(t *testing.T, b, c int, raw []byte) {
		if b >= 0 && c >= 0 && b < 1e5 && c < 1e5 {
			if p := McNemarExact(b, c); !(p >= 0 && p <= 1) {
				t.Fatalf("McNemarExact(%d, %d) = %v", b, c, p)
			}
		}
		diffs := make([]float64, len(raw))
		for i, v := range raw {
			diffs[i] = float64(int(v)-128) / 8
		}
		if p := SignTest(diffs); !(p >= 0 && p <= 1) {
			t.Fatalf("SignTest(%v) = %v", diffs, p)
		}
		if s, p := Wilcoxon(diffs); !(p >= 0 && p <= 1) || s < 0 {
			t.Fatalf("Wilcoxon(%v) = %v, %v", diffs, s, p)
		}
	})
}
