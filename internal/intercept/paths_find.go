package intercept

// find's expression, evaluated on the denied files that exist below its
// starting point: a find that can act on none of them (print, -exec,
// -delete) does not read them, whatever else it does.

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/agent-eval/agent-eval/internal/shellname"
)

// tri is a three-valued truth: what a test says of a file, when known.
type tri int

const (
	triFalse tri = iota
	triMaybe
	triTrue
)

func triAnd(a, b tri) tri { return min(a, b) }
func triOr(a, b tri) tri  { return max(a, b) }
func triNot(a tri) tri    { return triTrue - a }

// findNode is a node of a find expression.
type findNode struct {
	op      string // "and", "or", "not", ",", "test", "maybe", "action"
	kids    []*findNode
	test    string // -name, -path, … for op "test"
	pattern string
	match   func(string) bool // the pattern, compiled on first use
}

// findParser reads find's expression from its words after the starting
// points; ok is false for a primary it does not know or -execdir (whose
// command runs in each file's folder, where relative names differ).
type findParser struct {
	words []string
	i     int
	bad   bool
}

// findExpr parses find's arguments (starting points first).
func findExpr(rest []string) (*findNode, bool) {
	i := 0
	for i < len(rest) && !strings.HasPrefix(rest[i], "-") && rest[i] != "(" && rest[i] != "!" {
		i++
	}
	p := &findParser{words: rest[i:]}
	if len(p.words) == 0 {
		return &findNode{op: "maybe"}, true
	}
	n := p.comma()
	if p.bad || p.i < len(p.words) {
		return nil, false
	}
	return n, true
}

func (p *findParser) peek() string {
	if p.i < len(p.words) {
		return p.words[p.i]
	}
	return ""
}

func (p *findParser) comma() *findNode {
	n := p.or()
	for p.peek() == "," {
		p.i++
		n = &findNode{op: ",", kids: []*findNode{n, p.or()}}
	}
	return n
}

func (p *findParser) or() *findNode {
	n := p.and()
	for p.peek() == "-o" || p.peek() == "-or" {
		p.i++
		n = &findNode{op: "or", kids: []*findNode{n, p.and()}}
	}
	return n
}

func (p *findParser) and() *findNode {
	n := p.unary()
	for {
		switch w := p.peek(); w {
		case "-a", "-and":
			p.i++
		case "", "-o", "-or", ",", ")":
			return n
		}
		if p.bad {
			return n
		}
		n = &findNode{op: "and", kids: []*findNode{n, p.unary()}}
	}
}

func (p *findParser) unary() *findNode {
	switch w := p.peek(); w {
	case "!", "-not":
		p.i++
		return &findNode{op: "not", kids: []*findNode{p.unary()}}
	case "(":
		p.i++
		n := p.comma()
		if p.peek() != ")" {
			p.bad = true
			return n
		}
		p.i++
		return n
	case "":
		p.bad = true
		return &findNode{op: "maybe"}
	}
	return p.primary()
}

