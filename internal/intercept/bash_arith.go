package intercept

// Arithmetic, as the handler layer reads it: bash evaluates a variable's
// value as an expression wherever arithmetic reads it ($((x)), ((x)), let,
// [[ x -eq 1 ]], subscripts, substring offsets, declare -i), and a
// subscript in that value (a[$(cmd)]) runs commands. A value is cleared
// only when it is known and holds no code, or comes from literal words or
// arithmetic itself.

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/agent-eval/agent-eval/internal/clip"
	"github.com/agent-eval/agent-eval/internal/lazyre"
)

// numericSpecials are variables bash keeps as numbers.
var numericSpecials = wordSet{ // sorted
	"!", "#", "$", "?", "BASHPID", "COLUMNS", "EPOCHSECONDS", "EUID", "HISTCMD", "LINENO", "LINES", "OPTIND",
	"PPID", "RANDOM", "SECONDS", "SHLVL", "SRANDOM", "UID",
}

var (
	arithIdent  = lazyre.New(`[A-Za-z_][A-Za-z0-9_]*`)
	arithNumber = lazyre.New(`\b[0-9][0-9A-Za-z_#@]*`)
)

// arithVar says why evaluating the variable name as arithmetic may run
// code ("" when it cannot): bash evaluates a variable's value as an
// expression, and a subscript in it (a[$(cmd)]) runs commands.
func (w *walker) arithVar(state map[string]string, name string, depth int) string {
	if numericSpecials.has(name) || w.numeric[name] && !w.taint[name] {
		return ""
	}
	if w.taint[name] {
		return name + " is changed by code the hook reads apart, so its value is unknown"
	}
	v, ok := state[name]
	if !ok {
		v, ok = w.base[name]
	}
	switch {
	case !ok:
		return name + " is not set on the line, so its value is unknown"
	case v == unsetValue:
		return ""
	case v == unknownValue:
		return "the value of " + name + " is only known when it runs"
	}
	return w.arithString(state, v, depth+1)
}

// arithString says why evaluating text as arithmetic may run code.
func (w *walker) arithString(state map[string]string, s string, depth int) string {
	if depth > 8 {
		return "variables refer to each other too deeply"
	}
	if strings.ContainsAny(s, "$`") {
		return "the expression " + clip.String(s, 60) + " holds expansions, which bash runs in a subscript"
	}
	for _, id := range arithIdent().FindAllString(arithNumber().ReplaceAllString(s, " "), -1) {
		if why := w.arithVar(state, id, depth); why != "" {
			return why
		}
	}
	return ""
}

// arith checks an arithmetic expression in evaluation order, and marks the
// variables it assigns as numbers.
func (w *walker) arith(state map[string]string, x syntax.ArithmExpr) {
	switch x := x.(type) {
	case *syntax.BinaryArithm:
		switch x.Op {
		case syntax.Assgn:
			w.arith(state, x.Y)
			w.markNumeric(state, x.X)
		case syntax.AddAssgn, syntax.SubAssgn, syntax.MulAssgn, syntax.QuoAssgn, syntax.RemAssgn, syntax.AndAssgn,
			syntax.OrAssgn, syntax.XorAssgn, syntax.ShlAssgn, syntax.ShrAssgn:
			w.arith(state, x.X)
			w.arith(state, x.Y)
			w.markNumeric(state, x.X)
		default:
			w.arith(state, x.X)
			w.arith(state, x.Y)
		}
	case *syntax.UnaryArithm:
		w.arith(state, x.X)
		if x.Op == syntax.Inc || x.Op == syntax.Dec {
			w.markNumeric(state, x.X)
		}
	case *syntax.ParenArithm:
		w.arith(state, x.X)
	case *syntax.Word:
		w.arithWord(state, x)
	}
}

