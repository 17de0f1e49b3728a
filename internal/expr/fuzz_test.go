package expr

import (
	"fmt"
	"strings"
	"testing"

	"github.com/expr-lang/expr/parser"
)

// The checks run on any text eval.yaml holds. Besides not panicking, they
// agree with each other and with what run does:
//   - a formula CheckFormula accepts is a condition CheckCondition accepts
//     (the same translation, checked further);
//   - what Compile accepts, CheckCondition accepts (validate catches what
//     run would trip on);
//   - the parsed tree printed and parsed again prints the same (the printed
//     tree means what the text meant);
//   - a compiled expression evaluates deterministically: twice over the
//     same input, the same value or the same error.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{"a if else b", "a if b else c", "x = 1\ny", "annotations.get('a', True)", "'", `"\`, "a ** b", "(((", "mean([a, b]) // 2",
		"a + b * 2 >= 1 and not c", "annotations.get('k') is not None", "x = a / 2\nx if x > 0.1 else 0", "-a - -b", "[a, b][0] ?? 1", "{'k': a}.k"} {
		f.Add(s)
	}
	env := map[string]any{"a": 1, "b": 0.5, "c": false, "annotations": map[string]any{"a": true, "k": "v"}, "x": "s"}
	f.Fuzz(func(t *testing.T, s string) {
		condErr := CheckCondition(s)
		if strings.TrimSpace(s) != "" && CheckFormula(s) == nil && condErr != nil {
			t.Errorf("CheckFormula accepts %q, CheckCondition refuses it: %v", s, condErr)
		}
		_ = CheckExpr(s)
		if tree, err := parser.Parse(Translate(s)); err == nil {
			printed := tree.Node.String()
			again, err := parser.Parse(printed)
			if err != nil {
				t.Fatalf("%q parses, its printed tree %q does not: %v", s, printed, err)
			}
			if got := again.Node.String(); got != printed {
				t.Errorf("%q printed as %q, which parses and prints as %q", s, printed, got)
			}
		}
		p, err := Compile(s, true)
		if err != nil {
			return
		}
		if condErr != nil {
			t.Errorf("Compile accepts %q, CheckCondition refuses it: %v", s, condErr)
		}
		if strings.Contains(s, "now") { // now() is the clock
			return
		}
		first, err1 := p.Run(env)
		second, err2 := p.Run(env)
		if a, b := fmt.Sprintf("%#v %v", first, err1), fmt.Sprintf("%#v %v", second, err2); a != b {
			t.Errorf("%q evaluated twice over the same input: %s, then %s", s, a, b)
		}
		if n, ok := Number(first); ok && Truthy(first) != (n != 0) {
			t.Errorf("%q = %v: Truthy %v disagrees with the number %v", s, first, Truthy(first), n)
		}
	})
}
