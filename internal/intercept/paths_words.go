package intercept

// Expanding the words of a command for the path layer: what the shell
// would make of them, with whatever cannot be known before the command
// runs turned into a glob.

import (
	"io"
	"path"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// words expands a word as the shell would (quotes, escapes, braces, $VAR,
// ~); what cannot be known becomes a glob.
func (c *pathCheck) words(w *syntax.Word) []string {
	cfg := &expand.Config{
		Env: c.environ(),
		CmdSubst: func(w2 io.Writer, _ *syntax.CmdSubst) error {
			_, err := w2.Write([]byte(unknownGlob))
			return err
		},
		ProcSubst: func(*syntax.ProcSubst) (string, error) { return "/dev/fd/63", nil },
	}
	indexed := false
	syntax.Walk(w, func(n syntax.Node) bool {
		if pe, ok := n.(*syntax.ParamExp); ok && (pe.Index != nil || pe.Excl) {
			indexed = true // arrays and ${!ref} are not tracked
		}
		return !indexed
	})
	if indexed {
		return []string{rawWord(w.Parts)}
	}
	fields, err := expand.Fields(cfg, w)
	if err != nil || len(fields) == 0 {
		return []string{rawWord(w.Parts)}
	}
	return fields
}

// environ is the variables as far as the line tells them: the hook's
// environment, the tracked cwd, the line's own assignments.
func (c *pathCheck) environ() expand.Environ {
	return envFunc(func(name string) (string, bool) {
		switch name {
		case "PWD":
			return c.cwd, true
		case "OLDPWD":
			return c.oldpwd, c.oldpwd != ""
		case "IFS":
			return " \t\n", true
		}
		v, ok := c.env[name]
		return v, ok
	})
}

// rawWord is a word's literal text with every expansion as a glob.
func rawWord(parts []syntax.WordPart) string {
	var b strings.Builder
	for _, p := range parts {
		switch p := p.(type) {
		case *syntax.Lit:
			b.WriteString(p.Value)
		case *syntax.SglQuoted:
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			b.WriteString(rawWord(p.Parts))
		default:
			b.WriteString(unknownGlob)
		}
	}
	return b.String()
}

// envFunc is an expand.Environ over a lookup; an unknown variable expands
// to a glob.
type envFunc func(string) (string, bool)

func (f envFunc) Get(name string) expand.Variable {
	if strings.Contains(name, " ") {
		return expand.Variable{} // ~user: left as written
	}
	if v, ok := f(name); ok {
		return expand.Variable{Set: true, Kind: expand.String, Str: v}
	}
	return expand.Variable{Set: true, Kind: expand.String, Str: unknownGlob}
}

func (f envFunc) Each(func(string, expand.Variable) bool) {}

// computed reports whether a word's value is only known when the command
// runs: made of $(…), `…`, or variables the line does not set.
func (c *pathCheck) computed(w *syntax.Word) bool {
	if w == nil || len(w.Parts) == 0 {
		return false
	}
	var unknownPart func(p syntax.WordPart) bool
	unknownPart = func(p syntax.WordPart) bool {
		switch p := p.(type) {
		case *syntax.CmdSubst:
			return !c.safeSubst(p)
		case *syntax.ParamExp:
			if p.Param == nil {
				return true
			}
			switch p.Param.Value {
			case "PWD", "HOME", "OLDPWD":
				return p.Param.Value == "OLDPWD" && c.oldpwd == ""
			}
			v, ok := c.env[p.Param.Value]
			return !ok || v == unknownGlob
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				if !unknownPart(q) {
					return false
				}
			}
			return len(p.Parts) > 0
		}
		return false
	}
	for _, p := range w.Parts {
		if !unknownPart(p) {
			return false
		}
	}
	return true
}

// safeSubst reports whether a command substitution only lists names
// below directories that hold no denied path ($(find src -name '*.go'),
// $(ls src | grep -v _test)): its output cannot name a denied path.
func (c *pathCheck) safeSubst(cs *syntax.CmdSubst) bool {
	if len(cs.Stmts) != 1 {
		return false
	}
	var calls []*syntax.CallExpr
	var flatten func(cmd syntax.Command) bool
	flatten = func(cmd syntax.Command) bool {
		switch cmd := cmd.(type) {
		case *syntax.CallExpr:
			calls = append(calls, cmd)
			return true
		case *syntax.BinaryCmd:
			return cmd.Op == syntax.Pipe && flatten(cmd.X.Cmd) && flatten(cmd.Y.Cmd)
		}
		return false
	}
	if !flatten(cs.Stmts[0].Cmd) || len(calls) == 0 {
		return false
	}
	for i, ce := range calls {
		var args []string
		for _, w := range ce.Args {
			lit, ok := wordLit(w)
			if !ok {
				return false
			}
			args = append(args, lit)
		}
		if len(args) == 0 {
			return false
		}
		name := path.Base(args[0])
		if i > 0 {
			if !slices.Contains([]string{"grep", "sort", "head", "tail", "uniq"}, name) || len(operands(args[1:], 1)) > 0 {
				return false
			}
			continue
		}
		if name != "find" && name != "ls" && name != "fd" || slices.Contains(args, "-L") || slices.Contains(args, "-follow") {
			return false
		}
		ops := operands(args[1:], 0)
		if name == "find" {
			ops = nil
			for _, a := range args[1:] {
				if strings.HasPrefix(a, "-") || a == "(" || a == "!" {
					break
				}
				ops = append(ops, a)
			}
		}
		if name == "fd" {
			ops = operands(args[1:], 1)
		}
		if len(ops) == 0 {
			return false // the cwd, which may hold a denied path
		}
		for _, o := range ops {
			if class, _, _ := c.classify(o); class != classNone {
				return false
			}
		}
	}
	return true
}

// wordLit returns a word's value when it is made only of literals and
// quoted literals.
func wordLit(w *syntax.Word) (string, bool) {
	var b strings.Builder
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			b.WriteString(p.Value)
		case *syntax.SglQuoted:
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				lit, ok := q.(*syntax.Lit)
				if !ok {
					return "", false
				}
				b.WriteString(lit.Value)
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}
