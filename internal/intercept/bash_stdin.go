package intercept

// What a command reads on its standard input, and the programs that run
// commands from it: a program fed a script on stdin is read as a shell
// unless it is known not to run commands (dataPrograms), and one known to
// run what it reads (ed's !cmd, newgrp, awk -f /dev/stdin) is denied when
// its input cannot be read.

import (
	"path"
	"slices"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"

	"github.com/agent-eval/agent-eval/internal/clip"
	"github.com/agent-eval/agent-eval/internal/lazyre"
	"github.com/agent-eval/agent-eval/internal/shellname"
)

// inKind is how much the hook knows of what a command reads on stdin.
type inKind int

const (
	inNone    inKind = iota // the tool's own stdin, /dev/null, a missing file
	inKnown                 // text the hook reads
	inUnknown               // a pipe or file whose content the hook cannot read
)

// stdinSrc is a statement's standard input: its text when known, and
// where it comes from, for the reason.
type stdinSrc struct {
	kind inKind
	text string
	from string
}

// stdinOf says what st reads on its standard input; the last redirect of
// stdin wins, else a pipe, else nothing.
func (w *walker) stdinOf(st *syntax.Stmt, state map[string]string) stdinSrc {
	if st == nil {
		return stdinSrc{}
	}
	var src stdinSrc
	redirected := false
	for _, r := range st.Redirs {
		if r.N != nil && r.N.Value != "0" {
			continue
		}
		switch r.Op {
		case syntax.Hdoc, syntax.DashHdoc:
			redirected = true
			src = stdinSrc{kind: inUnknown, from: "a here-doc whose text is only known when it runs"}
			if text, ok := w.docText(r.Hdoc, state); ok {
				src = stdinSrc{kind: inKnown, text: text, from: "a here-doc"}
			}
		case syntax.DplIn, syntax.RdrInOut:
			redirected = true
			src = stdinSrc{kind: inUnknown, from: "another file descriptor"}
			if r.Op == syntax.RdrInOut {
				src = w.fileText(w.expandWord(state, r.Word))
			}
		case syntax.WordHdoc:
			redirected = true
			src = stdinSrc{kind: inUnknown, from: "a here-string only known when it runs"}
			if ws := w.expandWord(state, r.Word); len(ws) == 1 && !ws[0].dyn {
				src = stdinSrc{kind: inKnown, text: ws[0].s + "\n", from: "a here-string"}
			}
		case syntax.RdrIn:
			redirected = true
			src = w.fileText(w.expandWord(state, r.Word))
		}
	}
	if redirected {
		return src
	}
	if t, ok := w.pipeIn[st]; ok {
		return stdinSrc{kind: inKnown, text: t, from: "a pipe from a command whose output the hook reads"}
	}
	if w.piped[st] {
		return stdinSrc{kind: inUnknown, from: "a pipe"}
	}
	return stdinSrc{}
}

// docText is a here-doc's text as bash gives it: a quoted delimiter keeps
// it as written, an unquoted one expands it ($x, $(…)); ok is false when
// that expansion is only known when it runs.
func (w *walker) docText(doc *syntax.Word, state map[string]string) (string, bool) {
	if doc == nil {
		return "", true
	}
	w.env.line, w.env.missing = state, false
	text, err := expand.Document(w.cfg, doc)
	if err != nil || w.env.missing {
		return "", false
	}
	return text, true
}

// writtenText is what this line wrote to file, when it wrote it: known
// only for the very file as spelled before any cd (x.sh after cd tools, or
// /tmp/x.sh against ./x.sh, may be another file: unknown).
func (w *walker) writtenText(file string) (body string, found bool) {
	if b, ok := w.written[cleanPath(file)]; ok {
		if w.cd && !strings.HasPrefix(file, "/") {
			return unknownValue, true
		}
		return b, true
	}
	for f := range w.written {
		if path.Base(f) == path.Base(file) {
			return unknownValue, true
		}
	}
	return "", false
}

