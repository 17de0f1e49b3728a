package intercept

// Editors and debuggers whose command language can run a program: vim's
// Ex commands (a full language: :!, system(), :execute, registers,
// 'makeprg') are cleared only when every command is a plain editing one;
// gdb's and lldb's commands, taken by any prefix, are denied when one may
// run a shell or a script.

import (
	"strings"

	"github.com/agent-eval/agent-eval/internal/clip"
)

// vimPlain reports an Ex command line that only edits: a substitution
// without an expression, a delete, a write or quit (not to a command), a
// retab, or setting a layout option.
func vimPlain(line string) bool {
	line = strings.TrimLeft(strings.TrimSpace(line), ": \t")
	if line == "" || strings.HasPrefix(line, "\"") {
		return true // blank or a comment
	}
	if strings.Contains(line, "|") {
		return false // another command after this one
	}
	line = strings.TrimLeft(line, "%0123456789.$,;+- ")
	word := line
	if i := strings.IndexFunc(line, func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') }); i >= 0 {
		word = line[:i]
	}
	rest := line[len(word):]
	switch word {
	case "s", "substitute":
		return vimSubstitute(rest)
	case "d", "delete", "retab", "noh", "nohlsearch", "u", "undo", "redo", "j", "join":
		return strings.Trim(rest, "! 0123456789") == ""
	case "w", "write", "wq", "x", "xit", "q", "quit", "qa", "qall", "wa", "wall", "wqa", "wqall", "xa", "xall", "up", "update":
		rest = strings.TrimPrefix(rest, "!")
		arg := strings.TrimSpace(rest)
		return !strings.HasPrefix(arg, "!") && !strings.ContainsAny(arg, " \t`$%#<") && (rest == "" || strings.HasPrefix(rest, " "))
	case "se", "set", "setl", "setlocal":
		for _, opt := range strings.Fields(rest) {
			name, _, _ := strings.Cut(strings.TrimPrefix(opt, "no"), "=")
			if !vimLayoutOptions.has(strings.TrimRight(name, "!&?")) {
				return false
			}
		}
		return true
	}
	return false
}

// vimLayoutOptions are the options a plain edit sets; others (shell,
// makeprg, keywordprg, equalprg, formatprg, …) name programs.
var vimLayoutOptions = wordSet{ // sorted
	"ai", "autoindent", "bin", "binary", "bomb", "endofline", "eol", "et", "expandtab", "fenc", "ff",
	"fileencoding", "fileformat", "fixendofline", "fixeol", "hls", "hlsearch", "ic", "ignorecase", "magic",
	"more", "nu", "number", "scs", "shiftwidth", "smartcase", "softtabstop", "sts", "sw", "tabstop",
	"textwidth", "ts", "tw", "wrapscan", "ws",
}

// vimSubstitute reports an :s command whose replacement is not an
// expression (\=), with only flags after it.
func vimSubstitute(rest string) bool {
	if rest == "" {
		return true // repeat the last one
	}
	d := rest[0]
	if d == ' ' || d == '\\' || d == '"' || d >= 'a' && d <= 'z' || d >= 'A' && d <= 'Z' || d >= '0' && d <= '9' {
		return false
	}
	var parts []string
	cur := strings.Builder{}
	for i := 1; i < len(rest); i++ {
		switch {
		case rest[i] == '\\' && i+1 < len(rest):
			cur.WriteByte(rest[i])
			cur.WriteByte(rest[i+1])
			i++
		case rest[i] == d && len(parts) < 2:
			parts = append(parts, cur.String())
			cur.Reset()
		default:
			cur.WriteByte(rest[i])
		}
	}
	parts = append(parts, cur.String())
	if len(parts) > 1 && strings.HasPrefix(parts[1], `\=`) {
		return false // the replacement is an expression: system(), …
	}
	if len(parts) == 3 {
		return strings.Trim(parts[2], "&cegiInp#lr 0123456789") == ""
	}
	return true
}

