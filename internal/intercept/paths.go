package intercept

// The hook's path layer: a Bash command that names a denied path (or feeds
// an ancestor of one to a recursive reader) is denied. It is the second
// line of defence, for runs where the OS sandbox is off; it reads the shell
// words statically and cannot be complete (README: "Which layer stops
// what").

import (
	"fmt"
	"io"
	"path"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"

	"github.com/agent-eval/agent-eval/internal/lazyre"
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

// patternSegments turns a denied_paths entry (Claude Code's Read rule
// spelling: gitignore style, //abs for absolute, ~/ for home, anything else
// relative to root) into absolute segments. A pattern without a slash
// matches at any depth, as in gitignore.
func patternSegments(p, root, home string) []string {
	switch {
	case strings.HasPrefix(p, "//"):
		p = p[1:]
	case strings.HasPrefix(p, "~/"):
		if home == "" {
			home = "/"
		}
		p = home + p[1:]
	default:
		rel := strings.TrimPrefix(p, "/")
		if !strings.Contains(strings.TrimSuffix(rel, "/"), "/") && !strings.HasPrefix(rel, "**") {
			rel = "**/" + rel
		}
		p = root + "/" + rel
	}
	if strings.HasSuffix(p, "/") {
		p += "**"
	}
	return splitPath(path.Clean(p))
}

func splitPath(p string) []string {
	return strings.FieldsFunc(p, func(r rune) bool { return r == '/' })
}

// Classes of a path against the denied patterns.
const (
	classNone     = iota
	classAncestor // a directory a denied path lies in (or the denied directory itself)
	classHit      // the path is denied
)

// matchSegs matches path segments (which may hold globs) against a pattern.
// hit: the path, or something it may name, is denied; anc: the path is a
// directory above a denied path.
func matchSegs(pat, p []string) (hit, anc bool) {
	if len(pat) == 0 {
		return true, false // below a denied path is denied
	}
	if len(p) == 0 {
		return false, true
	}
	if pat[0] == "**" {
		if !slices.ContainsFunc(pat, func(s string) bool { return s != "**" }) {
			return true, false // a trailing ** takes one segment or more
		}
		h1, a1 := matchSegs(pat[1:], p)
		if h1 {
			return true, false
		}
		h2, a2 := matchSegs(pat, p[1:])
		return h2, a1 || a2 || h2
	}
	if !segMatch(pat[0], p[0]) {
		return false, false
	}
	return matchSegs(pat[1:], p[1:])
}

// segMatch reports whether a pattern segment and a path segment (a glob
// perhaps) can name the same name.
func segMatch(pat, seg string) bool {
	pm, sm := hasMeta(pat), hasMeta(seg)
	switch {
	case !sm:
		ok, err := path.Match(pat, seg)
		return ok || err != nil
	case !pm:
		ok, err := path.Match(seg, pat)
		return ok || err != nil
	}
	return true
}

func hasMeta(s string) bool { return strings.ContainsAny(s, "*?[") }

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
	c := &pathCheck{p: p, fs: req.FS, env: map[string]string{}, resolved: map[string]string{}, checked: map[*syntax.Word]bool{}}
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
		return c.cannot("the command nests pathShells too deeply to be checked")
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(script), "")
	if err != nil {
		// The raw text is all there is: any path in it counts.
		if pd := c.checkText(script, false); pd != nil {
			return pd
		}
		return c.cannot("the command does not parse as shell, so the paths it reads cannot be checked")
	}
	saved := [3]any{c.inSubst, c.redirs, c.piped}
	c.inSubst, c.redirs, c.piped = map[*syntax.CallExpr]bool{}, map[*syntax.CallExpr][]*syntax.Redirect{}, map[*syntax.Stmt]bool{}
	defer func() {
		c.inSubst, c.redirs, c.piped = saved[0].(map[*syntax.CallExpr]bool), saved[1].(map[*syntax.CallExpr][]*syntax.Redirect), saved[2].(map[*syntax.Stmt]bool)
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
		case *syntax.BinaryCmd:
			if n.Op == syntax.Pipe || n.Op == syntax.PipeAll {
				c.piped[n.Y] = true
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
			deny = c.call(n, depth)
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

// words expands a word as the shell would (quotes, escapes, braces, $VAR,
// ~); what cannot be known becomes a glob.
func (c *pathCheck) words(w *syntax.Word) []string {
	cfg := &expand.Config{
		Env: c.environ(),
		CmdSubst: func(w2 io.Writer, _ *syntax.CmdSubst) error {
			_, err := w2.Write([]byte(unknownGlob))
			return err
		},
		ProcSubst: func(*syntax.ProcSubst) (string, error) { return "/dev/fd/63", nil },
	}
	indexed := false
	syntax.Walk(w, func(n syntax.Node) bool {
		if pe, ok := n.(*syntax.ParamExp); ok && (pe.Index != nil || pe.Excl) {
			indexed = true // arrays and ${!ref} are not tracked
		}
		return !indexed
	})
	if indexed {
		return []string{rawWord(w.Parts)}
	}
	fields, err := expand.Fields(cfg, w)
	if err != nil || len(fields) == 0 {
		return []string{rawWord(w.Parts)}
	}
	return fields
}

// environ is the variables as far as the line tells them: the hook's
// environment, the tracked cwd, the line's own assignments.
func (c *pathCheck) environ() expand.Environ {
	return envFunc(func(name string) (string, bool) {
		switch name {
		case "PWD":
			return c.cwd, true
		case "OLDPWD":
			return c.oldpwd, c.oldpwd != ""
		case "IFS":
			return " \t\n", true
		}
		v, ok := c.env[name]
		return v, ok
	})
}

// rawWord is a word's literal text with every expansion as a glob.
func rawWord(parts []syntax.WordPart) string {
	var b strings.Builder
	for _, p := range parts {
		switch p := p.(type) {
		case *syntax.Lit:
			b.WriteString(p.Value)
		case *syntax.SglQuoted:
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			b.WriteString(rawWord(p.Parts))
		default:
			b.WriteString(unknownGlob)
		}
	}
	return b.String()
}

// envFunc is an expand.Environ over a lookup; an unknown variable expands
// to a glob.
type envFunc func(string) (string, bool)

func (f envFunc) Get(name string) expand.Variable {
	if strings.Contains(name, " ") {
		return expand.Variable{} // ~user: left as written
	}
	if v, ok := f(name); ok {
		return expand.Variable{Set: true, Kind: expand.String, Str: v}
	}
	return expand.Variable{Set: true, Kind: expand.String, Str: unknownGlob}
}

func (f envFunc) Each(func(string, expand.Variable) bool) {}

var urlPath = lazyre.New(`[a-zA-Z][a-zA-Z0-9+.-]*://[^/\s'"]*(/[^\s'"?#]*)`)

// tokenSep splits a word into the strings that may be paths: a path hides
// behind option=, URL schemes, HEAD:, @file, quotes and code punctuation.
var tokenSep = lazyre.New(`[\s'"` + "`" + `=:@,;()\[\]{}<>|&]+`)

// checkText checks every path-like token of s. With ancestors, a token
// naming a denied directory itself is denied too: interpreter code that
// lists or opens it.
func (c *pathCheck) checkText(s string, ancestors bool) *pathDeny {
	cands := append([]string{s}, tokenSep().Split(s, -1)...)
	// A URL's path may be served from the workspace (python3 -m
	// http.server): judged relative to the root too.
	for _, m := range urlPath().FindAllStringSubmatch(s, -1) {
		cands = append(cands, strings.TrimLeft(m[1], "/"))
	}
	for _, t := range cands {
		t = strings.TrimSpace(t)
		for strings.HasPrefix(t, "-") && len(t) > 1 {
			t = t[1:]
		}
		if t == "" || len(t) > 4096 {
			continue
		}
		class, rule, abs := c.classify(t)
		if class == classHit {
			return &pathDeny{rule: rule, why: fmt.Sprintf("the command names %s, which is a denied path", c.show(abs))}
		}
		if inner, _ := c.classOf(abs + "/x"); ancestors && class == classAncestor && inner == classHit && !c.isRootOrAbove(abs) && strings.Trim(t, "*?[]/.") != "" {
			return &pathDeny{rule: rule, why: fmt.Sprintf("interpreter code names %s, a directory that holds a denied path", c.show(abs))}
		}
	}
	return nil
}

func (c *pathCheck) isRootOrAbove(abs string) bool {
	return abs == "/" || c.p.root == abs || strings.HasPrefix(c.p.root, abs+"/")
}

// show spells a path relative to the root when it is inside it.
func (c *pathCheck) show(abs string) string {
	if abs == c.p.root {
		return "."
	}
	if rel, ok := strings.CutPrefix(abs, c.p.root+"/"); ok {
		return rel
	}
	return abs
}

// normalise makes a token an absolute, clean path: file:// URLs, ~, ~+,
// ~-, relative to the tracked cwd, and the /proc links to a cwd or root.
func (c *pathCheck) normalise(t string) string {
	t = strings.TrimPrefix(t, "file://")
	t = strings.TrimPrefix(t, "localhost/")
	switch {
	case t == "~+" || strings.HasPrefix(t, "~+/"):
		t = c.cwd + t[2:]
	case t == "~-" || strings.HasPrefix(t, "~-/"):
		t = c.oldpwd + t[2:]
	case t == "~" || strings.HasPrefix(t, "~/"):
		t = c.env["HOME"] + t[1:]
	}
	if !strings.HasPrefix(t, "/") {
		t = c.cwd + "/" + t
	}
	t = path.Clean(t)
	segs := splitPath(t)
	if len(segs) >= 3 && segs[0] == "proc" && (segs[1] == "self" || segs[1] == "thread-self" || isDigits(segs[1]) || hasMeta(segs[1])) {
		switch segs[2] {
		case "cwd":
			// Another process's cwd is unknown: the agent's processes
			// share the shell's.
			t = path.Clean(c.cwd + "/" + strings.Join(segs[3:], "/"))
		case "root":
			t = path.Clean("/" + strings.Join(segs[3:], "/"))
		}
	}
	return t
}

func isDigits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// classify judges a token from every directory the line may be in (a cd
// that fails, runs in the background or in a subshell leaves the shell
// where it was), and, when a glob hides where it starts ($(pwd)/x, $D/x),
// the path after the glob from there too.
func (c *pathCheck) classify(t string) (int, string, string) {
	bestClass, bestRule, bestAbs := classNone, "", ""
	try := func(t string) bool {
		saved := c.cwd
		defer func() { c.cwd = saved }()
		cwds := c.cwds
		if strings.HasPrefix(t, "/") || strings.HasPrefix(t, "~") || strings.HasPrefix(t, "file:") {
			cwds = []string{c.cwd}
		}
		for _, cwd := range cwds {
			c.cwd = cwd
			class, rule, abs := c.classifyAt(t)
			if bestAbs == "" || class > bestClass {
				bestClass, bestRule, bestAbs = class, rule, abs
			}
			if class == classHit {
				return true
			}
		}
		return false
	}
	if try(t) {
		return bestClass, bestRule, bestAbs
	}
	if segs := strings.Split(t, "/"); len(segs) > 1 {
		for i := len(segs) - 2; i >= 0; i-- {
			if hasMeta(segs[i]) {
				if rest := strings.Join(segs[i+1:], "/"); rest != "" && !hasMeta(rest) && try(rest) {
					return bestClass, bestRule, bestAbs
				}
				break
			}
		}
	}
	return bestClass, bestRule, bestAbs
}

// classifyAt judges a token from c.cwd: the class of its normalised path,
// of the path its symlinks lead to, and of what a glob in it matches.
func (c *pathCheck) classifyAt(t string) (int, string, string) {
	abs := c.normalise(t)
	class, rule := c.classOf(abs)
	if class == classHit || c.fs == nil {
		return class, rule, abs
	}
	if c.tokens++; c.tokens > maxPathTokens {
		return classHit, c.denied[0].rule, "(too many words to check for symlinks)"
	}
	cands := []string{abs}
	if hasMeta(abs) {
		if m, err := c.fs.Glob(abs); err == nil {
			cands = append(cands, m...)
		}
	}
	for _, p := range cands {
		r := c.resolve(p)
		if r == p {
			continue
		}
		if cl, ru := c.classOf(r); cl > class {
			class, rule = cl, ru
			if cl == classHit {
				return class, rule, abs
			}
		}
	}
	return class, rule, abs
}

// resolve follows the symlinks of the longest existing prefix of p.
func (c *pathCheck) resolve(p string) string {
	if r, ok := c.resolved[p]; ok {
		return r
	}
	rest := ""
	cur := p
	out := p
	for i := 0; i < 64; i++ {
		if r, ok := c.resolved[cur]; ok {
			out = path.Clean(r + rest)
			break
		}
		if r, err := c.fs.EvalSymlinks(cur); err == nil {
			c.resolved[cur] = r
			out = path.Clean(r + rest)
			break
		}
		if cur == "/" || cur == "." || cur == "" {
			break
		}
		rest = "/" + path.Base(cur) + rest
		cur = path.Dir(cur)
	}
	c.resolved[p] = out
	return out
}

func (c *pathCheck) classOf(abs string) (int, string) {
	segs := splitPath(abs)
	best, rule := classNone, ""
	for _, d := range c.denied {
		hit, anc := matchSegs(d.segs, segs)
		switch {
		case hit:
			return classHit, d.rule
		case anc && best == classNone:
			best, rule = classAncestor, d.rule
		}
	}
	return best, rule
}

// Commands by what they do with a directory argument.
var (
	pathShells   = []string{"bash", "sh", "zsh", "dash", "ksh", "mksh", "fish", "busybox"}
	interpreters = []string{"python", "python2", "python3", "perl", "ruby", "node", "nodejs", "deno", "bun", "php", "lua", "luajit", "Rscript", "tclsh", "jshell", "osascript", "pwsh", "irb", "gawk", "awk", "mawk", "nawk", "busybox",
		"R", "julia", "elixir", "groovy", "scala", "racket", "ghc", "clojure", "kotlin", "crystal", "nim", "raku", "guile", "erl", "sbcl", "clisp", "ecl", "expect", "gdb", "sqlite3", "duckdb"}
	// pathWrappers run the rest of their arguments as a command.
	pathWrappers = []string{"sudo", "doas", "env", "nice", "nohup", "time", "timeout", "stdbuf", "ionice", "command", "builtin", "exec", "setsid", "chronic", "unbuffer", "strace", "ltrace", "taskset", "chroot", "runuser", "flock", "watch"}
	// copiers read their sources whole, directories included when asked.
	copiers = []string{"cp", "mv", "ln", "install", "rsync", "scp", "rclone", "link", "ditto"}
	// treeReaders read the contents of every file below a directory.
	treeReaders = []string{"rg", "ag", "ack", "ugrep", "rgrep", "tar", "bsdtar", "zip", "7z", "7za", "7zz", "jar", "pax", "cpio", "mksquashfs", "genisoimage", "mkisofs", "duplicity", "borg", "restic", "tree-sitter", "sha256deep", "md5deep", "hashdeep", "ctags", "cscope", "rm", "shred", "diff", "colordiff", "git"}
	// listers print names only.
	listers = []string{"find", "fd", "fdfind", "ls", "tree", "du", "locate"}
	// consumers turn names they read into arguments.
	consumers = []string{"xargs", "parallel", "read", "mapfile", "readarray", "cpio"}
	// walkIdioms in interpreter code walk a directory tree.
	walkIdioms = lazyre.New(`chdir|os\.walk|\bwalk\(|rglob|recursive\s*=\s*True|\bglob\(|\bglob\.glob|iglob|listdir|scandir|readdirSync|readdir|Dir\.glob|Dir\[|Find\.find|File::Find|opendir|\bfind\b|os\.system|subprocess|exec\(|child_process|spawn|system\(|\bopen\(\s*[^'"\s)]|getline|` + "`")
	// buildIdioms build a string at run time (concatenation, decoding,
	// formatting): denied when the code also opens or reads files.
	buildIdioms = lazyre.New(`["']\s*\*\s*["']|\bjoin\(|\.join\b|"\s+"|'\s+'|["']\s*[+.]\s*["']|["']\s*\.\.\s*["']|b64decode|base64|atob|Buffer\.from|decode\(|unpack|\bchr\(|fromCharCode|\\x[0-9a-fA-F]|\\[0-7]{3}|%c|sprintf|format\(|\bf["']|\$\{|reverse|\[::-1\]`)
	fileIdioms  = lazyre.New(`open|read|File|fs\.|Path|cat\b|<\s*\w|\bio\.|require|import|load|include|eval`)
)

// call applies what a simple command does with its arguments.
func (c *pathCheck) call(ce *syntax.CallExpr, depth int) *pathDeny {
	for _, a := range ce.Assigns {
		c.assign(a)
	}
	var args []string
	ends := make([]int, len(ce.Args)) // ends[i]: the fields of words up to i
	for i, w := range ce.Args {
		args = append(args, c.words(w)...)
		ends[i] = len(args)
	}
	all := len(args)
	args, name := unwrap(args)
	// argWords are the words after the command's name (pathWrappers dropped).
	argWords := ce.Args[len(ce.Args):]
	for i, e := range ends {
		if e > all-len(args) {
			argWords = ce.Args[i+1:]
			break
		}
	}
	if name == "" {
		return nil
	}
	rest := args[1:]
	if slices.Contains(consumers, name) {
		c.consumer = name
	}
	for i, a := range rest {
		dir, ok := "", false
		switch {
		case (a == "-C" || a == "--directory" || a == "--prefix" || a == "--cwd" || a == "--chdir" || a == "-chdir" || a == "--workdir" || a == "-w" && name == "docker") && i+1 < len(rest):
			dir, ok = rest[i+1], true
		case strings.HasPrefix(a, "--directory=") || strings.HasPrefix(a, "--prefix=") || strings.HasPrefix(a, "-chdir=") || strings.HasPrefix(a, "--cwd=") || strings.HasPrefix(a, "--chdir="):
			dir, ok = a[strings.Index(a, "=")+1:], true
		}
		if !ok {
			continue
		}
		if class, rule, abs := c.classify(dir); class != classNone {
			if inner, _ := c.classOf(c.normalise(dir) + "/x"); inner == classHit || class == classHit {
				return &pathDeny{rule: rule, why: fmt.Sprintf("%s runs in %s, a denied directory", name, c.show(abs))}
			}
		}
	}
	if decoder(name, rest) {
		if c.subst {
			return c.cannot(name + " decodes text into a command's arguments, so the paths they name cannot be checked")
		}
		c.decoded = name
	}
	if name == "xargs" || name == "parallel" {
		if kind, _ := c.stdin(ce); kind == stdinFile || slices.ContainsFunc(rest, func(a string) bool { return strings.HasPrefix(a, "-a") || strings.HasPrefix(a, "--arg-file") }) {
			return c.cannot(name + " takes the names it works on from a file the hook cannot read")
		}
	}
	if slices.Contains(readers, name) && slices.ContainsFunc(fileWords(name, argWords), c.computed) {
		return c.cannot(name + " reads a file whose name is computed when the command runs ($(…) or a variable the hook cannot know)")
	}
	if c.decoded != "" && (name == "xargs" || name == "parallel") {
		return c.cannot("xargs runs on names that " + c.decoded + " decodes, so the paths they name cannot be checked")
	}
	switch {
	case name == "cd" || name == "pushd" || name == "popd":
		c.cd(name, rest)
		return nil
	case name == "eval":
		for _, w := range ce.Args[1:] {
			if _, lit := wordLit(w); !lit {
				return c.cannot("eval runs a string that is built when the command runs, so the paths it reads cannot be checked")
			}
		}
		return c.analyse(strings.Join(rest, " "), depth+1)
	case name == "source" || name == ".":
		if len(rest) > 0 && activation(rest[0]) {
			return nil // a virtualenv or shell set-up script (README)
		}
		return c.cannot(name + " runs the commands of a file the hook cannot read, so the paths they touch cannot be checked")
	case slices.Contains(pathShells, name):
		if code, ok := codeArg(name, rest); ok {
			if !c.literalCode(ce, name) {
				return c.cannot(name + " -c runs a script that is built when the command runs, so the paths it reads cannot be checked")
			}
			return c.analyse(code, depth+1)
		}
		if file := scriptArg(rest); file != "" && file != "-" && file != "/dev/stdin" && !slices.Contains(rest, "-s") {
			return nil // a script file: runs like ./script (README: what the layer cannot see)
		}
		switch kind, doc := c.stdin(ce); kind {
		case stdinDoc:
			return c.analyse(doc, depth+1)
		case stdinPipe:
			return c.cannot(name + " reads its script from a pipe, so the commands it runs cannot be checked")
		}
		return nil
	case slices.Contains(interpreters, name):
		if server(name, rest) {
			return c.treeRead(name+" serving files", []string{"."})
		}
		return c.interpreter(ce, name, rest)
	case slices.Contains(copiers, name):
		return c.copier(name, rest)
	case slices.Contains(listers, name):
		return c.lister_(name, rest)
	case name == "grep" || name == "egrep" || name == "fgrep" || name == "zgrep":
		if recursive(rest, "rR", "--recursive", "--dereference-recursive", "--directories=recurse", "-drecurse") || hasPair(rest, "-d", "recurse") || hasPair(rest, "--directories", "recurse") {
			skip := 1 // the pattern, unless -e or -f gives it
			if slices.ContainsFunc(rest, func(a string) bool {
				return a == "-e" || a == "-f" || strings.HasPrefix(a, "--regexp") || strings.HasPrefix(a, "--file") || strings.HasPrefix(a, "-e") && len(a) > 2
			}) {
				skip = 0
			}
			ops := operands(withoutValues(rest, "-e", "-f", "-d", "-m", "-A", "-B", "-C", "--include", "--exclude", "--exclude-dir"), skip)
			if len(ops) == 0 {
				ops = []string{"."} // grep -r with no file searches the cwd
			}
			if !recursive(rest, "R", "--dereference-recursive") {
				ops = c.withoutExcluded(ops, rest)
				if len(ops) == 0 {
					return nil
				}
			}
			return c.treeRead(name+" -r", ops)
		}
	case slices.Contains(treeReaders, name):
		return c.treeReader(name, rest)
	case name == "chmod" || name == "chown" || name == "chgrp" || name == "touch" || name == "mkdir" || name == "stat" || name == "test" || name == "[" || name == "[[" || name == "file" || name == "realpath" || name == "readlink" || name == "basename" || name == "dirname":
		return nil
	}
	return nil
}

// unwrap drops wrapper commands (sudo, env X=y, timeout 5, xargs -0 …) and
// returns the arguments from the command that really runs, with its base
// name.
func unwrap(args []string) ([]string, string) {
	for len(args) > 0 {
		name := path.Base(args[0])
		if !slices.Contains(pathWrappers, name) {
			return args, name
		}
		args = args[1:]
		for len(args) > 0 && (strings.HasPrefix(args[0], "-") || strings.Contains(args[0], "=") || (name == "timeout" && isDuration(args[0]))) {
			args = args[1:]
		}
	}
	return nil, ""
}

func isDuration(s string) bool {
	return strings.TrimRight(strings.TrimLeft(s, "0123456789."), "smhd") == ""
}

func (c *pathCheck) cd(name string, rest []string) {
	target := ""
	for _, a := range rest {
		if a != "--" && !(strings.HasPrefix(a, "-") && a != "-") {
			target = a
			break
		}
	}
	prev := c.cwd
	switch {
	case name == "popd":
		return
	case target == "":
		target = c.env["HOME"]
	case target == "-":
		target = c.oldpwd
	}
	if target == "" || strings.Contains(target, unknownGlob) {
		// An unknown directory: keep judging from the root, where the
		// denied paths are, and from every directory it may be (cd sec*,
		// cd $(echo secret)).
		if c.fs != nil && target != "" {
			if m, err := c.fs.Glob(c.normalise(target)); err == nil {
				for _, d := range m {
					if d = c.resolve(d); !slices.Contains(c.cwds, d) {
						c.cwds = append(c.cwds, d)
					}
				}
			}
		}
		c.cwd = c.p.root
	} else {
		c.cwd = c.normalise(target)
		if c.fs != nil {
			c.cwd = c.resolve(c.cwd)
		}
	}
	c.oldpwd = prev
	if !slices.Contains(c.cwds, c.cwd) {
		c.cwds = append(c.cwds, c.cwd)
	}
}

// codeArg returns the code of -c (pathShells), -e/-E (perl, ruby, node, lua),
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
		if j < len(flags)-1 && !slices.Contains(pathShells, name) && name != "perl" {
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
			return nil // a program file or module (README: what the layer cannot see)
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

// copier: cp/mv/ln/rsync of a denied path or a directory holding one is a
// read of it (the copy or link escapes the rule; the link may not exist
// yet when the hook runs).
func (c *pathCheck) copier(name string, rest []string) *pathDeny {
	ops := operands(rest, 0)
	srcs := ops
	if len(ops) > 1 && !slices.ContainsFunc(rest, func(a string) bool { return a == "-t" || strings.HasPrefix(a, "--target-directory") }) {
		srcs = ops[:len(ops)-1]
	}
	for _, s := range srcs {
		if class, rule, abs := c.classify(s); class != classNone {
			return &pathDeny{rule: rule, why: fmt.Sprintf("%s of %s would copy or link a denied path out of the rule's reach", name, c.show(abs))}
		}
	}
	return nil
}

// lister_: names only, allowed, unless it runs a command per file
// (find -exec) or the line hands its names on.
func (c *pathCheck) lister_(name string, rest []string) *pathDeny {
	ops := operands(rest, 0)
	if name == "find" {
		ops = nil
		for _, a := range rest {
			if strings.HasPrefix(a, "-") || a == "(" || a == "!" {
				break
			}
			ops = append(ops, a)
		}
	}
	if len(ops) == 0 {
		ops = []string{"."}
	}
	if name == "ls" && !recursive(rest, "R", "--recursive") {
		// Plain ls lists a denied directory's own files only when given it.
		for _, o := range ops {
			if class, _, abs := c.classify(o); class == classAncestor {
				if inner, _ := c.classOf(abs + "/x"); inner == classHit {
					c.lister = "ls " + c.show(abs)
					if c.subst {
						c.consumer = "a command substitution"
					}
				}
			}
		}
		return nil
	}
	for _, o := range ops {
		class, rule, abs := c.classify(o)
		if class == classNone {
			continue
		}
		if name == "find" && slices.ContainsFunc(rest, func(a string) bool {
			return a == "-exec" || a == "-execdir" || a == "-ok" || a == "-okdir" || a == "-delete" || a == "-fprint" || a == "-fls"
		}) {
			return &pathDeny{rule: rule, why: fmt.Sprintf("find runs a command on the files below %s, which holds a denied path", c.show(abs))}
		}
		c.lister = name + " " + c.show(abs)
		if c.subst {
			c.consumer = "a command substitution"
		}
	}
	return nil
}

// treeReader: archivers, recursive searchers, git's tree commands.
func (c *pathCheck) treeReader(name string, rest []string) *pathDeny {
	switch name {
	case "tar", "bsdtar":
		mode := ""
		if len(rest) > 0 {
			mode = rest[0]
		}
		if !(strings.ContainsAny(strings.TrimLeft(mode, "-"), "cru") && !strings.HasPrefix(mode, "--") || slices.ContainsFunc(rest, func(a string) bool {
			return a == "--create" || a == "--append" || a == "--update" || a == "-c" || a == "-r" || a == "-u" || strings.HasPrefix(a, "-T") || a == "--files-from"
		})) {
			return nil
		}
		return c.treeRead(name, operands(rest, 1))
	case "zip":
		if !recursive(rest, "rR", "--recurse-paths") {
			return nil
		}
		return c.treeRead(name, operands(rest, 1))
	case "rm", "shred":
		if name == "rm" && !recursive(rest, "rR", "--recursive") {
			return nil
		}
		return c.treeRead(name+" -r", operands(rest, 0))
	case "diff", "colordiff":
		if !recursive(rest, "r", "--recursive") {
			return nil
		}
		return c.treeRead(name+" -r", operands(rest, 0))
	case "git":
		return c.git(rest)
	case "rg", "ag", "ack", "ugrep":
		if slices.Contains(rest, "--files") {
			c.lister = name + " --files"
			return nil
		}
		return c.treeRead(name, operands(rest, 1))
	}
	return c.treeRead(name, operands(rest, 0))
}

// treeRead denies when any operand (the cwd when there is none) is a
// directory that holds a denied path.
func (c *pathCheck) treeRead(what string, ops []string) *pathDeny {
	if len(ops) == 0 {
		ops = []string{"."}
	}
	for _, o := range ops {
		if class, rule, abs := c.classify(o); class != classNone {
			hint := ""
			if strings.HasPrefix(what, "grep -r") {
				hint = " (exclude it with --exclude-dir, or search the directories beside it)"
			}
			return &pathDeny{rule: rule, why: fmt.Sprintf("%s reads every file below %s, which holds a denied path%s", what, c.show(abs), hint)}
		}
	}
	return nil
}

func (c *pathCheck) git(rest []string) *pathDeny {
	saved := c.cwd
	defer func() { c.cwd = saved }()
	i := 0
	for i < len(rest) && strings.HasPrefix(rest[i], "-") {
		if (rest[i] == "-C" || rest[i] == "-c" || rest[i] == "--git-dir" || rest[i] == "--work-tree") && i+1 < len(rest) {
			if rest[i] == "-C" {
				c.cwd = c.normalise(rest[i+1])
			}
			i++
		}
		i++
	}
	if i >= len(rest) {
		return nil
	}
	sub, args := rest[i], rest[i+1:]
	switch sub {
	case "add", "grep", "archive":
		if sub == "add" && slices.ContainsFunc(args, func(a string) bool { return a == "-A" || a == "--all" }) {
			return c.treeRead("git add -A", []string{"."})
		}
		ops := operands(args, 0)
		if sub == "grep" {
			ops = operands(args, 1)
		}
		if sub == "archive" {
			return c.treeRead("git archive", []string{"."})
		}
		if sub == "add" && len(ops) == 0 {
			return nil
		}
		return c.treeRead("git "+sub, ops)
	case "stash":
		if slices.ContainsFunc(args, func(a string) bool { return a == "-u" || a == "--include-untracked" || a == "-a" || a == "--all" }) {
			return c.treeRead("git stash -u", []string{"."})
		}
	case "ls-files":
		// Untracked files are listed by name, denied ones included; the
		// names are then as good as find's (git ls-files -o | xargs cat).
		if slices.ContainsFunc(args, func(a string) bool {
			return a == "--others" || strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a, "o")
		}) {
			ops := operands(args, 0)
			if len(ops) == 0 {
				ops = []string{"."}
			}
			for _, o := range ops {
				if class, _, abs := c.classify(o); class != classNone {
					c.lister = "git ls-files --others " + c.show(abs)
					if c.subst {
						c.consumer = "a command substitution"
					}
				}
			}
		}
	case "cat-file":
		// A blob named by its hash cannot be told apart from any other.
		return c.cannot("git cat-file prints objects by hash, which may be a denied file's content")
	}
	switch sub {
	case "log", "show", "diff", "blame", "annotate", "format-patch", "whatchanged", "grep", "archive", "stash", "difftool":
		// Content from history: a pathspec at or below a denied directory.
		for _, o := range operands(args, 0) {
			if class, rule, abs := c.classify(o); class == classAncestor {
				if inner, _ := c.classOf(abs + "/x"); inner == classHit {
					return &pathDeny{rule: rule, why: fmt.Sprintf("git %s prints the content of %s from history, a denied path", sub, c.show(abs))}
				}
			}
		}
	}
	return nil
}

// operands are the non-option arguments after skip of them (a pattern).
func operands(args []string, skip int) []string {
	var out []string
	dashdash := false
	for _, a := range args {
		if !dashdash && a == "--" {
			dashdash = true
			continue
		}
		if !dashdash && strings.HasPrefix(a, "-") && a != "-" {
			continue
		}
		out = append(out, a)
	}
	if len(out) < skip {
		return nil
	}
	return out[skip:]
}

// recursive reports whether args hold a short flag among letters or one of
// the long forms.
func recursive(args []string, letters string, long ...string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if strings.HasPrefix(a, "--") {
			if slices.Contains(long, a) {
				return true
			}
			continue
		}
		if strings.HasPrefix(a, "-") && strings.ContainsAny(a[1:], letters) {
			return true
		}
	}
	return false
}

// hasPair reports whether args hold flag immediately followed by value.
func hasPair(args []string, flag, value string) bool {
	for i := 0; i+1 < len(args); i++ {
		if args[i] == flag && args[i+1] == value {
			return true
		}
	}
	return false
}

// withoutValues drops the value after each of the given options (-e PAT,
// --include GLOB), so that it is not taken for an operand.
func withoutValues(args []string, flags ...string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		if slices.Contains(flags, args[i]) {
			i++
			continue
		}
		out = append(out, args[i])
	}
	return out
}

