// Package ui is the terminal face of a run: the live status line, the
// per-case lines, the closing table and the colours. Terminal implements
// engine.Observer; nothing in it decides what runs.
package ui

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/agent-eval/agent-eval/internal/clip"
	"github.com/agent-eval/agent-eval/internal/engine"
	"github.com/agent-eval/agent-eval/internal/intercept"
	"github.com/agent-eval/agent-eval/internal/results"
	"github.com/agent-eval/agent-eval/internal/usd"
)

// Terminal reports a run on stderr: with a live status line and colours
// on a terminal, as plain lines elsewhere.
type Terminal struct {
	p    *progress
	mode engine.Mode
}

// NewTerminal writes to w (stderr); getenv says TERM, COLUMNS, NO_COLOR.
func NewTerminal(w io.Writer, getenv func(string) string) *Terminal {
	return &Terminal{p: newProgress(w, getenv)}
}

// Hide makes every line written hide the secret values hide knows (a
// redact.Redactor's HideKnown): the run id, model and agent the header
// prints, and anything written through Writer, are the user's text.
func (t *Terminal) Hide(hide func(string) string) {
	t.p.mu.Lock()
	defer t.p.mu.Unlock()
	t.p.hide = hide
}

// Writer is the terminal's stderr: what is written through it keeps the
// status line intact.
func (t *Terminal) Writer() io.Writer { return t.p }

// Stop clears the status line for good.
func (t *Terminal) Stop() { t.p.stop() }

// RunStarted prints the run's header line and starts the status line.
func (t *Terminal) RunStarted(i engine.RunInfo) {
	t.mode = i.Mode
	model := i.Model
	if model == "" {
		model = "the agent's own model" // a cli runner whose command names none
	}
	what := engine.Plural(i.ToRun, "case")
	if i.Repeats > 1 {
		what = fmt.Sprintf("%s (%d attempts of each case)", engine.Plural(i.ToRun, "attempt"), i.Repeats)
	}
	fmt.Fprintf(t.p, "run %s: %s with %s (%s) → %s\n", i.RunID, what, model, strings.TrimSpace(i.Agent+" "+i.AgentVersion), i.Dir)
	if len(i.Unprotected) > 0 {
		t.Warn(fmt.Sprintf("the OS sandbox is off (%s), so the agent's commands run without: %s", i.SandboxOff, strings.Join(i.Unprotected, "; ")))
	}
	if i.Mode == engine.ModeBatch {
		t.p.begin(1)
		return
	}
	t.p.begin(i.ToRun)
}

// AgentStarted prints "  <name>: started".
func (t *Terminal) AgentStarted(name string) {
	t.p.started(name)
	fmt.Fprintf(t.p, "  %s: started\n", name)
}

// CaseFinished prints the case's line and its fallback answers.
func (t *Terminal) CaseFinished(c *results.Case) {
	done, total := t.p.finished(c.CaseID, c.CostUSD, len(c.PermissionDenials))
	if t.mode == engine.ModeBatch {
		return // the batch's line closes the run
	}
	line := fmt.Sprintf("  %s: %s in %.1fs, %s, %s, %s, %s", c.CaseID, t.p.paint(string(c.Status)), c.DurationS, usd.Format(c.CostUSD),
		engine.Plural(c.NumTurns, "turn"), engine.Plural(len(c.PermissionDenials), "denial"), answeredByTier(c))
	switch {
	case c.Error != "" && c.Error != string(c.Status):
		line += " — " + clip.Line(c.Error) // the agent's final message may be in it: one line
	case c.Status == results.StatusFailed && c.ExitCode != 0:
		line += fmt.Sprintf(" — exit %d; its output is in the run's cases/%s/ (stdout.log, stderr.log)", c.ExitCode, c.CaseID)
	}
	fmt.Fprintf(t.p, "%s [%d/%d]\n", line, done, total)
	for _, w := range fallbackWarnings(c) {
		t.Warn(w)
	}
}

// Warn prints "agent-eval: warning: <msg>", on one line (a name from the
// run in it, a file the agent made, starts no line of its own: on a CI a
// workflow command).
func (t *Terminal) Warn(msg string) { fmt.Fprintln(t.p, "agent-eval: warning:", clip.Line(msg)) }