// fileText is the content of a file a command reads, as far as the hook
// knows it: written on the line, read from the filesystem, or unknown.
func (w *walker) fileText(ws []word) stdinSrc {
	if len(ws) != 1 || ws[0].dyn {
		return stdinSrc{kind: inUnknown, from: "a file named only when it runs"}
	}
	f := ws[0].s
	switch p := cleanPath(f); {
	case p == "/dev/null":
		return stdinSrc{}
	case strings.HasPrefix(p, "/dev/") || strings.HasPrefix(p, "/proc/"):
		return stdinSrc{kind: inUnknown, from: f}
	}
	if body, ok := w.writtenText(f); ok {
		if body == unknownValue {
			return stdinSrc{kind: inUnknown, from: f + ", which this command line writes"}
		}
		return stdinSrc{kind: inKnown, text: body, from: f}
	}
	if w.writtenOrAfterWriter(f) {
		return stdinSrc{kind: inUnknown, from: f + ", which a command earlier on the line may have written"}
	}
	if w.read == nil || w.cd && !strings.HasPrefix(f, "/") {
		return stdinSrc{kind: inUnknown, from: f}
	}
	if w.linkAfterWrite(f) {
		return stdinSrc{kind: inUnknown, from: f + ", a link to what this command line may write"}
	}
	body, ok := w.read(f)
	if !ok {
		return stdinSrc{kind: inUnknown, from: f + ", which the hook cannot read"}
	}
	return stdinSrc{kind: inKnown, text: body, from: f}
}

// pipeText records what the right side of a pipe reads when the left side
// prints text the hook knows (echo, printf, cat of a file it reads), and
// the files a tee there writes with it.
func (w *walker) pipeText(n *syntax.BinaryCmd, state map[string]string) {
	left := n.X
	for {
		b, ok := left.Cmd.(*syntax.BinaryCmd)
		if !ok || b.Op != syntax.Pipe && b.Op != syntax.PipeAll {
			break
		}
		left = b.Y
	}
	text, ok := w.literalOutput(left, state)
	if !ok || hasInput(n.Y) {
		return // tee x.sh < other: its own stdin wins
	}
	w.pipeIn[n.Y] = text
}

// teeWrites records the files a tee writes with the text piped to it
// (printf 'x' | tee run.sh); appending makes them unknown.
func (w *walker) teeWrites(args []word) {
	text, ok := w.pipeIn[w.stmt]
	if !ok {
		return
	}
	for _, a := range args {
		switch {
		case a.dyn:
			return
		case a.s == "-a" || a.s == "--append":
			return
		}
	}
	for _, a := range args {
		if !strings.HasPrefix(a.s, "-") {
			w.written[cleanPath(a.s)] = text
		}
	}
}

// literalOutput is what a statement prints when the hook can know it: an
// echo or printf of literal words, or cat of files whose content it reads.
func (w *walker) literalOutput(st *syntax.Stmt, state map[string]string) (string, bool) {
	ce, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(ce.Args) == 0 || len(ce.Assigns) > 0 {
		return "", false
	}
	for _, r := range st.Redirs {
		if r.N == nil || r.N.Value != "2" {
			return "", false // its output goes elsewhere, or its input is given
		}
	}
	var words []word
	for _, a := range ce.Args {
		words = append(words, w.expandWord(state, a)...)
	}
	return w.printed(words)
}

// printed is the output of echo, printf or cat given words, when known.
func (w *walker) printed(words []word) (string, bool) {
	for _, a := range words {
		if a.dyn {
			return "", false
		}
	}
	if len(words) == 0 || w.funcs[words[0].s] || w.shadowed {
		return "", false // printf(){ …; }: not the builtin
	}
	if words[0].s != "cat" {
		return echoPrintf(wordTexts(words))
	}
	var b strings.Builder
	for _, a := range words[1:] {
		if strings.HasPrefix(a.s, "-") {
			return "", false
		}
		src := w.fileText([]word{a})
		if src.kind == inUnknown {
			return "", false
		}
		b.WriteString(src.text)
	}
	return b.String(), len(words) > 1
}

