package expr

import "testing"

// The checks run on any text eval.yaml holds: they must not panic.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{"a if else b", "a if b else c", "x = 1\ny", "annotations.get('a', True)", "'", `"\`, "a ** b", "(((", "mean([a, b]) // 2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_ = CheckCondition(s)
		_ = CheckFormula(s)
	})
}
