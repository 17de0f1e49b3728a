package intercept

// What a command below a directory that holds a denied path really
// selects: find's name tests against the denied files that exist, tar's
// exclusions, the names xargs reads from a file; and code in another
// language that builds a path (sqlite3's SQL and dot-commands).

import (
	"fmt"
	"path"
	"regexp"
	"slices"
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

// findTest is one test of a find expression the path layer evaluates.
type findTest struct {
	op, pattern string
}

// findTests reads find's expression when it is a plain conjunction of
// tests and actions; ok is false for one it cannot evaluate (-o, !, ( ),
// -regex, a test the layer does not know) or one without a name test.
func findTests(rest []string) (tests []findTest, ok bool) {
	i := 0
	for i < len(rest) && !strings.HasPrefix(rest[i], "-") && rest[i] != "(" && rest[i] != "!" {
		i++ // the starting points
	}
	named := false
	for ; i < len(rest); i++ {
		a := rest[i]
		switch a {
		case "-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename":
			if i+1 >= len(rest) {
				return nil, false
			}
			// A part only known when it runs reads as *: it can only
			// select more.
			tests = append(tests, findTest{a, rest[i+1]})
			named = true
			i++
		case "-type", "-xtype", "-maxdepth", "-mindepth", "-mtime", "-mmin", "-newer", "-size", "-user", "-group", "-perm", "-atime", "-ctime", "-amin", "-cmin":
			i++ // a test that only narrows what the name tests select
		case "-print", "-print0", "-delete", "-ls", "-depth", "-a", "-and", "-xdev", "-mount", "-noleaf", "-follow", "-empty", "-readable", "-writable", "-executable", "-nowarn", "-true":
		case "-exec", "-execdir", "-ok", "-okdir":
			for i++; i < len(rest) && rest[i] != ";" && rest[i] != "+"; i++ {
			}
		case "-printf", "-fprint", "-fprintf", "-fls", "-fprint0":
			if a != "-printf" {
				return nil, false // it writes a file
			}
			i++
		default:
			return nil, false
		}
	}
	return tests, named
}

// findSelects reports whether find, started at the operand abs (as
// written: op), may select p: every name test matches it.
func findSelects(tests []findTest, op, abs, p string) bool {
	shown := strings.TrimSuffix(op, "/") + strings.TrimPrefix(p, abs)
	for _, t := range tests {
		subject, pat := path.Base(p), t.pattern
		if strings.Contains(t.op, "path") || strings.Contains(t.op, "wholename") {
			subject = shown
		}
		if strings.HasPrefix(t.op, "-i") {
			subject, pat = strings.ToLower(subject), strings.ToLower(pat)
		}
		if !globMatch(pat, subject) {
			return false
		}
	}
	return true
}

// globMatch is fnmatch without FNM_PATHNAME, as find matches: * and ?
// cross /. What it cannot tell it reports as a match.
func globMatch(pat, s string) bool {
	if strings.ContainsAny(pat, `[\`) {
		if strings.Contains(s, "/") {
			return true
		}
		ok, err := path.Match(pat, s)
		return ok || err != nil
	}
	var b strings.Builder
	b.WriteString(`^`)
	for _, r := range pat {
		switch r {
		case '*':
			b.WriteString(`.*`)
		case '?':
			b.WriteString(`.`)
		default:
			b.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	b.WriteString(`$`)
	return regexp.MustCompile(b.String()).MatchString(s)
}

// findMissesDenied reports that find's tests select none of the denied
// files and directories below its starting point abs, as they exist now.
func (c *pathCheck) findMissesDenied(rest []string, op, abs string) bool {
	tests, ok := findTests(rest)
	if !ok {
		return false
	}
	entries, ok := c.deniedEntries(abs)
	if !ok {
		return false
	}
	return !slices.ContainsFunc(entries, func(p string) bool { return findSelects(tests, op, abs, p) })
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
	var excludes []string
	for _, e := range tarExcludes(rest) {
		excludes = append(excludes, strings.Trim(strings.TrimPrefix(e, "./"), "/"))
	}
	return c.notExcluded(ops, excludes)
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
	sqlFileUse = lazyre.New(`(?i)\b(readfile|writefile|edit|fsdir|zipfile|load_extension|attach|vacuum\s+into|sqlar_\w+|csv|lines|import)\b`)
	sqlBuilt   = lazyre.New(`(?i)\|\||\b(char|printf|format|replace|substr|substring|unhex|hex|concat|concat_ws|group_concat|lower|upper|trim|ltrim|rtrim|reverse|unicode)\s*\(|\bx'`)
)

// sqlite judges sqlite3's (or duckdb's) SQL and dot-commands from its
// arguments and stdin: a dot-command's shell or file is read as the
// shell would, SQL that opens a file whose name it builds cannot be
// checked.
func (c *pathCheck) sqlite(ce *syntax.CallExpr, name string, rest []string, depth int) *pathDeny {
	var code []string
	ops := 0
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		switch {
		case a == "-cmd" && i+1 < len(rest):
			code = append(code, rest[i+1])
			i++
		case a == "-init" && i+1 < len(rest), a == "-separator" && i+1 < len(rest), a == "-newline" && i+1 < len(rest), a == "-nullvalue" && i+1 < len(rest):
			i++
		case strings.HasPrefix(a, "-"):
		default:
			if ops++; ops > 1 {
				code = append(code, a) // after the database: SQL
			}
		}
	}
	if kind, doc := c.stdin(ce); kind == stdinDoc {
		code = append(code, doc)
	} else if kind == stdinPipe && c.lenient == 0 {
		return c.cannot(name + " reads SQL from a pipe, so the files it opens cannot be checked")
	}
	for _, sql := range code {
		for _, line := range strings.Split(sql, "\n") {
			line = strings.TrimSpace(line)
			if !strings.HasPrefix(line, ".") {
				continue
			}
			cmd, arg, _ := strings.Cut(line, " ")
			switch cmd {
			case ".shell", ".system":
				if pd := c.analyse(arg, depth+1); pd != nil {
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
		if sqlFileUse().MatchString(sql) && sqlBuilt().MatchString(sql) {
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

// xargsFile judges xargs reading its names from a file the hook can read:
// the command runs with the file's words as its arguments.
func (c *pathCheck) xargsFile(ce *syntax.CallExpr, rest []string, depth int) (*pathDeny, bool) {
	var file string
	for _, r := range c.redirs[ce] {
		if r.Op == syntax.RdrIn && r.Word != nil {
			ws := c.words(r.Word)
			if len(ws) != 1 || strings.Contains(ws[0], unknownGlob) {
				return nil, false
			}
			file = ws[0]
		}
	}
	fr, ok := c.fs.(FileReader)
	if file == "" || !ok || c.lenient > 0 {
		return nil, false
	}
	abs := c.normalise(file)
	if class, _ := c.classOf(abs); class == classHit {
		return nil, false // named on the line: judged there
	}
	if _, w := c.written[abs]; w || c.wroteIt(file) != "" {
		return nil, false
	}
	b, err := fr.ReadFile(abs, maxScriptBytes)
	if err != nil || strings.IndexByte(string(b), 0) >= 0 {
		return nil, false
	}
	// The command xargs runs: what follows its options.
	cmd := xargsCommand(rest)
	if len(cmd) == 0 {
		cmd = []string{"echo"}
	}
	line := quoteWords(append(slices.Clone(cmd), strings.Fields(string(b))...))
	return c.analyse(line, depth+1), true
}

// xargsCommand is the command xargs runs, from its arguments.
func xargsCommand(rest []string) []string {
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		switch {
		case a == "--":
			return rest[i+1:]
		case a == "-n" || a == "-L" || a == "-P" || a == "-s" || a == "-d" || a == "-E" || a == "-I" || a == "-a":
			i++
		case strings.HasPrefix(a, "-"):
		default:
			return rest[i:]
		}
	}
	return nil
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
