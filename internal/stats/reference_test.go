package stats

import (
	"encoding/json"
	"math"
	"os"
	"testing"
)

// The fixtures in testdata/reference.json were computed by
// testdata/reference.py with scipy and statsmodels; see that file for how to
// regenerate them.

// relTol is the tolerance for values computed in closed form or by exact
// enumeration; absTol keeps values near zero from failing on rounding alone.
const (
	relTol = 1e-9
	absTol = 1e-12
)

// near reports whether got is within relTol of want (or absTol of it); two
// NaNs are near each other.
func near(got, want float64) bool {
	if math.IsNaN(got) || math.IsNaN(want) {
		return math.IsNaN(got) && math.IsNaN(want)
	}
	d := math.Abs(got - want)
	return d <= absTol || d <= relTol*math.Abs(want)
}

type reference struct {
	Versions map[string]string `json:"versions"`
	Wilson   []struct {
		Successes, N     int
		Level, Low, High float64
	} `json:"wilson"`
	MeanT []struct {
		Xs                     []float64
		Level, Mean, Low, High float64
	} `json:"mean_t"`
	McNemar []struct {
		B, C int
		P    float64
	} `json:"mcnemar"`
	Sign []struct {
		Diffs []float64
		P     float64
	} `json:"sign"`
	Wilcoxon []struct {
		Diffs   []float64
		Method  string
		Stat, P float64
	} `json:"wilcoxon"`
	PassK []struct {
		N, C, K  int
		PassAtK  float64 `json:"pass_at_k"`
		PassHatK float64 `json:"pass_hat_k"`
	} `json:"pass_k"`
	PairedProportion []struct {
		A, B                   []bool
		Level, Diff, Low, High float64
	} `json:"paired_proportion"`
	Effect []struct {
		Diffs        []float64
		CohenD       float64 `json:"cohen_d"`
		Mean, Median float64
	} `json:"effect"`
	ANOVA []struct {
		Name    string
		Factors []string
		Obs     []struct {
			Levels map[string]string
			Y      float64
		}
		Rows []struct {
			Term         string
			SS, DF       float64
			EtaSq        float64  `json:"eta_sq"`
			F, P         *float64 // absent on the Residual row
			PartialEtaSq *float64 `json:"partial_eta_sq"`
		}
		SSTotal float64 `json:"ss_total"`
	} `json:"anova"`
}