// decoder reports whether a command turns encoded text into other text
// (which may be a path): base64 -d, xxd -r, rev, tr, printf with escapes …
func decoder(name string, rest []string) bool {
	switch name {
	case "base64", "base32", "basenc":
		return slices.ContainsFunc(rest, func(a string) bool {
			return a == "-d" || a == "--decode" || strings.HasPrefix(a, "-") && strings.Contains(a, "d") && !strings.HasPrefix(a, "--")
		})
	case "xxd":
		return slices.ContainsFunc(rest, func(a string) bool { return strings.HasPrefix(a, "-r") || a == "-revert" })
	case "openssl", "uudecode", "rev", "tr", "zcat", "gunzip", "gzip", "bzcat", "xzcat", "zstdcat", "unxz", "iconv", "recode", "od", "hexdump":
		return name != "gzip" || slices.Contains(rest, "-d")
	case "printf", "echo":
		for _, a := range rest {
			if strings.Contains(a, "\\") {
				return true
			}
		}
	}
	return false
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
	args, _ = unwrap(args)
	if len(args) == 0 {
		return true
	}
	code, ok := codeArg(name, args[1:])
	return !ok || !strings.Contains(code, nonLiteral)
}

// readers print or copy the contents of the files they are given.
var readers = []string{"cat", "tac", "head", "tail", "less", "more", "most", "nl", "rev", "sort", "uniq", "cut", "paste", "fold", "fmt", "pr",
	"od", "xxd", "hexdump", "hd", "strings", "base64", "base32", "basenc", "grep", "egrep", "fgrep", "zgrep", "rg", "ag", "sed", "awk", "gawk",
	"cp", "mv", "ln", "rsync", "scp", "tar", "zip", "gzip", "bzip2", "xz", "zstd", "dd", "diff", "cmp", "comm", "join", "wc",
	"md5sum", "sha1sum", "sha256sum", "sha512sum", "cksum", "iconv", "jq", "yq", "vi", "vim", "view", "nano", "emacs", "ed", "ex"}

