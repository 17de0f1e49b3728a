// Package pathutil holds the path questions several packages ask: whether
// a path lies within a folder, and a path made absolute. It does no I/O.
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
