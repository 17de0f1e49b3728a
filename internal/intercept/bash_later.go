package intercept

// Code bash runs later or from data, as the handler layer reads it: prompt
// strings (PS4 under set -x), exported functions, program-valued
// variables, callbacks of trap/compgen/complete/mapfile, arithmetic on
// variables (bash evaluates a[$(cmd)] in a variable's value), indirect
// expansion, namerefs.

import (
	"path"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/agent-eval/agent-eval/internal/lazyre"
)

// promptVars are expanded as code: PS4 for every command under set -x,
// PS0/PS1/PS2 and PROMPT_COMMAND in an interactive shell.
var promptVars = map[string]bool{"PS0": true, "PS1": true, "PS2": true, "PS3": true, "PS4": true, "PROMPT_COMMAND": true}

// programVars name a program, or a command line, that another program runs
// (git runs $EDITOR, less runs $LESSOPEN, the loader maps $LD_PRELOAD).
var programVars = map[string]bool{"EDITOR": true, "VISUAL": true, "GIT_EDITOR": true, "GIT_SEQUENCE_EDITOR": true,
	"GIT_SSH_COMMAND": true, "GIT_SSH": true, "GIT_PAGER": true, "PAGER": true, "MANPAGER": true, "LESSOPEN": true,
	"LESSCLOSE": true, "GIT_EXTERNAL_DIFF": true, "GIT_ASKPASS": true, "SSH_ASKPASS": true, "SUDO_ASKPASS": true,
	"BROWSER": true, "LD_PRELOAD": true, "LD_AUDIT": true, "NODE_OPTIONS": true, "PERL5OPT": true, "RUBYOPT": true,
	"PYTHONSTARTUP": true, "FCEDIT": true, "GIT_PROXY_COMMAND": true, "BASH_ENV": true, "ENV": true}

// special judges an assignment to a variable whose value bash or another
// program runs as code. dyn: the value is only known when it runs.
func (w *walker) special(name, value string, dyn bool, text string) {
	dyn = dyn || value == unknownValue
	switch {
	case promptVars[name]:
		if dyn {
			w.deny("%s is set to a value only known when it runs, and bash expands it as code (set -x, an interactive shell) (%q)", name, clip(text, 80))
			return
		}
		if name == "PROMPT_COMMAND" {
			w.nested(value, map[string]string{}, 1)
			return
		}
		if strings.ContainsAny(value, "$`") {
			w.nested(`: "`+value+`"`, map[string]string{}, 1)
		}
	case strings.HasPrefix(name, "BASH_FUNC_") || strings.HasPrefix(name, "BASH_FUNC"):
		if dyn {
			w.deny("%s exports a function whose body is only known when it runs (%q)", name, clip(text, 80))
			return
		}
		w.nested("f"+value, map[string]string{}, 1)
	case programVars[name]:
		if dyn && name != "BASH_ENV" && name != "ENV" {
			w.deny("%s names a program another program runs, and its value is only known when it runs (%q)", name, clip(text, 80))
			return
		}
		if !dyn {
			w.lenient++
			w.nested(strings.TrimLeft(value, "|-"), map[string]string{}, 1) // LESSOPEN='|cmd %s'
			w.lenient--
		}
	case w.intVars[name]:
		if dyn {
			w.deny("%s is declared -i, so the value it is given (only known when it runs) is evaluated as arithmetic, which can run code (%q)", name, clip(text, 80))
			return
		}
		if why := w.arithString(nil, value, 0); why != "" {
			w.deny("%s is declared -i and its value is evaluated as arithmetic: %s", name, why)
		}
	}
}