func (p *findParser) primary() *findNode {
	w := p.words[p.i]
	p.i++
	arg := func() string {
		if p.i >= len(p.words) {
			p.bad = true
			return ""
		}
		p.i++
		return p.words[p.i-1]
	}
	switch w {
	case "-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename":
		// A part only known when it runs reads as *: it can only select more.
		return &findNode{op: "test", test: w, pattern: arg()}
	case "-type", "-xtype", "-maxdepth", "-mindepth", "-mtime", "-mmin", "-newer", "-size", "-user", "-group", "-perm",
		"-atime", "-ctime", "-amin", "-cmin", "-regex", "-iregex", "-regextype", "-lname", "-ilname", "-links", "-inum",
		"-uid", "-gid", "-newermt", "-used", "-fstype", "-samefile", "-context":
		arg()
		return &findNode{op: "maybe"}
	case "-depth", "-xdev", "-mount", "-noleaf", "-nowarn", "-warn", "-ignore_readdir_race", "-daystart":
		return &findNode{op: "test", test: "true"}
	case "-empty", "-readable", "-writable", "-executable", "-nouser", "-nogroup":
		return &findNode{op: "maybe"}
	case "-true":
		return &findNode{op: "test", test: "true"}
	case "-false":
		return &findNode{op: "test", test: "false"}
	case "-prune", "-quit":
		return &findNode{op: "test", test: "true"}
	case "-print", "-print0", "-ls", "-delete":
		return &findNode{op: "action"}
	case "-printf":
		arg()
		return &findNode{op: "action"}
	case "-exec", "-ok":
		// The command runs to ";" or to "{} +".
		for ; p.i < len(p.words); p.i++ {
			if p.words[p.i] == ";" || p.words[p.i] == "+" && p.i > 0 && p.words[p.i-1] == "{}" {
				p.i++
				return &findNode{op: "action"}
			}
		}
		p.bad = true
		return &findNode{op: "action"}
	case "-execdir", "-okdir":
		// The command runs in each file's folder: a relative name in it
		// (../secret/…) means another file there, so none is allowed.
		for ; p.i < len(p.words); p.i++ {
			w := p.words[p.i]
			if w == ";" || w == "+" && p.i > 0 && p.words[p.i-1] == "{}" {
				p.i++
				return &findNode{op: "action"}
			}
			if w != "{}" && (strings.Contains(w, "/") || strings.Contains(w, "..")) {
				p.bad = true
			}
			if j := p.i - 1; j >= 0 && (p.words[j] == "-execdir" || p.words[j] == "-okdir") {
				// The command itself: a shell or interpreter computes names.
				if b := path.Base(w); shellname.Is(b) || b == "env" || b == "xargs" || b == "eval" {
					p.bad = true
				}
			}
			if w == "-c" || w == "-e" || w == "-E" || w == "--eval" {
				p.bad = true // code that computes names in each folder
			}
		}
		p.bad = true
		return &findNode{op: "action"}
	}
	// -fprint and -fls (they write a file), and what the layer does not
	// know.
	p.bad = true
	return &findNode{op: "maybe"}
}

// eval is the expression's value for the file p (find started at the
// operand abs, written op) and whether an action may have run for it.
func (n *findNode) eval(op, abs, p string) (val, acted tri) {
	switch n.op {
	case "test":
		switch n.test {
		case "true":
			return triTrue, triFalse
		case "false":
			return triFalse, triFalse
		}
		// find names a file as its starting point is written, followed by
		// the path below it (find sub/.. names sub/.., whose -name is ..).
		shown := strings.TrimSuffix(op, "/") + strings.TrimPrefix(p, abs)
		if shown == "" {
			shown = op
		}
		subject := path.Base(shown)
		if strings.Contains(n.test, "path") || strings.Contains(n.test, "wholename") {
			subject = shown
		}
		if n.match == nil {
			pat := n.pattern
			if strings.HasPrefix(n.test, "-i") {
				pat = strings.ToLower(pat)
			}
			n.match = globMatcher(pat)
		}
		if strings.HasPrefix(n.test, "-i") {
			subject = strings.ToLower(subject)
		}
		if n.match(subject) {
			return triTrue, triFalse
		}
		return triFalse, triFalse
	case "maybe":
		return triMaybe, triFalse
	case "action":
		return triMaybe, triTrue // -exec's status is its command's
	case "not":
		v, a := n.kids[0].eval(op, abs, p)
		return triNot(v), a
	case "and", "or":
		v1, a1 := n.kids[0].eval(op, abs, p)
		stop := triFalse // the value that ends the evaluation
		if n.op == "or" {
			stop = triTrue
		}
		if v1 == stop {
			return v1, a1
		}
		v2, a2 := n.kids[1].eval(op, abs, p)
		if v1 == triMaybe {
			a2 = min(a2, triMaybe) // the right side may not be reached
		}
		if n.op == "or" {
			return triOr(v1, v2), triOr(a1, a2)
		}
		return triAnd(v1, v2), triOr(a1, a2)
	case ",":
		_, a1 := n.kids[0].eval(op, abs, p)
		v2, a2 := n.kids[1].eval(op, abs, p)
		return v2, triOr(a1, a2)
	}
	return triMaybe, triMaybe
}

// hasAction reports an action anywhere in the expression (else find
// prints what the whole expression selects).
func (n *findNode) hasAction() bool {
	if n.op == "action" {
		return true
	}
	for _, k := range n.kids {
		if k.hasAction() {
			return true
		}
	}
	return false
}

// actsOn reports whether find may act on (print, run a command on, delete)
// the file p.
func (n *findNode) actsOn(op, abs, p string) bool {
	v, a := n.eval(op, abs, p)
	if !n.hasAction() {
		a = v // the implicit -print
	}
	return a != triFalse
}

