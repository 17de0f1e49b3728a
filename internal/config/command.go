package config

import (
	"errors"
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/agent-eval/agent-eval/internal/lazyre"
	"github.com/agent-eval/agent-eval/internal/shellname"
)

// BuiltinPlaceholders are the placeholders a cli runner's command may use
// whatever the case (docs/runners/cli.md says what
// each holds). A case's input fields add their own names but never
// override these.
var BuiltinPlaceholders = []string{"agent", "workspace", "output_dir", "model", "subagent_model",
	"timeout", "max_budget_usd", "effort", "system_prompt", "config_dir", "args"}

// IsBuiltinPlaceholder reports whether name is one of BuiltinPlaceholders.
func IsBuiltinPlaceholder(name string) bool {
	for _, b := range BuiltinPlaceholders {
		if b == name {
			return true
		}
	}
	return false
}

// SplitCommand splits a command line into its arguments as a POSIX shell
// would (quotes, backslashes, comments), without running a shell: no
// variable, command or glob expansion, no pipes, redirections or lists.
// What would need a shell is an error: use a list and an explicit
// `bash -c` for that.
func SplitCommand(line string) ([]string, error) {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(line), "")
	if err != nil {
		return nil, fmt.Errorf("does not parse as a command line: %w", err)
	}
	const needShell = "; a string command runs without a shell: give a list, e.g. [bash, -c, \"…\"], to use one"
	if len(f.Stmts) != 1 {
		if len(f.Stmts) == 0 {
			return nil, errors.New("holds no command")
		}
		return nil, errors.New("holds more than one command" + needShell)
	}
	st := f.Stmts[0]
	call, ok := st.Cmd.(*syntax.CallExpr)
	switch {
	case !ok:
		return nil, errors.New("is not a simple command (a pipe, list, subshell or compound command)" + needShell)
	case st.Negated || st.Background || st.Coprocess || len(st.Redirs) > 0:
		return nil, errors.New("uses a shell operator (!, &, redirection)" + needShell)
	case len(call.Assigns) > 0:
		return nil, errors.New("sets a variable before the command; use runner.env")
	}
	args := make([]string, 0, len(call.Args))
	for _, w := range call.Args {
		if bad := expansion(w); bad != "" {
			return nil, fmt.Errorf("uses %s, which a string command does not expand%s", bad, needShell)
		}
		args = append(args, unquote(w))
	}
	return args, nil
}

// unquote is w's value after quote removal; w holds no expansions.
func unquote(w *syntax.Word) string {
	var b strings.Builder
	for _, p := range w.Parts {
		switch x := p.(type) {
		case *syntax.Lit:
			unescape(&b, x.Value, "")
		case *syntax.SglQuoted:
			b.WriteString(x.Value)
		case *syntax.DblQuoted:
			for _, q := range x.Parts {
				if l, ok := q.(*syntax.Lit); ok {
					unescape(&b, l.Value, "$`\"\\\n")
				}
			}
		}
	}
	return b.String()
}

// unescape writes s with its backslashes removed: before any character
// when special is "" (unquoted), else only before one of special (inside
// double quotes). A backslash-newline is a line continuation.
func unescape(b *strings.Builder, s, special string) {
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && (special == "" || strings.IndexByte(special, s[i+1]) >= 0) {
			i++
			if s[i] != '\n' {
				b.WriteByte(s[i])
			}
			continue
		}
		b.WriteByte(s[i])
	}
}

// expansion names the first shell expansion in w, or "".
func expansion(w *syntax.Word) string {
	var bad string
	syntax.Walk(w, func(n syntax.Node) bool {
		if bad != "" {
			return false
		}
		switch x := n.(type) {
		case *syntax.ParamExp:
			bad = "$" + x.Param.Value
		case *syntax.CmdSubst:
			bad = "a command substitution"
		case *syntax.ArithmExp:
			bad = "an arithmetic expansion"
		case *syntax.ProcSubst:
			bad = "a process substitution"
		case *syntax.ExtGlob:
			bad = "an extended glob"
		case *syntax.SglQuoted:
			if x.Dollar {
				bad = "$'…' quoting"
			}
		case *syntax.DblQuoted:
			if x.Dollar {
				bad = `$"…" quoting`
			}
		}
		return bad == ""
	})
	return bad
}

// Piece is one part of a command argument: literal text, or a placeholder.
type Piece struct {
	Text        string // the literal text (when Placeholder is "")
	Placeholder string // the placeholder's name
}

