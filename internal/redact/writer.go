package redact

import (
	"bytes"
	"io"
	"sync"
)

// Writer returns a writer that redacts each line before it reaches w (a
// line that is a JSON document as JSON). A line is held until its newline
// (or Close), so a secret split across two writes is still found, and
// what one line says carries to the next (a private key block); a line
// longer than 4 MiB is flushed in pieces. Close flushes what is left but
// does not close w.
func (r *Redactor) Writer(w io.Writer) io.WriteCloser {
	return &lineWriter{r: r, w: w, st: newState()}
}

const maxLine = 4 << 20

type lineWriter struct {
	mu   sync.Mutex
	r    *Redactor
	w    io.Writer
	buf  []byte
	err  error
	json bool // each line is a JSON document (JSONWriter)
	st   state
}

func (lw *lineWriter) Write(p []byte) (int, error) {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	if lw.err != nil {
		return 0, lw.err
	}
	lw.buf = append(lw.buf, p...)
	for {
		i := bytes.IndexByte(lw.buf, '\n')
		if i < 0 {
			if len(lw.buf) > maxLine {
				lw.flush(len(lw.buf))
			}
			break
		}
		lw.flush(i + 1)
		if lw.err != nil {
			return 0, lw.err
		}
	}
	return len(p), lw.err
}

func (lw *lineWriter) flush(n int) {
	var err error
	if lw.json {
		_, err = lw.w.Write(lw.r.JSON(lw.buf[:n]))
	} else {
		_, err = io.WriteString(lw.w, lw.r.line(string(lw.buf[:n]), &lw.st))
	}
	if err != nil && lw.err == nil {
		lw.err = err
	}
	lw.buf = lw.buf[n:]
	if len(lw.buf) == 0 {
		lw.buf = nil
	}
}

func (lw *lineWriter) Close() error {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	if len(lw.buf) > 0 {
		lw.flush(len(lw.buf))
	}
	return lw.err
}
