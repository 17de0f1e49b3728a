package intercept

// The hook's path layer: a Bash command that names a denied path (or feeds
// an ancestor of one to a recursive reader) is denied. It is the second
// line of defence, for runs where the OS sandbox is off; it reads the shell
// words statically and cannot be complete (docs/security.md#which-layer-stops-what). This file holds the walk over a command line; paths_match.go
// judges a path against the denied patterns, paths_words.go expands words,
// paths_commands.go and paths_code.go say what each command does with its
// arguments, and shellcode.go resolves wrappers and shells for both this
// layer and the handler layer (bash.go).

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// PathFS is what the path layer needs to know about the filesystem: glob
// matches and where symlinks lead. The hook implements it with the os
// package; a nil PathFS means no expansion (globs are then judged by their
// shape alone, which fails closed).
type PathFS interface {
	// Glob returns the absolute paths matching an absolute pattern.
	Glob(pattern string) ([]string, error)
	// EvalSymlinks resolves every symlink of an existing path.
	EvalSymlinks(path string) (string, error)
}

// deniedPath is one denied_paths entry, made absolute.
type deniedPath struct {
	rule string   // as written in the handlers file
	segs []string // absolute pattern, split at /
}

// unknownGlob stands for what a word expands to when its value cannot be
// known before it runs ($(…), a variable the line sets from a command): a
// glob, so that a path built around it still hits a denied path.
const unknownGlob = "*"

// maxPathTokens bounds the symlink look-ups of one command; past it the
// command is denied (a padded command must not hide a symlink).
const maxPathTokens = 50000

// pathCheck is one Bash command under analysis.
type pathCheck struct {
	p      *Policy
	fs     PathFS
	env    map[string]string
	cwd    string
	cwds   []string // every directory the line may be in
	oldpwd string
	denied []deniedPath
	// mentions are the literal names of denied paths (their first literal
	// segment below the root, and their last), for interpreter code.
	mentions []mention
	tokens   int
	resolved map[string]string
	// lister: a name lister ran over an ancestor; consumer: the line feeds
	// names to a command (xargs, read, $(…)).
	lister, consumer string
	inSubst          map[*syntax.CallExpr]bool
	subst            bool // the command being judged runs inside $(…) or <(…)
	checked          map[*syntax.Word]bool
	decoded          string // a decoder (base64 -d …) ran earlier on the line
	redirs           map[*syntax.CallExpr][]*syntax.Redirect
	piped            map[*syntax.Stmt]bool
	// pipeIn holds the text a piped command reads when the command before
	// it prints literal text (printf 'x' | tee run.sh).
	pipeIn map[*syntax.CallExpr]string
	// curCall is the command being judged (a tee records what it writes).
	curCall *syntax.CallExpr
	// funcs are the functions the line defines; shadowed: it defines
	// aliases or enables builtins (echo and printf may not be the builtins).
	funcs    map[string]bool
	shadowed bool
	// written maps the files the line's redirects write to their here-doc
	// (unknownValue: content not known); writer is the first command that
	// may write files the analysis does not follow.
	written map[string]string
	writer  string
	writers []writer
	// lenient > 0 while reading words of an unknown program as code: what
	// does not parse is left alone. opaqueDepth stops that from recursing.
	lenient, opaqueDepth int
}

type mention struct{ name, rule string }

// pathDeny is why a command is denied, "" for none.
type pathDeny struct {
	rule, why string
}

