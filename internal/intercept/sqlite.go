package intercept

// sqlite3's (and duckdb's) own language, read by both layers: its
// dot-commands, which sqlite3 takes by any prefix (.shel is .shell), and
// its SQL, whose file functions the hook clears only with literal names.

import (
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/agent-eval/agent-eval/internal/clip"
	"github.com/agent-eval/agent-eval/internal/lazyre"
)

// sqliteDots are the dot-commands that run a program, read or write a file
// or change the folder; the others only show or set the shell's state.
var sqliteDots = []string{"shell", "system", "read", "once", "output", "excel", "import", "open", "archive", "ar",
	"backup", "restore", "save", "clone", "load", "log", "trace", "cd", "recover", "dump", "nonce", "dbinfo"}

// sqliteDot resolves a dot-command's name as sqlite3 does (any unambiguous
// prefix of two letters or more); one that could be several of
// sqliteDots, or is one, is returned as the first such; "" for the rest.
func sqliteDot(word string) string {
	name := strings.TrimPrefix(word, ".")
	if len(name) == 0 {
		return ""
	}
	for _, d := range sqliteDots {
		if d == name || len(name) >= 2 && strings.HasPrefix(d, name) {
			return d
		}
	}
	return ""
}

// sqliteLine is one dot-command line of sqlite3 input.
type sqliteLine struct {
	line, word, dot, arg, first string
}

// sqliteLines are the dot-command lines of sqlite3 input: the command as
// written and resolved (sqliteDot), its argument text and first word.
func sqliteLines(text string) []sqliteLine {
	var out []sqliteLine
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, ".") {
			continue
		}
		word, arg, _ := strings.Cut(line, " ")
		out = append(out, sqliteLine{line: line, word: word, dot: sqliteDot(word), arg: arg, first: sqliteArgWord(arg)})
	}
	return out
}

// sqliteArgWord is a dot-command's first argument as sqlite3 reads it
// (surrounding quotes removed).
func sqliteArgWord(arg string) string {
	arg = strings.TrimSpace(arg)
	if len(arg) >= 2 && (arg[0] == '\'' || arg[0] == '"') {
		if j := strings.IndexByte(arg[1:], arg[0]); j >= 0 {
			return arg[1 : j+1]
		}
	}
	if f := strings.Fields(arg); len(f) > 0 {
		return f[0]
	}
	return ""
}

var (
	// sqlFileFunc finds SQL's functions that open files or load code.
	sqlFileFunc = lazyre.New(`(?i)\b(readfile|writefile|edit|fsdir|zipfile|load_extension|sqlar_\w+)\b`)
	// sqlLiteralCall is such a call whose arguments are string literals.
	sqlLiteralCall = lazyre.New(`(?i)^"?\s*\(\s*'(?:[^']|'')*'\s*(?:,\s*'(?:[^']|'')*'\s*)*\)`)
	sqlString      = lazyre.New(`'(?:[^']|'')*'`)
	sqlComment     = lazyre.New(`(?s)/\*.*?\*/|--[^\n]*`)
	sqlFsdirArg    = lazyre.New(`(?i)\bfsdir"?\s*\(\s*'((?:[^']|'')*)'`)
	sqlRunsCode    = lazyre.New(`(?i)\b(edit|load_extension)\b`)
)

// sqlFiles reads SQL's file functions: the literal names they are given
// (checked by the caller), and whether one is given a name built when the
// query runs (a column, a concatenation, json_extract, …).
func sqlFiles(sql string) (literal []string, built bool) {
	sql = sqlComment().ReplaceAllString(sql, " ")
	bare := sqlString().ReplaceAllStringFunc(sql, func(s string) string { return strings.Repeat("'", len(s)) })
	for _, loc := range sqlFileFunc().FindAllStringIndex(bare, -1) {
		m := sqlLiteralCall().FindString(sql[loc[1]:])
		if m == "" {
			return nil, true
		}
		for _, s := range sqlString().FindAllString(m, -1) {
			literal = append(literal, strings.ReplaceAll(s[1:len(s)-1], "''", "'"))
		}
	}
	return literal, false
}

// sqliteText is the gate's reading of sqlite3's input: .shell and .system
// run a command, a '|cmd' argument runs one, .read of a file runs what it
// holds, .load and edit() run what the hook cannot read.
func (w *walker) sqliteText(base, text string, env map[string]string, depth int) {
	if depth >= maxNesting {
		w.deny("%s reads SQL nested deeper than the hook follows", base)
		return
	}
	for _, l := range sqliteLines(text) {
		dot, arg, first, line := l.dot, l.arg, l.first, l.line
		switch {
		case dot == "shell" || dot == "system":
			w.nested(arg, env, depth+1)
		case strings.HasPrefix(first, "|"):
			w.nested(first[1:], env, depth+1)
		case dot == "load":
			w.deny("%s loads an extension (%s), code the hook cannot read", base, clip.String(line, 60))
		case dot == "read" && first != "":
			src := w.fileText([]word{{s: first}})
			if src.kind != inKnown {
				w.deny("%s reads SQL from %s, which the hook cannot read", base, src.from)
				return
			}
			w.sqliteText(base, src.text, env, depth+1)
		}
	}
	bare := sqlString().ReplaceAllString(sqlComment().ReplaceAllString(text, " "), "''")
	if sqlRunsCode().MatchString(bare) {
		w.deny("%s SQL runs an editor or loads an extension (edit(), load_extension()), which the hook cannot read", base)
	}
}

