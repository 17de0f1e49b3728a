package redact

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"
)

// A known secret printed transformed — percent-encoded, \u-escaped, with
// ANSI colours, backspaces or blanks between its characters, split over
// two lines — is found in the normalised form of the text: its escapes
// decoded, its escape sequences, blanks, controls and invisible characters
// dropped. A match there hides the span of the original text it came from.

// minNormalLen is the shortest secret (in its normalised form) looked for
// in the normalised form of a text: a shorter one could be made by the
// blanks dropped between ordinary words.
const minNormalLen = 8

// maxSeqLen bounds an OSC, DCS or APC string (ESC ] … BEL): past it, a
// stray ESC ] hides nothing more from the matcher.
const maxSeqLen = 512

// The normaliser's states in an escape sequence.
const (
	seqNone      = iota
	seqEsc       // after ESC
	seqCSI       // ESC [, up to its final byte
	seqString    // ESC ], ESC P, ESC _, ESC ^, ESC X, up to BEL or ESC \
	seqStringEsc // an ESC inside such a string
)

// normal is a text's normalised form, b. Asked where some of its bytes
// came from (a bit set in want for each), it says in loc: b[k] came from
// the text's [loc[k][0], loc[k][1]).
type normal struct {
	b      []byte
	want   []uint64
	loc    map[int][2]int
	erase  bool // a backspace erases the character before it, as a terminal shows it; else it is dropped
	sawBS  bool // the text holds a backspace
	seq    int
	seqLen int
	// escWritten: the last ESC was written as an escape (\e, \033).
	escWritten bool
	underflow  bool // a backspace had nothing to erase
}

var normals = sync.Pool{New: func() any { return new(normal) }}

func getNormal(erase bool) *normal {
	m := normals.Get().(*normal)
	m.reset(erase)
	return m
}

func putNormal(m *normal) {
	if cap(m.b) <= maxLine {
		m.reset(false)
		normals.Put(m)
	}
}

func (m *normal) reset(erase bool) {
	*m = normal{b: m.b[:0], erase: erase}
}

// wanted: where b[k] came from is asked for.
func (m *normal) wanted(k int) bool {
	return k>>6 < len(m.want) && m.want[k>>6]&(1<<(k&63)) != 0
}

// plain: a byte that is a unit of its own, kept as it is.
var plain = func() (t [256]bool) {
	for c := 0x21; c < 0x7f; c++ {
		t[c] = true
	}
	t['%'], t['\\'], t['&'] = false, false, false
	for c := 0x80; c < 0x100; c++ {
		t[c] = true
	}
	// The lead bytes of the invisible characters (see invisible).
	t[0xc2], t[0xe2], t[0xe3], t[0xef] = false, false, false, false
	return t
}()

// run normalises s onto m.
func (m *normal) run(s string) {
	for i := 0; i < len(s); {
		c := s[i]
		if plain[c] && m.seq == seqNone {
			j := i + 1
			for j < len(s) && plain[s[j]] {
				j++
			}
			if m.want != nil {
				for k, n := len(m.b), len(m.b)+j-i; k < n; k++ {
					if m.wanted(k) {
						o := i + k - len(m.b)
						m.loc[k] = [2]int{o, o + 1}
					}
				}
			}
			m.b = append(m.b, s[i:j]...)
			i = j
			continue
		}
		v, raw, n := unit(s, i)
		if c == '\\' && (m.seq == seqEsc || m.seq == seqStringEsc) {
			// ESC \ ends a string: the backslash is no escape's (written
			// \\ after an ESC written as an escape).
			v, raw, n = '\\', true, 1
			if m.escWritten && strings.HasPrefix(s[i:], `\\`) {
				n = 2
			}
		}
		if v == 0x1b {
			m.escWritten = n > 1
		}
		m.feed(v, raw, i, i+n)
		i += n
	}
}

