// Package clip shortens text for messages and reports without splitting a
// UTF-8 character.
package clip

import "unicode/utf8"

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
