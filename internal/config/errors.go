package config

import (
	"fmt"
	"sort"
	"strings"
)

// Code classifies a problem. It lets callers and tests tell structural
// problems (which the JSON Schema also catches) from semantic ones (which only
// the loader can see).
type Code string

// Problem codes. The structural ones are mirrored by the JSON Schema that
// `agent-eval schema` prints; CodeSemantic, CodeSyntax and CodeFile are not.
const (
	CodeSyntax     Code = "syntax"      // the YAML itself does not parse
	CodeFile       Code = "file"        // the file is missing, unreadable or not a file
	CodeUnknownKey Code = "unknown-key" // a key the schema does not know
	CodeDuplicate  Code = "duplicate"   // a mapping key given twice
	CodeType       Code = "type"        // a value of the wrong YAML type
	CodeEnum       Code = "enum"        // a value outside its allowed set
	CodeRange      Code = "range"       // a number or length out of bounds
	CodeRequired   Code = "required"    // a required key is missing or empty
	CodeFormat     Code = "format"      // a string of the wrong shape (paths, names)
	CodeConflict   Code = "conflict"    // mutually exclusive keys given together
	CodeSemantic   Code = "semantic"    // cross-field rules the schema cannot express
)

// Structural reports whether the JSON Schema is expected to reject a document
// with a problem of this code.
func (c Code) Structural() bool {
	switch c {
	case CodeUnknownKey, CodeDuplicate, CodeType, CodeEnum, CodeRange, CodeRequired, CodeFormat, CodeConflict:
		return true
	}
	return false
}

// Error is one problem found in an eval.yaml, with its position.
type Error struct {
	File    string
	Line    int // 1-based; 0 when the problem is about the file as a whole
	Col     int // 1-based
	Field   string
	Msg     string
	Code    Code
	Warning bool
}

// Error renders the problem as file:line:col: field: message.
func (e Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d:%d", e.Line, max(e.Col, 1))
	}
	b.WriteString(": ")
	if e.Field != "" {
		b.WriteString(e.Field)
		b.WriteString(": ")
	}
	if e.Warning {
		b.WriteString("warning: ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Errors is every problem found in one file, sorted by position.
type Errors []Error

// Error renders one problem per line.
func (es Errors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// Sort orders the problems by line, then column, keeping the order of ties.
func (es Errors) Sort() {
	sort.SliceStable(es, func(i, j int) bool {
		if es[i].Line != es[j].Line {
			return es[i].Line < es[j].Line
		}
		return es[i].Col < es[j].Col
	})
}