// computed reports whether a word's value is only known when the command
// runs: made of $(…), `…`, or variables the line does not set.
func (c *pathCheck) computed(w *syntax.Word) bool {
	if w == nil || len(w.Parts) == 0 {
		return false
	}
	var unknownPart func(p syntax.WordPart) bool
	unknownPart = func(p syntax.WordPart) bool {
		switch p := p.(type) {
		case *syntax.CmdSubst:
			return !c.safeSubst(p)
		case *syntax.ParamExp:
			if p.Param == nil {
				return true
			}
			switch p.Param.Value {
			case "PWD", "HOME", "OLDPWD":
				return p.Param.Value == "OLDPWD" && c.oldpwd == ""
			}
			v, ok := c.env[p.Param.Value]
			return !ok || v == unknownGlob
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				if !unknownPart(q) {
					return false
				}
			}
			return len(p.Parts) > 0
		}
		return false
	}
	for _, p := range w.Parts {
		if !unknownPart(p) {
			return false
		}
	}
	return true
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

// fileWords are the words of a reader's arguments that may name files:
// for grep, sed, awk and friends, not the pattern or program that comes
// first (unless -e/-f gives it).
func fileWords(name string, args []*syntax.Word) []*syntax.Word {
	switch name {
	case "grep", "egrep", "fgrep", "zgrep", "rg", "ag", "sed", "awk", "gawk", "jq", "yq":
	default:
		return args
	}
	for i, w := range args {
		lit, ok := wordLit(w)
		if ok && (lit == "-e" || lit == "-f" || strings.HasPrefix(lit, "--regexp") || strings.HasPrefix(lit, "--file") || lit == "--expression") {
			return args
		}
		if !ok || !strings.HasPrefix(lit, "-") {
			return append(slices.Clone(args[:i]), args[i+1:]...)
		}
	}
	return args
}