// ParseArg splits one argument template into literal text and
// placeholders. {name} is a placeholder when name is an identifier
// (letters, digits, _); {{ and }} are literal braces; ${…} (a shell
// parameter inside a `bash -c` script) and braces around anything else
// ({}, {a,b}, { cmd; }) are literal text. A brace group that looks like a
// misspelt name ({output-dir}, {1}, {a.b}) is an error, not literal text.
func ParseArg(arg string) ([]Piece, error) {
	var out []Piece
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			out = append(out, Piece{Text: lit.String()})
			lit.Reset()
		}
	}
	for i := 0; i < len(arg); i++ {
		c := arg[i]
		switch {
		case c == '{' && strings.HasPrefix(arg[i:], "{{"), c == '}' && strings.HasPrefix(arg[i:], "}}"):
			lit.WriteByte(c)
			i++
		case c == '$' && strings.HasPrefix(arg[i:], "${"):
			end := strings.IndexByte(arg[i:], '}')
			if end < 0 {
				lit.WriteString(arg[i:])
				i = len(arg)
				continue
			}
			lit.WriteString(arg[i : i+end+1])
			i += end
		case c == '{':
			end := strings.IndexByte(arg[i+1:], '}')
			if end < 0 {
				lit.WriteByte(c)
				continue
			}
			name := arg[i+1 : i+1+end]
			switch {
			case isIdent(name):
				flush()
				out = append(out, Piece{Placeholder: name})
				i += end + 1
			case nameLike(name):
				msg := fmt.Sprintf("{%s} is not a placeholder: names are letters, digits and _", name)
				if s := suggest(name, BuiltinPlaceholders); s != "" {
					msg += fmt.Sprintf(" (did you mean {%s}?)", s)
				}
				return nil, errors.New(msg + "; write {{ and }} for literal braces")
			default:
				lit.WriteByte(c)
			}
		default:
			lit.WriteByte(c)
		}
	}
	flush()
	return out, nil
}

