package redact

import (
	"strings"
	"sync"
)

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
// scanned once, not once per shape. It is built on first use: every start
// of the binary (the hook's, once per tool call) would fill its 64 KiB.
var tokenStart = sync.OnceValue(func() *[1 << 16]bool {
	t := new([1 << 16]bool)
	for _, s := range tokenShapes {
		t[uint16(s.prefix[0])<<8|uint16(s.prefix[1])] = true
	}
	return t
})

// tokenRun is a cached run of a class of characters: every start inside
// it ends at end, and the suffix from off holds a digit (a letter) when
// lastDigit (lastLetter) ≥ off. The cache keeps findTokens linear on a
// line made of one prefix over and over.
type tokenRun struct{ end, lastDigit, lastLetter int }

// findTokens hides credentials recognisable by their shape.
func findTokens(l string, sp *spans) {
	var runs [numClasses]tokenRun
	jwtFrom, jwtTo := -1, -1 // jwtRest's answer for a header ending at jwtFrom
	starts := tokenStart()
	for i := 0; i+1 < len(l); i++ {
		if !starts[uint16(l[i])<<8|uint16(l[i+1])] {
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
