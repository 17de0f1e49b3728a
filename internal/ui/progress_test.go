package ui

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/agent-eval/agent-eval/internal/engine"
)

func TestProgressOffTerminalAddsNothing(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	p := newProgress(&buf, func(k string) string { return map[string]string{"TERM": "xterm"}[k] })
	p.begin(2)
	p.started("a")
	fmt.Fprintf(p, "  a: started\n")
	p.finished("a", 0.5, 1)
	fmt.Fprintf(p, "  a: completed\n")
	p.stop()
	if got, want := buf.String(), "  a: started\n  a: completed\n"; got != want {
		t.Errorf("stderr = %q, want %q", got, want)
	}
}

func TestProgressLiveLine(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	p := &progress{w: &buf, live: true, width: 60, now: func() time.Time { return now }, running: map[string]time.Time{}}
	p.begin(3)
	defer p.stop()
	p.started("alpha")
	now = now.Add(5 * time.Second)
	p.started("beta")
	now = now.Add(7 * time.Second)
	fmt.Fprintf(p, "  beta: started\n")
	out := buf.String()
	// The first status line, then cleared, the line, and the status redrawn.
	first := "[0/3] 0s · $0"
	second := "[0/3] 12s · 2 running: alpha 12s, beta 7s · $0"
	if exp := first + "\r\x1b[K  beta: started\n" + second; out != exp {
		t.Fatalf("stderr =\n%q\nwant\n%q", out, exp)
	}
	buf.Reset()
	if done, total := p.finished("alpha", 0.25, 2); done != 1 || total != 3 {
		t.Errorf("finished = %d of %d, want 1 of 3", done, total)
	}
	now = now.Add(63 * time.Second)
	fmt.Fprintf(p, "  alpha: completed\n")
	if exp := "\r\x1b[K  alpha: completed\n[1/3] 1m15s · 1 running: beta 1m10s · $0.25 · 2 denials"; buf.String() != exp {
		t.Fatalf("stderr =\n%q\nwant\n%q", buf.String(), exp)
	}
	buf.Reset()
	for i := 0; i < 20; i++ {
		p.started(fmt.Sprintf("a-rather-long-case-name-%02d", i))
	}
	fmt.Fprintf(p, "x\n")
	line := strings.TrimPrefix(buf.String(), "\r\x1b[Kx\n")
	if n := len([]rune(line)); n != 59 || !strings.HasSuffix(line, "…") {
		t.Errorf("status line of %d runes %q; want it cut to the width less one, ending in …", n, line)
	}
	buf.Reset()
	p.stop()
	fmt.Fprintf(p, "summary\n")
	if buf.String() != "\r\x1b[Ksummary\n" {
		t.Errorf("after stop: %q; want the line cleared and plain output", buf.String())
	}
}

