// Package lazyre compiles package-level regular expressions on first use
// instead of at program start. Every agent-eval process pays for the
// package initialisation of everything linked in, and the hook runs as its
// own process once per tool call, so start-up work there is paid on every
// call.
package lazyre

import (
	"regexp"
	"sync"
)

// New returns a function that compiles expr the first time it is called
// and returns the same *regexp.Regexp after that. Like regexp.MustCompile,
// it panics if expr does not compile; every expression is compiled by
// the tests of the package that declares it.
func New(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
