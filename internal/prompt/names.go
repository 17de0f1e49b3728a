package prompt

import (
	"slices"
	"strings"
)

// A Ref is one variable a Jinja2 template reads: its path from the top
// (input.a.b is ["input", "a", "b"], a bare prompt is ["prompt"]), and
// whether the template itself allows it to be absent (it tests it with
// "is defined" or gives it a "| default").
type Ref struct {
	Path     []string
	Optional bool
}

// Name is the ref's path joined with dots.
func (r Ref) Name() string { return strings.Join(r.Path, ".") }

// jinjaWords are the names a Jinja2 expression or tag uses that are not
// variables: keywords, literals, and the globals every template has.
var jinjaWords = []string{
	"and", "or", "not", "in", "is", "if", "else", "elif", "endif", "for", "endfor", "set", "endset",
	"true", "false", "none", "True", "False", "None", "loop", "recursive", "raw", "endraw",
	"macro", "endmacro", "call", "endcall", "filter", "endfilter", "with", "endwith", "without",
	"include", "import", "from", "as", "block", "endblock", "extends", "context", "ignore", "missing",
	"break", "continue", "do", "range", "namespace", "dict", "lipsum", "cycler", "joiner", "caller", "varargs", "kwargs",
}

type token struct {
	kind byte // 'n' name, 's' string, '0' number, 'p' punctuation
	text string
}

// tokens splits a tag's inside into Jinja2 tokens (operators one
// character each, which is all Refs needs).
func tokens(s string) []token {
	var out []token
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '\'' || c == '"':
			j := i + 1
			for j < len(s) && s[j] != c {
				if s[j] == '\\' {
					j++
				}
				j++
			}
			end := min(j, len(s))
			out = append(out, token{'s', s[min(i+1, end):end]})
			i = end + 1
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			j := i + 1
			for j < len(s) && (s[j] == '_' || s[j] >= 'a' && s[j] <= 'z' || s[j] >= 'A' && s[j] <= 'Z' || s[j] >= '0' && s[j] <= '9') {
				j++
			}
			out = append(out, token{'n', s[i:j]})
			i = j
		case c >= '0' && c <= '9':
			j := i + 1
			for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == '.' || s[j] == '_') {
				j++
			}
			out = append(out, token{'0', s[i:j]})
			i = j
		default:
			out = append(out, token{'p', string(c)})
			i++
		}
	}
	return out
}

// Refs lists the variables a Jinja2 template reads, each path once (a
// path read both plainly and guarded counts as guarded): a name an
// expression starts with, with the attributes (.x) and constant keys
// (['x']) that follow it. A method call's name (input.get(...)) is not
// part of the path; filters, tests, keyword arguments, the template's own
// loop and set names, and Jinja's globals are not variables. A template
// without {{ or {% reads none.
func Refs(tpl string) []Ref {
	tags := jinjaTagRE().FindAllString(tpl, -1)
	bound := map[string]bool{}
	var all [][]token
	for _, tag := range tags {
		toks := tokens(tag[2 : len(tag)-2])
		if len(toks) > 0 && toks[0].text == "-" || len(toks) > 0 && toks[0].text == "+" {
			toks = toks[1:]
		}
		all = append(all, toks)
		if len(toks) == 0 || !strings.HasPrefix(tag, "{%") {
			continue
		}
		switch toks[0].text {
		case "for": // for a, b in ...
			for _, t := range toks[1:] {
				if t.text == "in" {
					break
				}
				if t.kind == 'n' {
					bound[t.text] = true
				}
			}
		case "set", "macro", "with": // set x = ..., macro m(a, b=1), with a = 1
			for j, t := range toks[1:] {
				if t.kind == 'n' && (j == 0 || toks[j].text == "," || toks[j].text == "(") {
					bound[t.text] = true
				}
			}
		}
	}
	var refs []Ref
	seen := map[string]int{}
	for _, toks := range all {
		for i := 0; i < len(toks); i++ {
			t := toks[i]
			if t.kind != 'n' || slices.Contains(jinjaWords, t.text) || bound[t.text] {
				continue
			}
			if i > 0 {
				if p := toks[i-1].text; p == "." || p == "|" || p == "is" || p == "filter" || p == "import" || p == "as" ||
					p == "not" && i > 1 && toks[i-2].text == "is" {
					continue // an attribute, a filter or a test
				}
			}
			path := []string{t.text}
			j := i + 1
			for j < len(toks) {
				if toks[j].text == "." && j+1 < len(toks) && toks[j+1].kind == 'n' {
					path = append(path, toks[j+1].text)
					j += 2
					continue
				}
				if toks[j].text == "[" && j+2 < len(toks) && toks[j+1].kind == 's' && toks[j+2].text == "]" {
					path = append(path, toks[j+1].text)
					j += 3
					continue
				}
				break
			}
			next := func(k int) string {
				if j+k < len(toks) {
					return toks[j+k].text
				}
				return ""
			}
			optional := false
			switch {
			case next(0) == "(":
				path = path[:len(path)-1] // a method (input.get) or a function
			case next(0) == "=" && next(1) != "=":
				path = nil // a keyword argument's name
			case next(0) == "is" && (next(1) == "defined" || next(1) == "undefined" || next(1) == "not" && next(2) == "defined"):
				optional = true
			case next(0) == "|" && (next(1) == "default" || next(1) == "d"):
				optional = true
			}
			i = j - 1
			if len(path) == 0 {
				continue
			}
			name := strings.Join(path, ".")
			if k, ok := seen[name]; ok {
				refs[k].Optional = refs[k].Optional || optional
				continue
			}
			seen[name] = len(refs)
			refs = append(refs, Ref{Path: path, Optional: optional})
		}
	}
	return refs
}
