package config

import (
	"fmt"
	"strconv"
	"strings"
)

// BatchPattern is a parsed outputs[].batch_pattern: Shared ("*") gives
// every file to every case; otherwise a file belongs to case n when its
// name starts with Prefix(n).
type BatchPattern struct {
	Shared bool
	before string
	after  string
	width  int  // minimum digits of n
	zero   bool // pad with zeros (else spaces, as Python's {n:3d})
}

// ParseBatchPattern parses a batch_pattern: "*", or a name prefix holding
// exactly one {n} placeholder, optionally with a Python integer format
// ({n:03d}, {n:3}, {n:d}).
func ParseBatchPattern(s string) (BatchPattern, error) {
	if s == "*" {
		return BatchPattern{Shared: true}, nil
	}
	open := strings.Index(s, "{")
	if open < 0 {
		return BatchPattern{}, fmt.Errorf("%q has no {n} placeholder (use \"*\" to share every file with every case)", s)
	}
	end := strings.Index(s[open:], "}")
	if end < 0 {
		return BatchPattern{}, fmt.Errorf("%q: unclosed {", s)
	}
	end += open
	p := BatchPattern{before: s[:open], after: s[end+1:]}
	if strings.ContainsAny(p.before, "{}") || strings.ContainsAny(p.after, "{}") {
		return BatchPattern{}, fmt.Errorf("%q: only one {n} placeholder is allowed", s)
	}
	field := s[open+1 : end]
	name, spec, hasSpec := strings.Cut(field, ":")
	if name != "n" {
		return BatchPattern{}, fmt.Errorf("%q: the placeholder is {n} (the case's 1-based position), not {%s}", s, field)
	}
	if hasSpec {
		spec = strings.TrimSuffix(spec, "d")
		if strings.HasPrefix(spec, "0") && len(spec) > 1 {
			p.zero, spec = true, spec[1:]
		}
		if spec != "" {
			w, err := strconv.Atoi(spec)
			if err != nil || w < 1 || w > 20 {
				return BatchPattern{}, fmt.Errorf("%q: the format of {n} is an integer one such as {n:03d}", s)
			}
			p.width = w
		}
	}
	if strings.ContainsAny(p.before+p.after, "/\\") || strings.Contains(p.before+p.after, "..") {
		return BatchPattern{}, fmt.Errorf("%q: a pattern names a file, not a path", s)
	}
	return p, nil
}

// Prefix is the pattern expanded for case n.
func (p BatchPattern) Prefix(n int) string {
	num := strconv.Itoa(n)
	if pad := p.width - len(num); pad > 0 {
		c := " "
		if p.zero {
			c = "0"
		}
		num = strings.Repeat(c, pad) + num
	}
	return p.before + num + p.after
}

// Matches reports whether a file name belongs to case n: it starts with
// Prefix(n) and, when the prefix ends in n's digits, no further digit
// follows ("case-1" is not a prefix of "case-10.md").
func (p BatchPattern) Matches(name string, n int) bool {
	pre := p.Prefix(n)
	if !strings.HasPrefix(name, pre) {
		return false
	}
	if p.after == "" && len(name) > len(pre) {
		c := name[len(pre)]
		return c < '0' || c > '9'
	}
	return true
}
