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
// Off a terminal (CI, a pipe, a file, TERM=dumb) it prints the same facts
// as a plain heartbeat line every 30 s ($AGENT_EVAL_HEARTBEAT), so a CI log
// shows that a long case is still running.
type progress struct {
	mu      sync.Mutex
	w       io.Writer
	hide    func(string) string // hides secrets in what is written (nil: nothing)
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
	// heartbeat is how often a heartbeat line is printed off a terminal;
	// 0: never.
	heartbeat time.Duration
	shown     bool // the status line is on screen
	stopc     chan struct{}
	stopped   bool
}

// HeartbeatEnv sets the heartbeat's period off a terminal: a duration
// (10s, 2m) or seconds; 0 turns it off.
const HeartbeatEnv = "AGENT_EVAL_HEARTBEAT"

// defaultHeartbeat is the heartbeat's period when HeartbeatEnv is unset.
const defaultHeartbeat = 30 * time.Second

func newProgress(w io.Writer, getenv func(string) string) *progress {
	p := &progress{w: w, now: time.Now, running: map[string]time.Time{}, every: time.Second, heartbeat: defaultHeartbeat}
	p.live, p.width = terminal(w, getenv)
	p.colour = wantColour(p.live, getenv)
	if v := strings.TrimSpace(getenv(HeartbeatEnv)); v != "" {
		d, err := time.ParseDuration(v)
		if s, serr := strconv.ParseFloat(v, 64); serr == nil {
			d, err = time.Duration(s*float64(time.Second)), nil
		}
		if err != nil || d < 0 {
			fmt.Fprintf(w, "agent-eval: warning: %s=%q is not a duration (10s, 2m, or seconds); the heartbeat stays every %s\n", HeartbeatEnv, v, defaultHeartbeat)
		} else {
			p.heartbeat = d
		}
	}
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
	n := len(b)
	if p.hide != nil {
		b = []byte(p.hide(string(b)))
	}
	_, err := p.w.Write(b)
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
	if p.stopc != nil || p.stopped {
		return
	}
	if !p.live {
		if p.heartbeat > 0 {
			p.stopc = make(chan struct{})
			t := time.NewTicker(p.heartbeat)
			go func(stop chan struct{}) {
				defer t.Stop()
				p.beat(stop, t.C)
			}(p.stopc)
		}
		return
	}
	p.stopc = make(chan struct{})
	if p.every > 0 {
		go p.tick(p.stopc, p.every)
	}
	p.drawLocked()
}

// beat prints a heartbeat line at each tick, timed by the tick, until stop
// is closed or ticks ends.
func (p *progress) beat(stop <-chan struct{}, ticks <-chan time.Time) {
	for {
		select {
		case <-stop:
			return
		case at, ok := <-ticks:
			if !ok {
				return
			}
			p.mu.Lock()
			if !p.stopped {
				_, _ = io.WriteString(p.w, "agent-eval: progress "+p.statusAt(at, " spent")+"\n")
			}
			p.mu.Unlock()
		}
	}
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
	_, _ = io.WriteString(p.w, p.statusAt(p.now(), ""))
	p.shown = true
}

// statusAt is the status line at now, the cost followed by spent; on a
// terminal it is cut to the width so it never wraps (a wrapped line could
// not be cleared with one \r). The caller holds p.mu.
func (p *progress) statusAt(now time.Time, spent string) string {
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
	fmt.Fprintf(&b, " · %s%s", usd.Format(p.cost), spent)
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