// callbacks handles builtins that take code or a function to run later:
// trap, compgen/complete -C/-F/-W, mapfile/readarray -C, hash -p, enable -f.
// It reports whether base was one of them.
func (w *walker) callbacks(base, text string, args []word, env map[string]string, depth int, code func([]word, string)) bool {
	switch base {
	case "trap":
		i := 0
		for i < len(args) && (args[i].s == "-p" || args[i].s == "-l" || args[i].s == "-P") {
			return true // prints
		}
		if i < len(args) && args[i].s == "--" {
			i++
		}
		if i+1 < len(args) && args[i].s != "-" {
			code(args[i:i+1], "trap")
		} else if i < len(args) && args[i].dyn {
			code(args[i:i+1], "trap")
		}
	case "compgen", "complete":
		optValues(args, "oAGWFCXPSD", func(opt byte, v word) {
			switch opt {
			case 'C':
				code([]word{v}, base+" -C")
			case 'W':
				// The word list is expanded when it is used: $(…) in it runs.
				code([]word{{s: ": " + v.s, dyn: v.dyn}}, base+" -W")
			case 'F':
				code([]word{v}, base+" -F")
			}
		})
	case "mapfile", "readarray":
		optValues(args, "dnOsuCc", func(opt byte, v word) {
			if opt == 'C' {
				code([]word{v}, base+" -C")
			}
		})
	case "hash":
		for _, a := range args {
			if strings.HasPrefix(a.s, "-") && strings.Contains(a.s, "p") || a.dyn {
				w.deny("hash -p makes a command name run a file whose content the hook does not read (%q)", clip(text, 80))
				return true
			}
		}
	case "enable":
		for _, a := range args {
			if strings.HasPrefix(a.s, "-") && strings.Contains(a.s, "f") || a.dyn {
				w.deny("enable -f loads a builtin from a shared object the hook cannot read (%q)", clip(text, 80))
				return true
			}
		}
	default:
		return false
	}
	return true
}

// optValues calls f with each option of takes (single letters, clustered or
// not: -tC cb, -C cb, -Ccb) and its value.
func optValues(args []word, takes string, f func(byte, word)) {
	for i := 0; i < len(args); i++ {
		s := args[i].s
		if s == "--" || len(s) < 2 || s[0] != '-' || strings.HasPrefix(s, "--") {
			if s == "--" {
				return
			}
			continue
		}
		for j := 1; j < len(s); j++ {
			if !strings.ContainsRune(takes, rune(s[j])) {
				continue
			}
			if j+1 < len(s) {
				f(s[j], word{s: s[j+1:], dyn: args[i].dyn})
			} else if i+1 < len(args) {
				i++
				f(s[j], args[i])
			}
			break
		}
	}
}

// numericSpecials are variables bash keeps as numbers.
var numericSpecials = map[string]bool{"RANDOM": true, "SRANDOM": true, "SECONDS": true, "LINENO": true, "BASHPID": true,
	"PPID": true, "UID": true, "EUID": true, "EPOCHSECONDS": true, "OPTIND": true, "COLUMNS": true, "LINES": true,
	"SHLVL": true, "HISTCMD": true, "#": true, "?": true, "$": true, "!": true}

var (
	arithIdent  = lazyre.New(`[A-Za-z_][A-Za-z0-9_]*`)
	arithNumber = lazyre.New(`\b[0-9][0-9A-Za-z_#@]*`)
)

