// Package pathutil holds the path questions several packages ask: whether
// a path lies within a folder, a path made absolute, and the paths in a text
// written relative to a workspace. It does no I/O.
package pathutil

import (
	"path/filepath"
	"strings"
)

// Within reports whether p is dir or lies below it, compared lexically
// after cleaning both (no links are followed). An empty dir holds nothing.
func Within(p, dir string) bool {
	if dir == "" {
		return false
	}
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// Abs is p made absolute, or p as given when that fails.
func Abs(p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	return a
}

// RelativeTo returns a function that writes the paths under workspace ws
// relative to it: "ws/a/b" as "./a/b", "ws" alone as ".". A longer name
// that merely starts with ws ("ws2/…") is left alone.
func RelativeTo(ws string) func(string) string {
	ws = strings.TrimRight(ws, "/")
	if ws == "" {
		return func(s string) string { return s }
	}
	return func(s string) string {
		var b strings.Builder
		for {
			i := strings.Index(s, ws)
			if i < 0 {
				b.WriteString(s)
				return b.String()
			}
			b.WriteString(s[:i])
			rest := s[i+len(ws):]
			if rest != "" && isPathByte(rest[0]) {
				b.WriteString(ws) // another name: leave it
			} else {
				b.WriteByte('.')
			}
			s = rest
		}
	}
}

// isPathByte: c continues a file name.
func isPathByte(c byte) bool {
	return c == '.' || c == '-' || c == '_' || c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z'
}
