package intercept

// Code that shells and interpreters run, as the path layer reads it: the
// -c/-e argument, a here-doc on stdin, a script operand.

import (
	"fmt"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"

	"github.com/agent-eval/agent-eval/internal/shellname"
)

// codeArg returns the code of -c (shells), -e/-E (perl, ruby, node, lua),
// -r (php), --eval, or an awk program.
func codeArg(name string, rest []string) (string, bool) {
	isAwk := strings.HasSuffix(name, "awk")
	letters := "c"
	switch name {
	case "perl":
		letters = "eE"
	case "ruby", "irb", "lua", "luajit":
		letters = "e"
	case "node", "nodejs", "bun", "deno":
		letters = "ep"
	case "php":
		letters = "rBRF"
	case "Rscript", "R", "julia", "elixir", "groovy", "scala", "racket", "ghc", "clojure", "kotlin", "jshell", "crystal", "nim", "raku", "guile":
		letters = "e"
	case "erl", "sbcl", "clisp", "ecl":
		letters = "e" // -eval / --eval handled with the long forms
	case "osascript":
		letters = "e"
	case "pwsh":
		letters = "cC"
	}
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		if a == "--" {
			if isAwk && i+1 < len(rest) {
				return rest[i+1], true
			}
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			if isAwk {
				return a, true
			}
			break // the script file
		}
		if isAwk {
			switch {
			case a == "-f" || a == "--file" || strings.HasPrefix(a, "-f"):
				return "", false
			case a == "-v" || a == "-F":
				i++
			}
			continue
		}
		if strings.HasPrefix(a, "--") {
			if slices.Contains([]string{"--eval", "--command", "--print", "--exec", "-eval", "--ex"}, a) && i+1 < len(rest) {
				return rest[i+1], true
			}
			for _, pre := range []string{"--eval=", "--print=", "--command="} {
				if v, ok := strings.CutPrefix(a, pre); ok {
					return v, true
				}
			}
			continue
		}
		flags := a[1:]
		j := strings.IndexAny(flags, letters)
		if j < 0 {
			continue
		}
		if j < len(flags)-1 && !shellname.Is(name) && name != "busybox" && name != "perl" {
			return flags[j+1:], true // -e'code' glued
		}
		if i+1 < len(rest) {
			return rest[i+1], true
		}
		return "", false
	}
	return "", false
}

// scriptArg is the first operand: the script file a shell or interpreter
// runs.
func scriptArg(rest []string) string {
	for i, a := range rest {
		if a == "--" {
			if i+1 < len(rest) {
				return rest[i+1]
			}
			return ""
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			return a
		}
		if a == "-m" || a == "-W" || a == "-X" || a == "-I" || a == "-M" || a == "--require" || a == "-r" {
			return "module" // python -m mod, node -r mod: a named program
		}
	}
	return ""
}

// Where a command's stdin comes from.
const (
	stdinNone = iota // the tool's own stdin (nothing)
	stdinDoc         // a here-doc or here-string: its text is known
	stdinPipe        // another command's output: unknown
	stdinFile        // a file: like running a script file
)

// stdin says where a command reads its stdin from, with the text of a
// here-doc or here-string.
func (c *pathCheck) stdin(ce *syntax.CallExpr) (int, string) {
	for _, r := range c.redirs[ce] {
		switch r.Op {
		case syntax.Hdoc, syntax.DashHdoc:
			if r.Hdoc == nil {
				return stdinDoc, ""
			}
			doc, err := expand.Document(&expand.Config{Env: c.environ()}, r.Hdoc)
			if err != nil {
				return stdinDoc, rawWord(r.Hdoc.Parts)
			}
			return stdinDoc, doc
		case syntax.WordHdoc:
			return stdinDoc, strings.Join(c.words(r.Word), " ")
		case syntax.RdrIn:
			if r.Word == nil {
				if text, ok := c.pipeIn[ce]; ok {
					return stdinDoc, text // printf 'cmd' | sh
				}
				return stdinPipe, ""
			}
			return stdinFile, ""
		}
	}
	return stdinNone, ""
}

// interpreter checks the code an interpreter runs: named paths, names of
// denied directories, directory walks from where a denied path is.
func (c *pathCheck) interpreter(ce *syntax.CallExpr, name string, rest []string) *pathDeny {
	code, ok := codeArg(name, rest)
	if ok && !c.literalCode(ce, name) {
		return c.cannot(name + " runs code that is built when the command runs, so the files it opens cannot be checked")
	}
	if !ok {
		if s := scriptArg(rest); s != "" && s != "-" && s != "/dev/stdin" {
			if _, written := c.written[c.normalise(s)]; s != "module" && c.lenient == 0 && (written || c.wroteIt(s) != "") {
				return c.cannot(fmt.Sprintf("%s runs %s, which this command line may have written, so the files it opens cannot be checked", name, s))
			}
			return nil // a program file or module (docs/security.md#which-layer-stops-what: what the layer cannot see)
		}
		switch kind, doc := c.stdin(ce); kind {
		case stdinDoc:
			code = doc
		case stdinPipe:
			return c.cannot(name + " reads its program from a pipe, so the files it opens cannot be checked")
		default:
			return nil
		}
	}
	if pd := c.checkText(code, true); pd != nil {
		return pd
	}
	for _, m := range c.mentions {
		if len(m.name) >= 3 && strings.Contains(code, m.name) {
			return &pathDeny{rule: m.rule, why: fmt.Sprintf("%s code mentions %q, the name of a denied path", name, m.name)}
		}
	}
	if class, _ := c.classOf(c.cwd); class == classAncestor && (walkIdioms().MatchString(code) || buildIdioms().MatchString(code) && fileIdioms().MatchString(code)) {
		return &pathDeny{rule: c.denied[0].rule, why: name + " code walks directories, runs commands or opens computed paths from a directory that holds a denied path"}
	}
	return nil
}

// literalCode reports whether the code a shell or interpreter runs (its
// -c/-e argument) is written out on the line, not built from $(…) or a
// variable the hook cannot know.
func (c *pathCheck) literalCode(ce *syntax.CallExpr, name string) bool {
	const nonLiteral = "\x00nonliteral"
	var args []string
	for _, w := range ce.Args {
		if s, ok := wordLit(w); ok {
			args = append(args, s)
			continue
		}
		fields := c.words(w)
		if slices.ContainsFunc(fields, func(f string) bool { return strings.Contains(f, unknownGlob) }) {
			args = append(args, nonLiteral)
			continue
		}
		args = append(args, strings.Join(fields, " "))
	}
	args, _, _ = unwrap(args)
	if len(args) == 0 {
		return true
	}
	code, ok := codeArg(name, args[1:])
	return !ok || !strings.Contains(code, nonLiteral)
}

// server reports whether an interpreter serves files over HTTP from the
// current directory (python3 -m http.server, php -S, ruby -run -e httpd).
func server(name string, rest []string) bool {
	joined := " " + strings.Join(rest, " ") + " "
	switch {
	case strings.HasPrefix(name, "python"):
		return strings.Contains(joined, "http.server") || strings.Contains(joined, "SimpleHTTPServer") || strings.Contains(joined, "pyftpdlib")
	case name == "php":
		return strings.Contains(joined, " -S ")
	case name == "ruby":
		return strings.Contains(joined, "httpd") || strings.Contains(joined, "WEBrick")
	case name == "busybox":
		return strings.Contains(joined, "httpd")
	}
	return false
}
