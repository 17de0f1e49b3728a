package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/agent-eval/agent-eval/internal/engine"
	"github.com/agent-eval/agent-eval/internal/results"
)

func TestColourOnlyOnATerminalWithoutNoColor(t *testing.T) {
	t.Parallel()
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	for _, tc := range []struct {
		live bool
		env  func(string) string
		want bool
	}{
		{true, env(), true},
		{true, env("NO_COLOR", "1"), false},
		{false, env(), false},
	} {
		if got := wantColour(tc.live, tc.env); got != tc.want {
			t.Errorf("wantColour(live %v) = %v, want %v", tc.live, got, tc.want)
		}
	}
	p := &progress{colour: true}
	for s, want := range map[string]string{
		"completed": ansiGreen + "completed" + ansiReset, "FAILED": ansiRed + "FAILED" + ansiReset, "timeout ": ansiRed + "timeout " + ansiReset,
		"error": ansiRed + "error" + ansiReset, "not run": "not run",
	} {
		if got := p.paint(s); got != want {
			t.Errorf("paint(%q) = %q, want %q", s, got, want)
		}
	}
	if got := (&progress{}).paint("completed"); got != "completed" {
		t.Errorf("paint off a terminal = %q", got)
	}
}

// TestSummaryColoursStatusesAndKeepsColumns: on a colour terminal the
// statuses are coloured and the table's columns stay aligned.
func TestSummaryColoursStatusesAndKeepsColumns(t *testing.T) {
	t.Parallel()
	var buf strings.Builder
	term := &Terminal{p: &progress{w: &buf, colour: true, running: map[string]time.Time{}}}
	term.RunFinished(engine.Summary{Dir: "runs/x", Run: &results.RunResult{RunID: "x"}, Rows: []engine.Row{
		engine.RowOf(&results.Case{CaseID: "a", Status: results.StatusCompleted}),
		engine.RowOf(&results.Case{CaseID: "bb", Status: results.StatusTimeout, ExitCode: -1}),
		{ID: "c"},
	}})
	out := buf.String()
	for _, want := range []string{ansiGreen + "completed", ansiRed + "timeout", ansiRed + "FAILED" + ansiReset + " — 1/3 cases exited 0"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	// Every row's "seconds" column starts where the header's does, once the
	// colour codes are removed, and no row is wider than the plain table.
	plain := strings.NewReplacer(ansiGreen, "", ansiRed, "", ansiReset, "").Replace(out)
	lines := strings.Split(plain, "\n")
	if want := "case  status     seconds  cost $  turns  denials  answered"; lines[0] != want {
		t.Errorf("header %q, want %q:\n%s", lines[0], want, plain)
	}
	col := strings.Index(lines[0], "seconds")
	for _, l := range lines[1:3] {
		if len(l) <= col || l[col-1] != ' ' || l[col] == ' ' {
			t.Errorf("row %q is not aligned with the header at %d:\n%s", l, col, plain)
		}
	}
}

// A run without the sandbox says at its start which protections are off.
func TestRunStartedSandboxOff(t *testing.T) {
	var b strings.Builder
	term := NewTerminal(&b, func(string) string { return "" })
	term.RunStarted(engine.RunInfo{RunID: "r1", ToRun: 1, Total: 1, SandboxOff: "permissions.sandbox: off",
		Unprotected: []string{"writes outside the workspace", "the network allowlist"}})
	term.Stop()
	want := "agent-eval: warning: the OS sandbox is off (permissions.sandbox: off), so the agent's commands run without: writes outside the workspace; the network allowlist\n"
	if !strings.Contains(b.String(), want) {
		t.Errorf("RunStarted printed\n%s\nwant a line\n%s", b.String(), want)
	}
	b.Reset()
	term = NewTerminal(&b, func(string) string { return "" })
	term.RunStarted(engine.RunInfo{RunID: "r1", ToRun: 1, Total: 1})
	term.Stop()
	if strings.Contains(b.String(), "sandbox") {
		t.Errorf("with the sandbox on, RunStarted printed %q", b.String())
	}
}

// TestSmallCostsKeepTheirDigits: a case that cost a fraction of a cent
// shows what it cost, in the case line, the table and the run's line.
func TestSmallCostsKeepTheirDigits(t *testing.T) {
	t.Parallel()
	var buf strings.Builder
	term := &Terminal{p: &progress{w: &buf, running: map[string]time.Time{}}}
	c := &results.Case{CaseID: "a", Status: results.StatusCompleted, CostUSD: 0.000042}
	term.CaseFinished(c)
	term.RunFinished(engine.Summary{Dir: "runs/x", Run: &results.RunResult{RunID: "x", CostUSD: 0.000042}, Rows: []engine.Row{engine.RowOf(c)}})
	out := buf.String()
	if n := strings.Count(out, "0.000042"); n != 3 || strings.Contains(out, "0.0000,") {
		t.Errorf("want 0.000042 in the case line, the table and the run line (%d found):\n%s", n, out)
	}
}

// TestCaseLineSaysWhyOnce: a case line adds what ended the case after its
// counts: the error, unless it only repeats the status ("interrupted …
// — interrupted"), else a non-zero exit code.
func TestCaseLineSaysWhyOnce(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		c    results.Case
		want string
	}{
		{"interrupted", results.Case{CaseID: "a", Status: results.StatusInterrupted, Error: "interrupted", ExitCode: -1}, "0 answered [1/1]\n"},
		{"an error", results.Case{CaseID: "a", Status: results.StatusError, Error: "prepare the workspace: boom"}, "0 answered — prepare the workspace: boom [1/1]\n"},
		{"a non-zero exit", results.Case{CaseID: "a", Status: results.StatusFailed, ExitCode: 3}, "0 answered — exit 3; its output is in the run's cases/a/ (stdout.log, stderr.log) [1/1]\n"},
		{"completed", results.Case{CaseID: "a", Status: results.StatusCompleted}, "0 answered [1/1]\n"},
		{"the agent's own words, on one line", results.Case{CaseID: "a", Status: results.StatusFailed, ExitCode: 1, Error: "the agent ended with an error: x\n::error title=forged::PASSED"},
			"0 answered — the agent ended with an error: x\\n::error title=forged::PASSED [1/1]\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var buf strings.Builder
			term := &Terminal{p: &progress{w: &buf, now: time.Now, running: map[string]time.Time{}}}
			term.p.begin(1)
			term.CaseFinished(&tc.c)
			if got := buf.String(); !strings.HasSuffix(got, tc.want) {
				t.Errorf("case line %q, want it to end %q", got, tc.want)
			}
		})
	}
}