func isIdent(s string) bool {
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for _, r := range s {
		if r != '_' && !(r >= 'a' && r <= 'z') && !(r >= 'A' && r <= 'Z') && !(r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// nameLike: a brace group that is one token of name characters but not an
// identifier, so probably a misspelt placeholder.
func nameLike(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r != '_' && r != '-' && r != '.' && !(r >= 'a' && r <= 'z') && !(r >= 'A' && r <= 'Z') && !(r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// Placeholders lists the distinct placeholder names cmd uses, in order of
// first use. Arguments that do not parse (load reports them) are skipped.
func Placeholders(cmd StringList) []string {
	var names []string
	seen := map[string]bool{}
	for _, a := range cmd {
		pieces, err := ParseArg(a)
		if err != nil {
			continue
		}
		for _, p := range pieces {
			if p.Placeholder != "" && !seen[p.Placeholder] {
				seen[p.Placeholder] = true
				names = append(names, p.Placeholder)
			}
		}
	}
	return names
}

// InputPlaceholders lists cmd's placeholders that are not built-ins: the
// case input fields it needs.
func InputPlaceholders(cmd StringList) []string {
	var out []string
	for _, n := range Placeholders(cmd) {
		if !IsBuiltinPlaceholder(n) {
			out = append(out, n)
		}
	}
	return out
}

// CheckPlaceholders reports the placeholders of cmd that are neither
// built-ins nor fields of input (a case's input.yaml), or nil. The engine
// calls it for every case before any starts.
func CheckPlaceholders(cmd StringList, input map[string]any) error {
	var missing []string
	for _, n := range InputPlaceholders(cmd) {
		if _, ok := input[n]; !ok {
			missing = append(missing, "{"+n+"}")
		}
	}
	switch len(missing) {
	case 0:
		return nil
	case 1:
		msg := fmt.Sprintf("the command uses %s, which is not a built-in placeholder nor a field of the case's input", missing[0])
		if s := suggest(strings.Trim(missing[0], "{}"), BuiltinPlaceholders); s != "" {
			msg += fmt.Sprintf(" (did you mean {%s}?)", s)
		}
		return errors.New(msg)
	default:
		return fmt.Errorf("the command uses %s, which are not built-in placeholders nor fields of the case's input", strings.Join(missing, ", "))
	}
}

// ScriptPlaceholders lists the placeholders that carry text from the eval
// or the case ({args}, input fields, …, not the paths and numbers) and sit
// inside the script of a shell's -c: their values become shell code there
// (a case input holding "; rm -rf ~" would run it). Pass them as arguments
// after the script instead ("$1", like upstream's opencode-smoke).
func ScriptPlaceholders(cmd StringList) []string {
	i := ScriptIndex(cmd)
	if i < 0 {
		return nil
	}
	var out []string
	for _, n := range Placeholders(StringList{cmd[i]}) {
		switch n {
		case "workspace", "output_dir", "config_dir", "timeout", "max_budget_usd":
		default:
			out = append(out, "{"+n+"}")
		}
	}
	return out
}

// ScriptIndex is the index of the script of a shell's -c in cmd (bash -c
// SCRIPT ...), or -1. The arguments after the script are the script's $0,
// $1, …: never options.
func ScriptIndex(cmd StringList) int {
	if len(cmd) < 3 {
		return -1
	}
	prog := cmd[0]
	if i := strings.LastIndexByte(prog, '/'); i >= 0 {
		prog = prog[i+1:]
	}
	if !shellname.Is(prog) {
		return -1
	}
	for i := 1; i+1 < len(cmd); i++ {
		a := cmd[i]
		if !strings.HasPrefix(a, "-") || a == "--" {
			return -1 // the options end before a -c
		}
		if strings.HasPrefix(a, "--") || !strings.ContainsRune(a, 'c') {
			continue // --norc, -e, …
		}
		return i + 1
	}
	return -1
}

// FieldCommand is a cli runner's command and the field it is set at.
type FieldCommand struct {
	Field   string // runner.command or execution.steps[i].runner.command
	Command StringList
}

// CLICommands lists the commands of the eval's cli runners: the top-level
// one and the steps' own.
func (e *Eval) CLICommands() []FieldCommand {
	var out []FieldCommand
	if e.Runner.Type == "cli" && len(e.Runner.Command) > 0 {
		out = append(out, FieldCommand{"runner.command", e.Runner.Command})
	}
	for i, s := range e.Execution.Steps {
		if s.Runner != nil && s.Runner.Type == "cli" && len(s.Runner.Command) > 0 {
			out = append(out, FieldCommand{index("execution.steps", i) + ".runner.command", s.Runner.Command})
		}
	}
	return out
}

// PlainNumber reports whether s is a plain decimal number: an optional
// "-", digits, and optionally "." and more digits (-5, 2.5, -0.25). Only
// these are values in a command's option position: -inf, -Infinity,
// -NaN, -0x1p-2, -1e5 or -1_000 parse as numbers in some languages but a
// program's option parser reads them as options (-inf as -i nf).
func PlainNumber(s string) bool { return plainNumberRE().MatchString(s) }

var plainNumberRE = lazyre.New(`^-?[0-9]+(\.[0-9]+)?$`)

// CaseOption checks one command argument for an option written by the
// case: its first non-empty piece is a placeholder carrying the case's
// text (fromCase says which names do: {args} and the input fields), and
// the argument it expands to (value gives each placeholder's text) begins
// with "-" and is not a PlainNumber. It returns that placeholder's name
// and the expanded argument, or "" when the argument is safe. Text the
// eval wrote before the placeholder (--prompt={args}, "say {args}") keeps
// the argument the eval's.
func CaseOption(pieces []Piece, value func(name string) string, fromCase func(name string) bool) (name, arg string) {
	var b strings.Builder
	first := ""
	for _, p := range pieces {
		v := p.Text
		if p.Placeholder != "" {
			v = value(p.Placeholder)
		}
		if first == "" && v != "" {
			first = p.Placeholder
			if first == "" || !fromCase(first) {
				return "", ""
			}
		}
		b.WriteString(v)
	}
	arg = b.String()
	if first == "" || !strings.HasPrefix(arg, "-") || PlainNumber(arg) {
		return "", ""
	}
	return first, arg
}

// IsShell reports whether prog (a path or a name) is a shell: what follows
// its script, "--" included, are the script's $1, $2, …, which the script
// may hand to any program.
func IsShell(prog string) bool {
	if i := strings.LastIndexByte(prog, '/'); i >= 0 {
		prog = prog[i+1:]
	}
	return shellname.Is(prog)
}

// PositionalSafe reports whether the shell script hands its positional
// parameters ($1, "$@", ${2:-x}, …) to programs only where they cannot be
// options: after a literal "--" among the command's arguments, or inside
// an argument that the script's own text begins (--prompt="$1"). Any other
// use (agent "$1", exec "$@", x=$1, a script that does not parse) cannot
// be known safe.
func PositionalSafe(script string) bool {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(script), "")
	if err != nil {
		return false
	}
	all, safe := 0, 0
	syntax.Walk(f, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.ParamExp:
			if positional(x) {
				all++
			}
		case *syntax.CallExpr:
			ended := false
			for k, w := range x.Args {
				if k > 0 && (ended || wordBegunByScript(w)) {
					safe += countPositional(w)
				}
				if k > 0 && w.Lit() == "--" {
					ended = true
				}
			}
		}
		return true
	})
	return all == safe
}

func positional(p *syntax.ParamExp) bool {
	if p.Param == nil {
		return false
	}
	v := p.Param.Value
	return v == "@" || v == "*" || v != "" && strings.Trim(v, "0123456789") == ""
}

func countPositional(w *syntax.Word) int {
	n := 0
	syntax.Walk(w, func(x syntax.Node) bool {
		if p, ok := x.(*syntax.ParamExp); ok && positional(p) {
			n++
		}
		return true
	})
	return n
}

// wordBegunByScript reports whether w begins with literal text of the
// script's own (quoted or not).
func wordBegunByScript(w *syntax.Word) bool {
	if len(w.Parts) == 0 {
		return false
	}
	switch p := w.Parts[0].(type) {
	case *syntax.Lit:
		return p.Value != ""
	case *syntax.SglQuoted:
		return p.Value != ""
	case *syntax.DblQuoted:
		if len(p.Parts) > 0 {
			if l, ok := p.Parts[0].(*syntax.Lit); ok {
				return l.Value != ""
			}
		}
	}
	return false
}
