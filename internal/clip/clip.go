// Package clip shortens text for messages and reports without splitting a
// UTF-8 character, and keeps a text to the one line of its message.
package clip

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Line is s for a line of a message: each line break and other control
// character (U+2028 and U+2029 too) is written as its Go escape (\n,
// \x1b), so that no text from a run starts a line of its own, where a
// CI reads a workflow command (GitHub's ::error::, ::stop-commands::) or a
// terminal an escape sequence. s itself when it has none.
func Line(s string) string {
	unsafe := func(r rune) bool { return unicode.IsControl(r) || r == '\u2028' || r == '\u2029' }
	if strings.IndexFunc(s, unsafe) < 0 {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if unsafe(r) {
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Cut returns the longest start of s of at most n bytes that ends on a
// character boundary, and whether it is shorter than s.
func Cut(s string, n int) (string, bool) {
	if len(s) <= n {
		return s, false
	}
	cut := max(n, 0)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut], true
}

// String is s cut to at most n bytes (see Cut), with "…" marking a cut.
func String(s string, n int) string {
	if c, cut := Cut(s, n); cut {
		return c + "…"
	}
	return s
}
