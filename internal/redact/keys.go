package redact

import "strings"

// name is the key before a separator at p: "pw", 'pw', or a bare name,
// with option dashes dropped.
type name struct {
	text   string
	start  int  // where the name (or its opening quote) begins
	quoted bool // "key" or 'key'
	spaced bool // blanks between the name and the separator
}

func nameBefore(l string, p int) name {
	q := p
	for q > 0 && (l[q-1] == ' ' || l[q-1] == '\t') {
		q--
	}
	n := name{spaced: q < p}
	if q > 0 && isQuote(l[q-1]) {
		quote := l[q-1]
		lo := q - 1 - 64
		if lo < 0 {
			lo = 0
		}
		o := strings.LastIndexByte(l[lo:q-1], quote)
		if o < 0 {
			return n
		}
		o += lo
		n.text, n.start, n.quoted = strings.TrimSuffix(l[o+1:q-1], `\`), o, true
		if o > 0 && l[o-1] == '\\' {
			n.start = o - 1
		}
		return n
	}
	k := q
	for k > 0 && q-k < 128 && isNameChar(l[k-1]) {
		k--
	}
	t := l[k:q]
	// A "\n" escape of text that was not decoded is no part of the name.
	if k > 0 && l[k-1] == '\\' && len(t) > 1 && (t[0] == 'n' || t[0] == 't' || t[0] == 'r') {
		t, k = t[1:], k+1
	}
	n.text, n.start = strings.TrimLeft(t, "-."), k
	return n
}

// atLineStart: only blanks, list dashes, comment and diff marks,
// export-like words and a tool's line prefix (grep's file:12:, cat -n's
// line number) come before position i. Linear over a line: it looks back
// over the blanks and a few words right before i, at most 256 bytes of a
// prefix.
func atLineStart(l string, i int) bool {
	p := strings.TrimRight(l[:i], " \t")
	for k := 0; k < 4 && p != ""; k++ {
		q := p
		for _, w := range []string{"export", "declare -x", "typeset -x", "setenv", "set", "local", "readonly", "-", "#", "//", ";", "--", "*", "+", ">", "<", "|"} {
			if strings.HasSuffix(p, w) && (len(p) == len(w) || p[len(p)-len(w)-1] == ' ' || p[len(p)-len(w)-1] == '\t' || w == "+" || w == "-") {
				q = strings.TrimRight(p[:len(p)-len(w)], " \t")
				break
			}
		}
		if q == p {
			return isLinePrefix(p)
		}
		p = q
	}
	return p == "" || isLinePrefix(p)
}

// isLinePrefix: what tools put before a file's line: grep's "file:",
// "file:12:" or "file-12-", a line number (cat -n, nl).
func isLinePrefix(p string) bool {
	p = strings.TrimLeft(p, " \t")
	if p == "" || len(p) > 256 || strings.ContainsAny(p, " \t") {
		return p == ""
	}
	if strings.Trim(p, "0123456789") == "" {
		return true
	}
	last := p[len(p)-1]
	return last == ':' || (last == '-' && len(p) > 1 && isDigit(p[len(p)-2]))
}

// findAssignments hides the values of NAME=value, name = value,
// name := "value" and 'name' => 'value' for secret names.
func findAssignments(l string, sp *spans) {
	for off := 0; off < len(l); {
		i := strings.IndexByte(l[off:], '=')
		if i < 0 {
			return
		}
		i += off
		off = i + 1
		if i+1 < len(l) && (l[i+1] == '=' || l[i+1] == '~') {
			off = i + 2
			continue
		}
		if i > 0 && strings.IndexByte("=!<>", l[i-1]) >= 0 {
			continue
		}
		v := i + 1
		sepStart := i
		if i > 0 && l[i-1] == ':' {
			sepStart = i - 1
		}
		arrow := v < len(l) && l[v] == '>'
		if arrow {
			v++
		}
		n := nameBefore(l, sepStart)
		if !SecretName(n.text) {
			continue
		}
		for v < len(l) && (l[v] == ' ' || l[v] == '\t') {
			v++
		}
		if v > i+1 && !n.spaced && !arrow && sepStart == i {
			continue // TOKEN= cmd: an empty value, as the shell reads it
		}
		spaced := n.spaced || arrow || sepStart < i
		mode := token
		switch {
		case spaced && atLineStart(l, n.start):
			mode = restOfLine
		case !spaced && atLineStart(l, n.start) && !strings.Contains(l[v:], " "):
			mode = restOfLine
		}
		if e := hideValue(l, v, mode, spaced, false, sp); e > off {
			off = e
		}
	}
}

type valueMode int

const (
	token      valueMode = iota // up to a blank or a shell operator
	restOfLine                  // the rest of the line (a comment cut off)
	scalar                      // a JSON or flow scalar: up to , } ] or a blank
)

// hideValue hides the value that starts at v and returns where it ends.
// code: the line may be source code, whose unquoted values (calls,
// attribute chains, keywords) are not literals.
func hideValue(l string, v int, mode valueMode, code, header bool, sp *spans) int {
	if v >= len(l) {
		return v
	}
	if q := l[v]; isQuote(q) {
		e := closingQuote(l, v)
		if e < 0 {
			// No closing quote: the value runs to the line's end.
			if v+1 < len(l) {
				sp.add(v+1, len(l))
			}
			return len(l)
		}
		if e > v+1 && !isReference(l[v+1:e]) {
			sp.add(v+1, e)
		}
		return e + 1
	}
	e := v
	switch mode {
	case restOfLine:
		e = len(l)
		if c := strings.Index(l[v:], " #"); c >= 0 {
			e = v + c
		}
		for e > v && (l[e-1] == ' ' || l[e-1] == '\t') {
			e--
		}
	case token:
		for e < len(l) && !isSpace(l[e]) && strings.IndexByte(";&|'\"<>()`", l[e]) < 0 {
			e++
		}
	case scalar:
		for e < len(l) && !isSpace(l[e]) && strings.IndexByte(",}])'\";", l[e]) < 0 {
			e++
		}
	}
	val := strings.TrimRight(l[v:e], ",;")
	if val == "" || isReference(val) || isKeyword(val) || (code && isCode(val)) {
		return e
	}
	if header {
		// Authorization: Bearer X keeps its scheme word.
		if sch, _, ok := strings.Cut(val, " "); ok && isScheme(sch) {
			v += len(sch) + 1
			for v < e && l[v] == ' ' {
				v++
			}
		}
	}
	if v < e {
		sp.add(v, e)
	}
	return e
}

