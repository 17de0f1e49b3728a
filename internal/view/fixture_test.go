package view

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-eval/agent-eval/internal/results"
	"github.com/agent-eval/agent-eval/internal/transcript"
)

// The fixture's runs, under one eval's runs directory.
const (
	runScored  = "20261201-031500.000-scored"  // report's fixture run: 3 cases, scored
	runHostile = "20261202-031500.000-hostile" // one case whose every text is an attack
	runLive    = "20261203-031500.000-live"    // in progress: no run_result.json
	runBig     = "20261204-031500.000-big"     // 1,000 cases
)

// hostile is what an agent writes to take over the page: each would run
// script, or add an element, if it were not escaped.
const hostile = `<script>window.pwned=1</script><img src=x onerror="window.pwned=2"><b id="injected">x</b>"'><svg onload="window.pwned=3">`

// root is a runs root with the fixture's runs (big ones only when asked).
func root(t testing.TB, big bool) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(filepath.Join(dir, runScored), os.DirFS("../report/testdata/run")); err != nil {
		t.Fatal(err)
	}
	writeRun(t, filepath.Join(dir, runHostile), hostile, true)
	hostileCase(t, filepath.Join(dir, runHostile, "cases", "evil-001"))
	writeRun(t, filepath.Join(dir, runLive), "live-eval", false)
	for i := range 2 {
		writeCase(t, filepath.Join(dir, runLive, "cases", fmt.Sprintf("live-%03d", i)), fmt.Sprintf("live-%03d", i), i)
	}
	if big {
		writeRun(t, filepath.Join(dir, runBig), "big-eval", true)
		for i := range 1000 {
			writeCase(t, filepath.Join(dir, runBig, "cases", fmt.Sprintf("case-%04d", i)), fmt.Sprintf("case-%04d", i), i)
		}
	}
	return dir
}

func writeJSON(t testing.TB, path string, v any) {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// writeRun makes a run directory; finished: it has its run_result.json.
func writeRun(t testing.TB, dir, eval string, finished bool) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, "cases"), 0o755); err != nil {
		t.Fatal(err)
	}
	if finished {
		writeJSON(t, filepath.Join(dir, "run_result.json"), results.RunResult{RunID: filepath.Base(dir), EvalName: eval, Model: "m-" + eval, Agent: "claude-code"})
	}
}

// writeCase writes a finished case: its result and a two-call transcript.
func writeCase(t testing.TB, dir, id string, i int) {
	t.Helper()
	status := results.StatusCompleted
	if i%10 == 3 {
		status = results.StatusFailed
	}
	writeJSON(t, filepath.Join(dir, "run_result.json"), results.Case{CaseID: id, Status: status,
		CostUSD: float64(i%17) / 100, DurationS: float64(i%23) + 1, NumTurns: i%5 + 1})
	var b strings.Builder
	w := transcript.NewWriter(&b)
	w.Write(transcript.Event{Kind: transcript.KindPrompt, Text: "do case " + id})
	w.Write(transcript.Event{Kind: transcript.KindToolCall, Tool: "Bash", ToolUseID: "t1", Input: json.RawMessage(`{"command":"ls"}`)})
	w.Write(transcript.Event{Kind: transcript.KindToolResult, ToolUseID: "t1", Text: "a.txt"})
	w.Write(transcript.Event{Kind: transcript.KindResult, Text: "done " + id})
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "transcript.jsonl"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// hostileCase writes a case whose error, transcript, hook decision and
// output file all carry the attack.
func hostileCase(t testing.TB, dir string) {
	t.Helper()
	writeJSON(t, filepath.Join(dir, "run_result.json"), results.Case{CaseID: "evil-001", Status: results.StatusFailed, Error: hostile, Prompt: hostile})
	input, _ := json.Marshal(map[string]string{"command": hostile})
	var b strings.Builder
	w := transcript.NewWriter(&b)
	w.Write(transcript.Event{Kind: transcript.KindText, Text: hostile})
	w.Write(transcript.Event{Kind: transcript.KindToolCall, Tool: "Bash", ToolUseID: "t1", Input: input})
	w.Write(transcript.Event{Kind: transcript.KindToolResult, ToolUseID: "t1", Text: hostile})
	w.Write(transcript.Event{Kind: transcript.KindResult, Text: hostile})
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "transcript.jsonl"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	ledger, _ := json.Marshal(map[string]any{"ts": "2026-12-02T03:15:10Z", "tool_use_id": "t1", "tool": "Bash", "decision": "deny", "handler": 0, "reason": hostile, "us": 10})
	if err := os.WriteFile(filepath.Join(dir, "hook_decisions.jsonl"), append(ledger, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "outputs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "outputs", "page.html"), []byte(hostile), 0o644); err != nil {
		t.Fatal(err)
	}
}
