package intercept

// What a command below a directory that holds a denied path really
// selects: find's name tests against the denied files that exist, tar's
// exclusions, the names xargs reads from a file; and code in another
// language that builds a path (sqlite3's SQL and dot-commands).

import (
	"fmt"
	"path"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"

	"github.com/agent-eval/agent-eval/internal/lazyre"
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
		case a == "--create" || a == "--append" || a == "--update" || a == "-T" || strings.HasPrefix(a, "--files-from"):
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
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		switch {
		case a == "--":
			return append(out, rest[i+1:]...)
		case strings.HasPrefix(a, "--"):
			if !strings.Contains(a, "=") && tarLongValues()[a] {
				i++
			}
		case strings.HasPrefix(a, "-") && len(a) > 1:
			for j, ch := range a[1:] {
				if strings.ContainsRune(tarValueLetters, ch) {
					if j == len(a)-2 {
						i++ // the value is the next word
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
			out = append(out, a)
		}
	}
	return out
}

// tarExcludes are the patterns of tar's --exclude options.
func tarExcludes(rest []string) []string {
	var out []string
	for i, a := range rest {
		if v, ok := strings.CutPrefix(a, "--exclude="); ok {
			out = append(out, v)
		} else if a == "--exclude" && i+1 < len(rest) {
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
		if a == "--anchored" || a == "--dereference" || a == "--no-wildcards-match-slash" || strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && tarShortFlag(a, 'h') {
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

// sqlFileUse finds SQL that opens files, and sqlBuilt SQL that builds a
// string at run time; together the file's name cannot be known.
var (
	sqlFileUse = lazyre.New(`(?i)\b(readfile|writefile|edit|fsdir|zipfile|load_extension|sqlar_\w+)\s*\(|\battach\b|\bvacuum\s+into\b|\busing\s+(csv|lines|fsdir|zipfile)\b`)
	sqlString  = lazyre.New(`'(?:[^']|'')*'`)
	sqlBuilt   = lazyre.New(`(?i)\|\||\b(char|printf|format|replace|substr|substring|unhex|hex|concat|concat_ws|group_concat|lower|upper|trim|ltrim|rtrim|reverse|unicode)\s*\(|\bx'`)
)

// sqlite judges sqlite3's (or duckdb's) SQL and dot-commands from its
// arguments and stdin: a dot-command's shell or file is read as the
// shell would, SQL that opens a file whose name it builds cannot be
// checked.
func (c *pathCheck) sqlite(ce *syntax.CallExpr, name string, rest []string, depth int) *pathDeny {
	var code []string
	ops := 0
	var dbOps []string
	archive := false
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		switch {
		case a == "-A" || strings.HasPrefix(a, "-A") || a == "-archive":
			archive = true // the arguments after the database are files to pack
		case a == "-cmd" && i+1 < len(rest):
			code = append(code, rest[i+1])
			i++
		case a == "-init" && i+1 < len(rest), a == "-separator" && i+1 < len(rest), a == "-newline" && i+1 < len(rest), a == "-nullvalue" && i+1 < len(rest):
			i++
		case strings.HasPrefix(a, "-"):
		default:
			if ops++; ops > 1 {
				code = append(code, a) // after the database: SQL
				dbOps = append(dbOps, a)
			}
		}
	}
	if archive {
		if len(dbOps) == 0 {
			dbOps = []string{"."}
		}
		return c.treeRead(name+" -A", dbOps)
	}
	switch kind, doc := c.stdin(ce); {
	case kind == stdinDoc:
		code = append(code, doc)
	case kind == stdinFile:
		text, ok := c.readList(c.stdinFile(ce))
		if !ok {
			return c.cannot(name + " reads SQL from a file the hook cannot read, so the files it opens cannot be checked")
		}
		code = append(code, text)
	case kind == stdinPipe && c.lenient == 0:
		return c.cannot(name + " reads SQL from a pipe, so the files it opens cannot be checked")
	}
	for _, sql := range code {
		for _, line := range strings.Split(sql, "\n") {
			line = strings.TrimSpace(line)
			if !strings.HasPrefix(line, ".") {
				continue
			}
			cmd, arg, _ := strings.Cut(line, " ")
			unq := strings.Trim(strings.TrimSpace(arg), `'"`)
			switch {
			case cmd == ".shell" || cmd == ".system":
				if pd := c.analyse(arg, depth+1); pd != nil {
					return pd
				}
			case strings.HasPrefix(unq, "|"):
				// .read '|cmd', .once '|cmd': a shell command.
				if pd := c.analyse(unq[1:], depth+1); pd != nil {
					return pd
				}
			case cmd == ".ar" || cmd == ".archive":
				if pd := c.treeRead(name+" "+cmd, operands(strings.Fields(arg), 0)); pd != nil {
					return pd
				}
			default:
				// .read, .open, .import, .output, .once, .backup, .load …: the
				// arguments are words, quoted as sqlite quotes them.
				c.lenient++
				pd := c.analyse(": "+arg, depth+1)
				c.lenient--
				if pd != nil {
					return pd
				}
			}
		}
		if pd := c.checkText(sql, true); pd != nil {
			return pd
		}
		if bare := sqlString().ReplaceAllString(sql, "''"); strings.Contains(strings.ToLower(bare), "fsdir(") {
			if pd := c.treeRead(name+" fsdir()", []string{"."}); pd != nil {
				return pd // fsdir lists and reads every file below
			}
		}
		if bare := sqlString().ReplaceAllString(sql, "''"); sqlFileUse().MatchString(bare) && sqlBuilt().MatchString(bare) {
			return c.cannot(fmt.Sprintf("%s SQL opens a file whose name it builds when it runs, so the path cannot be checked", name))
		}
		for _, m := range c.mentions {
			if len(m.name) >= 3 && strings.Contains(sql, m.name) {
				return &pathDeny{rule: m.rule, why: fmt.Sprintf("%s SQL mentions %q, the name of a denied path", name, m.name)}
			}
		}
	}
	return nil
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
	if replace != "" {
		for _, line := range strings.Split(text, "\n") {
			if strings.TrimSpace(line) == "" {
				continue
			}
			words := make([]string, len(cmd))
			for i, w := range cmd {
				words[i] = strings.ReplaceAll(w, replace, strings.TrimSpace(line))
			}
			if pd := c.analyse(quoteWords(words), depth+1); pd != nil {
				return pd, true
			}
		}
		return nil, true
	}
	// xargs splits on blanks and undoes quotes much as the shell does: the
	// shell's reading of the text is the judge (its $, ; and | can only make
	// it see more).
	return c.analyse(quoteWords(cmd)+" "+strings.ReplaceAll(text, "\n", " "), depth+1), true
}

// xargsCommand is the command xargs runs, from its arguments, and its
// replace string (-I); ok is false for options that change how it splits
// its input (-0, -d, -a, -E), which the layer does not follow.
func xargsCommand(rest []string) (cmd []string, replace string, ok bool) {
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		switch {
		case a == "--":
			return rest[i+1:], replace, true
		case a == "-I" && i+1 < len(rest):
			replace = rest[i+1]
			i++
		case strings.HasPrefix(a, "-I") || strings.HasPrefix(a, "--replace="):
			replace = a[strings.IndexAny(a, "I=")+1:]
		case a == "-i" || a == "--replace":
			replace = "{}"
		case a == "-0" || a == "--null" || a == "-d" || strings.HasPrefix(a, "--delimiter") || strings.HasPrefix(a, "-a") || strings.HasPrefix(a, "--arg-file") || a == "-E" || a == "-e" || strings.HasPrefix(a, "-d"):
			return nil, "", false
		case a == "-n" || a == "-L" || a == "-P" || a == "-s":
			i++
		case strings.HasPrefix(a, "-"):
		default:
			return rest[i:], replace, true
		}
	}
	return nil, replace, true
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