// decidePaths is the path layer's verdict on a Bash command: a Deny naming
// the rule, or a Pass.
func decidePaths(p *Policy, req Request, command string) Decision {
	d := Decision{Kind: Pass, Handler: -1}
	if len(p.deniedPaths) == 0 {
		return d
	}
	if p.root == "" {
		// No root in the file and none from the hook: the call's cwd.
		q := *p
		q.root = path.Clean(req.CWD)
		if req.CWD == "" || !path.IsAbs(req.CWD) {
			d.Kind = Deny
			d.Reason = "Blocked by eval harness: the handlers file has denied_paths but no root, and the call has no absolute cwd to judge paths from"
			return d
		}
		p = &q
	}
	c := &pathCheck{p: p, fs: req.FS, env: map[string]string{}, resolved: map[string]string{}, checked: map[*syntax.Word]bool{}, written: map[string]string{}, funcs: map[string]bool{}}
	for k, v := range req.Env {
		c.env[k] = v
	}
	home := c.env["HOME"]
	c.cwd = path.Clean(req.CWD)
	if !path.IsAbs(c.cwd) || req.CWD == "" {
		c.cwd = p.root
	}
	// The hook's own OLDPWD is not the shell's: only a cd on the line
	// tells it.
	c.oldpwd = ""
	c.cwds = []string{c.cwd}
	roots := []string{p.root}
	if c.fs != nil {
		if r, err := c.fs.EvalSymlinks(p.root); err == nil && r != p.root {
			roots = append(roots, r)
		}
	}
	for _, rule := range p.deniedPaths {
		for _, r := range roots {
			c.denied = append(c.denied, deniedPath{rule: rule, segs: patternSegments(rule, r, home)})
		}
		segs := splitPath(rule)
		for _, s := range segs {
			if strings.HasPrefix(rule, "//") || strings.HasPrefix(rule, "~/") {
				break // /tmp, /home: names too common to flag
			}
			if !hasMeta(s) && s != "." {
				c.mentions = append(c.mentions, mention{s, rule})
				break
			}
		}
		if len(segs) > 0 && !hasMeta(segs[len(segs)-1]) {
			c.mentions = append(c.mentions, mention{segs[len(segs)-1], rule})
		}
	}
	if pd := c.analyse(command, 0); pd != nil {
		d.Kind = Deny
		rule := pd.rule
		if why := oneLine(p.reasons[pd.rule]); why != "" {
			rule += ": " + why
		}
		d.Reason = fmt.Sprintf("Blocked by eval harness: %s (denied path rule %s). Paths the eval denies stay denied in Bash too; work with the files outside them", pd.why, rule)
		d.Detail = "path layer: " + pd.why
	}
	return d
}