// closingQuote is the index of the quote that closes the one at v, or -1.
func closingQuote(l string, v int) int {
	q := l[v]
	for i := v + 1; i < len(l); i++ {
		switch l[i] {
		case '\\':
			if q != '\'' {
				i++
			}
		case q:
			return i
		}
	}
	return -1
}

// isReference: $NAME, ${NAME}, $(cmd), {{ x }}, <placeholder>: where a
// secret comes from, not the secret.
func isReference(v string) bool {
	switch {
	case strings.HasPrefix(v, "${") && strings.HasSuffix(v, "}") && !strings.ContainsAny(v, " \t"):
		return true
	case strings.HasPrefix(v, "$(") || strings.HasPrefix(v, "{{") || strings.HasPrefix(v, "%{"):
		return true
	case strings.HasPrefix(v, "<") && strings.HasSuffix(v, ">") && len(v) > 2:
		return true
	case len(v) > 1 && v[0] == '$':
		for i := 1; i < len(v); i++ {
			if !isAlpha(v[i]) && !isDigit(v[i]) && v[i] != '_' {
				return false
			}
		}
		return true
	}
	return strings.HasPrefix(v, Mark)
}

var keywords = map[string]bool{
	"none": true, "null": true, "nil": true, "true": true, "false": true, "undefined": true, "yes": true, "no": true,
	"on": true, "off": true, "str": true, "string": true, "bytes": true, "int": true, "bool": true, "any": true,
	"optional": true, "secretstr": true, "required": true, "[]": true, "{}": true, "''": true, `""`: true, "-": true,
	"*": true, "***": true, "...": true, "…": true, "|": true, ">": true, "?": true, "string;": true, "str,": true,
}

func isKeyword(v string) bool { return len(v) <= 10 && keywords[strings.ToLower(v)] }

// isCode: an unquoted value that is source code rather than a literal — a
// call or an index (getpass(), os.environ["X"]), an attribute chain of
// plain identifiers (self.password, process.env.TOKEN) or an expression
// that starts with a keyword (await, new, lambda).
func isCode(v string) bool {
	w := v
	if i := strings.IndexAny(w, " \t"); i >= 0 {
		switch w[:i] {
		case "await", "new", "lambda", "function", "async", "yield", "not", "if", "await!", "try", "typeof":
			return true
		}
	}
	i := 0
	for i < len(w) && (isAlpha(w[i]) || isDigit(w[i]) || w[i] == '_' || w[i] == '.') {
		i++
	}
	if i == 0 {
		return false
	}
	if i < len(w) && (w[i] == '(' || w[i] == '[') && isIdentChain(w[:i]) {
		return true
	}
	return i == len(w) && strings.Contains(w, ".") && isIdentChain(w) && plainRoot(w)
}