// sqliteCall is the gate's reading of a sqlite3 command line: its SQL
// operands and -cmd values, and the -init file it reads first.
func (w *walker) sqliteCall(base, text string, args []word, env map[string]string, depth int) {
	n := 0
	for i := 0; i < len(args); i++ {
		a := args[i]
		var code string
		switch {
		case (a.s == "-cmd" || a.s == "-init") && i+1 < len(args):
			i++
			if args[i].dyn {
				w.deny("%s is given %s only known when it runs (%q)", base, a.s, clip.String(text, 80))
				return
			}
			code = args[i].s
			if a.s == "-init" {
				code = ".read '" + args[i].s + "'"
			}
		case a.s == "-separator" || a.s == "-newline" || a.s == "-nullvalue":
			i++
			continue
		case strings.HasPrefix(a.s, "-"):
			continue
		default:
			if n++; n == 1 {
				continue // the database
			}
			if a.dyn {
				w.deny("%s is given SQL only known when it runs (%q)", base, clip.String(text, 80))
				return
			}
			code = a.s
		}
		w.sqliteText(base, code, env, depth)
	}
}

// sqlite judges sqlite3's (or duckdb's) SQL and dot-commands from its
// arguments, -init file and stdin for the path layer: a dot-command's
// shell or file is read as the shell would; SQL that opens a file whose
// name it builds cannot be checked; fsdir(), -A and .archive read folders.
func (c *pathCheck) sqlite(ce *syntax.CallExpr, name string, rest []string, depth int) *pathDeny {
	var code []string
	ops := 0
	var dbOps []string
	archive := false
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		switch {
		case strings.HasPrefix(a, "-A") && !strings.HasPrefix(a, "-ascii") || a == "-archive":
			archive = true // the arguments after the database are files to pack
			if strings.Contains(a, "C") {
				return c.cannot(name + " -A changes folder (C) before it packs, so the files it reads cannot be checked")
			}
		case a == "-cmd" && i+1 < len(rest):
			code = append(code, rest[i+1])
			i++
		case a == "-init" && i+1 < len(rest):
			code = append(code, ".read '"+rest[i+1]+"'")
			i++
		case a == "-separator" && i+1 < len(rest), a == "-newline" && i+1 < len(rest), a == "-nullvalue" && i+1 < len(rest):
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
		if pd := c.sqliteText(name, sql, depth); pd != nil {
			return pd
		}
	}
	return nil
}

// sqliteText judges one piece of sqlite3 input for the path layer.
func (c *pathCheck) sqliteText(name, sql string, depth int) *pathDeny {
	if depth > maxNesting {
		return c.cannot(name + " reads SQL nested too deeply to be checked")
	}
	for _, l := range sqliteLines(sql) {
		dotWord, dot, arg, first := l.word, l.dot, l.arg, l.first
		switch {
		case dot == "shell" || dot == "system":
			if pd := c.analyse(arg, depth+1); pd != nil {
				return pd
			}
		case strings.HasPrefix(first, "|"):
			// .read '|cmd', .once '|cmd': a shell command.
			if pd := c.analyse(first[1:], depth+1); pd != nil {
				return pd
			}
		case dot == "cd" || (dot == "archive" || dot == "ar") && strings.Contains(" "+arg, " -C"):
			return c.cannot(fmt.Sprintf("%s %s changes folder, so the files it reads next cannot be checked", name, dotWord))
		case dot == "archive" || dot == "ar":
			if pd := c.treeRead(name+" "+dotWord, operands(strings.Fields(arg), 0)); pd != nil {
				return pd
			}
		case dot == "read" && first != "":
			if pd := c.checkText(first, false); pd != nil {
				return pd
			}
			text, ok := c.readList(first)
			if !ok {
				return c.cannot(fmt.Sprintf("%s reads SQL from %s, which the hook cannot read", name, first))
			}
			if pd := c.sqliteText(name, text, depth+1); pd != nil {
				return pd
			}
		default:
			// .open, .import, .output, .once, .backup, .load …: the
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
	literal, built := sqlFiles(sql)
	if built {
		return c.cannot(fmt.Sprintf("%s SQL opens a file whose name it builds when it runs, so the path cannot be checked", name))
	}
	for _, l := range literal {
		if pd := c.checkText(l, true); pd != nil {
			return pd
		}
	}
	for _, m := range sqlFsdirArg().FindAllStringSubmatch(sqlComment().ReplaceAllString(sql, " "), -1) {
		if pd := c.treeRead(name+" fsdir()", []string{strings.ReplaceAll(m[1], "''", "'")}); pd != nil {
			return pd // fsdir lists and reads every file below
		}
	}
	for _, m := range c.mentions {
		if len(m.name) >= 3 && strings.Contains(sql, m.name) {
			return &pathDeny{rule: m.rule, why: fmt.Sprintf("%s SQL mentions %q, the name of a denied path", name, m.name)}
		}
	}
	return nil
}