// activation reports whether a sourced file is a virtualenv or shell set-up
// script: sourcing those is everyday work, and they run no more than
// `bash script.sh` would (which the layer does not see into either).
func activation(file string) bool {
	base := path.Base(file)
	return strings.HasSuffix(file, "bin/activate") || base == "nvm.sh" || strings.HasSuffix(file, ".cargo/env") ||
		base == ".bashrc" || base == ".profile" || base == ".bash_profile" || base == ".zshrc"
}

// withoutExcluded drops the grep -r operands whose denied paths below
// are all excluded by --exclude-dir (matched, as grep does, against
// directory names).
func (c *pathCheck) withoutExcluded(ops, args []string) []string {
	var excludes []string
	for i, a := range args {
		if v, ok := strings.CutPrefix(a, "--exclude-dir="); ok {
			excludes = append(excludes, strings.Trim(v, "/"))
		} else if a == "--exclude-dir" && i+1 < len(args) {
			excludes = append(excludes, strings.Trim(args[i+1], "/"))
		}
	}
	if len(excludes) == 0 {
		return ops
	}
	if len(ops) == 0 {
		ops = []string{"."}
	}
	var out []string
	for _, o := range ops {
		abs := c.normalise(o)
		segs := splitPath(abs)
		covered := true
		for _, d := range c.denied {
			if hit, anc := matchSegs(d.segs, segs); !hit && !anc {
				continue
			}
			// The denied pattern's next directory below the operand must
			// be a literal name an --exclude-dir matches.
			next := ""
			if len(d.segs) > len(segs) && slices.Equal(d.segs[:len(segs)], segs) {
				next = d.segs[len(segs)]
			}
			if next == "" || hasMeta(next) || !slices.ContainsFunc(excludes, func(e string) bool { ok, _ := path.Match(e, next); return ok }) {
				covered = false
				break
			}
		}
		if !covered {
			out = append(out, o)
		}
	}
	return out
}