// isIdentChain: a.b.c of identifiers.
func isIdentChain(s string) bool {
	for _, p := range strings.Split(s, ".") {
		if p == "" || isDigit(p[0]) {
			return false
		}
	}
	return true
}

// plainRoot: the chain's first part reads as a word of code (lower-case
// letters and '_', short), not as the start of a token (ya29.…, eyJ…).
func plainRoot(s string) bool {
	root, _, _ := strings.Cut(s, ".")
	if len(root) > 16 {
		return false
	}
	for i := 0; i < len(root); i++ {
		if !('a' <= root[i] && root[i] <= 'z') && root[i] != '_' {
			return false
		}
	}
	return true
}

func isScheme(w string) bool {
	switch strings.ToLower(w) {
	case "bearer", "basic", "token", "digest", "negotiate", "apikey", "bot", "key", "sso-key", "aws4-hmac-sha256", "dpop", "mac":
		return true
	}
	return false
}

// findKeys hides the values of "key": value (JSON and its kin, anywhere),
// key: value at a line's start (YAML, HTTP headers, Go struct literals),
// key: "value" after { , or (, and header-like Name-With-Dashes: value
// after a blank or a quote (curl -H 'X-Api-Key: …').
func findKeys(l string, st *state, sp *spans) {
	for off := 0; off < len(l); {
		i := strings.IndexByte(l[off:], ':')
		if i < 0 {
			return
		}
		i += off
		off = i + 1
		next := byte(0)
		if i+1 < len(l) {
			next = l[i+1]
		}
		if next == ':' || next == '=' || (i > 0 && l[i-1] == ':') {
			off = i + 2
			continue
		}
		n := nameBefore(l, i)
		if n.text == "" || !SecretName(n.text) {
			continue
		}
		lineStart := atLineStart(l, n.start)
		prev := byte(0) // what comes right before the name
		if n.start > 0 {
			prev = l[n.start-1]
		}
		header := isHeaderName(n.text)
		v := i + 1
		for v < len(l) && (l[v] == ' ' || l[v] == '\t') {
			v++
		}
		quotedValue := v < len(l) && isQuote(l[v])
		mode := scalar
		if header && !n.quoted && !quotedValue {
			// A header's value runs to the quote that opened the header
			// (curl -H 'Authorization: Bearer X'), else to the line's end.
			e := len(l)
			if isQuote(prev) {
				if q := strings.IndexByte(l[v:], prev); q >= 0 {
					e = v + q
				}
			}
			hideHeader(l[:e], v, sp)
			off = maxInt(off, e)
			continue
		}
		switch {
		case n.quoted:
		case lineStart:
			if next != 0 && next != ' ' && next != '\t' && !isQuote(next) && (next == '/' || next == '\\' || isDigit(next)) {
				continue // not a key: a URL, a drive, a time
			}
			mode = restOfLine
		case quotedValue && (next == ' ' || next == '\t' || isQuote(next)):
			// key: "value" anywhere: a quoted literal after a secret key.
		case next == ' ' || next == '\t':
			// key: value anywhere else (a YAML flow, a log line): the one
			// word after it.
		case next != 0 && next != '/' && strings.ToUpper(n.text) == n.text && strings.Contains(n.text, "_"):
			// DB_PASSWORD:value, an environment variable's spelling.
		default:
			continue
		}
		if lineStart && !n.quoted && !quotedValue && v < len(l) && (l[v] == '|' || l[v] == '>') &&
			strings.Trim(l[v:], "|>-+0123456789 \t") == "" {
			st.blockIndent = indentOf(l)
			return
		}
		if e := hideValue(l, v, mode, !n.quoted || !quotedValue, header, sp); e > off {
			off = e
		}
	}
}

// hideHeader hides a header value from v to the end of l, its scheme word
// kept.
func hideHeader(l string, v int, sp *spans) {
	val := strings.TrimRight(l[v:], " \t")
	if val == "" || isReference(val) {
		return
	}
	if sch, _, ok := strings.Cut(val, " "); ok && isScheme(sch) {
		v += len(sch) + 1
		for v < len(l) && l[v] == ' ' {
			v++
		}
	}
	if e := v + len(strings.TrimRight(l[v:], " \t")); e > v {
		sp.add(v, e)
	}
}

// isHeaderName: a name spelled like an HTTP header that carries a
// credential.
func isHeaderName(n string) bool {
	switch strings.ToLower(n) {
	case "authorization", "proxy-authorization", "cookie", "set-cookie", "private-token", "job-token", "deploy-token":
		return true
	}
	return strings.Contains(n, "-")
}
