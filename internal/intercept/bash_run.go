package intercept

// What else the handler layer reads a command as running: inline code of
// interpreters and sed, the arguments of programs it does not know, files
// the line may have written, and the shell scripts on disk a command runs.

import (
	"errors"
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"

	"github.com/agent-eval/agent-eval/internal/clip"
	"github.com/agent-eval/agent-eval/internal/lazyre"
	"github.com/agent-eval/agent-eval/internal/shellname"
)

// noteWriter records a command of the line that may write files the
// analysis does not follow.
func (w *walker) noteWriter(base string, args []word) {
	if w.lenient > 0 {
		return
	}
	ss := make([]string, len(args))
	for i, a := range args {
		ss[i] = a.s
	}
	if mayWrite(base, ss) {
		wr := writer{name: base, args: ss, content: contentWriter(base, ss)}
		w.writers = append(w.writers, wr)
		// What the line wrote before may be changed now (sed -i, cp over it).
		for f := range w.written {
			if wr.content && base != "tee" || slices.ContainsFunc(ss, func(a string) bool { return sameFile(a, f) }) {
				w.written[f] = unknownValue
			}
		}
	}
	if base == "tee" {
		w.teeWrites(args)
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
		_, wrapper := wrappers()[b]
		if !shellname.Is(b) && !wrapper && b != "eval" && b != "find" && !slices.Contains(interpreters, b) && !strings.HasPrefix(b, "python") {
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
	ss := wordTexts(args)
	w.projectCode(base, text, ss)
	switch {
	case base == "at" || base == "batch":
		if !slices.ContainsFunc(ss, func(a string) bool { return a == "-l" || a == "-r" || a == "-d" || a == "-c" }) {
			w.deny("%s runs commands from its input later, which the hook cannot read (%q)", base, clip.String(text, 80))
		}
		return true
	case base == "make" || base == "gmake":
		for i, a := range ss {
			if (a == "-f" || a == "--file" || a == "--makefile") && i+1 < len(ss) && (ss[i+1] == "-" || strings.HasPrefix(ss[i+1], "/dev/") || strings.HasPrefix(ss[i+1], "/proc/")) {
				w.deny("make reads its makefile from its input, which the hook cannot read (%q)", clip.String(text, 80))
			}
		}
		return false
	case base == "sed" || base == "gsed":
		for i, a := range ss {
			if i > 0 && (ss[i-1] == "-f" || ss[i-1] == "--file") || strings.HasPrefix(a, "-") && a != "-e" && !strings.HasPrefix(a, "--expression") {
				continue
			}
			if sedExec(a) {
				w.deny("sed runs commands from its script (the e command or flag), which the hook cannot read (%q)", clip.String(text, 80))
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
					w.deny("%s reads a program from its input that runs commands, which the hook cannot read (%q)", base, clip.String(text, 80))
				}
			}
		}
		if w.piped[w.stmt] {
			w.deny("%s reads its program from a pipe, which the hook cannot read (%q)", base, clip.String(text, 80))
		}
	}
	if _, ok := codeArg(base, ss); !ok {
		// A program file the line wrote, or one a writer before it may
		// have written, is not known code.
		if f := scriptArg(ss); f != "" && f != "-" && f != "module" && w.writtenOrAfterWriter(f) {
			w.deny("%s runs %s, which this command line may have written, with content the hook cannot read (%q)", base, f, clip.String(text, 80))
		}
	}
	code, ok := codeArg(base, ss)
	if ok && (strings.Contains(code, "\x00") || execIdioms().MatchString(code)) {
		w.deny("%s code runs commands it builds in its own language, which the hook cannot read (%q)", base, clip.String(text, 80))
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
		w.deny("%s may run a file this command line wrote, found through a PATH the line changed or that holds a relative directory (%q)", name, clip.String(text, 80))
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
	if w.linkAfterWrite(file) {
		w.deny("it runs %s, a link to what this command line may write, with content the hook cannot read", file)
		return
	}
	body, ok := w.read(file)
	if !ok && body == unknownValue {
		w.deny("it runs %s, a link to something the hook cannot open (a descriptor of the shell's own)", file)
		return
	}
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
		if errors.Is(err, ErrNotFound) {
			if m, _ := req.FS.Glob(globEscape(file)); len(m) > 0 {
				return unknownValue, false // a link to what the hook cannot open (/proc/self/fd/N)
			}
			return "", true // nothing there: it runs nothing
		}
		if err != nil || strings.IndexByte(string(b), 0) >= 0 {
			return "", false // absent, unreadable, too large or binary
		}
		return string(b), true
	}
}

// FileReader is an optional PathFS method: the Bash gate reads the shell
// scripts a command runs through it (up to limit bytes; more is an error).
// Nothing at path is an error that wraps ErrNotFound.
type FileReader interface {
	ReadFile(path string, limit int) ([]byte, error)
}

// ErrNotFound is what a FileReader's error wraps when nothing is at the
// path (a script that does not exist runs nothing).
var ErrNotFound = errors.New("no such file")

// projectCode denies a program that runs code from files it finds by
// convention (conventionCode) when this command line may have written one.
func (w *walker) projectCode(base, text string, ss []string) {
	if why := conventionCode(base, ss, slices.Collect(maps.Keys(w.written)), w.writers); why != "" {
		w.deny("%s (%q)", why, clip.String(text, 80))
	}
}

// conventionCode says why a program that runs code from files it finds by
// convention (make's makefile, npm's package.json scripts, git's hooks and
// config, a shell's rc files, a toolchain's sources) cannot be judged: the
// line wrote such a file before it (written, by a redirect) or ran a writer
// naming one (printf 'x:\n\t…' > Makefile; make x). "" when it can.
func conventionCode(base string, ss, written []string, writers []writer) string {
	var conv []string
	switch base {
	case "make", "gmake":
		conv = []string{"Makefile", "makefile", "GNUmakefile", "*.mk"}
		for i, a := range ss {
			switch {
			case (a == "-f" || a == "--file" || a == "--makefile") && i+1 < len(ss):
				conv = append(conv, ss[i+1])
			case strings.HasPrefix(a, "-f") && len(a) > 2:
				conv = append(conv, a[2:])
			case strings.HasPrefix(a, "--file=") || strings.HasPrefix(a, "--makefile="):
				conv = append(conv, a[strings.IndexByte(a, '=')+1:])
			}
		}
	case "npm", "npx", "yarn", "pnpm", "bun", "corepack":
		conv = []string{"package.json", ".npmrc", ".yarnrc", ".yarnrc.yml"}
	case "git":
		conv = []string{".gitconfig", ".gitattributes", ".gitmodules", "config"}
	case "go":
		if len(ss) > 0 && slices.Contains([]string{"run", "test", "generate", "tool"}, ss[0]) {
			conv = []string{"*.go", "*.c", "*.s", "go.mod"}
		}
	case "cargo":
		conv = []string{"*.rs", "Cargo.toml", ".cargo/config.toml"}
	case "pytest", "py.test", "tox", "nox":
		conv = []string{"*.py", "pytest.ini", "tox.ini", "setup.cfg", "pyproject.toml"}
	default:
		if shellname.Is(base) || base == "busybox" {
			conv = []string{".zshenv", ".zshrc", ".zprofile"}
			if slices.ContainsFunc(ss, func(a string) bool {
				return a == "--login" || len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.ContainsAny(a, "il")
			}) {
				conv = append(conv, ".bashrc", ".profile", ".bash_profile", ".bash_login", ".kshrc", ".mkshrc")
			}
		} else if strings.HasPrefix(base, "python") && slices.Contains(ss, "-m") {
			conv = []string{"*.py"} // python -m mod: mod may be a file the line wrote
		}
	}
	if len(conv) == 0 {
		return ""
	}
	names := func(f string, exact bool) bool {
		if strings.Contains("/"+f+"/", "/.git/") && base == "git" {
			return true
		}
		return slices.ContainsFunc(conv, func(c string) bool {
			if suf, ok := strings.CutPrefix(c, "*"); ok {
				return strings.HasSuffix(f, suf)
			}
			return path.Base(f) == c || !exact && c != "config" && strings.Contains(f, c)
		})
	}
	for _, f := range written {
		if names(f, true) {
			return fmt.Sprintf("%s runs code from %s, which this command line writes, with content the hook cannot read", base, f)
		}
	}
	for _, wr := range writers {
		if slices.ContainsFunc(wr.args, func(a string) bool { return names(a, false) }) {
			return fmt.Sprintf("%s runs code from files such as %s, which %s earlier on this command line may have written", base, strings.TrimPrefix(conv[0], "*"), wr.name)
		}
	}
	return ""
}

// wordTexts is the words' text, a dynamic word as NUL.
func wordTexts(args []word) []string {
	ss := make([]string, len(args))
	for i, a := range args {
		ss[i] = a.s
		if a.dyn {
			ss[i] = "\x00"
		}
	}
	return ss
}

// commandOptions are the options of programs otherwise read as data whose
// value is a command the program runs (sort --compress-program=gzip); a
// name ending in "*" stands for its unambiguous abbreviations too.
var commandOptions = sync.OnceValue(func() map[string][]string {
	return map[string][]string{
		"sort":     {"--co*"},
		"rg":       {"--pre"},
		"install":  {"--strip-program", "--strip-p*"},
		"ginstall": {"--strip-program", "--strip-p*"},
		"nc":       {"-e", "-c", "--exec", "--sh-exec", "--lua-exec"},
		"ncat":     {"-e", "-c", "--exec", "--sh-exec", "--lua-exec", "--e*", "--sh*", "--lu*"},
		"netcat":   {"-e", "-c"},
		"wget":     {"--use-askpass", "--use-a*"},
		"wget2":    {"--use-askpass"},
	}
})

// programOptions reads the commands that a program's options name as code
// (commandOptions), and denies less and more given commands to run (+!cmd).
func (w *walker) programOptions(base, text string, args []word, env map[string]string, depth int) {
	if base == "less" || base == "more" {
		for _, a := range args {
			if strings.HasPrefix(a.s, "+") && (a.dyn || strings.ContainsAny(a.s, "!|")) {
				w.deny("%s runs the commands of %s, which the hook does not read (%q)", base, clip.String(a.s, 40), clip.String(text, 80))
				return
			}
		}
		return
	}
	if base == "git" {
		for i, a := range args {
			v, ok := strings.CutPrefix(a.s, "-c")
			dyn := a.dyn
			if ok && v == "" && i+1 < len(args) {
				v, dyn = args[i+1].s, args[i+1].dyn
			}
			if key, _, _ := strings.Cut(v, "="); ok && (strings.EqualFold(key, "core.hooksPath") || dyn) {
				w.deny("git -c %s runs hooks from a folder the hook does not read (%q)", clip.String(v, 40), clip.String(text, 80))
				return
			}
		}
		return
	}
	opts := commandOptions()[base]
	if opts == nil {
		return
	}
	match := func(a string) (value string, attached, ok bool) {
		name, value, attached := strings.Cut(a, "=")
		for _, o := range opts {
			if p, abbr := strings.CutSuffix(o, "*"); abbr && strings.HasPrefix(name, p) || name == o {
				return value, attached, true
			}
		}
		return "", false, false
	}
	for i, a := range args {
		value, attached, ok := match(a.s)
		switch {
		case !ok || !attached && i+1 >= len(args):
			continue
		case attached && a.dyn || !attached && args[i+1].dyn:
			w.deny("%s %s runs a command only known when it runs (%q)", base, a.s, clip.String(text, 80))
			return
		case !attached:
			value = args[i+1].s
		}
		w.nested(value, clone(env), depth+1)
	}
}
