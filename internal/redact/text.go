package redact

import (
	"encoding/json"
	"slices"
	"sort"
	"strings"
)

// state is what a text's earlier lines say about the next ones: inside a
// private key block, or inside the block scalar of a secret YAML key.
type state struct {
	keyBlock    bool
	blockIndent int // ≥ 0: a secret key's block scalar, deeper than this
	// userinfo: the user names and passwords of the URLs met so far,
	// hidden wherever else they appear (a proxy's user name printed on a
	// line of its own).
	userinfo []string
}

func newState() state { return state{blockIndent: -1} }

// text redacts s line by line, carrying st from line to line.
func (r *Redactor) text(s string, st *state) string {
	st.learnUserinfo(s)
	var b []byte // nil until a line changes
	start := 0
	for start < len(s) {
		end := strings.IndexByte(s[start:], '\n')
		if end < 0 {
			end = len(s)
		} else {
			end += start + 1
		}
		line := s[start:end]
		red := r.line(line, st)
		if b == nil && red != line {
			b = make([]byte, 0, len(s)+16)
			b = append(b, s[:start]...)
		}
		if b != nil {
			b = append(b, red...)
		}
		start = end
	}
	if b == nil {
		return s
	}
	return string(b)
}

// line redacts one line (its ending kept): a JSON document as JSON, else
// the known values, then the patterns.
func (r *Redactor) line(line string, st *state) string {
	body := strings.TrimRight(line, "\r\n")
	eol := line[len(body):]
	if t := strings.TrimSpace(body); len(t) > 1 && !st.keyBlock && st.blockIndent < 0 &&
		((t[0] == '{' && t[len(t)-1] == '}') || (t[0] == '[' && t[len(t)-1] == ']')) && json.Valid([]byte(t)) {
		i := strings.Index(body, t)
		return body[:i] + string(r.json([]byte(t))) + body[i+len(t):] + eol
	}
	body = r.known(body)
	if len(st.userinfo) > 0 {
		st.learnUserinfo(body)
		for _, u := range st.userinfo {
			if strings.Contains(body, u) {
				body = strings.ReplaceAll(body, u, Mark)
			}
		}
	}
	var sp spans
	findAll(body, st, &sp)
	return sp.apply(body) + eol
}

// findAll adds the spans of l that hold a credential.
func findAll(l string, st *state, sp *spans) {
	if st.keyBlock {
		i := strings.Index(l, "-----END ")
		if i < 0 || !strings.Contains(l[i:], "PRIVATE KEY") {
			sp.add(0, len(l))
			return
		}
		sp.add(0, i)
		st.keyBlock = false
	}
	if st.blockIndent >= 0 {
		if strings.TrimSpace(l) != "" {
			if ind := indentOf(l); ind > st.blockIndent {
				sp.add(ind, len(l))
				return
			}
			st.blockIndent = -1
		} else {
			return
		}
	}
	findKeyBlocks(l, st, sp)
	findUserinfo(l, sp)
	if strings.IndexByte(l, '=') >= 0 {
		findAssignments(l, sp)
	}
	if strings.IndexByte(l, ':') >= 0 {
		findKeys(l, st, sp)
	}
	if strings.IndexByte(l, '-') >= 0 {
		findOptions(l, sp)
	}
	findBearer(l, sp)
	findNetrc(l, sp)
	findTokens(l, sp)
}

// findNetrc hides the password of a .netrc line (machine h login u
// password X), whose keys and values are only blank-separated.
func findNetrc(l string, sp *spans) {
	if !strings.Contains(l, "passw") && !strings.Contains(l, "account") {
		return
	}
	f := strings.Fields(l)
	if len(f) == 2 && (f[0] == "password" || f[0] == "passwd") {
		// A .netrc spread over lines: "  password X".
		sp.add(strings.LastIndex(l, f[1]), strings.LastIndex(l, f[1])+len(f[1]))
		return
	}
	if !strings.Contains(l, "machine") && !strings.Contains(l, "login") && !strings.Contains(l, "default") {
		return
	}
	for k := 0; k+1 < len(f); k++ {
		if f[k] == "password" || f[k] == "passwd" || f[k] == "account" {
			// The k+1th field's position: search after the keyword.
			at := 0
			for j := 0; j <= k; j++ {
				at = strings.Index(l[at:], f[j]) + at + len(f[j])
			}
			if v := strings.Index(l[at:], f[k+1]); v >= 0 {
				sp.add(at+v, at+v+len(f[k+1]))
			}
		}
	}
}

