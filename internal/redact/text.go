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

// text redacts s line by line, carrying st from line to line, after the
// known secrets it holds transformed (a secret over two lines too).
func (r *Redactor) text(s string, st *state) string {
	s = r.transformed(s)
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
	st.learnUserinfo(body)
	if len(st.userinfo) > 0 {
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

// learnUserinfo adds the passwords of s's URLs, and their user names
// unless plain words, to st.userinfo (each long enough not to be a word).
func (st *state) learnUserinfo(s string) {
	if !strings.Contains(s, "@") || (!strings.Contains(s, "://") && !strings.Contains(s, `:\/\/`)) {
		return
	}
	var sp spans
	findUserinfo(s, &sp)
	for _, x := range sp {
		user, pw, _ := strings.Cut(s[x.start:x.end], ":")
		if strings.Trim(user, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") == "" {
			user = "" // a word (postgres, admin), not a generated credential
		}
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

func isAlpha(c byte) bool { return ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') }
func isDigit(c byte) bool { return '0' <= c && c <= '9' }
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }
func isQuote(c byte) bool { return c == '"' || c == '\'' || c == '`' }
func isNameChar(c byte) bool {
	return isAlpha(c) || isDigit(c) || c == '_' || c == '-' || c == '.'
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
