package harbor

import (
	"fmt"
	"strings"
)

// maxSegment caps a task folder's (and a [task].name half's) length: room
// for a collision suffix under every file system's 255 bytes.
const maxSegment = 100

// Segment maps s to a Harbor name segment, [A-Za-z0-9][A-Za-z0-9._-]*
// without "..": every other character becomes '-', a leading character that
// cannot start one is dropped, and an empty result is fallback.
func Segment(s, fallback string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r < 0x80 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-'):
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
	}
	out := b.String()
	for strings.Contains(out, "..") {
		out = strings.ReplaceAll(out, "..", ".")
	}
	out = strings.TrimLeft(out, "._-")
	if len(out) > maxSegment {
		out = out[:maxSegment]
	}
	if out == "" {
		return fallback
	}
	return out
}

// uniqueNames gives each id its segment, unique even where the file system
// folds case: a collision gets -2, -3, ….
func uniqueNames(ids []string) []string {
	seen := map[string]bool{}
	out := make([]string, len(ids))
	for i, id := range ids {
		base := Segment(id, "case")
		name := base
		for n := 2; seen[strings.ToLower(name)]; n++ {
			name = fmt.Sprintf("%s-%d", base, n)
		}
		seen[strings.ToLower(name)] = true
		out[i] = name
	}
	return out
}