// globMatcher is fnmatch without FNM_PATHNAME, as find matches: * and ?
// cross /. What it cannot tell it reports as a match.
func globMatcher(pat string) func(string) bool {
	if strings.ContainsAny(pat, `[\`) {
		return func(s string) bool {
			if strings.Contains(s, "/") {
				return true
			}
			ok, err := fnmatch(pat, s)
			return ok || err != nil
		}
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
	return regexp.MustCompile(b.String()).MatchString
}

// findMissesDenied reports that find, started at the operand op (abs),
// can act on none of the denied files and directories below it as they
// exist now, and that nothing below it links into a denied path.
func (c *pathCheck) findMissesDenied(rest []string, op, abs string) bool {
	expr, ok := findExpr(rest)
	if !ok || c.fs == nil {
		return false
	}
	if r, err := c.fs.EvalSymlinks(abs); err != nil || r != abs {
		return false // find link/ follows the link: judged as the target
	}
	entries, ok := c.deniedEntries(abs)
	if !ok || len(entries) == 0 {
		return false
	}
	// The folders from the starting point down to each denied one: a
	// recursive command run on one of them (-exec grep -r) reads it.
	for _, e := range slices.Clone(entries) {
		for d := path.Dir(e); strings.HasPrefix(d+"/", abs+"/"); d = path.Dir(d) {
			entries = append(entries, d)
			if d == abs || d == "/" {
				break
			}
		}
	}
	links, ok := c.linksInto(abs)
	if !ok {
		return false
	}
	entries = append(entries, links...) // find may hand a link to cat, which follows it
	for _, e := range entries {
		if expr.actsOn(op, abs, e) {
			return false
		}
	}
	return true
}

// maxLinkWalk bounds the entries the layer looks at for links into a
// denied path below a find's starting point.
const maxLinkWalk = 5000

// linksInto lists the symbolic links below abs that lead into a denied
// path or a directory holding one (cat follows the link find names); ok
// is false for a tree too large to look at.
func (c *pathCheck) linksInto(abs string) (links []string, ok bool) {
	queue, seen := []string{abs}, 0
	for len(queue) > 0 {
		dir := queue[0]
		queue = queue[1:]
		if class, _ := c.classOf(dir); class == classHit {
			continue // the denied files themselves: judged by name
		}
		kids, err := c.fs.Glob(globEscape(dir) + "/*")
		if err != nil {
			return nil, false
		}
		hidden, _ := c.fs.Glob(globEscape(dir) + "/.*")
		for _, k := range append(kids, hidden...) {
			if seen++; seen > maxLinkWalk {
				return nil, false
			}
			if b := path.Base(k); b == "." || b == ".." {
				continue
			}
			r, err := c.fs.EvalSymlinks(k)
			if err != nil {
				continue // dangling: nothing to read
			}
			if r != k {
				if class, _ := c.classOf(r); class != classNone {
					links = append(links, k)
				}
				continue // find does not follow it
			}
			queue = append(queue, k)
		}
	}
	return links, true
}

// fnmatch matches a shell pattern as fnmatch does where Go's path.Match
// differs: [!x] is a negated class there, a class of ! and x here.
func fnmatch(pat, s string) (bool, error) {
	return path.Match(strings.ReplaceAll(pat, "[!", "[^"), s)
}

// followRead judges a reader that follows symbolic links (grep -R, tar -h,
// zip -r, find -L) over operands that hold no denied path: a link below
// one into a denied path is read through; a tree too large to look at
// cannot be checked.
func (c *pathCheck) followRead(what string, ops []string) *pathDeny {
	if c.fs == nil {
		return nil
	}
	if len(ops) == 0 {
		ops = []string{"."}
	}
	for _, o := range ops {
		class, _, abs := c.classify(o)
		if class != classNone {
			continue // judged as a reader of a folder holding a denied path
		}
		links, ok := c.linksInto(abs)
		if !ok {
			return c.cannot(fmt.Sprintf("%s follows links below %s, too many files for the hook to look for one into a denied path", what, c.show(abs)))
		}
		if len(links) > 0 {
			return &pathDeny{rule: c.denied[0].rule, why: fmt.Sprintf("%s follows links below %s, and %s leads into a denied path", what, c.show(abs), c.show(links[0]))}
		}
	}
	return nil
}