// learnUserinfo adds the user names and passwords of s's URLs (long
// enough not to be a word) to st.userinfo.
func (st *state) learnUserinfo(s string) {
	if !strings.Contains(s, "@") || (!strings.Contains(s, "://") && !strings.Contains(s, `:\/\/`)) {
		return
	}
	var sp spans
	findUserinfo(s, &sp)
	for _, x := range sp {
		user, pw, _ := strings.Cut(s[x.start:x.end], ":")
		for _, v := range []string{user, pw} {
			if len(v) >= MinSecretLen && v != Mark && !slices.Contains(st.userinfo, v) && len(st.userinfo) < 64 {
				st.userinfo = append(st.userinfo, v)
			}
		}
	}
}

func indentOf(l string) int {
	i := 0
	for i < len(l) && (l[i] == ' ' || l[i] == '\t') {
		i++
	}
	return i
}

// findKeyBlocks hides the body of -----BEGIN … PRIVATE KEY----- blocks;
// one not ended on this line goes on until its END line.
func findKeyBlocks(l string, st *state, sp *spans) {
	for off := 0; ; {
		i := strings.Index(l[off:], "-----BEGIN ")
		if i < 0 {
			return
		}
		i += off
		j := strings.Index(l[i+11:], "-----")
		if j < 0 || j > 40 {
			off = i + 11
			continue
		}
		label := l[i+11 : i+11+j]
		body := i + 11 + j + 5
		if !strings.Contains(label, "PRIVATE KEY") {
			off = body
			continue
		}
		e := strings.Index(l[body:], "-----END ")
		if e < 0 {
			sp.add(body, len(l))
			st.keyBlock = true
			return
		}
		sp.add(body, body+e)
		off = body + e + 9
	}
}

// findUserinfo hides the userinfo of scheme://userinfo@host URLs. The
// userinfo stops at the first character a host part cannot follow; '@'
// inside a password must be percent-encoded, so the first '@' ends it.
func findUserinfo(l string, sp *spans) {
	if strings.IndexByte(l, '@') < 0 {
		return
	}
	for off := 0; ; {
		i := strings.Index(l[off:], "://")
		sep := 3
		if k := strings.Index(l[off:], `:\/\/`); k >= 0 && (i < 0 || k < i) {
			i, sep = k, 5 // JSON text that escaped its slashes
		}
		if i < 0 {
			return
		}
		i += off
		off = i + sep
		j := i
		for j > 0 && isSchemeChar(l[j-1]) {
			j--
		}
		for j < i && !isAlpha(l[j]) {
			j++
		}
		if j == i {
			continue
		}
		k := i + sep
		for k < len(l) && !stopsUserinfo(l[k]) {
			k++
		}
		if k < len(l) && l[k] == '@' && k > i+sep {
			sp.add(i+sep, k)
		}
	}
}

func isSchemeChar(c byte) bool {
	return isAlpha(c) || isDigit(c) || c == '+' || c == '.' || c == '-'
}

func stopsUserinfo(c byte) bool {
	switch c {
	case '/', '?', '#', '@', ' ', '\t', '\r', '\n', '\'', '"', '<', '>', '\\', '`':
		return true
	}
	return false
}

func isAlpha(c byte) bool { return ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') }
func isDigit(c byte) bool { return '0' <= c && c <= '9' }
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }
func isQuote(c byte) bool { return c == '"' || c == '\'' || c == '`' }
func isNameChar(c byte) bool {
	return isAlpha(c) || isDigit(c) || c == '_' || c == '-' || c == '.'
}

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

