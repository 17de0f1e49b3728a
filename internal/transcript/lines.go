package transcript

import (
	"bufio"
	"errors"
	"io"
)

// MaxLine is the longest transcript line LineReader hands back whole: a
// line past it is reported too long and its bytes are skipped, never held.
const MaxLine = 8 << 20

// LineReader reads a transcript.jsonl one line at a time without holding
// more than one line (at most its max) in memory, however long the file
// or a line of it.
type LineReader struct {
	br  *bufio.Reader
	max int
	buf []byte
	// Line counts the lines read so far (the last one returned is Line).
	Line int
}

// NewLineReader reads r a line at a time; max bounds a line (MaxLine when
// max <= 0).
func NewLineReader(r io.Reader, max int) *LineReader {
	if max <= 0 {
		max = MaxLine
	}
	return &LineReader{br: bufio.NewReaderSize(r, 64<<10), max: max}
}

// Next returns the next line without its newline, valid until the next
// call. A line longer than the reader's max comes back empty with its
// length and tooLong set. At the end it returns io.EOF (after a last line
// without a newline, that line first).
func (l *LineReader) Next() (line []byte, size int, tooLong bool, err error) {
	l.buf = l.buf[:0]
	for {
		frag, rerr := l.br.ReadSlice('\n')
		size += len(frag)
		if !tooLong {
			if len(l.buf)+len(frag) > l.max+1 { // +1: the newline
				tooLong, l.buf = true, l.buf[:0]
			} else {
				if need := len(l.buf) + len(frag); need > cap(l.buf) {
					// doubled, not append's quarter steps: a 5 MB line
					// costs twice its size in buffers, not five times
					grown := make([]byte, len(l.buf), min(max(2*cap(l.buf), need), l.max+1))
					copy(grown, l.buf)
					l.buf = grown
				}
				l.buf = append(l.buf, frag...)
			}
		}
		if errors.Is(rerr, bufio.ErrBufferFull) {
			continue
		}
		if rerr != nil && !errors.Is(rerr, io.EOF) {
			return nil, size, tooLong, rerr
		}
		if size == 0 && rerr != nil {
			return nil, 0, false, io.EOF
		}
		l.Line++
		if n := len(frag); n > 0 && frag[n-1] == '\n' {
			size--
			if !tooLong {
				l.buf = l.buf[:len(l.buf)-1]
			}
		}
		return l.buf, size, tooLong, nil
	}
}
