package ui

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"github.com/agent-eval/agent-eval/internal/engine"
	"github.com/agent-eval/agent-eval/internal/usd"
)

// progress is agent-eval run's stderr. Everything written to it passes
// through unchanged; on a terminal it also keeps a live status line under
// those lines — [done/total], the cases running and for how long, the cost
// and denials so far — redrawn every second and cleared before anything
// else is printed, so the per-case lines and warnings stay intact above it.
// Off a terminal (CI, a pipe, a file, TERM=dumb) it adds nothing.
type progress struct {
	mu      sync.Mutex
	w       io.Writer
	live    bool
	colour  bool // colour the statuses (a terminal, NO_COLOR unset)
	width   int
	now     func() time.Time
	start   time.Time
	total   int
	done    int
	cost    float64
	denials int
	running map[string]time.Time
	every   time.Duration // how often the line is redrawn; 0: only on writes
	shown   bool          // the status line is on screen
	stopc   chan struct{}
	stopped bool
}

func newProgress(w io.Writer, getenv func(string) string) *progress {
	p := &progress{w: w, now: time.Now, running: map[string]time.Time{}, every: time.Second}
	p.live, p.width = terminal(w, getenv)
	p.colour = wantColour(p.live, getenv)
	return p
}

// terminal reports whether w is a terminal that can redraw a line, and its
// width.
func terminal(w io.Writer, getenv func(string) string) (bool, int) {
	f, ok := w.(*os.File)
	if !ok || getenv("TERM") == "dumb" || getenv("TERM") == "" {
		return false, 0
	}
	fi, err := f.Stat()
	if err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		return false, 0
	}
	var ws struct{ row, col, x, y uint16 }
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), uintptr(syscall.TIOCGWINSZ), uintptr(unsafe.Pointer(&ws))); errno != 0 {
		return false, 0 // a character device that is not a terminal (/dev/null)
	}
	width := int(ws.col)
	if width == 0 {
		width, _ = strconv.Atoi(getenv("COLUMNS"))
	}
	if width <= 0 {
		width = 80
	}
	return true, width
}

// Write prints b above the status line.
func (p *progress) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clearLocked()
	n, err := p.w.Write(b)
	if len(b) > 0 && b[len(b)-1] == '\n' {
		p.drawLocked()
	}
	return n, err
}

// begin starts counting total cases, and the status line on a terminal.
func (p *progress) begin(total int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.total, p.start = total, p.now()
	if !p.live || p.stopc != nil || p.stopped {
		return
	}
	p.stopc = make(chan struct{})
	if p.every > 0 {
		go p.tick(p.stopc, p.every)
	}
	p.drawLocked()
}

func (p *progress) tick(stop chan struct{}, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			p.mu.Lock()
			p.clearLocked()
			p.drawLocked()
			p.mu.Unlock()
		}
	}
}

// started marks a case (or a step of it) as running.
func (p *progress) started(id string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.running[id]; !ok {
		p.running[id] = p.now()
	}
}

// finished counts a finished case and returns how many of how many are done.
func (p *progress) finished(id string, cost float64, denials int) (done, total int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.running, id)
	for name := range p.running {
		if strings.HasPrefix(name, id+"/") {
			delete(p.running, name) // the case's pipeline steps
		}
	}
	p.done++
	p.cost += cost
	p.denials += denials
	return p.done, p.total
}

// stop clears the status line for good; what follows (the summary) is
// printed as plain lines.
func (p *progress) stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clearLocked()
	if p.stopc != nil {
		close(p.stopc)
		p.stopc = nil
	}
	p.stopped = true
}

func (p *progress) clearLocked() {
	if p.shown {
		_, _ = io.WriteString(p.w, "\r\x1b[K")
		p.shown = false
	}
}

func (p *progress) drawLocked() {
	if !p.live || p.stopc == nil {
		return
	}
	_, _ = io.WriteString(p.w, p.statusLocked())
	p.shown = true
}

// statusLocked is the status line, cut to the terminal's width so it never
// wraps (a wrapped line could not be cleared with one \r).
func (p *progress) statusLocked() string {
	now := p.now()
	var b strings.Builder
	fmt.Fprintf(&b, "[%d/%d] %s", p.done, p.total, clock(now.Sub(p.start)))
	if len(p.running) > 0 {
		ids := make([]string, 0, len(p.running))
		for id := range p.running {
			ids = append(ids, id)
		}
		// Longest-running first: those are the ones to look at.
		slices.SortFunc(ids, func(a, b string) int {
			if c := p.running[a].Compare(p.running[b]); c != 0 {
				return c
			}
			return strings.Compare(a, b)
		})
		fmt.Fprintf(&b, " · %d running:", len(ids))
		for i, id := range ids {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, " %s %s", id, clock(now.Sub(p.running[id])))
		}
	}
	fmt.Fprintf(&b, " · %s", usd.Format(p.cost))
	if p.denials > 0 {
		fmt.Fprintf(&b, " · %s", engine.Plural(p.denials, "denial"))
	}
	s := []rune(b.String())
	if max := p.width - 1; max > 0 && len(s) > max {
		s = append(s[:max-1], '…')
	}
	return string(s)
}

// clock formats d as 7s, 1m05s or 1h02m.
func clock(d time.Duration) string {
	s := int(d.Round(time.Second) / time.Second)
	switch {
	case s < 60:
		return fmt.Sprintf("%ds", s)
	case s < 3600:
		return fmt.Sprintf("%dm%02ds", s/60, s%60)
	}
	return fmt.Sprintf("%dh%02dm", s/3600, s/60%60)
}