// echoPrintf is what echo or printf prints given literal words (the
// command's name first), when the hook can know it.
func echoPrintf(words []string) (string, bool) {
	if len(words) == 0 {
		return "", false
	}
	args := words[1:]
	switch words[0] {
	case "echo":
		newline, escapes := true, false
		for len(args) > 0 && len(args[0]) > 1 && args[0][0] == '-' && strings.Trim(args[0][1:], "neE") == "" {
			for _, f := range args[0][1:] {
				switch f {
				case 'n':
					newline = false
				case 'e':
					escapes = true
				case 'E':
					escapes = false
				}
			}
			args = args[1:]
		}
		s := strings.Join(args, " ")
		if !escapes && strings.Contains(s, `\`) {
			return "", false // shopt -s xpg_echo, or sh's echo, reads escapes
		}
		if escapes {
			var ok bool
			if s, ok = unescape(s); !ok {
				return "", false
			}
		}
		if newline {
			s += "\n"
		}
		return s, true
	case "printf":
		if len(args) > 0 && args[0] == "--" {
			args = args[1:]
		}
		if len(args) == 0 || strings.HasPrefix(args[0], "-") {
			return "", false
		}
		return printfText(args[0], args[1:])
	}
	return "", false
}

// printfText is printf's output for the directives %s, %b, %d and %%; any
// other makes it unknown. The format is reused while arguments remain.
func printfText(format string, args []string) (string, bool) {
	var b strings.Builder
	for round := 0; round == 0 || len(args) > 0; round++ {
		used := false
		for i := 0; i < len(format); i++ {
			c := format[i]
			switch {
			case c == '%' && i+1 < len(format):
				i++
				switch format[i] {
				case '%':
					b.WriteByte('%')
				case 's', 'd', 'b':
					used = true
					arg := ""
					if len(args) > 0 {
						arg, args = args[0], args[1:]
					}
					if format[i] == 'd' && strings.Trim(strings.TrimPrefix(arg, "-"), "0123456789") != "" {
						return "", false // bash prints 0 for '#', and more for 'a
					}
					if format[i] == 'b' {
						var ok bool
						if arg, ok = unescape(arg); !ok {
							return "", false
						}
					}
					b.WriteString(arg)
				default:
					return "", false
				}
			case c == '\\':
				s, ok := unescape(format[i:min(i+2, len(format))])
				if !ok {
					return "", false
				}
				b.WriteString(s)
				i++
			default:
				b.WriteByte(c)
			}
		}
		if !used {
			break
		}
		if round > 64 {
			return "", false // more than the hook follows: not known
		}
	}
	return b.String(), true
}

// unescape reads the backslash escapes of echo -e and printf %b; one it
// does not know (octal, hex, \c) makes the text unknown.
func unescape(s string) (string, bool) {
	if !strings.Contains(s, `\`) {
		return s, true
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch s[i] {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case '\\':
			b.WriteByte('\\')
		case 'a', 'b', 'f', 'r', 'v':
			b.WriteByte(map[byte]byte{'a': 7, 'b': 8, 'f': 12, 'r': 13, 'v': 11}[s[i]])
		default:
			return "", false
		}
	}
	return b.String(), true
}

// stdinDialect is how a program that runs commands from its input marks
// them.
type stdinDialect int

const (
	// runsShell: the whole input is shell (newgrp, a bare su or chroot).
	runsShell stdinDialect = iota + 1
	// runsBang: editor and client commands, where !cmd, shell cmd,
	// .system cmd or \! cmd runs a shell command.
	runsBang
	// runsMacro: m4, whose syscmd and esyscmd run commands.
	runsMacro
	// runsSQL: sqlite3's SQL and dot-commands (sqlite.go).
	runsSQL
	// runsVim: vim's Ex commands, a language of their own; only plain
	// editing commands are cleared (editors.go).
	runsVim
	// runsGdb: a debugger's commands, which gdb and lldb take by prefix.
	runsGdb
)

// stdinRunners run commands from what they read on stdin.
var stdinRunners = sync.OnceValue(func() map[string]stdinDialect {
	return map[string]stdinDialect{
		"newgrp": runsShell, "script": runsShell, "busybox": runsShell, "ssh": runsShell, "crontab": runsShell,
		"ed": runsBang, "red": runsBang, "ex": runsVim, "vi": runsVim, "vim": runsVim, "nvim": runsVim, "view": runsVim,
		"vim.basic": runsVim, "vim.tiny": runsVim, "nex": runsBang, "elvis": runsBang, "dc": runsBang, "ftp": runsBang,
		"sftp": runsBang, "lftp": runsBang, "tnftp": runsBang, "smbclient": runsBang, "psql": runsBang, "mysql": runsBang,
		"mariadb": runsBang, "mail": runsBang, "mailx": runsBang, "s-nail": runsBang, "bsd-mailx": runsBang,
		"gnuplot": runsBang, "sqlite3": runsSQL, "duckdb": runsSQL, "gdb": runsGdb, "lldb": runsGdb, "cgdb": runsGdb,
		"octave": runsBang, "maxima": runsBang, "bconsole": runsBang, "redis-cli": runsBang, "mongosh": runsBang,
		"m4": runsMacro, "gm4": runsMacro,
	}
})

// scriptIdioms in an editor's or debugger's commands run code of its own
// language, which can build a command the hook cannot read (vim's
// system() and :execute, gdb's python, sqlite3's .read '|cmd' and edit()).
var scriptIdioms = lazyre.New(`(?i)\b(system|systemlist|exe|execute|call|py3?|python3?|pyx|pythonx|lua|perl|ruby|tcl|mzscheme|job_start|term_start|libcall|libcallnr|so|source|runtime|guile|eval|edit|load_extension)\b|\.(read|once|output|import|open|excel|log|trace)\s+['"]?\|`)

// scriptLanguages are the bang runners whose input is a programming
// language of its own (a computed command is possible there).
var scriptLanguages = wordSet{ // sorted
	"bconsole", "gnuplot", "maxima", "mongosh", "octave",
}

// sqlClientRuns are psql's and mysql's ways of running a program or a file
// from their input (\!, \o |cmd, COPY … PROGRAM, \i, mysql's system,
// pager and source).
var sqlClientRuns = lazyre.New(`(?i)\\!|\\[og]\s*\||\bprogram\b|\\i[r]?\b|\\include|\\setenv|\bsystem\b|\bpager\b|\bsource\b|\\\.\s+\S`)

// bangCommand finds where a command starts in one line of an editor's or
// client's input: after a !, or a shell/system keyword.
var bangCommand = lazyre.New(`!|(?i)(?:^|[\s.:;\\])(?:shell|system|sh|pipe|syscmd|esyscmd|run)\b[\s(]*|\|`)

// stdinCode reads what a program gets on stdin: for one that runs commands
// from it, the commands (or a denial when the input cannot be read); for a
// program the hook does not know, its input read as shell, as its
// arguments are.
func (w *walker) stdinCode(base, text string, args []word, env map[string]string, depth int, appended bool) {
	if appended || w.stmt == nil || dataPrograms.has(base) || depth >= maxNesting {
		return
	}
	dialect, runner := stdinRunners()[base]
	if runner && !readsCommands(base, wordTexts(args)) {
		runner = false // sqlite3 db 'select …', psql -c, vim -: stdin is data
	}
	src := w.stdinOf(w.stmt, w.env.line)
	switch {
	case src.kind == inNone && runner && w.hasInput:
		// Its stdin may come from a redirect the hook does not tie to it
		// ({ newgrp; } <<< …, exec < f, <&3): not known to be empty.
		w.deny("%s runs commands from its stdin, which this command line may redirect in a way the hook cannot follow (%q)", base, clip.String(text, 80))
		return
	case src.kind == inNone:
		return
	case src.kind == inUnknown && runner:
		w.deny("%s runs commands from what it reads on stdin (%s), which the hook cannot read (%q)", base, src.from, clip.String(text, 80))
		return
	case src.kind == inUnknown:
		return
	}
	if !runner {
		if w.opaque != "" || len(src.text) > maxOpaqueBytes || w.dataText(src.text, env) {
			return
		}
		w.opaque = base
		w.lenient++
		w.nested(src.text, clone(env), depth+1)
		w.lenient--
		w.opaque = ""
		return
	}
	w.stdinCommands(base, dialect, src.text, env, depth)
}

// stdinCommands reads the commands a program runs from text it is given
// in its dialect; they are judged like the line's own.
func (w *walker) stdinCommands(base string, dialect stdinDialect, text string, env map[string]string, depth int) {
	if len(text) > maxOpaqueBytes {
		w.deny("%s runs commands from more input than the hook reads (%d bytes)", base, maxOpaqueBytes)
		return
	}
	if dialect == runsShell {
		w.nested(text, env, depth+1)
		return
	}
	if dialect == runsSQL {
		w.sqliteText(base, text, env, depth)
		return
	}
	if dialect == runsVim || dialect == runsGdb {
		w.editorText(base, dialect, text, env, depth)
		return
	}
	// The commands run with the program's own environment: judged like
	// the line's; a line that does not parse is the program's own text.
	w.lenient++
	defer func() { w.lenient-- }()
	if dialect == runsMacro && strings.Contains(text, "syscmd") {
		w.lenient--
		w.deny("%s runs a command its input builds (syscmd, esyscmd), which the hook cannot read", base)
		w.lenient++
		return
	}
	if dialect == runsBang && (base == "psql" || base == "mysql" || base == "mariadb") && sqlClientRuns().MatchString(text) {
		w.lenient--
		w.deny("%s runs a command or reads a file its input names (%s), which the hook cannot read", base, clip.String(sqlClientRuns().FindString(text), 40))
		w.lenient++
		return
	}
	if dialect == runsBang && scriptLanguages.has(base) && scriptIdioms().MatchString(text) {
		w.lenient--
		w.deny("%s runs a script from its input (%s) that may build a command, which the hook cannot read", base, clip.String(scriptIdioms().FindString(text), 40))
		w.lenient++
		return
	}
	for _, line := range strings.Split(text, "\n") {
		for _, loc := range bangCommand().FindAllStringIndex(line, -1) {
			code := strings.TrimRight(line[loc[1]:], ")")
			if code == "" {
				continue
			}
			if dialect == runsMacro {
				w.lenient--
				w.deny("%s runs a command its input builds (%s), which the hook cannot read", base, clip.String(strings.TrimSpace(line), 60))
				w.lenient++
				return
			}
			w.nested(code, clone(env), depth+1)
		}
	}
}

// stdinScript reports a program told to read its script from stdin by an
// option (awk -f -, sed -f /dev/stdin, gdb -x /dev/fd/0).
func stdinScript(base string, args []string) bool {
	opts := map[string][]string{
		"awk": {"-f", "--file"}, "gawk": {"-f", "--file"}, "mawk": {"-f"}, "nawk": {"-f"},
		"sed": {"-f", "--file"}, "gsed": {"-f", "--file"}, "gdb": {"-x", "--command", "-ix", "--init-command"},
		"vim": {"-s", "-S"}, "nvim": {"-s", "-S"}, "ex": {"-s"}, "sqlite3": {"-init"}, "expect": {"-f"},
	}[base]
	for i, a := range args {
		for _, o := range opts {
			v, ok := "", false
			switch {
			case a == o && i+1 < len(args):
				v, ok = args[i+1], true
			case strings.HasPrefix(a, o+"="):
				v, ok = a[len(o)+1:], true
			case len(o) == 2 && strings.HasPrefix(a, o) && len(a) > 2:
				v, ok = a[2:], true
			}
			if ok && isStdinPath(v) {
				return true
			}
		}
	}
	return false
}

// isStdinPath reports a name for the standard input.
func isStdinPath(p string) bool {
	if p == "-" {
		return true
	}
	p = cleanPath(p)
	return p == "/dev/stdin" || p == "/dev/fd/0" || p == "/proc/self/fd/0" || strings.HasPrefix(p, "/proc/") && strings.HasSuffix(p, "/fd/0")
}

// stdinProgram handles a program whose program text comes from stdin by
// an option: sed and awk scripts, gdb commands.
func (w *walker) stdinProgram(base, text string, args []word, env map[string]string, depth int) {
	if base == "sqlite3" || base == "duckdb" {
		w.sqliteCall(base, text, args, env, depth)
	}
	if d := stdinRunners()[base]; d == runsVim || d == runsGdb {
		w.editorCall(base, d, text, args, env, depth)
	}
	if !stdinScript(base, wordTexts(args)) {
		return
	}
	src := w.stdinOf(w.stmt, w.env.line)
	switch {
	case src.kind == inUnknown:
		w.deny("%s reads its script from stdin (%s), which the hook cannot read (%q)", base, src.from, clip.String(text, 80))
	case src.kind == inNone && w.hasInput:
		w.deny("%s reads its script from stdin, which this command line may redirect in a way the hook cannot follow (%q)", base, clip.String(text, 80))
	case src.kind == inNone:
	case strings.HasSuffix(base, "sed"):
		if sedExec(src.text) {
			w.deny("sed runs commands from its script (the e command or flag) on stdin (%q)", clip.String(text, 80))
		}
	case strings.HasSuffix(base, "awk") || base == "expect":
		if execIdioms().MatchString(src.text) {
			w.deny("%s reads a program from its input that runs commands, which the hook cannot read (%q)", base, clip.String(text, 80))
		}
	default:
		w.stdinCommands(base, runsBang, src.text, env, depth)
	}
}

// bareShells are wrappers that run a shell when given no command.
var bareShells = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"su": true, "runuser": true, "sudo": true, "doas": true, "chroot": true, "unshare": true, "nsenter": true, "sg": true,
		"machinectl": true, "setpriv": true,
	}
})

// source reads the file . or source runs in this shell: one the line
// wrote with known content, or one on disk the hook reads, is walked like
// the line (what it assigns is unknown afterwards); a file that does not
// exist runs nothing; one the hook cannot read is denied.
func (w *walker) source(base, text string, args []word, env map[string]string, depth int) {
	if len(args) > 0 && args[0].s == "--" && !args[0].dyn {
		args = args[1:]
	}
	if len(args) == 0 {
		return
	}
	if args[0].dyn {
		w.deny("%s runs the commands of a file named only when it runs (%q)", base, clip.String(text, 80))
		return
	}
	file := args[0].s
	if !strings.Contains(file, "/") {
		// bash looks for a name without a slash on PATH first.
		p, ok := env["PATH"]
		if !ok {
			p = w.base["PATH"]
		}
		if w.exists == nil || p == unknownValue || w.exists(file, p) {
			w.deny("%s %s may find a file of that name on PATH, which the hook does not read (%q); give its path (./%s)", base, file, clip.String(text, 80), file)
			return
		}
	}
	if body, ok := w.writtenText(file); ok {
		if body == unknownValue {
			w.deny("%s runs %s, which this command line writes with content the hook cannot read (%q)", base, file, clip.String(text, 80))
			return
		}
		w.nested(body, env, depth+1)
		return
	}
	src := w.fileText(args[:1])
	if src.kind == inUnknown {
		w.deny("%s runs the commands of %s, which the hook cannot read (%q)", base, src.from, clip.String(text, 80))
		return
	}
	// A script on disk is everyday work: a gated command in it is judged,
	// what cannot be known in it is left to the OS boundary.
	w.lenient++
	w.nested(src.text, env, depth+1)
	w.lenient--
}

// catsStdin reports a statement that copies its stdin to its stdout as it
// is: cat or tee with no options, the form that writes a here-doc to a file.
func (w *walker) catsStdin(st *syntax.Stmt, state map[string]string) bool {
	ce, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(ce.Args) == 0 {
		return false
	}
	var words []word
	for _, a := range ce.Args {
		words = append(words, w.expandWord(state, a)...)
	}
	if words[0].dyn || words[0].s != "cat" && words[0].s != "tee" {
		return false
	}
	for _, a := range words[1:] {
		if a.dyn || words[0].s == "cat" && a.s != "-" || strings.HasPrefix(a.s, "-") && a.s != "-" {
			return false
		}
	}
	return true
}

// shellWords are bash's builtins and keywords: names that run without a
// program on PATH.
var shellWords = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		".": true, ":": true, "[": true, "[[": true, "alias": true, "bg": true, "bind": true, "break": true, "builtin": true,
		"caller": true, "cd": true, "command": true, "compgen": true, "complete": true, "continue": true, "declare": true,
		"dirs": true, "disown": true, "echo": true, "enable": true, "eval": true, "exec": true, "exit": true, "export": true,
		"false": true, "fc": true, "fg": true, "getopts": true, "hash": true, "help": true, "history": true, "jobs": true,
		"kill": true, "let": true, "local": true, "logout": true, "mapfile": true, "popd": true, "printf": true, "pushd": true,
		"pwd": true, "read": true, "readarray": true, "readonly": true, "return": true, "set": true, "shift": true,
		"shopt": true, "source": true, "suspend": true, "test": true, "time": true, "times": true, "trap": true, "true": true,
		"type": true, "typeset": true, "ulimit": true, "umask": true, "unalias": true, "unset": true, "wait": true,
		"coproc": true, "function": true, "select": true,
	}
})