// safeSubst reports whether a command substitution only lists names
// below directories that hold no denied path ($(find src -name '*.go'),
// $(ls src | grep -v _test)): its output cannot name a denied path.
func (c *pathCheck) safeSubst(cs *syntax.CmdSubst) bool {
	if len(cs.Stmts) != 1 {
		return false
	}
	var calls []*syntax.CallExpr
	var flatten func(cmd syntax.Command) bool
	flatten = func(cmd syntax.Command) bool {
		switch cmd := cmd.(type) {
		case *syntax.CallExpr:
			calls = append(calls, cmd)
			return true
		case *syntax.BinaryCmd:
			return cmd.Op == syntax.Pipe && flatten(cmd.X.Cmd) && flatten(cmd.Y.Cmd)
		}
		return false
	}
	if !flatten(cs.Stmts[0].Cmd) || len(calls) == 0 {
		return false
	}
	for i, ce := range calls {
		var args []string
		for _, w := range ce.Args {
			lit, ok := wordLit(w)
			if !ok {
				return false
			}
			args = append(args, lit)
		}
		if len(args) == 0 {
			return false
		}
		name := path.Base(args[0])
		if i > 0 {
			if !slices.Contains([]string{"grep", "sort", "head", "tail", "uniq"}, name) || len(operands(args[1:], 1)) > 0 {
				return false
			}
			continue
		}
		if name != "find" && name != "ls" && name != "fd" || slices.Contains(args, "-L") || slices.Contains(args, "-follow") {
			return false
		}
		ops := operands(args[1:], 0)
		if name == "find" {
			ops = nil
			for _, a := range args[1:] {
				if strings.HasPrefix(a, "-") || a == "(" || a == "!" {
					break
				}
				ops = append(ops, a)
			}
		}
		if name == "fd" {
			ops = operands(args[1:], 1)
		}
		if len(ops) == 0 {
			return false // the cwd, which may hold a denied path
		}
		for _, o := range ops {
			if class, _, _ := c.classify(o); class != classNone {
				return false
			}
		}
	}
	return true
}

// wordLit returns a word's value when it is made only of literals and
// quoted literals.
func wordLit(w *syntax.Word) (string, bool) {
	var b strings.Builder
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			b.WriteString(p.Value)
		case *syntax.SglQuoted:
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				lit, ok := q.(*syntax.Lit)
				if !ok {
					return "", false
				}
				b.WriteString(lit.Value)
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}
