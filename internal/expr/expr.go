// Package expr checks and evaluates the small expressions eval.yaml holds:
// a judge's if: condition, reward.formula and expr: judges.
// Upstream writes them in Python; Translate turns the common subset into
// expr-lang/expr syntax (True/False/None, is [not] None, x.get('k', d),
// a if c else b, several lines of assignments), which is then parsed by expr-lang.
package expr

import (
	"fmt"
	"reflect"
	"strings"

	exprlang "github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/parser"
	"github.com/expr-lang/expr/vm"

	"github.com/agent-eval/agent-eval/internal/clip"
	"github.com/agent-eval/agent-eval/internal/lazyre"
)

// MaxNodes bounds the size of a formula, as upstream does (200 AST nodes).
const MaxNodes = 200

var (
	getRE    = lazyre.New(`\b([A-Za-z_][A-Za-z0-9_]*)\.get\(\s*('[^']*'|"[^"]*")\s*(?:,\s*([^()]*?))?\s*\)`)
	constRE  = lazyre.New(`\b(True|False|None)\b`)
	isNoneRE = lazyre.New(`\bis\s+(not\s+)?nil\b`)
	assignRE = lazyre.New(`^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=([^=].*)$`)
)

// Translate turns a Python-like expression into expr-lang syntax. It leaves
// expr-lang syntax alone, so both forms are accepted.
func Translate(src string) string {
	var lines []string
	for _, l := range strings.Split(src, "\n") {
		if strings.TrimSpace(l) != "" {
			lines = append(lines, l)
		}
	}
	for i, l := range lines {
		l = translateLine(l)
		if m := assignRE().FindStringSubmatch(l); m != nil && i < len(lines)-1 {
			l = "let " + m[1] + " =" + m[2] + ";"
		}
		lines[i] = l
	}
	return strings.Join(lines, "\n")
}

func translateLine(l string) string {
	l = outsideStrings(l, func(s string) string {
		s = constRE().ReplaceAllStringFunc(s, func(m string) string {
			switch m {
			case "True":
				return "true"
			case "False":
				return "false"
			}
			return "nil"
		})
		s = isNoneRE().ReplaceAllStringFunc(s, func(m string) string {
			if strings.Contains(m, "not") {
				return "!= nil"
			}
			return "== nil"
		})
		return strings.ReplaceAll(s, "//", "/")
	})
	l = getRE().ReplaceAllStringFunc(l, func(m string) string {
		sub := getRE().FindStringSubmatch(m)
		key := `"` + strings.Trim(sub[2], `'"`) + `"`
		if sub[3] == "" {
			return "get(" + sub[1] + ", " + key + ")"
		}
		return "(get(" + sub[1] + ", " + key + ") ?? " + sub[3] + ")"
	})
	// a if c else b, once, at the top level.
	if i := topLevel(l, " if "); i > 0 {
		if j := topLevel(l[i+4:], " else "); j >= 0 {
			j += i + 4
			l = "truthy(" + l[i+4:j] + ") ? (" + l[:i] + ") : (" + l[j+6:] + ")"
		}
	}
	return l
}

// outsideStrings applies f to the parts of l outside quoted strings.
func outsideStrings(l string, f func(string) string) string {
	var b strings.Builder
	start, quote := 0, byte(0)
	for i := 0; i < len(l); i++ {
		c := l[i]
		switch {
		case quote == 0 && (c == '\'' || c == '"'):
			b.WriteString(f(l[start:i]))
			start, quote = i, c
		case quote != 0 && c == '\\':
			i++
		case quote != 0 && c == quote:
			b.WriteString(l[start : i+1])
			start, quote = i+1, 0
		}
	}
	if quote != 0 {
		b.WriteString(l[start:])
	} else {
		b.WriteString(f(l[start:]))
	}
	return b.String()
}

// topLevel finds word in l outside brackets and strings, or -1.
func topLevel(l, word string) int {
	depth, quote := 0, byte(0)
	for i := 0; i < len(l); i++ {
		c := l[i]
		switch {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '(' || c == '[' || c == '{':
			depth++
		case c == ')' || c == ']' || c == '}':
			depth--
		case depth == 0 && strings.HasPrefix(l[i:], word):
			return i
		}
	}
	return -1
}

// CheckCondition parses a judge's if: condition.
func CheckCondition(src string) error {
	if strings.TrimSpace(src) == "" {
		return fmt.Errorf("the condition is empty")
	}
	if _, err := parser.Parse(Translate(src)); err != nil {
		return fmt.Errorf("the condition %q does not parse: %s", clip.String(strings.TrimSpace(src), 60), firstLine(err))
	}
	return nil
}

