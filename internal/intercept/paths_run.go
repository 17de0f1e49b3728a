package intercept

// Files and programs the path layer cannot read: a script written earlier
// on the same line, and programs the analysis does not know, whose
// arguments may be shell code (a wrapper not in the table, a tool taking a
// script).

import (
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/agent-eval/agent-eval/internal/shellname"
)

// knownProgram reports whether the path layer, or the shared table, knows
// what a program does with its arguments.
func knownProgram(name string) bool {
	if dataPrograms.has(name) || shellname.Is(name) {
		return true
	}
	_, wrapper := wrappers()[name]
	return wrapper || slices.Contains(interpreters, name) || slices.Contains(copiers, name) || slices.Contains(listers, name) ||
		slices.Contains(treeReaders, name) || slices.Contains(readers, name) || slices.Contains(consumers, name) || decoderName(name)
}

func decoderName(name string) bool {
	switch name {
	case "base64", "base32", "basenc", "xxd", "openssl", "uudecode", "rev", "tr", "zcat", "gunzip", "gzip", "bzcat", "xzcat", "zstdcat", "unxz", "iconv", "recode", "od", "hexdump":
		return true
	}
	return false
}

// builtAtRunTime reports whether a word of the call is built when it runs
// ($(…), a variable the hook cannot know), so code it carries is unknown.
func (c *pathCheck) builtAtRunTime(ce *syntax.CallExpr) bool {
	for _, w := range ce.Args {
		if _, ok := wordLit(w); ok {
			continue
		}
		if slices.ContainsFunc(c.words(w), func(f string) bool { return strings.Contains(f, unknownGlob) }) {
			return true
		}
	}
	return false
}

// opaque reads the arguments of a program the analysis does not know as
// code: each argument that parses as shell, and the arguments from each
// operand on as a command (prlimit bash -c …, tmux new 'cmd', mywrap -- cat
// …). What cannot be parsed is left to the words' own check.
func (c *pathCheck) opaque(rest []string, depth int) *pathDeny {
	if c.opaqueDepth > 0 || depth >= maxNesting {
		return nil
	}
	c.opaqueDepth++
	c.lenient++
	defer func() { c.opaqueDepth--; c.lenient-- }()
	budget := maxOpaqueBytes
	for _, a := range rest {
		if strings.ContainsAny(a, " \t\n;|&$`(<>'\"\\") {
			if budget -= len(a); budget < 0 {
				return c.cannot(fmt.Sprintf("a program the hook does not know is given more text that may be code than the hook reads (%d bytes)", maxOpaqueBytes))
			}
			if pd := c.analyse(a, depth+1); pd != nil {
				return pd
			}
			if _, v, ok := strings.Cut(a, "="); ok {
				if pd := c.analyse(v, depth+1); pd != nil {
					return pd
				}
			}
		}
	}
	n := 0
	for i, a := range rest {
		if strings.HasPrefix(a, "-") {
			continue
		}
		if n++; n > 8 {
			break
		}
		if b := path.Base(a); !shellname.Is(b) && !knownWrapper(b) && b != "eval" && b != "find" && b != "xargs" && !slices.Contains(interpreters, b) && !strings.HasPrefix(b, "python") {
			continue
		}
		if pd := c.analyse(quoteWords(rest[i:]), depth+1); pd != nil {
			return pd
		}
	}
	return nil
}

func knownWrapper(name string) bool {
	_, ok := wrappers()[name]
	return ok
}

// runsArgs are programs the path layer knows whose options may run a
// command given as a value.
var runsArgs = wordSet{ // sorted
	"bsdtar", "git", "mapfile", "readarray", "rsync", "scp", "sed", "ssh", "tar", "zip",
}

// quoteWords spells words as one command line that reads back as them.
func quoteWords(ws []string) string {
	var b strings.Builder
	for i, w := range ws {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString("'" + strings.ReplaceAll(w, "'", `'\''`) + "'")
	}
	return b.String()
}

