package intercept

import (
	"bytes"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// call is one simple command of a Bash command line, with the environment
// it runs under as far as the command line itself sets it.
type call struct {
	text string
	// env holds the variables the command line assigns before or inline
	// with this call; a value of unknownValue could not be read statically.
	env map[string]string
}

// unknownValue marks an assignment whose value is not a literal.
const unknownValue = "\x00unknown"

// maxNesting bounds bash -c / eval re-parsing.
const maxNesting = 4

// splitBash parses a command line into its simple commands: those joined by
// pipes, && and ;, inside $() and backticks, and inside bash -c / sh -c /
// eval strings. ok is false when the command does not parse; the caller then
// falls back to the raw text.
func splitBash(command string) (calls []call, ok bool) {
	return splitNested(command, map[string]string{}, 0)
}

func splitNested(command string, env map[string]string, depth int) ([]call, bool) {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(command), "")
	if err != nil {
		return nil, false
	}
	var calls []call
	ok := true
	state := clone(env)
	printer := syntax.NewPrinter()
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.DeclClause:
			for _, a := range n.Args {
				assign(state, a)
			}
		case *syntax.CallExpr:
			if len(n.Args) == 0 {
				for _, a := range n.Assigns {
					assign(state, a) // a bare VAR=x persists
				}
				return true
			}
			callEnv := clone(state)
			for _, a := range n.Assigns {
				assign(callEnv, a) // VAR=x cmd: only for this call
			}
			var buf bytes.Buffer
			_ = printer.Print(&buf, &syntax.CallExpr{Args: n.Args})
			calls = append(calls, call{text: buf.String(), env: callEnv})
			if inner, isShell := shellString(n.Args); isShell {
				if depth >= maxNesting {
					ok = false
				} else if nested, nok := splitNested(inner, callEnv, depth+1); nok {
					calls = append(calls, nested...)
				} else {
					ok = false
				}
			}
			if name, _ := wordLit(n.Args[0]); name == "export" {
				for _, w := range n.Args[1:] {
					if s, lit := wordLit(w); lit {
						if k, v, found := strings.Cut(s, "="); found {
							state[k] = v
						}
					}
				}
			}
		}
		return true
	})
	return calls, ok
}

// shellString returns the script of bash -c, sh -c (and friends) or eval.
func shellString(args []*syntax.Word) (string, bool) {
	name, lit := wordLit(args[0])
	if !lit {
		return "", false
	}
	name = name[strings.LastIndex(name, "/")+1:]
	switch name {
	case "eval":
		var parts []string
		for _, w := range args[1:] {
			s, lit := wordLit(w)
			if !lit {
				return "", false
			}
			parts = append(parts, s)
		}
		return strings.Join(parts, " "), len(parts) > 0
	case "bash", "sh", "zsh", "dash", "ksh":
		for i := 1; i+1 < len(args); i++ {
			if flag, _ := wordLit(args[i]); strings.HasPrefix(flag, "-") && strings.Contains(flag, "c") {
				s, lit := wordLit(args[i+1])
				return s, lit
			}
		}
	}
	return "", false
}

func assign(env map[string]string, a *syntax.Assign) {
	if a.Name == nil {
		return
	}
	if a.Value == nil {
		if !a.Naked {
			env[a.Name.Value] = ""
		}
		return
	}
	if v, lit := wordLit(a.Value); lit {
		env[a.Name.Value] = v
		return
	}
	env[a.Name.Value] = unknownValue
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

func clone(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