// CheckFormula parses reward.formula ("weighted" or an expression over judge
// names) and rejects what upstream rejects at load: **, string constants,
// more than MaxNodes nodes.
func CheckFormula(src string) error {
	s := strings.TrimSpace(src)
	if s == "" || s == "weighted" {
		return nil
	}
	if strings.Contains(s, "**") {
		return fmt.Errorf("the formula %q uses **, which is not allowed", clip.String(strings.TrimSpace(src), 60))
	}
	tree, err := parser.Parse(Translate(s))
	if err != nil {
		return fmt.Errorf("the formula %q does not parse: %s", clip.String(strings.TrimSpace(src), 60), firstLine(err))
	}
	v := &checker{}
	ast.Walk(&tree.Node, v)
	switch {
	case v.str:
		return fmt.Errorf("the formula %q holds a string constant, which is not allowed", clip.String(strings.TrimSpace(src), 60))
	case v.pow:
		return fmt.Errorf("the formula %q uses a power operator, which is not allowed", clip.String(strings.TrimSpace(src), 60))
	case v.big:
		return fmt.Errorf("the formula %q holds a number beyond ±%g, which is not allowed", clip.String(strings.TrimSpace(src), 60), MaxConstant)
	case v.n > MaxNodes:
		return fmt.Errorf("the formula has %d nodes; at most %d are allowed", v.n, MaxNodes)
	}
	return nil
}

// MaxConstant bounds a number in a formula, as upstream does.
const MaxConstant = 1e6

type checker struct {
	n             int
	str, pow, big bool
}

func (c *checker) Visit(node *ast.Node) {
	c.n++
	switch n := (*node).(type) {
	case *ast.StringNode:
		c.str = true
	case *ast.IntegerNode:
		c.big = c.big || n.Value > MaxConstant || n.Value < -MaxConstant
	case *ast.FloatNode:
		c.big = c.big || n.Value > MaxConstant || n.Value < -MaxConstant
	case *ast.BinaryNode:
		if n.Operator == "^" || n.Operator == "**" {
			c.pow = true
		}
	}
}

func firstLine(err error) string {
	s, _, _ := strings.Cut(err.Error(), "\n")
	return s
}

// CheckExpr parses an expr: judge's expression (native expr-lang syntax, no
// Python translation).
func CheckExpr(src string) error {
	if strings.TrimSpace(src) == "" {
		return fmt.Errorf("the expression is empty")
	}
	if _, err := parser.Parse(src); err != nil {
		return fmt.Errorf("the expression %q does not parse: %s", clip.String(strings.TrimSpace(src), 60), firstLine(err))
	}
	return nil
}

// Program is a compiled expression, safe to run from several goroutines.
type Program struct {
	src string
	p   *vm.Program
}

// Compile compiles an expression in expr-lang syntax. python says whether
// it is written in upstream's Python subset (if:, reward.formula) and is
// translated first.
func Compile(src string, python bool) (*Program, error) {
	s := src
	if python {
		s = Translate(src)
	}
	p, err := exprlang.Compile(s, exprlang.Function("truthy", func(args ...any) (any, error) {
		if len(args) != 1 {
			return nil, fmt.Errorf("truthy takes one argument")
		}
		return Truthy(args[0]), nil
	}))
	if err != nil {
		return nil, fmt.Errorf("compile %q: %s", clip.String(strings.TrimSpace(src), 60), firstLine(err))
	}
	return &Program{src: src, p: p}, nil
}

// Run evaluates the program over env.
func (p *Program) Run(env map[string]any) (any, error) {
	out, err := exprlang.Run(p.p, env)
	if err != nil {
		return nil, fmt.Errorf("evaluate %q: %s", clip.String(strings.TrimSpace(p.src), 60), firstLine(err))
	}
	return out, nil
}

// Number converts an evaluated value to a float64: any integer or float
// type (not a bool).
func Number(v any) (float64, bool) {
	switch x := v.(type) {
	case int:
		return float64(x), true
	case int8:
		return float64(x), true
	case int16:
		return float64(x), true
	case int32:
		return float64(x), true
	case int64:
		return float64(x), true
	case uint:
		return float64(x), true
	case uint8:
		return float64(x), true
	case uint16:
		return float64(x), true
	case uint32:
		return float64(x), true
	case uint64:
		return float64(x), true
	case float32:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}

// Truthy is Python's truth value of an evaluated value: nil, false, zero,
// and empty strings, lists and maps are false.
func Truthy(v any) bool {
	if v == nil {
		return false
	}
	if b, ok := v.(bool); ok {
		return b
	}
	if f, ok := Number(v); ok {
		return f != 0
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.String, reflect.Slice, reflect.Map, reflect.Array:
		return rv.Len() > 0
	case reflect.Pointer, reflect.Interface:
		return !rv.IsNil()
	}
	return true
}