// runsFile judges running a script file: one the line wrote with a known
// here-doc is read as code; one it may have written otherwise, or that a
// command before it may have written, cannot be read.
func (c *pathCheck) runsFile(file string, depth int) *pathDeny {
	if c.lenient > 0 {
		return nil // an unknown program's words, read as code: paths only
	}
	abs := c.normalise(file)
	if body, ok := c.written[abs]; ok {
		if body == unknownValue {
			return c.cannot(fmt.Sprintf("it runs %s, which this command line writes with content the hook cannot read", c.show(abs)))
		}
		return c.analyse(body, depth+1)
	}
	for f, body := range c.written {
		if path.Base(f) == path.Base(abs) && body == unknownValue {
			return c.cannot(fmt.Sprintf("it runs %s, which this command line may write with content the hook cannot read", c.show(abs)))
		}
	}
	if wr := c.wroteIt(file); wr != "" {
		return c.cannot(fmt.Sprintf("it runs %s, which %s earlier on the line may have written, so what it reads cannot be checked", c.show(abs), wr))
	}
	// A script already on disk (an earlier call may have written it) is
	// read: the paths it names count. What cannot be parsed in it is left.
	if c.fs != nil && (len(c.written) > 0 || len(c.writers) > 0) {
		if r, err := c.fs.EvalSymlinks(abs); err == nil && r != abs && !c.rootLink(abs, r) {
			return c.cannot(fmt.Sprintf("it runs %s, a link to what this command line may write, so what it reads cannot be checked", c.show(abs)))
		}
	}
	if fr, ok := c.fs.(FileReader); ok && depth < maxNesting {
		b, err := fr.ReadFile(abs, maxScriptBytes)
		if errors.Is(err, ErrNotFound) {
			if m, _ := c.fs.Glob(globEscape(abs)); len(m) > 0 {
				return c.cannot(fmt.Sprintf("it runs %s, a link to something the hook cannot open, so what it reads cannot be checked", c.show(abs)))
			}
		}
		if err == nil && strings.IndexByte(string(b), 0) < 0 {
			c.lenient++
			defer func() { c.lenient-- }()
			if pd := c.analyse(string(b), depth+1); pd != nil {
				return &pathDeny{rule: pd.rule, why: fmt.Sprintf("it runs %s, and in it %s", c.show(abs), pd.why)}
			}
		}
	}
	return nil
}

// wroteIt names a command before this one on the line that may have
// written file: one that writes content it is given or unpacks, or one
// naming the file.
func (c *pathCheck) wroteIt(file string) string {
	for _, wr := range c.writers {
		if wr.content || slices.ContainsFunc(wr.args, func(a string) bool { return sameFile(a, file) }) {
			return wr.name
		}
	}
	if c.writer != "" && strings.HasPrefix(c.writer, "a redirect") {
		return c.writer
	}
	return ""
}

// recordWrites notes the files a statement's redirects write, with the
// here-doc that fills them when there is one.
func (c *pathCheck) recordWrites(st *syntax.Stmt) {
	body := unknownValue
	if text, ok := c.literalOutput(&syntax.Stmt{Cmd: st.Cmd}); ok && len(st.Redirs) == 1 && st.Redirs[0].N == nil &&
		(st.Redirs[0].Op == syntax.RdrOut || st.Redirs[0].Op == syntax.RdrClob) {
		body = text // printf 'x' > run.sh
	}
	for _, r := range st.Redirs {
		switch r.Op {
		case syntax.Hdoc, syntax.DashHdoc:
			if r.Hdoc != nil {
				if lit, ok := wordLit(r.Hdoc); ok {
					body = lit
				} else {
					body = rawWord(r.Hdoc.Parts)
				}
			}
		case syntax.WordHdoc:
			if r.Word != nil {
				body = strings.Join(c.words(r.Word), " ")
			}
		}
	}
	if body != unknownValue && !c.catsStdin(st) && !c.echoes(st) {
		body = unknownValue // base64 -d <<< x > f: not the here-doc's text
	}
	for _, r := range st.Redirs {
		switch r.Op {
		case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.RdrAll, syntax.AppAll, syntax.RdrInOut:
			if r.Word == nil {
				continue
			}
			for _, t := range c.words(r.Word) {
				if strings.HasPrefix(t, "/dev/") && !strings.Contains(t, unknownGlob) {
					continue
				}
				abs := c.normalise(t)
				if _, ok := c.written[abs]; ok || strings.Contains(t, unknownGlob) || r.Op == syntax.AppOut {
					body = unknownValue
				}
				c.written[abs] = body
				if strings.Contains(t, unknownGlob) && c.writer == "" {
					c.writer = "a redirect to a file only known when it runs"
				}
			}
		}
	}
}