// feed adds the value of the unit s[i:e].
func (m *normal) feed(v rune, raw bool, i, e int) {
	for {
		switch m.seq {
		case seqNone:
			switch {
			case v == 0x1b:
				m.seq, m.seqLen = seqEsc, 0
			case v == '\b':
				m.sawBS = true
				if m.erase {
					m.pop()
				}
			case v <= ' ' || v == 0x7f:
				// A blank or a control.
			case raw || v < utf8.RuneSelf:
				m.emit(byte(v), i, e)
			case invisible(v) || (v >= 0x80 && v < 0xa0):
			default:
				var enc [utf8.UTFMax]byte
				for _, c := range enc[:utf8.EncodeRune(enc[:], v)] {
					m.emit(c, i, e)
				}
			}
			return
		case seqEsc:
			switch {
			case v == '[':
				m.seq = seqCSI
			case v == ']' || v == 'P' || v == '_' || v == '^' || v == 'X':
				m.seq = seqString
			case v >= 0x20 && v <= 0x2f:
				// An intermediate byte (ESC ( B).
			case v > 0x2f && v < 0x7f:
				m.seq = seqNone // the final byte
			default:
				m.seq = seqNone
				continue // no sequence: v is text
			}
			return
		case seqCSI:
			m.seqLen++
			switch {
			case v >= 0x40 && v < 0x7f:
				m.seq = seqNone
			case v < 0x20 || v > 0x3f || m.seqLen > maxSeqLen:
				m.seq = seqNone
				continue
			}
			return
		case seqString:
			m.seqLen++
			switch {
			case v == 0x07:
				m.seq = seqNone
			case v == 0x1b:
				m.seq = seqStringEsc
			case m.seqLen > maxSeqLen:
				m.seq = seqNone
				continue
			}
			return
		default: // seqStringEsc
			if v == '\\' {
				m.seq = seqNone
				return
			}
			m.seq = seqEsc
		}
	}
}

func (m *normal) emit(c byte, i, e int) {
	if m.want != nil && m.wanted(len(m.b)) {
		m.loc[len(m.b)] = [2]int{i, e}
	}
	m.b = append(m.b, c)
}

// pop erases the last character (a backspace's work).
func (m *normal) pop() {
	k := len(m.b) - 1
	for k > 0 && m.b[k]&0xc0 == 0x80 && len(m.b)-k < utf8.UTFMax {
		k--
	}
	if k < 0 {
		m.underflow = true
		return
	}
	m.b = m.b[:k]
}

// invisible: a character a terminal shows as nothing, or as a blank.
func invisible(r rune) bool {
	switch {
	case r == 0xa0, r == 0xad, r == 0x3000, r == 0xfeff:
		return true
	case r >= 0x200b && r <= 0x200f, r >= 0x2028 && r <= 0x202f, r >= 0x2060 && r <= 0x2064:
		return true
	}
	return false
}

// unit decodes the unit of s at i: an escape (%XX; \xXX, \NNN, \uXXXX,
// \UXXXXXXXX, \u{…} and the C escapes such as \n and \e; &#N;, &#xH; and
// the five HTML entities), an invisible character (as UTF-8), or a byte.
// raw: v is a byte (maybe of a UTF-8 sequence), not a character; n is the
// unit's length.
func unit(s string, i int) (v rune, raw bool, n int) {
	c := s[i]
	switch c {
	case '%':
		if b, ok := hexByte(s, i+1); ok {
			return rune(b), true, 3
		}
	case '\\':
		if v, raw, n := backslash(s, i); n > 0 {
			return v, raw, n
		}
	case '&':
		if v, n := entity(s, i); n > 0 {
			return v, false, n
		}
	case 0xc2, 0xe2, 0xe3, 0xef:
		if r, size := utf8.DecodeRuneInString(s[i:]); invisible(r) || (r >= 0x80 && r < 0xa0) {
			return r, false, size
		}
	}
	return rune(c), true, 1
}

// backslash decodes the escape at s[i] == '\\', n == 0 when it is none.
func backslash(s string, i int) (v rune, raw bool, n int) {
	if i+1 >= len(s) {
		return 0, false, 0
	}
	switch e := s[i+1]; e {
	case 'x':
		if b, ok := hexByte(s, i+2); ok {
			return rune(b), true, 4
		}
	case 'u':
		if i+2 < len(s) && s[i+2] == '{' {
			j := i + 3
			for j < len(s) && j-i-3 < 6 && isHex(s[j]) {
				j++
			}
			if j > i+3 && j < len(s) && s[j] == '}' {
				if r := hexValue(s[i+3 : j]); r <= utf8.MaxRune {
					return r, false, j + 1 - i
				}
			}
			return 0, false, 0
		}
		if i+6 <= len(s) && allHex(s[i+2:i+6]) {
			return hexValue(s[i+2 : i+6]), false, 6
		}
	case 'U':
		if i+10 <= len(s) && allHex(s[i+2:i+10]) {
			if r := hexValue(s[i+2 : i+10]); r <= utf8.MaxRune {
				return r, false, 10
			}
		}
	case '0', '1', '2', '3', '4', '5', '6', '7':
		j, b := i+1, 0
		for j < len(s) && j-i-1 < 3 && s[j] >= '0' && s[j] <= '7' {
			b = b<<3 | int(s[j]-'0')
			j++
		}
		if b <= 0xff {
			return rune(b), true, j - i
		}
	case 'n', 'r', 't', 'f', 'v':
		return ' ', false, 2 // a blank, dropped
	case 'a':
		return 0x07, false, 2
	case 'b':
		return '\b', false, 2
	case 'e', 'E':
		return 0x1b, false, 2
	case '\\', '"', '\'', '/', '\n':
		return rune(e), false, 2
	}
	return 0, false, 0
}

