package intercept

// Matching paths against the denied patterns: normalising a token to an
// absolute path from the directories the line may be in, following
// symlinks and globs, and classing it as denied, an ancestor of a denied
// path, or neither.

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/agent-eval/agent-eval/internal/lazyre"
)

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