// noteWriter records a command of the line that may write files the
// analysis does not follow.
func (c *pathCheck) noteWriter(name string, args []string) {
	if c.lenient == 0 && mayWrite(name, args) {
		wr := writer{name: name, args: args, content: contentWriter(name, args)}
		c.writers = append(c.writers, wr)
		// What the line wrote before may be changed now (sed -i, cp over it).
		for f := range c.written {
			if wr.content && name != "tee" || slices.ContainsFunc(args, func(a string) bool { return c.normalise(a) == f || sameFile(a, f) }) {
				c.written[f] = unknownValue
			}
		}
	}
	if name == "tee" && c.curCall != nil && c.lenient == 0 {
		if text, ok := c.pipeIn[c.curCall]; ok {
			c.teeWrites(c.curCall, text) // printf 'x' | tee run.sh
		}
	}
}

// laterCode reads as code the values of variables another program or bash
// itself runs (GIT_PAGER=…, EDITOR=…, PS4=…, BASH_FUNC_x%%=…), set inline or
// through env.
func (c *pathCheck) laterCode(ce *syntax.CallExpr) *pathDeny {
	var vals []string
	for _, a := range ce.Assigns {
		if a.Name != nil && a.Value != nil && gitConfigVar(a.Name.Value, strings.Join(c.words(a.Value), " ")) {
			vals = append(vals, "\x00git config file "+a.Name.Value)
		} else if a.Name != nil && a.Value != nil && laterVar(a.Name.Value) {
			vals = append(vals, strings.Join(c.words(a.Value), " "))
		}
	}
	for _, w := range ce.Args {
		for _, f := range c.words(w) {
			if k, v, ok := strings.Cut(f, "="); ok && gitConfigVar(k, v) {
				vals = append(vals, "\x00git config file "+k)
			} else if ok && laterVar(k) {
				if strings.HasPrefix(k, "BASH_FUNC_") {
					v = "f" + v
				}
				vals = append(vals, v)
			}
		}
	}
	for _, v := range vals {
		if strings.HasPrefix(v, "\x00git config file") {
			return c.cannot("git reads settings (an alias, a pager) from " + v[1:] + ", so the files its commands open cannot be checked")
		}
		c.lenient++
		pd := c.analyse(strings.TrimLeft(v, "|-+!"), 1)
		c.lenient--
		if pd != nil {
			return pd
		}
	}
	return nil
}

func laterVar(name string) bool {
	return promptVars.has(name) || programVars.has(name) || strings.HasPrefix(name, "BASH_FUNC_") || name == "LESS" ||
		strings.HasPrefix(name, "GIT_CONFIG_VALUE_")
}

// gitConfigVar reports a variable that hands git settings the analysis
// does not read: GIT_CONFIG_PARAMETERS, or a config file other than
// /dev/null.
func gitConfigVar(name, value string) bool {
	return name == "GIT_CONFIG_PARAMETERS" ||
		(name == "GIT_CONFIG" || name == "GIT_CONFIG_GLOBAL" || name == "GIT_CONFIG_SYSTEM") && value != "/dev/null"
}

// rootLink reports a path whose only link is in the folders above the root
// (a workspace under a linked /tmp): the file itself is no link.
func (c *pathCheck) rootLink(abs, resolved string) bool {
	r, err := c.fs.EvalSymlinks(c.p.root)
	if err != nil || r == c.p.root {
		return false
	}
	rel, ok := strings.CutPrefix(abs, c.p.root)
	return ok && resolved == r+rel
}