// entities are the HTML entities of the characters HTML escapes.
var entities = []struct {
	name string
	r    rune
}{{"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&apos;", '\''}}

// entity decodes the HTML character reference at s[i] == '&'.
func entity(s string, i int) (rune, int) {
	if i+2 >= len(s) {
		return 0, 0
	}
	if s[i+1] != '#' {
		for _, e := range entities {
			if s[i+1] == e.name[1] && strings.HasPrefix(s[i:], e.name) {
				return e.r, len(e.name)
			}
		}
		return 0, 0
	}
	j, base := i+2, rune(10)
	if s[j] == 'x' || s[j] == 'X' {
		j, base = j+1, 16
	}
	start := j
	var r rune
	for j < len(s) && j-start < 7 && (isDigit(s[j]) || (base == 16 && isHex(s[j]))) {
		r = r*base + rune(hexDigit(s[j]))
		j++
	}
	if j == start || j >= len(s) || s[j] != ';' || r > utf8.MaxRune {
		return 0, 0
	}
	return r, j + 1 - i
}

func isHex(c byte) bool { return isDigit(c) || ('a' <= c && c <= 'f') || ('A' <= c && c <= 'F') }

func hexDigit(c byte) byte {
	switch {
	case c >= 'a':
		return c - 'a' + 10
	case c >= 'A':
		return c - 'A' + 10
	}
	return c - '0'
}

func allHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isHex(s[i]) {
			return false
		}
	}
	return true
}

func hexValue(s string) rune {
	var r rune
	for i := 0; i < len(s); i++ {
		r = r<<4 | rune(hexDigit(s[i]))
	}
	return r
}

// hexByte reads two hex digits at s[i].
func hexByte(s string, i int) (byte, bool) {
	if i+2 > len(s) || !isHex(s[i]) || !isHex(s[i+1]) {
		return 0, false
	}
	return hexDigit(s[i])<<4 | hexDigit(s[i+1]), true
}

// normalForms are what the normalised form of a text holds of secret v:
// v itself normalised, its hex (either case) and its base64, long enough
// to look for (see minNormalLen); none that the normalised Mark holds.
func normalForms(v string) []string {
	var out []string
	m := getNormal(false)
	defer putNormal(m)
	m.run(Mark)
	mark := string(m.b)
	for _, f := range []string{v, hex.EncodeToString([]byte(v)), strings.ToUpper(hex.EncodeToString([]byte(v))),
		strings.TrimRight(base64.StdEncoding.EncodeToString([]byte(v)), "="), base64.RawURLEncoding.EncodeToString([]byte(v))} {
		m.reset(false)
		m.run(f)
		if n := string(m.b); len(n) >= minNormalLen && !strings.Contains(mark, n) {
			out = append(out, n)
		}
	}
	return out
}

// targets are the normalised forms looked for, longest first, and the
// hashes of their first four bytes: a text none of whose four bytes hash
// to one holds none (the quick no of the common case). Never changed once
// made: LearnValues makes new ones.
type targets struct {
	list  [][]byte
	grams [1 << (gramBits - 6)]uint64
	// first and pairs: the first bytes of the targets, and the pairs of
	// bytes in them: what a text that ends with the start of one ends with.
	first [256]bool
	pairs [1 << (16 - 6)]uint64
}

// gramBits: 2^18 bits (32 KiB), so that a 100-byte line hits the grams of
// 20 targets by chance about one time in 130.
const gramBits = 18

func gram(b []byte) uint32 { return (binary.LittleEndian.Uint32(b) * 0x9e3779b1) >> (32 - gramBits) }

// addNormal adds the normal forms of the values to r.normal, each once.
// r.mu is held.
func (r *Redactor) addNormal(values []string) {
	var list [][]byte
	seen := map[string]bool{}
	if r.normal != nil {
		list = append(list, r.normal.list...)
		for _, t := range list {
			seen[string(t)] = true
		}
	}
	n := len(list)
	for _, v := range values {
		for _, f := range normalForms(v) {
			if !seen[f] {
				seen[f] = true
				list = append(list, []byte(f))
			}
		}
	}
	if len(list) == n {
		return
	}
	sort.Slice(list, func(i, j int) bool { return len(list[i]) > len(list[j]) })
	ts := &targets{list: list}
	for _, t := range list {
		h := gram(t)
		ts.grams[h>>6] |= 1 << (h & 63)
		ts.first[t[0]] = true
		for i := 1; i < len(t); i++ {
			p := uint16(t[i-1])<<8 | uint16(t[i])
			ts.pairs[p>>6] |= 1 << (p & 63)
		}
	}
	r.normal = ts
}