func loadReference(t *testing.T) reference {
	t.Helper()
	data, err := os.ReadFile("testdata/reference.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref reference
	if err := json.Unmarshal(data, &ref); err != nil {
		t.Fatal(err)
	}
	if ref.Versions["scipy"] == "" || ref.Versions["statsmodels"] == "" {
		t.Fatalf("reference.json does not say which scipy and statsmodels made it: %v", ref.Versions)
	}
	for name, n := range map[string]int{
		"wilson": len(ref.Wilson), "mean_t": len(ref.MeanT), "mcnemar": len(ref.McNemar),
		"sign": len(ref.Sign), "wilcoxon": len(ref.Wilcoxon), "pass_k": len(ref.PassK),
		"paired_proportion": len(ref.PairedProportion), "effect": len(ref.Effect), "anova": len(ref.ANOVA),
	} {
		if n == 0 {
			t.Fatalf("reference.json has no %s cases", name)
		}
	}
	return ref
}

func TestReferenceWilson(t *testing.T) {
	ref := loadReference(t)
	for _, c := range ref.Wilson {
		iv := Wilson(c.Successes, c.N, c.Level)
		if !near(iv.Low, c.Low) || !near(iv.High, c.High) {
			t.Errorf("Wilson(%d, %d, %v) = [%.17g, %.17g], statsmodels [%.17g, %.17g]",
				c.Successes, c.N, c.Level, iv.Low, iv.High, c.Low, c.High)
		}
	}
}

func TestReferenceMeanT(t *testing.T) {
	ref := loadReference(t)
	for _, c := range ref.MeanT {
		m, iv := MeanT(c.Xs, c.Level)
		if !near(m, c.Mean) || !near(iv.Low, c.Low) || !near(iv.High, c.High) {
			t.Errorf("MeanT(%v, %v) = %v [%.17g, %.17g], scipy %v [%.17g, %.17g]",
				c.Xs, c.Level, m, iv.Low, iv.High, c.Mean, c.Low, c.High)
		}
	}
}

func TestReferenceMcNemarAndSign(t *testing.T) {
	ref := loadReference(t)
	for _, c := range ref.McNemar {
		if got := McNemarExact(c.B, c.C); !near(got, c.P) {
			t.Errorf("McNemarExact(%d, %d) = %.17g, statsmodels %.17g", c.B, c.C, got, c.P)
		}
	}
	for _, c := range ref.Sign {
		if got := SignTest(c.Diffs); !near(got, c.P) {
			t.Errorf("SignTest(%v) = %.17g, scipy %.17g", c.Diffs, got, c.P)
		}
	}
}

func TestReferenceWilcoxon(t *testing.T) {
	ref := loadReference(t)
	for _, c := range ref.Wilcoxon {
		stat, p := Wilcoxon(c.Diffs)
		if !near(stat, c.Stat) || !near(p, c.P) {
			t.Errorf("Wilcoxon(%v) = (%v, %.17g), scipy (%s) (%v, %.17g)", c.Diffs, stat, p, c.Method, c.Stat, c.P)
		}
	}
}

func TestReferencePassK(t *testing.T) {
	ref := loadReference(t)
	for _, c := range ref.PassK {
		if got := PassAtK(c.N, c.C, c.K); !near(got, c.PassAtK) {
			t.Errorf("PassAtK(%d, %d, %d) = %.17g, exact %.17g", c.N, c.C, c.K, got, c.PassAtK)
		}
		if got := PassHatK(c.N, c.C, c.K); !near(got, c.PassHatK) {
			t.Errorf("PassHatK(%d, %d, %d) = %.17g, exact %.17g", c.N, c.C, c.K, got, c.PassHatK)
		}
	}
}

func TestReferencePairedProportion(t *testing.T) {
	ref := loadReference(t)
	for _, c := range ref.PairedProportion {
		d, iv := PairedProportionDiff(c.A, c.B, c.Level)
		if !near(d, c.Diff) || !near(iv.Low, c.Low) || !near(iv.High, c.High) {
			t.Errorf("PairedProportionDiff = %v [%.17g, %.17g], reference %v [%.17g, %.17g]",
				d, iv.Low, iv.High, c.Diff, c.Low, c.High)
		}
	}
}

func TestReferenceEffect(t *testing.T) {
	ref := loadReference(t)
	for _, c := range ref.Effect {
		if got := CohenDPaired(c.Diffs); !near(got, c.CohenD) {
			t.Errorf("CohenDPaired(%v) = %.17g, numpy %.17g", c.Diffs, got, c.CohenD)
		}
		if got := Mean(c.Diffs); !near(got, c.Mean) {
			t.Errorf("Mean(%v) = %.17g, numpy %.17g", c.Diffs, got, c.Mean)
		}
		if got := Median(c.Diffs); !near(got, c.Median) {
			t.Errorf("Median(%v) = %.17g, numpy %.17g", c.Diffs, got, c.Median)
		}
	}
}

func TestReferenceANOVA(t *testing.T) {
	ref := loadReference(t)
	for _, c := range ref.ANOVA {
		t.Run(c.Name, func(t *testing.T) {
			obs := make([]Obs, len(c.Obs))
			for i, o := range c.Obs {
				obs[i] = Obs{Levels: o.Levels, Y: o.Y}
			}
			tab, err := ANOVA(obs, c.Factors)
			if err != nil {
				t.Fatal(err)
			}
			if !near(tab.SSTotal, c.SSTotal) || tab.N != len(obs) {
				t.Errorf("SSTotal %v N %d, want %v %d", tab.SSTotal, tab.N, c.SSTotal, len(obs))
			}
			if len(tab.Rows) != len(c.Rows) {
				t.Fatalf("%d rows, statsmodels has %d: %+v", len(tab.Rows), len(c.Rows), tab.Rows)
			}
			for i, want := range c.Rows {
				got := tab.Rows[i]
				if got.Term != want.Term || !near(got.SS, want.SS) || got.DF != want.DF || !near(got.EtaSq, want.EtaSq) {
					t.Errorf("row %d = %+v, statsmodels %+v", i, got, want)
				}
				if want.F == nil {
					if !math.IsNaN(got.F) || !math.IsNaN(got.P) {
						t.Errorf("row %s: F %v P %v, want NaN", got.Term, got.F, got.P)
					}
					continue
				}
				if !near(got.F, *want.F) || !near(got.P, *want.P) || !near(got.PartialEtaSq, *want.PartialEtaSq) {
					t.Errorf("row %s: F %.17g P %.17g partial η² %.17g, statsmodels %.17g %.17g %.17g",
						got.Term, got.F, got.P, got.PartialEtaSq, *want.F, *want.P, *want.PartialEtaSq)
				}
			}
		})
	}
}