// arithVar says why evaluating the variable name as arithmetic may run
// code ("" when it cannot): bash evaluates a variable's value as an
// expression, and a subscript in it (a[$(cmd)]) runs commands.
func (w *walker) arithVar(state map[string]string, name string, depth int) string {
	if numericSpecials[name] || w.numeric[name] && !w.taint[name] {
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
		return "the expression " + clip(s, 60) + " holds expansions, which bash runs in a subscript"
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
		w.deny("a variable name with a subscript only known when it runs is evaluated as code (%q)", clip(text, 80))
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

// readsInto handles read, mapfile, getopts, printf -v and wait -p: the
// variables they set get values only known when they run, and a
// subscript in a name is evaluated as arithmetic.
func (w *walker) readsInto(state map[string]string, words []word, text string) {
	name := words[0].s
	var targets []word
	switch name {
	case "printf", "wait":
		for i := 1; i+1 < len(words); i++ {
			if words[i].s == "-v" || name == "wait" && words[i].s == "-p" {
				targets = append(targets, words[i+1])
			}
		}
	default:
		// Options that take a value, per builtin; read -a NAME names a target.
		values := map[string]bool{"-d": true, "-n": true, "-N": true, "-p": true, "-t": true, "-u": true, "-i": true}
		if name == "mapfile" || name == "readarray" {
			values = map[string]bool{"-d": true, "-n": true, "-O": true, "-s": true, "-u": true, "-C": true, "-c": true}
		}
		for i := 1; i < len(words); i++ {
			s := words[i].s
			if s == "-a" && name == "read" && i+1 < len(words) {
				targets = append(targets, words[i+1])
				i++
				continue
			}
			if values[s] && name != "getopts" {
				i++
				continue
			}
			if strings.HasPrefix(s, "-") && name != "getopts" {
				continue
			}
			targets = append(targets, words[i])
		}
		if name == "getopts" && len(targets) > 0 {
			targets = targets[1:] // the option string
		}
	}
	for _, a := range targets {
		w.subscripted(state, a, text)
		base, _, _ := strings.Cut(a.s, "[")
		if envName(base) {
			w.special(base, unknownValue, true, text)
			state[base] = unknownValue
			w.numeric[base] = false
		}
	}
}

// codeFree reports a known value that holds no code bash could evaluate in
// arithmetic.
func codeFree(v string) bool {
	return v != unknownValue && !strings.ContainsAny(v, "$`[")
}

// noteWriter records the first command of the line that may write files
// the analysis does not follow.
func (w *walker) noteWriter(base string, args []word) {
	if w.lenient > 0 {
		return
	}
	ss := make([]string, len(args))
	for i, a := range args {
		ss[i] = a.s
	}
	if mayWrite(base, ss) {
		w.writers = append(w.writers, writer{name: base, args: ss, content: contentWriter(base, ss)})
	}
}

// unknownProgram reads the arguments of a program the analysis does not
// know as code it may run: each argument that parses as shell, and the
// arguments from each operand on as a command (prlimit bash -c …, tmux new
// 'cmd', mywrap -- jira …). What is found is recorded as opaque: the
// program may run it under an environment and with options the hook
// cannot see. A shell or wrapper found there is read strictly.
func (w *walker) unknownProgram(name string, args []word, env map[string]string, depth int) {
	if w.opaque != "" || depth >= maxNesting {
		return
	}
	w.opaque = name
	defer func() { w.opaque = "" }()
	budget := maxOpaqueBytes
	w.lenient++
	for _, a := range args {
		if !a.dyn && strings.ContainsAny(a.s, " \t\n;|&$`(<>'\"\\") {
			if budget -= len(a.s); budget < 0 {
				w.lenient--
				w.deny("%s, a program the hook does not know, is given more text that may be code than the hook reads (%d bytes)", name, maxOpaqueBytes)
				return
			}
			w.nested(a.s, clone(env), depth+1)
			if strings.Contains(a.s, `\n`) {
				w.nested(strings.ReplaceAll(a.s, `\n`, "\n"), clone(env), depth+1) // screen -X stuff 'cmd\n'
			}
			if _, v, ok := strings.Cut(a.s, "="); ok {
				w.nested(v, clone(env), depth+1) // -o ProxyCommand=…, --to-command=…
			}
		}
	}
	w.lenient--
	// From each operand that names a command the analysis reads (a shell,
	// a wrapper, eval, find, an interpreter), the rest runs as that command.
	n := 0
	for i, a := range args {
		if a.dyn || strings.HasPrefix(a.s, "-") {
			continue
		}
		if n++; n > 8 {
			break
		}
		b := path.Base(a.s)
		_, wrapper := wrappers[b]
		if !shells[b] && !wrapper && b != "eval" && b != "find" && !slices.Contains(interpreters, b) && !strings.HasPrefix(b, "python") {
			continue
		}
		w.suffix = true
		w.command(joinWords(args[i:]), args[i:], clone(env), depth+1, false)
	}
}

// maxOpaqueBytes bounds the argument text of an unknown program read as
// code.
const maxOpaqueBytes = 64 << 10

// execIdioms in interpreter code run commands.
var execIdioms = lazyre.New(`(?i)\b(system|exec[a-z]*|spawn[a-z]*|popen[a-z0-9]*|fork|qx|shell_exec|passthru|proc_open|pcntl_exec)\b|subprocess|child_process|` + "`" + `|%x[\s({\[<|!]|Runtime\.getRuntime|ProcessBuilder|os\.execute|io\.popen|Deno\.(run|Command)|Bun\.spawn|pty\.|\|\s*getline|\|\s*["'(]|["')]\s*\|[^|]|-\||\b(eval|getattr|__import__|importlib|compile|instance_eval|public_send|send|constantize|binding|spawn_sync)\b|Function\(|\$[A-Za-z_]\w*\s*\(`)

// sedExec reports a sed script that runs commands: the e command, or the
// e flag of s///, in any of its commands.
func sedExec(script string) bool {
	for _, cmd := range strings.FieldsFunc(script, func(r rune) bool { return r == ';' || r == '\n' || r == '{' || r == '}' }) {
		cmd = strings.TrimLeft(cmd, " \t0123456789,$!~+")
		if len(cmd) > 0 && (cmd[0] == '/' || cmd[0] == '\\') {
			// an address /re/: skip to its end
			d := cmd[0]
			if d == '\\' && len(cmd) > 1 {
				d, cmd = cmd[1], cmd[1:]
			}
			if j := strings.IndexByte(cmd[1:], d); j >= 0 {
				cmd = strings.TrimLeft(cmd[j+2:], " \t,$!0123456789")
			}
		}
		switch {
		case cmd == "e" || strings.HasPrefix(cmd, "e ") || strings.HasPrefix(cmd, "e\t"):
			return true
		case len(cmd) > 1 && cmd[0] == 's':
			d, n := cmd[1], 0
			for j := 2; j < len(cmd); j++ {
				switch cmd[j] {
				case '\\':
					j++
				case d:
					if n++; n == 2 {
						flags := cmd[j+1:]
						if k := strings.IndexAny(flags, " \tw"); k >= 0 {
							flags = flags[:k]
						}
						if strings.Contains(flags, "e") {
							return true
						}
						j = len(cmd)
					}
				}
			}
		}
	}
	return false
}

// interpreterCode denies inline code of an interpreter that runs commands
// (python3 -c 'os.system("j" "ira")'): the command it builds is another
// language's string, which the hook does not evaluate. It reports whether
// base is an interpreter (or at/batch, which run their input later).
func (w *walker) interpreterCode(base, text string, args []word) bool {
	ss := make([]string, len(args))
	for i, a := range args {
		ss[i] = a.s
		if a.dyn {
			ss[i] = "\x00"
		}
	}
	switch {
	case base == "at" || base == "batch":
		if !slices.ContainsFunc(ss, func(a string) bool { return a == "-l" || a == "-r" || a == "-d" || a == "-c" }) {
			w.deny("%s runs commands from its input later, which the hook cannot read (%q)", base, clip(text, 80))
		}
		return true
	case base == "make" || base == "gmake":
		for i, a := range ss {
			if (a == "-f" || a == "--file" || a == "--makefile") && i+1 < len(ss) && (ss[i+1] == "-" || strings.HasPrefix(ss[i+1], "/dev/") || strings.HasPrefix(ss[i+1], "/proc/")) {
				w.deny("make reads its makefile from its input, which the hook cannot read (%q)", clip(text, 80))
			}
		}
		return false
	case base == "sed" || base == "gsed":
		for i, a := range ss {
			if i > 0 && (ss[i-1] == "-f" || ss[i-1] == "--file") || strings.HasPrefix(a, "-") && a != "-e" && !strings.HasPrefix(a, "--expression") {
				continue
			}
			if sedExec(a) {
				w.deny("sed runs commands from its script (the e command or flag), which the hook cannot read (%q)", clip(text, 80))
				break
			}
		}
		return false
	case !slices.Contains(interpreters, base) && !strings.HasPrefix(base, "python"):
		return false
	}
	if _, ok := codeArg(base, ss); !ok && (scriptArg(ss) == "" || scriptArg(ss) == "-") && w.stmt != nil && w.lenient == 0 {
		// The program comes from stdin: a here-doc is read for the idioms,
		// a pipe cannot be.
		for _, r := range w.stmt.Redirs {
			if (r.Op == syntax.Hdoc || r.Op == syntax.DashHdoc) && r.Hdoc != nil || r.Op == syntax.WordHdoc && r.Word != nil {
				wd := r.Hdoc
				if wd == nil {
					wd = r.Word
				}
				var b strings.Builder
				_ = syntax.NewPrinter().Print(&b, wd)
				if execIdioms().MatchString(b.String()) {
					w.deny("%s reads a program from its input that runs commands, which the hook cannot read (%q)", base, clip(text, 80))
				}
			}
		}
		if w.piped[w.stmt] {
			w.deny("%s reads its program from a pipe, which the hook cannot read (%q)", base, clip(text, 80))
		}
	}
	if _, ok := codeArg(base, ss); !ok {
		// A program file the line wrote, or one a writer before it may
		// have written, is not known code.
		if f := scriptArg(ss); f != "" && f != "-" && f != "module" && w.writtenOrAfterWriter(f) {
			w.deny("%s runs %s, which this command line may have written, with content the hook cannot read (%q)", base, f, clip(text, 80))
		}
	}
	code, ok := codeArg(base, ss)
	if ok && (strings.Contains(code, "\x00") || execIdioms().MatchString(code)) {
		w.deny("%s code runs commands it builds in its own language, which the hook cannot read (%q)", base, clip(text, 80))
	}
	return false // its words are read as code too (gdb -ex 'shell …')
}

// writtenOrAfterWriter reports a file this line writes, or one a command
// before it may have written (a content writer, or one naming the file).
func (w *walker) writtenOrAfterWriter(file string) bool {
	if _, ok := w.written[cleanPath(file)]; ok {
		return true
	}
	return slices.ContainsFunc(w.writers, func(wr writer) bool {
		return wr.content || slices.ContainsFunc(wr.args, func(a string) bool { return sameFile(a, file) })
	})
}

// pathLookup denies a bare command name that may find a file the line
// wrote: one whose base name it is, when PATH holds a relative entry or the
// line changed PATH (PATH=.:$PATH; echo … > ls; ls).
func (w *walker) pathLookup(name, text string, env map[string]string) {
	p, changed := env["PATH"], false
	if v, ok := w.env.line["PATH"]; ok {
		p, changed = v, true
	}
	if _, ok := env["PATH"]; ok && env["PATH"] != w.base["PATH"] {
		changed = true
	}
	relative := changed || p == unknownValue
	for _, d := range strings.Split(p, ":") {
		if d == "" || !strings.HasPrefix(d, "/") {
			relative = true
		}
	}
	found := false
	for f := range w.written {
		found = found || path.Base(f) == name
	}
	for _, wr := range w.writers {
		if wr.content {
			for _, a := range wr.args {
				found = found || path.Base(a) == name && a != name
			}
		}
	}
	if found && relative {
		w.deny("%s may run a file this command line wrote, found through a PATH the line changed or that holds a relative directory (%q)", name, clip(text, 80))
	}
}

// promptExp checks ${x@P}: x's value is expanded as a prompt string, and
// $(…) in it runs.
func (w *walker) promptExp(state map[string]string, pe *syntax.ParamExp) {
	if pe.Exp == nil || pe.Exp.Op != syntax.OtherParamOps || pe.Exp.Word == nil || pe.Param == nil {
		return
	}
	if lit, ok := wordLit(pe.Exp.Word); !ok || lit != "P" {
		return
	}
	name := pe.Param.Value
	v, ok := state[name]
	if !ok {
		v, ok = w.base[name]
	}
	if !ok || v == unknownValue || w.taint[name] {
		w.deny("${%s@P} expands a value only known when it runs as a prompt string, which runs $(…) in it", name)
		return
	}
	if strings.ContainsAny(v, "$`") {
		w.nested(`: "`+v+`"`, map[string]string{}, 1)
	}
}

// readScript reads a shell script the line runs from the filesystem (one an
// earlier call may have written) and records the commands in it: a gated
// command there is judged like one on the line. What it cannot know in the
// file is not denied (a script is everyday work); the OS sandbox is the
// boundary for that.
func (w *walker) readScript(file string, env map[string]string, depth int) {
	if w.read == nil || w.cd && !strings.HasPrefix(file, "/") {
		return
	}
	body, ok := w.read(file)
	if !ok {
		return
	}
	w.lenient++
	w.nested(body, env, depth+1)
	w.lenient--
}

// maxScriptBytes bounds a script file the hook reads.
const maxScriptBytes = 256 << 10

// scriptReader reads text files for the analysis through the request's
// filesystem, relative to its cwd; nil when it has none that reads files.
func scriptReader(req Request) func(string) (string, bool) {
	fr, ok := req.FS.(FileReader)
	if !ok || req.CWD == "" || !path.IsAbs(req.CWD) {
		return nil
	}
	return func(file string) (string, bool) {
		if !path.IsAbs(file) {
			file = path.Join(req.CWD, file)
		}
		b, err := fr.ReadFile(file, maxScriptBytes)
		if err != nil || strings.IndexByte(string(b), 0) >= 0 {
			return "", false // absent, unreadable, too large or binary
		}
		return string(b), true
	}
}

// FileReader is an optional PathFS method: the Bash gate reads the shell
// scripts a command runs through it (up to limit bytes; more is an error).
type FileReader interface {
	ReadFile(path string, limit int) ([]byte, error)
}
