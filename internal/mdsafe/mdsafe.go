// Package mdsafe writes text no one trusts into Markdown for GitHub (a
// pull-request comment, a job's step summary) so that it makes no markup:
// no link, autolink, raw HTML, mention or table cell of its own. It does
// no I/O.
package mdsafe

import (
	"strings"
	"unicode/utf8"
)

// asciiPunct is CommonMark's ASCII punctuation: each may be escaped.
const asciiPunct = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"

// Of asciiPunct, Text leaves as they are those no construct of
// CommonMark, GFM or GitHub reads once the others are escaped: inert
// anywhere, lineStart but as the text's first character (a list item, a
// setext underline or a thematic break begins a line with them).
const (
	inert     = ",;?%/'\""
	lineStart = "-+="
)

// Text escapes s (one line) for a Markdown paragraph or table cell.
// Every ASCII punctuation character that Markdown or GitHub could read
// gets a backslash (CommonMark shows any of them escaped as itself), so
// that no text makes markup: no emphasis, code, link, image, entity, raw
// HTML, math ($), emoji (:x:) or reference (#1), and none of GFM's
// autolinks, which need a literal "www.", a scheme's ":" (http://,
// https://, ftp://, mailto:, xmpp:, <scheme:...>), or an address's "."
// and "@" (user@example.com, <user@example.com>). An @ is followed by a
// zero-width space (as an entity), so that "@team" is shown and notifies
// no one.
func Text(s string) string {
	var b strings.Builder
	for i, r := range s {
		switch {
		case r < 0x20 || r == 0x7f:
			b.WriteRune('\uFFFD')
		case r == '@':
			b.WriteString("@&#8203;")
		case strings.ContainsRune(inert, r), i > 0 && strings.ContainsRune(lineStart, r):
			b.WriteRune(r)
		case strings.ContainsRune(asciiPunct, r):
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Code is s (one line) as inline code: control characters replaced, its
// backticks fenced by a longer run of them and each @ followed by a
// zero-width space (a mention in code notifies no one on GitHub;
// elsewhere it might); inTable escapes its pipes too (GitHub splits a
// table row at any unescaped |, in code too, and shows \| there as |). An
// empty s is a dash.
func Code(s string, inTable bool) string {
	if s == "" {
		return "–"
	}
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == utf8.RuneError {
			return '\uFFFD'
		}
		return r
	}, s)
	if inTable {
		s = strings.ReplaceAll(s, "|", `\|`)
	}
	s = strings.ReplaceAll(s, "@", "@\u200b")
	fence := strings.Repeat("`", LongestRun(s, '`')+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return fence + s + fence
}

// Block is s (many lines) as a fenced code block of language lang: its
// fence is longer than any run of backticks in s, so nothing in s closes
// it, and GitHub reads no markup, link or mention inside. Control
// characters but new lines and tabs are replaced.
func Block(s, lang string) string {
	s = strings.Map(func(r rune) rune {
		if (r < 0x20 && r != '\n' && r != '\t') || r == 0x7f || r == utf8.RuneError {
			return '\uFFFD'
		}
		return r
	}, s)
	fence := strings.Repeat("`", max(3, LongestRun(s, '`')+1))
	return fence + lang + "\n" + strings.TrimSuffix(s, "\n") + "\n" + fence + "\n"
}

// LongestRun is the length of the longest run of c in s.
func LongestRun(s string, c byte) int {
	best, n := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			n++
			best = max(best, n)
		} else {
			n = 0
		}
	}
	return best
}