// dataText reports text given to a program on stdin that cannot be a
// command: no shell punctuation, and no line starting with a name that
// could run (a commit message, a pull request's body).
func (w *walker) dataText(text string, env map[string]string) bool {
	if strings.ContainsAny(text, ";|&$`()<>\\") {
		return false
	}
	for _, line := range strings.Split(text, "\n") {
		f := strings.Fields(line)
		if len(f) > 0 && (strings.Contains(f[0], "=") || w.mayRun(word{s: strings.Trim(f[0], `'"`)}, env)) {
			return false
		}
	}
	return true
}

// mayRun reports whether a command name found in text an unknown program
// is given could run: a path, a builtin, a function or file the line
// defines or writes, or a program that exists in the PATH it would use.
func (w *walker) mayRun(name word, env map[string]string) bool {
	if name.dyn || w.exists == nil || strings.Contains(name.s, "/") || shellWords()[name.s] || w.funcs[name.s] {
		return true
	}
	for f := range w.written {
		if path.Base(f) == name.s {
			return true
		}
	}
	p, ok := env["PATH"]
	if !ok {
		p, ok = w.base["PATH"]
	}
	if !ok || p == unknownValue || p == unsetValue {
		return true
	}
	return w.exists(name.s, p)
}

// programFinder looks a command name up in a PATH through the request's
// filesystem; nil when it has none to look in.
func programFinder(req Request) func(name, pathVar string) bool {
	if req.FS == nil {
		return nil
	}
	return func(name, pathVar string) bool {
		if name == "" || strings.ContainsAny(name, "*?[\\") {
			return true
		}
		for _, dir := range strings.Split(pathVar, ":") {
			if dir == "" || !path.IsAbs(dir) {
				return true // the cwd, or one relative to it: may hold anything
			}
			if m, err := req.FS.Glob(path.Join(dir, name)); err != nil || len(m) > 0 {
				return true
			}
		}
		return false
	}
}