// findOptions hides the values of credential options on a command line:
// --password X, --token 'X', -u user:X, --user user:X, mysql -pX,
// sshpass -p X, redis-cli -a X. --name=X is an assignment.
func findOptions(l string, sp *spans) {
	mysqlLike := strings.Contains(l, "mysql") || strings.Contains(l, "mariadb")
	sshpass := strings.Contains(l, "sshpass")
	redis := strings.Contains(l, "redis-cli")
	for off := 0; off < len(l); {
		i := strings.IndexByte(l[off:], '-')
		if i < 0 {
			return
		}
		i += off
		off = i + 1
		if i > 0 && !isSpace(l[i-1]) && !isQuote(l[i-1]) {
			continue
		}
		e := i
		for e < len(l) && (isAlpha(l[e]) || isDigit(l[e]) || l[e] == '-' || l[e] == '_') {
			e++
		}
		opt := l[i:e]
		if len(opt) < 2 || (e < len(l) && l[e] == '=') {
			continue
		}
		next := e
		for next < len(l) && (l[next] == ' ' || l[next] == '\t') {
			next++
		}
		hasNext := next > e && next < len(l) && l[next] != '-'
		switch {
		case opt == "-u" || opt == "-U" || opt == "--user" || opt == "--proxy-user":
			if hasNext {
				hideUserPass(l, next, sp)
			}
		case strings.HasPrefix(opt, "-u") && len(opt) > 2 && opt[2] != '-' && e < len(l) && l[e] == ':':
			hideUserPass(l, i+2, sp)
		case strings.HasPrefix(opt, "--"):
			if hasNext && (SecretName(opt[2:]) || opt == "--pass") {
				off = maxInt(off, hideValue(l, next, token, false, false, sp))
			}
		case opt == "-p" && sshpass && hasNext:
			off = maxInt(off, hideValue(l, next, token, false, false, sp))
		case strings.HasPrefix(opt, "-p") && (len(opt) > 2 || (e < len(l) && isQuote(l[e]))) && (mysqlLike || sshpass):
			// The password attached to -p; a quote may follow (-p'x').
			off = maxInt(off, hideValue(l, i+2, token, false, false, sp))
		case opt == "-a" && redis && hasNext:
			off = maxInt(off, hideValue(l, next, token, false, false, sp))
		}
	}
}

// hideUserPass hides the password of user:password starting at v.
func hideUserPass(l string, v int, sp *spans) {
	e := v
	q := byte(0)
	if isQuote(l[v]) {
		q = l[v]
		v++
		e = v
	}
	for e < len(l) && ((q == 0 && !isSpace(l[e]) && !isQuote(l[e])) || (q != 0 && l[e] != q)) {
		e++
	}
	if c := strings.IndexByte(l[v:e], ':'); c >= 0 && v+c+1 < e {
		sp.add(v+c+1, e)
	}
}

func maxInt(a, b int) int {
	if a > b {
		return a
	}
	return b
}

// findBearer hides a bearer or basic credential outside a header
// (long enough not to be a word of prose: "Basic authentication" stays).
func findBearer(l string, sp *spans) {
	for _, w := range []string{"earer", "EARER", "asic", "ASIC"} {
		for off := 0; off < len(l); {
			i := strings.Index(l[off:], w)
			if i < 0 {
				break
			}
			i += off
			off = i + len(w)
			if i == 0 || lower(l[i-1]) != 'b' || (i > 1 && (isAlpha(l[i-2]) || isDigit(l[i-2]))) {
				continue
			}
			v := off
			for v < len(l) && (l[v] == ' ' || l[v] == '\t') {
				v++
			}
			if v == off {
				continue
			}
			e := v
			for e < len(l) && (isAlpha(l[e]) || isDigit(l[e]) || strings.IndexByte("._~+/-", l[e]) >= 0) {
				e++
			}
			if e-v < 16 {
				continue
			}
			for e < len(l) && l[e] == '=' {
				e++
			}
			sp.add(v, e)
			off = e
		}
	}
}