// arithWord checks one operand of arithmetic: a name, $name, or a word
// whose expansion is then evaluated.
func (w *walker) arithWord(state map[string]string, wd *syntax.Word) {
	why := ""
	if lit, ok := wordLit(wd); ok {
		why = w.arithString(state, lit, 0)
	} else if len(wd.Parts) == 1 {
		if pe, ok := wd.Parts[0].(*syntax.ParamExp); ok && pe.Param != nil && pe.Exp == nil && pe.Index == nil && !pe.Excl && !pe.Length && pe.Slice == nil && pe.Repl == nil {
			why = w.arithVar(state, pe.Param.Value, 0)
			w.denyArith(why)
			return
		}
	}
	if why == "" {
		if _, ok := wordLit(wd); !ok {
			ws := w.expandWord(state, wd)
			for _, x := range ws {
				if x.dyn {
					why = "an operand is only known when it runs"
					break
				}
				if why = w.arithString(state, x.s, 0); why != "" {
					break
				}
			}
		}
	}
	w.denyArith(why)
}

func (w *walker) denyArith(why string) {
	if why != "" {
		w.deny("arithmetic evaluates a value that may hold code (%s); bash runs $(…) in an array subscript of it", why)
	}
}

func (w *walker) markNumeric(state map[string]string, x syntax.ArithmExpr) {
	if wd, ok := x.(*syntax.Word); ok {
		if lit, ok := wordLit(wd); ok && envName(lit) {
			state[lit] = unknownValue
			w.numeric[lit] = true
		}
	}
}

// subscripted checks a variable name given to a builtin (read, printf -v,
// unset, declare, mapfile): a subscript in it is evaluated as arithmetic.
func (w *walker) subscripted(state map[string]string, a word, text string) {
	i := strings.IndexByte(a.s, '[')
	if i < 0 {
		return
	}
	if a.dyn {
		w.deny("a variable name with a subscript only known when it runs is evaluated as code (%q)", clip.String(text, 80))
		return
	}
	w.denyArith(w.arithString(state, strings.TrimSuffix(a.s[i+1:], "]"), 0))
}

// isTestArith reports a [[ ]] operator that evaluates its operands as
// arithmetic.
func isTestArith(op syntax.BinTestOperator) bool {
	switch op {
	case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
		return true
	}
	return false
}

// paramExp checks the parts of ${…} bash evaluates: an indirect name
// (${!x}), an array subscript and a substring's offset and length, which
// are arithmetic.
func (w *walker) paramExp(state map[string]string, pe *syntax.ParamExp) {
	if pe.Excl && pe.Names == 0 && !(pe.Index != nil && isAllIndex(pe.Index)) {
		w.deny("${!…} expands a variable named at run time, and bash evaluates a subscript in that name as code")
		return
	}
	if pe.Index != nil && !isAllIndex(pe.Index) {
		w.arith(state, pe.Index)
	}
	if pe.Slice != nil {
		if pe.Slice.Offset != nil {
			w.arith(state, pe.Slice.Offset)
		}
		if pe.Slice.Length != nil {
			w.arith(state, pe.Slice.Length)
		}
	}
}

// isAllIndex reports the subscript @ or * (every element, no arithmetic).
func isAllIndex(x syntax.ArithmExpr) bool {
	wd, ok := x.(*syntax.Word)
	if !ok {
		return false
	}
	lit, ok := wordLit(wd)
	return ok && (lit == "@" || lit == "*")
}

// loopVar sets a for loop's variable: unknown, but free of code when the
// loop is over literal words without code characters.
func (w *walker) loopVar(state map[string]string, wi *syntax.WordIter) {
	name := wi.Name.Value
	state[name] = unknownValue
	safe := len(wi.Items) > 0
	for _, it := range wi.Items {
		lit, ok := wordLit(it)
		if !ok || strings.ContainsAny(lit, "$`[") {
			safe = false
		}
	}
	w.numeric[name] = safe
}

// codeFree reports a known value that holds no code bash could evaluate in
// arithmetic.
func codeFree(v string) bool {
	return v != unknownValue && !strings.ContainsAny(v, "$`[")
}
