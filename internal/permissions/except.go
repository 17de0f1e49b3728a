package permissions

import (
	"fmt"
	"path/filepath"
	"strings"
)

// hexDigits are the letters of a slot's name (workspace.NewSlot).
const hexDigits = "0123456789abcdef"

// ExceptPatterns are absolute path patterns, in Claude Code's Read rule
// spelling (//abs), that together cover everything in root except keep, a
// folder directly in root named by lower-case hex digits. Claude Code's
// rules have no negation and no negated character class ([!x] and [^x]
// are read as classes holding ! or ^, measured with 2.1.332), so "every
// name but keep's" is spelled out: the names that leave keep's name at
// some letter (a class of the other fifteen digits), the longer names that
// begin with it, and the shorter names it begins with. A pattern naming a
// folder covers what is in it. Every name in root is made by agent-eval
// (hex digits only), so the patterns cover all of root but keep.
func ExceptPatterns(root, keep string) ([]string, error) {
	root, keep = filepath.Clean(root), filepath.Clean(keep)
	name := filepath.Base(keep)
	if filepath.Dir(keep) != root || !filepath.IsAbs(root) {
		return nil, fmt.Errorf("%s is not a folder directly in the absolute folder %s", keep, root)
	}
	if name == "" || strings.Trim(name, hexDigits) != "" {
		return nil, fmt.Errorf("slot name %q is not lower-case hex digits", name)
	}
	if strings.ContainsAny(root, "*?[]{}()\\!\n\x00") {
		return nil, fmt.Errorf("the folder %s holds a character that cannot be written in a path rule", root)
	}
	base := "/" + strings.TrimSuffix(root, "/") + "/"
	out := make([]string, 0, 2*len(name))
	for i := range len(name) {
		out = append(out, base+name[:i]+"["+strings.ReplaceAll(hexDigits, name[i:i+1], "")+"]*")
	}
	out = append(out, base+name+"?*")
	for i := 1; i < len(name); i++ {
		out = append(out, base+name[:i])
	}
	return out, nil
}