// TestProgressRedrawsWhileWaiting: with nothing printed, the line still
// moves (the clock, the running cases' times).
func TestProgressRedrawsWhileWaiting(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	p := &progress{w: &buf, live: true, width: 80, now: time.Now, running: map[string]time.Time{}, every: 5 * time.Millisecond}
	p.begin(1)
	defer p.stop()
	deadline := time.Now().Add(5 * time.Second)
	for {
		p.mu.Lock()
		redraws := strings.Count(buf.String(), "\r\x1b[K[0/1]")
		p.mu.Unlock()
		if redraws >= 3 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d redraws in 5s with a 5ms period", redraws)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestTerminalDetection(t *testing.T) {
	t.Parallel()
	getenv := func(k string) string { return map[string]string{"TERM": "xterm"}[k] }
	if live, _ := terminal(&bytes.Buffer{}, getenv); live {
		t.Error("a buffer is not a terminal")
	}
	devnull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer devnull.Close()
	if live, _ := terminal(devnull, getenv); live {
		t.Error("/dev/null is a character device but not a terminal")
	}
	f, err := os.Create(t.TempDir() + "/f")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if live, _ := terminal(f, getenv); live {
		t.Error("a file is not a terminal")
	}
}

func TestClock(t *testing.T) {
	t.Parallel()
	for d, want := range map[time.Duration]string{0: "0s", 59 * time.Second: "59s", 65 * time.Second: "1m05s", 3725 * time.Second: "1h02m"} {
		if got := clock(d); got != want {
			t.Errorf("clock(%v) = %q, want %q", d, got, want)
		}
	}
}

// TestProgressForgetsAFinishedCasesSteps: a pipeline's steps start as
// "<case>/<step>"; when the case finishes none of them is still running.
func TestProgressForgetsAFinishedCasesSteps(t *testing.T) {
	t.Parallel()
	p := newProgress(&bytes.Buffer{}, func(string) string { return "" })
	p.started("c/one")
	p.started("c/two")
	p.started("cc/one")
	p.finished("c", 0, 0)
	if len(p.running) != 1 || p.running["cc/one"].IsZero() {
		t.Errorf("running after c finished: %v", p.running)
	}
}

// TestProgressHeartbeatOffTerminal: without a terminal, each tick of the
// heartbeat prints one plain line — cases done of total, the run's time,
// the cases running and for how long, the spend so far — timed by the
// tick (a fake clock here), and nothing after stop.
func TestProgressHeartbeatOffTerminal(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	now := t0
	p := &progress{w: &buf, now: func() time.Time { return now }, running: map[string]time.Time{}}
	p.begin(3)
	p.started("a")
	now = t0.Add(20 * time.Second)
	p.started("b")
	p.finished("a", 0.125, 0)
	ticks := make(chan time.Time, 3)
	ticks <- t0.Add(30 * time.Second)
	ticks <- t0.Add(95 * time.Second)
	close(ticks)
	p.beat(make(chan struct{}), ticks)
	want := "agent-eval: progress [1/3] 30s · 1 running: b 10s · $0.12 spent\n" +
		"agent-eval: progress [1/3] 1m35s · 1 running: b 1m15s · $0.12 spent\n"
	if got := buf.String(); got != want {
		t.Errorf("heartbeat =\n%q\nwant\n%q", got, want)
	}
	buf.Reset()
	p.stop()
	ticks = make(chan time.Time, 1)
	ticks <- t0.Add(2 * time.Minute)
	close(ticks)
	p.beat(make(chan struct{}), ticks)
	if buf.Len() > 0 {
		t.Errorf("a beat after stop printed %q", buf.String())
	}
}

func TestHeartbeatPeriod(t *testing.T) {
	t.Parallel()
	tests := []struct {
		env  string
		want time.Duration
		warn bool
	}{
		{"", 30 * time.Second, false},
		{"2s", 2 * time.Second, false},
		{"5", 5 * time.Second, false},
		{"0", 0, false},
		{"soon", 30 * time.Second, true},
		{"-1s", 30 * time.Second, true},
	}
	for _, tt := range tests {
		var buf bytes.Buffer
		p := newProgress(&buf, func(k string) string { return map[string]string{HeartbeatEnv: tt.env}[k] })
		if p.heartbeat != tt.want || (buf.Len() > 0) != tt.warn {
			t.Errorf("%s=%q: heartbeat %v, warning %q; want %v, warning %v", HeartbeatEnv, tt.env, p.heartbeat, buf.String(), tt.want, tt.warn)
		}
	}
}

// TestHide: what is written through the terminal hides the values Hide
// was given, and reports the length it was given.
func TestHide(t *testing.T) {
	var out strings.Builder
	term := NewTerminal(&out, func(string) string { return "" })
	term.Hide(func(s string) string { return strings.ReplaceAll(s, "sk-live-0042", "[redacted]") })
	term.RunStarted(engine.RunInfo{RunID: "r1", Model: "model-sk-live-0042", ToRun: 1, Dir: "/runs/r1"})
	line := "note sk-live-0042\n"
	if n, err := term.Writer().Write([]byte(line)); n != len(line) || err != nil {
		t.Errorf("Write = %d, %v; want %d, nil", n, err, len(line))
	}
	term.Stop()
	if strings.Contains(out.String(), "sk-live-0042") || !strings.Contains(out.String(), "model-[redacted]") {
		t.Errorf("the terminal shows the secret:\n%s", out.String())
	}
}