// Note prints msg as a line.
func (t *Terminal) Note(msg string) { fmt.Fprintln(t.p, msg) }

// RunFinished stops the status line and prints the closing table (case
// mode) or the batch's line.
func (t *Terminal) RunFinished(s engine.Summary) {
	t.p.stop()
	r := s.Run
	if c := r.Batch; c != nil {
		fmt.Fprintf(t.p, "batch run %s: %s — %s in one agent run, exit %d, %s, %s, %.1fs; results in %s\n",
			r.RunID, t.p.paint(string(c.Status)), engine.Plural(r.NumCases, "case"), c.ExitCode, usd.Format(c.CostUSD), engine.Plural(len(c.PermissionDenials), "denial"), r.WallClockS, s.Dir)
		return
	}
	t.summary(s)
}

func (t *Terminal) summary(s engine.Summary) {
	exited0 := 0
	var table strings.Builder
	tw := tabwriter.NewWriter(&table, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "case\tstatus\tseconds\tcost $\tturns\tdenials\tanswered")
	// Every status cell is padded to one width, so that once the table is
	// laid out each can be coloured in place (tabwriter would count the
	// colour codes as width and shift the columns).
	width := len("not run")
	for _, row := range s.Rows {
		width = max(width, len(row.Status))
	}
	for _, row := range s.Rows {
		if !row.Ran {
			fmt.Fprintf(tw, "%s\t%-*s\n", row.ID, width, "not run")
			continue
		}
		if row.ExitCode == 0 {
			exited0++
		}
		fmt.Fprintf(tw, "%s\t%-*s\t%.1f\t%s\t%d\t%d\t%s\n", row.ID, width, row.Status, row.DurationS, usd.Number(row.CostUSD), row.NumTurns, row.Denials, tierCells(row.Answers, row.AnswersByTier))
	}
	_ = tw.Flush()
	lines := strings.SplitAfter(table.String(), "\n")
	col := strings.Index(lines[0], "status")
	for i, l := range lines {
		if i > 0 && col > 0 && len(l) >= col+width {
			l = l[:col] + t.p.paint(l[col:col+width]) + l[col+width:]
		}
		fmt.Fprint(t.p, l)
	}
	status := "ok"
	if s.Run.Interrupted {
		status = "interrupted"
	} else if exited0 < len(s.Rows) {
		status = "FAILED"
	}
	fmt.Fprintf(t.p, "run %s: %s — %d/%s exited 0, %s, %.1fs; results in %s\n",
		s.Run.RunID, t.p.paint(status), exited0, engine.Plural(len(s.Rows), "case"), usd.Format(s.Run.CostUSD), s.Run.WallClockS, s.Dir)
}

var answerTiers = []string{intercept.TierOverride, intercept.TierLLM, intercept.TierFallback}

// tierCells is the summary's "answered" cell: "0", or "3 (1 case_override,
// 2 llm)".
func tierCells(answers int, byTier map[string]int) string {
	if answers == 0 {
		return "0"
	}
	var parts []string
	for _, tier := range answerTiers {
		if n := byTier[tier]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, tier))
		}
	}
	for tier, n := range byTier { // a tier this build does not know
		if n > 0 && !contains(answerTiers, tier) {
			parts = append(parts, fmt.Sprintf("%d %s", n, tier))
		}
	}
	if len(parts) == 0 {
		return fmt.Sprint(answers)
	}
	return fmt.Sprintf("%d (%s)", answers, strings.Join(parts, ", "))
}

// answeredByTier is the per-case line's "N answered (…)".
func answeredByTier(c *results.Case) string {
	cell := tierCells(c.Answers, c.AnswersByTier)
	if n, rest, ok := strings.Cut(cell, " "); ok {
		return n + " answered " + rest
	}
	return cell + " answered"
}

// fallbackWarnings name every question the fallback answered: neither
// answers.yaml nor the hook model did, which an eval author wants to know.
func fallbackWarnings(c *results.Case) []string {
	var out []string
	for _, a := range c.AnswerLog {
		if a.Tier == intercept.TierFallback {
			why := a.Why
			if why == "" {
				why = "the hook model gave no usable answer"
			}
			out = append(out, fmt.Sprintf("%s: question %q was answered by the fallback (%q): no case_overrides entry matched and %s", c.CaseID, a.Question, a.Answer, why))
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
