package intercept

// Code bash runs later or from data, as the handler layer reads it: prompt
// strings (PS4 under set -x), exported functions, program-valued
// variables, callbacks of trap/compgen/complete/mapfile, namerefs. Arithmetic
// is in bash_arith.go; interpreters, unknown programs and written files in
// bash_run.go.

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/agent-eval/agent-eval/internal/clip"
)

// promptVars are expanded as code: PS4 for every command under set -x,
// PS0/PS1/PS2 and PROMPT_COMMAND in an interactive shell.
var promptVars = wordSet{ // sorted
	"PROMPT_COMMAND", "PS0", "PS1", "PS2", "PS3", "PS4",
}

// programVars name a program, or a command line, that another program runs
// (git runs $EDITOR, less runs $LESSOPEN, the loader maps $LD_PRELOAD).
var programVars = wordSet{ // sorted
	"BASH_ENV", "BROWSER", "EDITOR", "ENV", "FCEDIT", "GIT_ASKPASS", "GIT_EDITOR", "GIT_EXTERNAL_DIFF",
	"GIT_PAGER", "GIT_PROXY_COMMAND", "GIT_SEQUENCE_EDITOR", "GIT_SSH", "GIT_SSH_COMMAND", "LD_AUDIT",
	"LD_PRELOAD", "LESSCLOSE", "LESSOPEN", "MANPAGER", "NODE_OPTIONS", "PAGER", "PERL5OPT", "PYTHONSTARTUP",
	"RUBYOPT", "SSH_ASKPASS", "SUDO_ASKPASS", "VISUAL",
}

// special judges an assignment to a variable whose value bash or another
// program runs as code. dyn: the value is only known when it runs.
func (w *walker) special(name, value string, dyn bool, text string) {
	dyn = dyn || value == unknownValue
	switch {
	case promptVars.has(name):
		if dyn {
			w.deny("%s is set to a value only known when it runs, and bash expands it as code (set -x, an interactive shell) (%q)", name, clip.String(text, 80))
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
			w.deny("%s exports a function whose body is only known when it runs (%q)", name, clip.String(text, 80))
			return
		}
		w.nested("f"+value, map[string]string{}, 1)
	case programVars.has(name):
		if dyn && name != "BASH_ENV" && name != "ENV" {
			w.deny("%s names a program another program runs, and its value is only known when it runs (%q)", name, clip.String(text, 80))
			return
		}
		if !dyn {
			w.lenient++
			w.nested(strings.TrimLeft(value, "|-"), map[string]string{}, 1) // LESSOPEN='|cmd %s'
			w.lenient--
		}
	case name == "LESS" && strings.ContainsAny(value, "!|") || gitConfigVar(name, value):
		// less runs the commands of a +… in $LESS; git reads any setting
		// (an alias, a pager) from these, which the hook does not follow.
		w.deny("%s gives a program commands or settings that can run commands, which the hook does not read (%q)", name, clip.String(text, 80))
	case strings.HasPrefix(name, "GIT_CONFIG_VALUE_"):
		if dyn {
			w.deny("%s sets a git setting (which may be a command) to a value only known when it runs (%q)", name, clip.String(text, 80))
			return
		}
		w.lenient++
		w.nested(strings.TrimLeft(value, "!"), map[string]string{}, 1) // an alias's !cmd, a pager
		w.lenient--
	case w.intVars[name]:
		if dyn {
			w.deny("%s is declared -i, so the value it is given (only known when it runs) is evaluated as arithmetic, which can run code (%q)", name, clip.String(text, 80))
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
				w.deny("hash -p makes a command name run a file whose content the hook does not read (%q)", clip.String(text, 80))
				return true
			}
		}
	case "enable":
		for _, a := range args {
			if strings.HasPrefix(a.s, "-") && strings.Contains(a.s, "f") || a.dyn {
				w.deny("enable -f loads a builtin from a shared object the hook cannot read (%q)", clip.String(text, 80))
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
