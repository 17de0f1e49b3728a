package intercept

// What a command below a directory that holds a denied path really
// selects: find's name tests against the denied files that exist, tar's
// exclusions, the names xargs reads from a file; and code in another
// language that builds a path (sqlite3's SQL and dot-commands).

import (
	"path"
	"slices"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// maxDeniedEntries bounds the denied files and directories the path layer
// lists to see whether a find's tests can select one.
const maxDeniedEntries = 4096

// deniedEntries lists the files and directories below abs that a denied
// rule covers, as they exist now; ok is false when they cannot all be
// listed (no filesystem, a rule whose directory is a pattern, too many).
func (c *pathCheck) deniedEntries(abs string) (out []string, ok bool) {
	if c.fs == nil {
		return nil, false
	}
	seen := map[string]bool{}
	for _, d := range c.denied {
		// The rule's literal directory: where its pattern starts.
		var dir []string
		for _, s := range d.segs {
			if hasMeta(s) {
				break
			}
			dir = append(dir, s)
		}
		base := "/" + strings.Join(dir, "/")
		if hit, anc := matchSegs(d.segs, splitPath(abs)); !hit && !anc {
			continue
		}
		if base == "/" || !strings.HasPrefix(base+"/", abs+"/") || base == abs {
			return nil, false // the rule's pattern reaches above the directory listed
		}
		queue := []string{base}
		for len(queue) > 0 {
			p := queue[0]
			queue = queue[1:]
			if seen[p] {
				continue
			}
			seen[p] = true
			if class, _ := c.classOf(p); class == classHit || p == base {
				out = append(out, p)
			}
			if len(out) > maxDeniedEntries {
				return nil, false
			}
			kids, err := c.fs.Glob(globEscape(p) + "/*")
			if err != nil {
				return nil, false
			}
			hidden, _ := c.fs.Glob(globEscape(p) + "/.*")
			queue = append(queue, kids...)
			queue = append(queue, hidden...)
		}
	}
	return out, true
}

func globEscape(p string) string {
	r := strings.NewReplacer(`*`, `\*`, `?`, `\?`, `[`, `\[`, `\`, `\\`)
	return r.Replace(p)
}

// tarCreates reports a tar command that writes an archive from files.
func tarCreates(rest []string) bool {
	for i, a := range rest {
		switch {
		case a == "--":
			return false
		case tarLong(a) == "--create" || tarLong(a) == "--append" || tarLong(a) == "--update" || a == "-T" || tarLong(a) == "--files-from":
			return true
		case strings.HasPrefix(a, "--"):
		case strings.HasPrefix(a, "-"):
			for _, ch := range a[1:] {
				if ch == 'c' || ch == 'r' || ch == 'u' || ch == 'T' {
					return true
				}
				if strings.ContainsRune(tarValueLetters, ch) {
					break // the rest is the option's value
				}
			}
		case i == 0 && strings.ContainsAny(a, "cru"):
			return true // the old form: tar cf a.tar .
		}
	}
	return false
}

// tarValueLetters are tar's short options that take a value.
const tarValueLetters = "fCXbHKLNVgIT"

// tarLongValues are tar's long options that take a value.
var tarLongValues = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"--exclude": true, "--file": true, "--directory": true, "--exclude-from": true, "--files-from": true, "--format": true,
		"--use-compress-program": true, "--transform": true, "--xform": true, "--owner": true, "--group": true, "--mode": true,
		"--mtime": true, "--label": true, "--blocking-factor": true, "--newer": true, "--after-date": true, "--to-command": true,
		"--info-script": true, "--new-volume-script": true, "--checkpoint-action": true, "--suffix": true, "--index-file": true,
		"--volno-file": true, "--rsh-command": true, "--level": true, "--listed-incremental": true, "--tape-length": true,
	}
})

// tarOperands are the files tar is given: its words less options and
// their values, in the dashed and the old form (tar cf a.tar .).
func tarOperands(rest []string) []string {
	var out []string
	owed := 0 // values the old form's letters take, in order
	dir := "" // -C DIR: the operands after it are read from there
	add := func(op string) {
		if dir != "" && !strings.HasPrefix(op, "/") {
			op = path.Join(dir, op)
		}
		out = append(out, op)
	}
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		switch {
		case a == "--":
			for _, op := range rest[i+1:] {
				add(op)
			}
			return out
		case strings.HasPrefix(a, "--directory=") || tarLong(a) == "--directory" && i+1 < len(rest):
			if v, ok := strings.CutPrefix(a, "--directory="); ok {
				dir = path.Join(dir, v)
			} else {
				i++
				dir = joinDir(dir, rest[i])
			}
		case strings.HasPrefix(a, "--"):
			if !strings.Contains(a, "=") && tarLongValues()[tarLong(a)] {
				i++
			}
		case strings.HasPrefix(a, "-") && len(a) > 1:
			for j, ch := range a[1:] {
				if strings.ContainsRune(tarValueLetters, ch) {
					v := a[j+2:]
					if j == len(a)-2 && i+1 < len(rest) {
						i++ // the value is the next word
						v = rest[i]
					}
					if ch == 'C' {
						dir = joinDir(dir, v)
					}
					break
				}
			}
		case i == 0:
			for _, ch := range a {
				if strings.ContainsRune(tarValueLetters, ch) {
					owed++
				}
			}
		case owed > 0:
			owed--
		default:
			add(a)
		}
	}
	return out
}

// joinDir is tar's -C: relative to the folder before it.
func joinDir(dir, v string) string {
	if strings.HasPrefix(v, "/") || dir == "" {
		return v
	}
	return path.Join(dir, v)
}

// tarLongOptions are tar's long options the layer reads, by which GNU tar
// also takes any unambiguous prefix (--anch is --anchored).
var tarLongOptions = []string{"--anchored", "--dereference", "--directory", "--exclude", "--files-from", "--exclude-from",
	"--file", "--create", "--append", "--update", "--no-wildcards-match-slash", "--wildcards-match-slash"}

// tarLong is the long option a word abbreviates, or the word.
func tarLong(a string) string {
	name, _, _ := strings.Cut(a, "=")
	if len(name) < 4 {
		return name
	}
	for _, o := range tarLongOptions {
		if strings.HasPrefix(o, name) {
			return o
		}
	}
	return name
}

// tarFilesFrom judges tar's -T/--files-from list: the names it reads from
// a file or stdin the hook reads are judged as operands; a list it cannot
// read cannot be checked.
func (c *pathCheck) tarFilesFrom(rest []string) *pathDeny {
	for i, a := range rest {
		var list string
		switch {
		case a == "-T" || tarLong(a) == "--files-from" && !strings.Contains(a, "="):
			if i+1 >= len(rest) {
				return nil
			}
			list = rest[i+1]
		case strings.HasPrefix(a, "--files-from="):
			list = a[len("--files-from="):]
		case strings.HasPrefix(a, "-T"):
			list = a[2:]
		default:
			continue
		}
		var text string
		ok := false
		if list == "-" || isStdinPath(list) {
			text, ok = c.pipeIn[c.curCall]
		} else {
			text, ok = c.readList(list)
		}
		if !ok {
			return c.cannot("tar reads the names it packs from a list the hook cannot read")
		}
		for _, name := range strings.Split(text, "\n") {
			if name = strings.TrimSpace(name); name == "" {
				continue
			}
			if pd := c.checkText(name, false); pd != nil {
				return pd
			}
			if pd := c.treeRead("tar -T", []string{name}); pd != nil {
				return pd
			}
		}
	}
	return nil
}

// tarExcludes are the patterns of tar's --exclude options.
func tarExcludes(rest []string) []string {
	var out []string
	for i, a := range rest {
		name, v, hasValue := strings.Cut(a, "=")
		switch {
		case tarLong(name) != "--exclude":
		case hasValue:
			out = append(out, v)
		case i+1 < len(rest):
			out = append(out, rest[i+1])
		}
	}
	return out
}

// withoutTarExcluded drops the operands whose denied paths below are all
// excluded by an --exclude pattern that matches the denied directory's
// name (tar matches a pattern against any part of a member's name, and an
// excluded directory takes its contents with it). An exclusion that
// excludes something else (--exclude=nothing, --exclude-vcs) leaves the
// operand read whole.
func (c *pathCheck) withoutTarExcluded(ops, rest []string) []string {
	for _, a := range rest {
		if l := tarLong(a); l == "--anchored" || l == "--dereference" || l == "--no-wildcards-match-slash" || l == "--wildcards-match-slash" || strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && tarShortFlag(a, 'h') {
			return ops // anchored patterns, or links followed into the denied path
		}
	}
	var out []string
	for _, o := range ops {
		var excludes []string
		for _, e := range tarExcludes(rest) {
			// A member is named as the operand spells it: ./secret only below
			// ".", and a pattern with a slash (secret/) matches no directory.
			if rel, ok := strings.CutPrefix(e, "./"); ok {
				if path.Clean(o) != "." {
					continue
				}
				e = rel
			}
			if e != "" && !strings.Contains(e, "/") {
				excludes = append(excludes, e)
			}
		}
		out = append(out, c.notExcluded([]string{o}, excludes)...)
	}
	return out
}

// tarShortFlag reports a short option cluster holding letter before any
// option that takes a value.
func tarShortFlag(a string, letter rune) bool {
	for _, ch := range a[1:] {
		if ch == letter {
			return true
		}
		if strings.ContainsRune(tarValueLetters, ch) {
			return false
		}
	}
	return false
}

// pythonArchiver is the folder operands of python -m tarfile/zipfile -c
// and zipapp: modules that pack files, directories whole.
func pythonArchiver(rest []string) (module string, ops []string, ok bool) {
	for i, a := range rest {
		if a != "-m" || i+1 >= len(rest) {
			continue
		}
		module = rest[i+1]
		args := rest[i+2:]
		switch module {
		case "tarfile", "zipfile":
			for j, b := range args {
				if (b == "-c" || b == "--create") && j+1 < len(args) {
					return module, operands(args[j+2:], 0), true
				}
			}
		case "zipapp":
			return module, operands(args, 0), true
		}
		return "", nil, false
	}
	return "", nil, false
}

// readList reads a file the line names as input (a list for xargs, SQL
// for sqlite3) when it is not denied, not written on the line, and
// readable text.
func (c *pathCheck) readList(file string) (string, bool) {
	fr, ok := c.fs.(FileReader)
	if file == "" || !ok || strings.Contains(file, unknownGlob) {
		return "", false
	}
	abs := c.normalise(file)
	if class, _ := c.classOf(abs); class == classHit {
		return "", false
	}
	if _, w := c.written[abs]; w || c.wroteIt(file) != "" {
		return "", false
	}
	b, err := fr.ReadFile(abs, maxScriptBytes)
	if err != nil || strings.IndexByte(string(b), 0) >= 0 {
		return "", false
	}
	return string(b), true
}

// xargsInput judges xargs given its names in text the hook reads (a file
// on its stdin, literal text piped in): the command runs with those words
// as its arguments, quotes undone as xargs undoes them, or — with -I — each
// line put in place of the replace string. ok is false when the input is
// not known.
func (c *pathCheck) xargsInput(ce *syntax.CallExpr, rest []string, depth int) (*pathDeny, bool) {
	if c.lenient > 0 {
		return nil, false
	}
	text, ok := c.pipeIn[ce]
	if !ok {
		var file string
		for _, r := range c.redirs[ce] {
			if r.Op == syntax.RdrIn && r.Word != nil {
				file = strings.Join(c.words(r.Word), " ")
			}
		}
		if text, ok = c.readList(file); !ok {
			return nil, false
		}
	}
	cmd, replace, ok := xargsCommand(rest)
	if !ok {
		return nil, false
	}
	if len(cmd) == 0 {
		cmd = []string{"echo"}
	}
	items, ok := xargsItems(text, replace != "")
	if !ok {
		return nil, false
	}
	if replace != "" {
		for _, item := range items {
			words := make([]string, len(cmd))
			for i, w := range cmd {
				words[i] = strings.ReplaceAll(w, replace, item)
			}
			if pd := c.analyse(quoteWords(words), depth+1); pd != nil {
				return pd, true
			}
		}
		return nil, true
	}
	return c.analyse(quoteWords(append(slices.Clone(cmd), items...)), depth+1), true
}

// xargsCommand is the command xargs runs, from its arguments, and its
// replace string (-I); ok is false for options that change how it splits
// its input (-0, -d, -a, -E) or that it does not know.
func xargsCommand(rest []string) (cmd []string, replace string, ok bool) {
	longValue := map[string]bool{"--max-lines": true, "--max-args": true, "--max-procs": true, "--max-chars": true,
		"--process-slot-var": true}
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		switch {
		case a == "--":
			return rest[i+1:], replace, true
		case strings.HasPrefix(a, "--"):
			name, _, hasValue := strings.Cut(a, "=")
			switch {
			case name == "--replace":
				replace = "{}"
				if hasValue {
					replace = a[len(name)+1:]
				}
			case longValue[name]:
				if !hasValue {
					i++
				}
			case name == "--no-run-if-empty", name == "--verbose", name == "--exit", name == "--interactive", name == "--open-tty":
			default:
				return nil, "", false // --null, --delimiter, --arg-file, --eof, …
			}
		case strings.HasPrefix(a, "-") && len(a) > 1:
			// A cluster of short options; the first that takes a value
			// takes the rest of the word, or the next word.
			for j := 1; j < len(a); j++ {
				switch ch := a[j]; ch {
				case 'r', 't', 'p', 'x', 'o':
				case 'n', 'L', 'P', 's', 'l':
					if j+1 == len(a) && ch != 'l' {
						i++
					}
					j = len(a)
				case 'I', 'i':
					switch {
					case j+1 < len(a):
						replace = a[j+1:]
					case ch == 'I' && i+1 < len(rest):
						i++
						replace = rest[i]
					default:
						replace = "{}"
					}
					j = len(a)
				default:
					return nil, "", false // -0, -d, -a, -E, -e, and what the layer does not know
				}
			}
		default:
			return rest[i:], replace, true
		}
	}
	return nil, replace, true
}

// xargsItems splits xargs' input as xargs does: at blanks and newlines
// (with -I, at newlines only, leading blanks dropped), undoing '…', "…"
// and backslashes; ok is false for a quote left open.
func xargsItems(text string, lines bool) (items []string, ok bool) {
	var cur strings.Builder
	in, quote, esc := false, byte(0), false
	flush := func() {
		if in {
			items = append(items, cur.String())
		}
		cur.Reset()
		in = false
	}
	for i := 0; i < len(text); i++ {
		ch := text[i]
		switch {
		case esc:
			cur.WriteByte(ch)
			esc, in = false, true
		case quote != 0:
			if ch == quote {
				quote = 0
			} else if ch == '\n' {
				return nil, false
			} else {
				cur.WriteByte(ch)
			}
		case ch == '\\':
			esc = true
		case ch == '\'' || ch == '"':
			quote, in = ch, true
		case ch == '\n':
			flush()
		case (ch == ' ' || ch == '\t') && (!lines || !in):
			if !lines {
				flush()
			}
		default:
			cur.WriteByte(ch)
			in = true
		}
	}
	if quote != 0 {
		return nil, false
	}
	flush()
	return items, true
}

// literalOutput is what a statement prints when it is echo or printf of
// literal words (its stderr may go elsewhere).
func (c *pathCheck) literalOutput(st *syntax.Stmt) (string, bool) {
	for {
		b, ok := st.Cmd.(*syntax.BinaryCmd)
		if !ok || b.Op != syntax.Pipe && b.Op != syntax.PipeAll {
			break
		}
		st = b.Y
	}
	ce, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(ce.Args) == 0 || len(ce.Assigns) > 0 {
		return "", false
	}
	for _, r := range st.Redirs {
		if r.N == nil || r.N.Value != "2" {
			return "", false
		}
	}
	words := make([]string, len(ce.Args))
	for i, a := range ce.Args {
		lit, ok := wordLit(a)
		if !ok {
			return "", false
		}
		words[i] = lit
	}
	if c.funcs[words[0]] || c.shadowed {
		return "", false // printf(){ …; }: not the builtin
	}
	if words[0] == "cat" && len(words) > 1 {
		// cat of files the hook reads (not denied: their names are judged).
		var b strings.Builder
		for _, f := range words[1:] {
			text, ok := c.readList(f)
			if !ok || strings.HasPrefix(f, "-") {
				return "", false
			}
			b.WriteString(text)
		}
		return b.String(), true
	}
	return echoPrintf(words)
}

// echoes reports a statement that is echo or printf of literal words.
func (c *pathCheck) echoes(st *syntax.Stmt) bool {
	_, ok := c.literalOutput(&syntax.Stmt{Cmd: st.Cmd})
	return ok
}

// catsStdin reports a statement that copies its stdin as it is: cat or
// tee with no options (how a here-doc becomes a file).
func (c *pathCheck) catsStdin(st *syntax.Stmt) bool {
	ce, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(ce.Args) == 0 {
		return false
	}
	name, ok := wordLit(ce.Args[0])
	if !ok || name != "cat" && name != "tee" {
		return false
	}
	for _, a := range ce.Args[1:] {
		lit, ok := wordLit(a)
		if !ok || name == "cat" && lit != "-" || strings.HasPrefix(lit, "-") && lit != "-" {
			return false
		}
	}
	return true
}

// teeWrites records the files a tee writes with the text it is piped.
func (c *pathCheck) teeWrites(ce *syntax.CallExpr, text string) {
	for _, a := range ce.Args[1:] {
		lit, ok := wordLit(a)
		switch {
		case !ok:
			return
		case lit == "-a" || lit == "--append":
			return
		case !strings.HasPrefix(lit, "-"):
			abs := c.normalise(lit)
			if _, seen := c.written[abs]; seen {
				c.written[abs] = unknownValue
				continue
			}
			c.written[abs] = text
		}
	}
}

// stdinFile is the file a command's stdin is redirected from, if any.
func (c *pathCheck) stdinFile(ce *syntax.CallExpr) string {
	file := ""
	for _, r := range c.redirs[ce] {
		if r.Op == syntax.RdrIn && r.Word != nil {
			file = strings.Join(c.words(r.Word), " ")
		}
	}
	return file
}

// onPath reports whether a name without a slash may be found in a
// directory of the PATH the line runs with (bash's . and source look there
// first).
func (c *pathCheck) onPath(name string) bool {
	p, ok := c.env["PATH"]
	if !ok || c.fs == nil || strings.Contains(p, unknownGlob) {
		return true
	}
	for _, dir := range strings.Split(p, ":") {
		if dir == "" || !path.IsAbs(dir) {
			return true
		}
		if m, err := c.fs.Glob(globEscape(path.Join(dir, name))); err != nil || len(m) > 0 {
			return true
		}
	}
	return false
}