// analyse parses and checks one script (a command line, or the code of
// bash -c, eval, a here-doc fed to a shell).
func (c *pathCheck) analyse(script string, depth int) *pathDeny {
	if depth > maxNesting {
		return c.cannot("the command nests shells too deeply to be checked")
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(script), "")
	if err != nil && c.lenient > 0 {
		return nil
	}
	if err == nil {
		dropBytes(f)
		if _, sh := lineInput(f); sh {
			c.shadowed = true
		}
	}
	if err != nil {
		// The raw text is all there is: any path in it counts.
		if pd := c.checkText(script, false); pd != nil {
			return pd
		}
		return c.cannot("the command does not parse as shell, so the paths it reads cannot be checked")
	}
	saved := [4]any{c.inSubst, c.redirs, c.piped, c.pipeIn}
	c.inSubst, c.redirs, c.piped, c.pipeIn = map[*syntax.CallExpr]bool{}, map[*syntax.CallExpr][]*syntax.Redirect{}, map[*syntax.Stmt]bool{}, map[*syntax.CallExpr]string{}
	defer func() {
		c.inSubst, c.redirs, c.piped = saved[0].(map[*syntax.CallExpr]bool), saved[1].(map[*syntax.CallExpr][]*syntax.Redirect), saved[2].(map[*syntax.Stmt]bool)
		c.pipeIn = saved[3].(map[*syntax.CallExpr]string)
	}()
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CmdSubst, *syntax.ProcSubst:
			syntax.Walk(n, func(m syntax.Node) bool {
				if ce, ok := m.(*syntax.CallExpr); ok {
					c.inSubst[ce] = true
				}
				return true
			})
		case *syntax.FuncDecl:
			if n.Name != nil {
				c.funcs[n.Name.Value] = true
			}
		case *syntax.BinaryCmd:
			if n.Op == syntax.Pipe || n.Op == syntax.PipeAll {
				c.piped[n.Y] = true
				if ce, ok := n.Y.Cmd.(*syntax.CallExpr); ok && !hasInput(n.Y) {
					if text, ok := c.literalOutput(n.X); ok {
						c.pipeIn[ce] = text
					}
				}
			}
		}
		return true
	})
	var deny *pathDeny
	syntax.Walk(f, func(n syntax.Node) bool {
		if deny != nil {
			return false
		}
		switch n := n.(type) {
		case *syntax.Stmt:
			c.recordWrites(n)
			if ce, ok := n.Cmd.(*syntax.CallExpr); ok {
				c.redirs[ce] = n.Redirs
				if c.piped[n] {
					c.redirs[ce] = append(slices.Clone(n.Redirs), &syntax.Redirect{Op: syntax.RdrIn})
				}
			}
		case *syntax.Word:
			if c.checked[n] {
				return true
			}
			for _, s := range c.words(n) {
				if deny = c.checkText(s, false); deny != nil {
					return false
				}
			}
		case *syntax.SglQuoted:
			// '$(cmd)' is text here, but bash runs it when the text reaches
			// a prompt string (PS4, ${x@P}), arithmetic (a[$(cmd)]), trap
			// or eval: the paths it names count.
			if strings.Contains(n.Value, "$(") || strings.Contains(n.Value, "`") {
				c.lenient++
				deny = c.analyse(`: "`+n.Value+`"`, depth+1)
				c.lenient--
			}
		case *syntax.DeclClause:
			for _, a := range n.Args {
				c.assign(a)
			}
		case *syntax.ForClause:
			if wi, ok := n.Loop.(*syntax.WordIter); ok {
				// The loop variable takes each item in turn: judged as all
				// of them (items from $(…) stay unknown).
				var items []string
				for _, w := range wi.Items {
					items = append(items, c.words(w)...)
				}
				c.env[wi.Name.Value] = strings.Join(items, " ")
				if len(wi.Items) == 0 {
					c.env[wi.Name.Value] = unknownGlob
				}
			}
		case *syntax.CallExpr:
			if len(n.Args) == 0 {
				for _, a := range n.Assigns {
					c.assign(a)
				}
				return true
			}
			// A command's own words are judged where it starts (cd
			// secret names secret from here, not secret/secret).
			for _, a := range n.Assigns {
				if a.Value != nil {
					c.checked[a.Value] = true
					for _, s := range c.words(a.Value) {
						if deny = c.checkText(s, false); deny != nil {
							return false
						}
					}
				}
			}
			for i, w := range n.Args {
				c.checked[w] = true
				if lit, ok := wordLit(w); i == 0 && ok && !strings.Contains(lit, "/") {
					continue // a command name, looked up in PATH
				}
				for _, s := range c.words(w) {
					if deny = c.checkText(s, false); deny != nil {
						return false
					}
				}
			}
			c.subst = c.inSubst[n]
			savedCall := c.curCall
			c.curCall = n
			deny = c.call(n, depth)
			c.curCall = savedCall
		}
		return deny == nil
	})
	if deny == nil && c.lister != "" && c.consumer != "" {
		deny = &pathDeny{rule: c.denied[0].rule, why: fmt.Sprintf("%s lists the files of a directory that holds a denied path and %s hands those names on to a command", c.lister, c.consumer)}
	}
	return deny
}

func (c *pathCheck) cannot(why string) *pathDeny {
	return &pathDeny{rule: c.denied[0].rule, why: why}
}

func (c *pathCheck) assign(a *syntax.Assign) {
	if a.Name == nil {
		return
	}
	switch {
	case a.Array != nil:
		c.env[a.Name.Value] = unknownGlob // arrays are not tracked
	case a.Value == nil:
		if !a.Naked {
			c.env[a.Name.Value] = ""
		}
	case a.Append:
		c.env[a.Name.Value] += strings.Join(c.words(a.Value), " ")
	default:
		c.env[a.Name.Value] = strings.Join(c.words(a.Value), " ")
	}
}