func (r *Redactor) normalTargets() *targets {
	if r == nil {
		return nil
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.normal
}

// longest is the length of the longest target.
func (ts *targets) longest() int { return len(ts.list[0]) }

// holdsAny: b holds a target.
func (ts *targets) holdsAny(b []byte) bool {
	hit := false
	for i := 0; i+4 <= len(b); i++ {
		if h := gram(b[i:]); ts.grams[h>>6]&(1<<(h&63)) != 0 {
			hit = true
			break
		}
	}
	if !hit {
		return false
	}
	for _, t := range ts.list {
		if bytes.Contains(b, t) {
			return true
		}
	}
	return false
}

// findNormal returns the spans of s whose normalised form is a known
// secret's (either way of reading a backspace).
func (r *Redactor) findNormal(s string) spans {
	ts := r.normalTargets()
	if ts == nil || len(s) < minNormalLen {
		return nil
	}
	m := getNormal(false)
	defer putNormal(m)
	var sp spans
	for _, erase := range []bool{false, true} {
		if erase {
			if !m.sawBS {
				break
			}
			m.reset(true)
		}
		m.run(s)
		if !ts.holdsAny(m.b) {
			continue // the common case
		}
		// Where each match starts and ends in m.b, then where those bytes
		// came from in s, read again.
		var hits [][2]int
		for _, t := range ts.list {
			for off := 0; ; {
				k := bytes.Index(m.b[off:], t)
				if k < 0 {
					break
				}
				k += off
				hits = append(hits, [2]int{k, k + len(t) - 1})
				off = k + len(t)
			}
		}
		want := make([]uint64, len(m.b)/64+1)
		for _, h := range hits {
			for _, k := range h {
				want[k>>6] |= 1 << (k & 63)
			}
		}
		m.reset(erase)
		m.want, m.loc = want, make(map[int][2]int, 2*len(hits))
		m.run(s)
		for _, h := range hits {
			sp.add(erasedBefore(s, m.loc[h[0]][0]), m.loc[h[1]][1])
		}
	}
	return sp
}

// erasedBefore is where what backspaces erase right before i starts: the
// X of X\bX, the junk of _\bX, so that none of it is left.
func erasedBefore(s string, i int) int {
	for {
		j, n := i, 0
		for {
			if j > 0 && s[j-1] == '\b' {
				j--
			} else if j > 1 && s[j-2:j] == `\b` {
				j -= 2
			} else {
				break
			}
			n++
		}
		if n == 0 {
			return i
		}
		for ; n > 0 && j > 0 && s[j-1] != '\n'; n-- {
			_, size := utf8.DecodeLastRuneInString(s[:j])
			j -= size
		}
		i = j
	}
}

// transformed hides the known secrets s holds in a transformed form: one
// Mark per line a match covers, the line breaks and the next lines'
// indentation kept.
func (r *Redactor) transformed(s string) string {
	sp := r.findNormal(s)
	if len(sp) == 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	at := 0
	for _, x := range merge(sp) {
		b.WriteString(s[at:x[0]])
		for i, piece := range strings.Split(s[x[0]:x[1]], "\n") {
			if i > 0 {
				b.WriteByte('\n')
			}
			body := strings.TrimRight(piece, "\r")
			ind := 0
			if i > 0 {
				ind = indentOf(body)
			}
			b.WriteString(body[:ind])
			if ind < len(body) {
				b.WriteString(Mark)
			}
			b.WriteString(piece[len(body):])
		}
		at = x[1]
	}
	b.WriteString(s[at:])
	return b.String()
}

// partial: b ends with a proper prefix of a target (a secret a next line
// may finish).
func (ts *targets) partial(b []byte) bool {
	n := len(b)
	if n == 0 {
		return false
	}
	if p := uint16(b[max(n-2, 0)])<<8 | uint16(b[n-1]); !ts.first[b[n-1]] && (n < 2 || ts.pairs[p>>6]&(1<<(p&63)) == 0) {
		return false
	}
	for _, t := range ts.list {
		tail := b
		if len(tail) >= len(t) {
			tail = tail[len(tail)-len(t)+1:]
		}
		for off := 0; off < len(tail); {
			k := bytes.IndexByte(tail[off:], t[0])
			if k < 0 {
				break
			}
			if bytes.HasPrefix(t, tail[off+k:]) {
				return true
			}
			off += k + 1
		}
	}
	return false
}