// tokenShape is a credential recognisable by its prefix alone.
type tokenShape struct {
	prefix string
	chars  charClass
	min    int  // characters after the prefix, at least
	exact  bool // exactly min
	mixed  bool // the rest needs a digit and a letter (not a word-and-dash name)
}

// charClass indexes classes: the characters a token shape's body is made
// of.
type charClass uint8

const (
	alnum charClass = iota
	alnumUS
	alnumDash
	base64url
	base64std
	upperDigit
	lowerHex
	slackPath
	numClasses
)

var classes = [numClasses]func(byte) bool{isAlnum, isAlnumUS, isAlnumDash, isBase64url, isBase64std, isUpperDigit, isLowerHex,
	func(c byte) bool { return isAlnum(c) || c == '/' }}

func isAlnum(c byte) bool      { return isAlpha(c) || isDigit(c) }
func isAlnumUS(c byte) bool    { return isAlnum(c) || c == '_' }
func isAlnumDash(c byte) bool  { return isAlnum(c) || c == '-' }
func isBase64url(c byte) bool  { return isAlnum(c) || c == '_' || c == '-' }
func isBase64std(c byte) bool  { return isAlnum(c) || c == '+' || c == '/' || c == '=' }
func isUpperDigit(c byte) bool { return ('A' <= c && c <= 'Z') || isDigit(c) }
func isLowerHex(c byte) bool   { return isDigit(c) || ('a' <= c && c <= 'f') }

var tokenShapes = []tokenShape{
	{prefix: "ghp_", chars: alnum, min: 20}, {prefix: "gho_", chars: alnum, min: 20}, {prefix: "ghu_", chars: alnum, min: 20},
	{prefix: "ghs_", chars: alnum, min: 20}, {prefix: "ghr_", chars: alnum, min: 20}, {prefix: "github_pat_", chars: alnumUS, min: 20},
	{prefix: "glpat-", chars: base64url, min: 16}, {prefix: "gldt-", chars: base64url, min: 16}, {prefix: "glrt-", chars: base64url, min: 16},
	{prefix: "xoxa-", chars: alnumDash, min: 10}, {prefix: "xoxb-", chars: alnumDash, min: 10}, {prefix: "xoxp-", chars: alnumDash, min: 10},
	{prefix: "xoxr-", chars: alnumDash, min: 10}, {prefix: "xoxs-", chars: alnumDash, min: 10}, {prefix: "xoxe-", chars: alnumDash, min: 10},
	{prefix: "xapp-", chars: alnumDash, min: 10},
	{prefix: "sk-", chars: base64url, min: 20, mixed: true}, {prefix: "sk_live_", chars: alnum, min: 16}, {prefix: "sk_test_", chars: alnum, min: 16},
	{prefix: "rk_live_", chars: alnum, min: 16}, {prefix: "whsec_", chars: alnum, min: 16},
	{prefix: "AKIA", chars: upperDigit, min: 16, exact: true}, {prefix: "ASIA", chars: upperDigit, min: 16, exact: true},
	{prefix: "AIza", chars: base64url, min: 30}, {prefix: "ya29.", chars: base64url, min: 20, mixed: true},
	{prefix: "npm_", chars: alnum, min: 36}, {prefix: "pypi-AgE", chars: base64url, min: 40}, {prefix: "hf_", chars: alnum, min: 30, mixed: true},
	{prefix: "dop_v1_", chars: lowerHex, min: 64}, {prefix: "shpat_", chars: alnum, min: 32}, {prefix: "shpss_", chars: alnum, min: 32},
	{prefix: "AGE-SECRET-KEY-1", chars: upperDigit, min: 40}, {prefix: "SG.", chars: base64url, min: 20, mixed: true},
	{prefix: "b3BlbnNzaC1rZXktdjE", chars: base64std, min: 8}, // an OpenSSH private key's body
	{prefix: "hooks.slack.com/services/", chars: slackPath, min: 20},
	{prefix: "eyJ", chars: base64url, min: 10}, // a JWT, checked by isJWT
}

