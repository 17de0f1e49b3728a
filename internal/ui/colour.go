package ui

import "strings"

// ANSI colours for the statuses on a terminal.
const (
	ansiGreen  = "\x1b[32m"
	ansiRed    = "\x1b[31m"
	ansiYellow = "\x1b[33m"
	ansiReset  = "\x1b[0m"
)

// wantColour reports whether output to a terminal (live) is coloured:
// yes unless NO_COLOR is set to anything (no-color.org).
func wantColour(live bool, getenv func(string) string) bool {
	return live && getenv("NO_COLOR") == ""
}

// statusColour is the colour of a case's or a run's status word: green when
// it passed, red when it failed, yellow when interrupted, none otherwise.
func statusColour(status string) string {
	switch strings.ToLower(strings.TrimSpace(status)) {
	case "completed", "ok":
		return ansiGreen
	case "failed", "timeout", "error", "budget_exceeded", "tampered":
		return ansiRed
	case "interrupted":
		return ansiYellow
	}
	return ""
}

// paint colours s by its status word when the progress writes to a colour
// terminal; s may be padded, its padding is coloured along (so tables keep
// their columns).
func (p *progress) paint(s string) string {
	if p == nil || !p.colour {
		return s
	}
	if c := statusColour(s); c != "" {
		return c + s + ansiReset
	}
	return s
}