// gdbRunners are the gdb and lldb commands that run a shell or a script,
// or define commands that may; gdb takes any prefix of a command.
var gdbRunners = []string{"shell", "pipe", "python", "python-interactive", "pi", "py", "guile", "guile-repl", "gr", "gu",
	"source", "define", "define-prefix", "alias", "eval", "compile", "jit-reader-load", "script", "platform", "command",
	"plugin", "make"}

// gdbSafe are short commands that a prefix of gdbRunners would also match
// but that gdb reads as others (s is step, p print, f frame).
var gdbSafe = wordSet{ // sorted
	"c", "continue", "p", "print", "s", "set", "show", "step",
}

// gdbPlain reports a debugger command line that runs no shell or script.
func gdbPlain(line string) bool {
	line = strings.TrimSpace(line)
	if line == "" || strings.HasPrefix(line, "#") {
		return true
	}
	if strings.HasPrefix(line, "!") || strings.HasPrefix(line, "|") || strings.Contains(line, "$_shell") {
		return false
	}
	word := strings.ToLower(strings.Fields(line)[0])
	if gdbSafe.has(word) {
		return true
	}
	for _, r := range gdbRunners {
		if strings.HasPrefix(r, word) {
			return false
		}
	}
	return true
}

// editorText judges the commands vim or a debugger reads from text.
func (w *walker) editorText(base string, dialect stdinDialect, text string, env map[string]string, depth int) {
	plain := vimPlain
	if dialect == runsGdb {
		plain = gdbPlain
	}
	for _, line := range strings.Split(text, "\n") {
		if !plain(line) {
			w.deny("%s runs a command the hook does not read (%s): only plain editing commands are cleared", base, clip.String(strings.TrimSpace(line), 60))
			return
		}
	}
}

// editorCall judges the commands vim or a debugger is given on its command
// line: vim's -c, --cmd, +cmd and -S/-s files; gdb's -ex, -iex, -eval-command
// and -x/-ix files.
func (w *walker) editorCall(base string, dialect stdinDialect, text string, args []word, env map[string]string, depth int) {
	valueOpts := map[string]bool{"-c": true, "--cmd": true, "-ex": true, "-iex": true, "--eval-command": true, "-eval-command": true,
		"--init-eval-command": true, "-o": true, "-O": true}
	fileOpts := map[string]bool{"-S": true, "-s": true, "-x": true, "-ix": true, "--command": true, "-command": true, "--init-command": true, "-u": true}
	for i := 0; i < len(args); i++ {
		a := args[i]
		var code string
		switch {
		case a.dyn:
			continue
		case dialect == runsVim && strings.HasPrefix(a.s, "+") && len(a.s) > 1:
			code = a.s[1:]
		case (valueOpts[a.s] || fileOpts[a.s]) && i+1 < len(args):
			i++
			v := args[i]
			if v.dyn {
				w.deny("%s is given commands only known when it runs (%q)", base, clip.String(text, 80))
				return
			}
			if a.s == "-o" || a.s == "-O" || dialect == runsGdb && (a.s == "-c") || dialect == runsVim && a.s == "-u" && (v.s == "NONE" || v.s == "NORC") {
				continue // a split count, a core file, no vimrc
			}
			if !fileOpts[a.s] {
				code = v.s
				break
			}
			if isStdinPath(v.s) {
				continue // stdin: read as stdin
			}
			src := w.fileText([]word{v})
			if src.kind != inKnown {
				w.deny("%s runs the commands of %s, which the hook cannot read (%q)", base, src.from, clip.String(text, 80))
				return
			}
			code = src.text
		case strings.HasPrefix(a.s, "--eval-command=") || strings.HasPrefix(a.s, "-ex="):
			code = a.s[strings.Index(a.s, "=")+1:]
		default:
			continue
		}
		w.editorText(base, dialect, code, env, depth)
	}
}