// readsCommands reports whether a program that can run commands from its
// stdin does so given these arguments: a client given its commands as
// arguments, or vim reading a buffer from "-", reads stdin as data.
func readsCommands(base string, args []string) bool {
	has := func(opts ...string) bool {
		return slices.ContainsFunc(args, func(a string) bool {
			return slices.ContainsFunc(opts, func(o string) bool {
				return a == o || strings.HasPrefix(a, o+"=") || len(o) == 2 && strings.HasPrefix(a, o)
			})
		})
	}
	switch base {
	case "sqlite3", "duckdb":
		n := 0
		for i := 0; i < len(args); i++ {
			switch a := args[i]; {
			case a == "-cmd" || a == "-init" || a == "-separator" || a == "-newline" || a == "-nullvalue":
				i++
			case !strings.HasPrefix(a, "-"):
				n++
			}
		}
		return n < 2 // a database and SQL: the SQL runs, stdin is not read
	case "psql":
		return !has("-c", "--command", "-f", "--file", "-l", "--list")
	case "mysql", "mariadb":
		return !has("-e", "--execute")
	case "redis-cli":
		return !slices.ContainsFunc(args, func(a string) bool { return !strings.HasPrefix(a, "-") })
	case "vim", "nvim", "vi", "view", "vim.basic", "vim.tiny":
		return !slices.Contains(args, "-") || has("-e", "-E", "-es", "-Es", "-s")
	case "gdb":
		return !has("-batch", "--batch") || stdinScript(base, args)
	case "ssh":
		// ssh [options] host [command]: with a command, stdin is that
		// command's data; without one, the remote shell reads it.
		n := 0
		for i := 0; i < len(args); i++ {
			a := args[i]
			switch {
			case len(a) == 2 && a[0] == '-' && strings.ContainsRune("BbcDEeFIiJLlmOopQRSWw", rune(a[1])):
				i++
			case strings.HasPrefix(a, "-"):
			default:
				n++
			}
		}
		return n < 2
	case "crontab":
		return len(args) == 0 || slices.Contains(args, "-") // crontab - installs what it reads
	case "mail", "mailx", "s-nail", "bsd-mailx":
		return slices.Contains(args, "-~") // tilde escapes, off when not at a terminal
	}
	return true
}