// tokenStart marks the byte pairs a token shape begins with, so a line is
// scanned once, not once per shape.
var tokenStart = func() (t [1 << 16]bool) {
	for _, s := range tokenShapes {
		t[uint16(s.prefix[0])<<8|uint16(s.prefix[1])] = true
	}
	return t
}()

// tokenRun is a cached run of a class of characters: every start inside
// it ends at end, and the suffix from off holds a digit (a letter) when
// lastDigit (lastLetter) ≥ off. The cache keeps findTokens linear on a
// line made of one prefix over and over.
type tokenRun struct{ end, lastDigit, lastLetter int }

// findTokens hides credentials recognisable by their shape.
func findTokens(l string, sp *spans) {
	var runs [numClasses]tokenRun
	jwtFrom, jwtTo := -1, -1 // jwtRest's answer for a header ending at jwtFrom
	for i := 0; i+1 < len(l); i++ {
		if !tokenStart[uint16(l[i])<<8|uint16(l[i+1])] {
			continue
		}
		if i > 0 && isAlnum(l[i-1]) && !escapeBefore(l, i) {
			continue
		}
		for k := range tokenShapes {
			t := &tokenShapes[k]
			if !strings.HasPrefix(l[i:], t.prefix) || (i > 0 && l[i-1] == '_' && t.prefix[0] != 'h') {
				continue
			}
			off := i + len(t.prefix)
			rn, chars := &runs[t.chars], classes[t.chars]
			if off >= rn.end {
				*rn = tokenRun{end: off, lastDigit: -1, lastLetter: -1}
				for rn.end < len(l) && chars(l[rn.end]) {
					switch c := l[rn.end]; {
					case isDigit(c):
						rn.lastDigit = rn.end
					case isAlpha(c):
						rn.lastLetter = rn.end
					}
					rn.end++
				}
			}
			e := rn.end
			n := e - off
			if n < t.min || (t.exact && n != t.min) || (t.mixed && (rn.lastDigit < off || rn.lastLetter < off)) {
				continue
			}
			if t.prefix == "eyJ" {
				if e != jwtFrom {
					jwtFrom, jwtTo = e, jwtRest(l, e)
				}
				if jwtTo < 0 {
					continue
				}
				e = jwtTo
			}
			sp.add(i, e)
			i = e - 1
			break
		}
	}
}

// escapeBefore: l[i] follows a \n, \t or \r escape of text that was not
// decoded.
func escapeBefore(l string, i int) bool {
	return i > 1 && l[i-2] == '\\' && (l[i-1] == 'n' || l[i-1] == 't' || l[i-1] == 'r')
}

// jwtRest is where a JWT whose header (base64url JSON, eyJ…) ends at e
// ends: .payload (eyJ…).signature; -1 when it is not one.
func jwtRest(l string, e int) int {
	if e >= len(l) || l[e] != '.' || !strings.HasPrefix(l[e+1:], "eyJ") {
		return -1
	}
	s := e + 1
	for e = s; e < len(l) && isBase64url(l[e]); e++ {
	}
	if e-s < 10 || e >= len(l) || l[e] != '.' {
		return -1
	}
	for e++; e < len(l) && isBase64url(l[e]); e++ {
	}
	return e
}

// spans are the parts of a line to hide.
type spans []span

type span struct{ start, end int }

func (sp *spans) add(start, end int) {
	if end > start {
		*sp = append(*sp, span{start, end})
	}
}

// apply replaces each (merged) span of s with Mark.
func (sp spans) apply(s string) string {
	if len(sp) == 0 {
		return s
	}
	sort.Slice(sp, func(i, j int) bool { return sp[i].start < sp[j].start })
	var b strings.Builder
	b.Grow(len(s))
	at := 0
	for i := 0; i < len(sp); {
		start, end := sp[i].start, sp[i].end
		for i++; i < len(sp) && sp[i].start < end; i++ {
			end = maxInt(end, sp[i].end)
		}
		if start < at {
			start = at
		}
		b.WriteString(s[at:start])
		b.WriteString(Mark)
		at = end
	}
	b.WriteString(s[at:])
	return b.String()
}
