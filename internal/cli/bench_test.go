package cli

import (
	"io"
	"testing"
)

// BenchmarkRootCmd is the cost of building the command tree, paid by every
// invocation, the hook's included.
func BenchmarkRootCmd(b *testing.B) {
	e := env{Streams: Streams{Out: io.Discard, Err: io.Discard}, Getenv: func(string) string { return "" }}
	for b.Loop() {
		newRootCmd(e)
	}
}
