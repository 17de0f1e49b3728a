package transcript

import (
	"errors"
	"io"
	"strings"
	"testing"
)

// TestLineReader: lines past bufio's buffer come back whole, a line past
// the bound comes back as too long with its size (and the next line after
// it intact), and a last line without a newline is read.
func TestLineReader(t *testing.T) {
	long := strings.Repeat("a", 300<<10)
	over := strings.Repeat("b", 2<<20)
	in := "one\n" + long + "\n\n" + over + "\nafter\nlast"
	type got struct {
		line    string
		size    int
		tooLong bool
	}
	want := []got{{"one", 3, false}, {long, len(long), false}, {"", 0, false}, {"", len(over), true}, {"after", 5, false}, {"last", 4, false}}
	lr := NewLineReader(strings.NewReader(in), 1<<20)
	for i, w := range want {
		line, size, tooLong, err := lr.Next()
		if err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		if g := (got{string(line), size, tooLong}); g.line != w.line || g.size != w.size || g.tooLong != w.tooLong {
			t.Errorf("line %d: %d bytes (size %d, too long %v), want %d (size %d, too long %v)", i+1, len(g.line), g.size, g.tooLong, len(w.line), w.size, w.tooLong)
		}
		if lr.Line != i+1 {
			t.Errorf("line %d numbered %d", i+1, lr.Line)
		}
	}
	if _, _, _, err := lr.Next(); !errors.Is(err, io.EOF) {
		t.Errorf("after the last line: %v, want EOF", err)
	}
}
