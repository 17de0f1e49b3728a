package analyze

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/agent-eval/agent-eval/internal/clip"
	"github.com/agent-eval/agent-eval/internal/results"
	"github.com/agent-eval/agent-eval/internal/rundir"
	"github.com/agent-eval/agent-eval/internal/transcript"
)

// Budgets bound the material sent to the model: each failing case's to
// Case bytes, all of them to Total (past it, a case is listed as left out).
type Budgets struct{ Case, Total int }

// DefaultBudgets are the budgets analyze uses: 6 KB a case, 60 KB in all
// (about 15k tokens).
var DefaultBudgets = Budgets{Case: 6 << 10, Total: 60 << 10}

// The longest piece of each kind within a case's material, before its
// case budget cuts the whole.
const (
	maxRationale = 1500
	maxInput     = 600
	maxCallIn    = 200
	maxCallOut   = 300
	maxFinal     = 800
	maxCalls     = 25 // the last ones: where a failing run usually went wrong
)

// failing reports whether a case failed: a judge failed or errored on
// it, or its agent run did not complete.
func failing(c rundir.CaseSummary) bool {
	if c.Status != string(results.StatusCompleted) && c.Status != "" {
		return true
	}
	for _, v := range c.Verdicts {
		if v.Error != "" || (v.Passed != nil && !*v.Passed) {
			return true
		}
	}
	return false
}

// caseMaterial is the text about one failing case the model reads: its
// status, the judges' failing verdicts and rationales, its permission
// denials, the end of its tool trace and its final answer, read from the
// run directory and cut to budget bytes.
func caseMaterial(dir rundir.Dir, c rundir.CaseSummary, batch *rundir.BatchAssignment, budget int) (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "status: %s\n", c.Status)
	rc, err := dir.ReadCase(c.ID)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	if rc != nil && rc.Error != "" {
		fmt.Fprintf(&b, "harness error: %s\n", clip.String(rc.Error, maxRationale))
	}
	if in, err := os.ReadFile(dir.CaseFolder(c.ID).Input()); err == nil {
		fmt.Fprintf(&b, "input:\n%s\n", indent(clip.String(string(in), maxInput)))
	}
	b.WriteString("verdicts:\n")
	for _, v := range c.Verdicts {
		switch {
		case v.Error != "":
			fmt.Fprintf(&b, "- %s: ERROR: %s\n", v.Judge, clip.String(v.Error, maxRationale))
		case v.Skipped || v.Lost:
			continue
		case v.Passed != nil && !*v.Passed:
			fmt.Fprintf(&b, "- %s: FAILED: %s\n", v.Judge, clip.String(v.Rationale, maxRationale))
		case v.Passed != nil:
			fmt.Fprintf(&b, "- %s: passed\n", v.Judge)
		case v.Value != nil:
			fmt.Fprintf(&b, "- %s: score %g: %s\n", v.Judge, *v.Value, clip.String(v.Rationale, maxRationale))
		}
	}
	var tr []transcript.Event
	var ledger []rundir.Decision
	if batch.InBatch(c.ID) {
		tr, err = dir.ReadBatchTranscript()
		if err == nil {
			ledger, err = dir.ReadBatchLedger()
		}
	} else {
		tr, err = dir.ReadTranscript(c.ID)
		if err == nil {
			ledger, err = dir.ReadLedger(c.ID)
		}
	}
	if err != nil {
		return "", err
	}
	writeDenials(&b, rc, ledger, tr)
	writeTrace(&b, tr)
	if rc != nil && rc.Result != "" {
		fmt.Fprintf(&b, "final answer:\n%s\n", indent(clip.String(rc.Result, maxFinal)))
	}
	return clip.String(b.String(), budget), nil
}

// writeDenials lists the case's permission denials (the runner's) and the
// hook's deny decisions.
func writeDenials(b *strings.Builder, rc *results.Case, ledger []rundir.Decision, tr []transcript.Event) {
	var lines []string
	seen := map[string]bool{}
	add := func(id, line string) {
		if id != "" && seen[id] {
			return
		}
		seen[id] = true
		lines = append(lines, line)
	}
	for _, d := range ledger {
		if d.Decision == "deny" {
			add(d.ToolUseID, fmt.Sprintf("- hook denied %s: %s", d.Tool, clip.String(d.Reason, maxCallOut)))
		}
	}
	if rc != nil {
		for _, d := range rc.PermissionDenials {
			add(d.ToolUseID, fmt.Sprintf("- permissions denied %s %s%s", d.ToolName, clip.String(string(d.ToolInput), maxCallIn), why(d.Reason)))
		}
	}
	for _, e := range tr {
		if e.Kind == transcript.KindDenial {
			add(e.ToolUseID, fmt.Sprintf("- permissions denied %s %s", e.Tool, clip.String(string(e.Input), maxCallIn)))
		}
	}
	if len(lines) == 0 {
		return
	}
	b.WriteString("denials:\n" + strings.Join(lines, "\n") + "\n")
}

func why(reason string) string {
	if reason == "" {
		return ""
	}
	return ": " + clip.String(reason, maxCallOut)
}

// writeTrace writes the last maxCalls tool calls, each with the start of
// its result.
func writeTrace(b *strings.Builder, tr []transcript.Event) {
	type call struct{ name, in, out string }
	var calls []call
	at := map[string]int{}
	for _, e := range tr {
		switch e.Kind {
		case transcript.KindToolCall:
			at[e.ToolUseID] = len(calls)
			calls = append(calls, call{name: e.Tool, in: compact(e.Input)})
		case transcript.KindToolResult:
			if i, ok := at[e.ToolUseID]; ok {
				out := clip.String(strings.TrimSpace(e.Text), maxCallOut)
				if e.IsError {
					out = "ERROR " + out
				}
				calls[i].out = out
			}
		}
	}
	if len(calls) == 0 {
		return
	}
	start := max(0, len(calls)-maxCalls)
	fmt.Fprintf(b, "tool calls (%d", len(calls))
	if start > 0 {
		fmt.Fprintf(b, ", the last %d", maxCalls)
	}
	b.WriteString("):\n")
	for i, c := range calls[start:] {
		fmt.Fprintf(b, "%d. %s %s\n", start+i+1, c.name, clip.String(c.in, maxCallIn))
		if c.out != "" {
			fmt.Fprintf(b, "   -> %s\n", clip.Line(c.out))
		}
	}
}

// compact is a tool call's input as one line of JSON.
func compact(in json.RawMessage) string {
	var v any
	if json.Unmarshal(in, &v) != nil {
		return clip.Line(string(in))
	}
	out, err := json.Marshal(v)
	if err != nil {
		return clip.Line(string(in))
	}
	return string(out)
}

func indent(s string) string {
	return "  " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n  ")
}