// hasInput reports a statement given input of its own (a redirect of
// stdin, a here-doc or here-string).
func hasInput(st *syntax.Stmt) bool {
	for _, r := range st.Redirs {
		switch r.Op {
		case syntax.RdrIn, syntax.RdrInOut, syntax.DplIn, syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
			if r.N == nil || r.N.Value == "0" {
				return true
			}
		}
	}
	return false
}

// lineInput reports a command line that redirects input anywhere (to any
// descriptor), pipes, or uses exec: a program's stdin may then come from
// somewhere its own statement does not show.
func lineInput(f *syntax.File) (input, shadows bool) {
	funcs := map[string]bool{}
	syntax.Walk(f, func(n syntax.Node) bool {
		if fd, ok := n.(*syntax.FuncDecl); ok && fd.Name != nil {
			funcs[fd.Name.Value] = true
		}
		return true
	})
	defer func() { input = input || shadows }() // an alias may stand for anything
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Redirect:
			switch n.Op {
			case syntax.RdrIn, syntax.RdrInOut, syntax.DplIn, syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
				input = true
			}
		case *syntax.BinaryCmd:
			if n.Op == syntax.Pipe || n.Op == syntax.PipeAll {
				// A pipe into a plain program is that program's own stdin
				// (seen there); into a block, a function, a shell or a
				// wrapper it may reach a program inside.
				ce, ok := n.Y.Cmd.(*syntax.CallExpr)
				name := ""
				if ok && len(ce.Args) > 0 {
					name = path.Base(ce.Args[0].Lit())
				}
				if _, wrapper := wrappers()[name]; !ok || name == "" || wrapper || funcs[name] || shellname.Is(name) || name == "eval" || name == "source" || name == "." || name == "exec" || name == "find" {
					input = true
				}
			}
		case *syntax.CallExpr:
			if len(n.Args) > 0 {
				if lit := n.Args[0].Lit(); lit == "exec" || lit == "coproc" {
					input = true
				}
				if lit := n.Args[0].Lit(); lit == "alias" || lit == "enable" || lit == "shopt" {
					shadows = true
				}
			}
		case *syntax.CoprocClause:
			input = true
		}
		return true
	})
	return input, shadows
}

// linkAfterWrite reports a file read from disk through a symbolic link
// while the line writes files: the link may lead to one of them (sh l.sh
// after printf … > hi.sh, l.sh -> hi.sh), whose old content is on disk.
func (w *walker) linkAfterWrite(file string) bool {
	if len(w.written) == 0 && len(w.writers) == 0 {
		return false
	}
	return w.isLink == nil || w.isLink(file)
}

// linkFinder reports whether a path (relative to the call's cwd) is, or
// goes through, a symbolic link; nil without a filesystem.
func linkFinder(req Request) func(string) bool {
	if req.FS == nil || req.CWD == "" || !path.IsAbs(req.CWD) {
		return nil
	}
	return func(file string) bool {
		if !path.IsAbs(file) {
			file = path.Join(req.CWD, file)
		}
		r, err := req.FS.EvalSymlinks(file)
		if err != nil {
			return false // nothing there to lead anywhere
		}
		cwd, err := req.FS.EvalSymlinks(req.CWD)
		if err != nil {
			return true
		}
		rel := strings.TrimPrefix(file, req.CWD)
		return r != path.Clean(cwd+rel)
	}
}
