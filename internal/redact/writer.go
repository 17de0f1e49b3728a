package redact

import (
	"bytes"
	"io"
	"strings"
	"sync"
)

// Writer returns a writer that redacts each line before it reaches w (a
// line that is a JSON document as JSON). A line is held until its newline
// (or Close), so a secret split across two writes is still found, and
// what one line says carries to the next (a private key block); a line
// that ends with what may begin a known secret is held until the next one
// says (a secret split over two lines); a line longer than 4 MiB is
// flushed in pieces. Close flushes what is left but does not close w.
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
	// held: whole lines of text kept back, as their end may be the start
	// of a known secret the next line finishes; heldLen bytes.
	held    []string
	heldLen int
	// tail is held's normalised form, its end kept, read as a terminal
	// shows a backspace (tail[1], once held has one) and not (tail[0]).
	tail    [2]normal
	erasing bool
	found   bool // held may hold a known secret transformed
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
				lw.flush(len(lw.buf), false)
			}
			break
		}
		lw.flush(i+1, false)
		if lw.err != nil {
			return 0, lw.err
		}
	}
	return len(p), lw.err
}

// flush redacts and writes lw.buf[:n]: whole lines, a piece of a long
// one, or what is left at Close (last).
func (lw *lineWriter) flush(n int, last bool) {
	if lw.json {
		_, err := lw.w.Write(lw.r.JSON(lw.buf[:n]))
		lw.fail(err)
	} else {
		line := string(lw.buf[:n])
		lw.held, lw.heldLen = append(lw.held, line), lw.heldLen+n
		if last || !strings.HasSuffix(line, "\n") || lw.heldLen > maxLine {
			lw.found = true // not scanned
			lw.writeHeld()
		} else if !lw.scan(line) {
			lw.writeHeld()
		}
	}
	lw.buf = lw.buf[n:]
	if len(lw.buf) == 0 {
		lw.buf = nil
	}
}

// scan normalises line, held's last line, onto the end of held's
// normalised form: it notes whether held holds a known secret, and
// reports whether it ends with the start of one, which the next line may
// finish.
func (lw *lineWriter) scan(line string) bool {
	ts := lw.r.normalTargets()
	if ts == nil {
		return false
	}
	t, e := &lw.tail[0], &lw.tail[1]
	// What is new for a secret to end in: this line, and the end of the
	// text before it a secret may start in.
	from := max(len(t.b)-ts.longest()+1, 0)
	t.run(line)
	if t.sawBS && !lw.erasing {
		lw.erasing = true
		e.reset(true)
		e.run(strings.Join(lw.held, ""))
	} else if lw.erasing {
		e.run(line)
	}
	// A backspace that erased what was cut off below: held is read
	// whole.
	lw.found = lw.found || ts.holdsAny(t.b[from:]) || (lw.erasing && (e.underflow || ts.holdsAny(e.b)))
	goOn := ts.partial(t.b) || (lw.erasing && ts.partial(e.b))
	// Enough of the end for a secret that starts there.
	keep := 2 * ts.longest()
	for _, m := range []*normal{t, e} {
		if len(m.b) > keep {
			m.b = m.b[:copy(m.b, m.b[len(m.b)-keep:])]
		}
	}
	return goOn
}

// writeHeld redacts and writes the held text, line by line.
func (lw *lineWriter) writeHeld() {
	lines := lw.held
	if lw.found {
		lines = strings.SplitAfter(lw.r.transformed(strings.Join(lines, "")), "\n")
	}
	for _, l := range lines {
		if l != "" && lw.err == nil {
			_, err := io.WriteString(lw.w, lw.r.line(l, &lw.st))
			lw.fail(err)
		}
	}
	clear(lw.held)
	lw.held, lw.heldLen = lw.held[:0], 0
	lw.tail[0].reset(false)
	lw.erasing, lw.found = false, false
}

func (lw *lineWriter) fail(err error) {
	if err != nil && lw.err == nil {
		lw.err = err
	}
}

func (lw *lineWriter) Close() error {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	if len(lw.buf) > 0 || len(lw.held) > 0 {
		lw.flush(len(lw.buf), true)
	}
	return lw.err
}
