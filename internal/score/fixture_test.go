package score

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/prompt"
	"github.com/agent-eval/agent-eval/internal/results"
	"github.com/agent-eval/agent-eval/internal/rundir"
	"github.com/agent-eval/agent-eval/internal/testutil/need"
	"github.com/agent-eval/agent-eval/internal/transcript"
)

// fixtureCase is one case of a hand-made run directory.
type fixtureCase struct {
	id          string
	exitCode    int
	cost        float64
	files       map[string]string // outputs/<name>
	events      []transcript.Event
	ledger      []rundir.Decision
	denials     []transcript.Denial
	answers     []results.Answer
	annotations string // the dataset's annotations.yaml
	input       string
	tampered    []string // status tampered, with these changes
	refused     []results.Refusal
}

// writeProject writes eval.yaml (with cases/ as the dataset) and a run
// directory holding cases, and returns the loaded config and the run.
func writeProject(t testing.TB, evalYAML string, cases ...fixtureCase) (*config.Eval, rundir.Dir) {
	t.Helper()
	root := t.TempDir()
	must(t, os.MkdirAll(filepath.Join(root, "cases"), 0o755))
	for _, c := range cases {
		src := filepath.Join(root, "cases", c.id)
		must(t, os.MkdirAll(src, 0o755))
		input := c.input
		if input == "" {
			input = "prompt: do it\n"
		}
		must(t, os.WriteFile(filepath.Join(src, "input.yaml"), []byte(input), 0o644))
		if c.annotations != "" {
			must(t, os.WriteFile(filepath.Join(src, "annotations.yaml"), []byte(c.annotations), 0o644))
		}
	}
	p := filepath.Join(root, "eval.yaml")
	must(t, os.WriteFile(p, []byte(evalYAML), 0o644))
	ev, err := config.Load(p)
	if err != nil {
		t.Fatalf("load eval.yaml: %v", err)
	}
	return ev, writeRun(t, filepath.Join(root, "runs", "r1"), cases...)
}

// writeRun writes a run directory at path through rundir's layout.
func writeRun(t testing.TB, path string, cases ...fixtureCase) rundir.Dir {
	t.Helper()
	d := rundir.Dir{Path: path}
	must(t, os.MkdirAll(path, 0o755))
	run := &results.RunResult{SchemaVersion: 1, RunID: filepath.Base(path), EvalName: "fixture", Model: "claude-test", PerCase: map[string]*results.Case{}}
	for _, c := range cases {
		must(t, os.MkdirAll(d.Case(c.id), 0o755))
		status := results.StatusCompleted
		if c.exitCode != 0 {
			status = results.StatusFailed
		}
		if c.tampered != nil {
			status = results.StatusTampered
		}
		rc := &results.Case{CaseID: c.id, ExitCode: c.exitCode, Status: status, CostUSD: c.cost, DurationS: 2, NumTurns: 3,
			PermissionDenials: c.denials, AnswerLog: c.answers, AnswersByTier: results.TierCounts(c.answers), Tampered: c.tampered, Refused: c.refused}
		must(t, results.WriteJSON(d.CaseResult(c.id), rc))
		run.Add(rc)
		for name, body := range c.files {
			p := filepath.Join(d.Outputs(c.id), filepath.FromSlash(name))
			must(t, os.MkdirAll(filepath.Dir(p), 0o755))
			must(t, os.WriteFile(p, []byte(body), 0o644))
		}
		if len(c.events) > 0 {
			f, err := os.Create(d.Transcript(c.id))
			must(t, err)
			w := transcript.NewWriter(f)
			for _, e := range c.events {
				w.Write(e)
			}
			must(t, w.Flush())
			must(t, f.Close())
		}
		if len(c.ledger) > 0 {
			f, err := os.Create(d.Ledger(c.id))
			must(t, err)
			for _, x := range c.ledger {
				b, _ := json.Marshal(x)
				_, _ = f.Write(append(b, '\n'))
			}
			must(t, f.Close())
		}
	}
	must(t, results.WriteJSON(d.RunResult(), run))
	return d
}

// needPython returns the python3 the judges would run, or skips the test
// without one (fails it in CI).
func needPython(t testing.TB) string {
	t.Helper()
	p := FindPython()
	if p == "" {
		need.Missing(t, "python3 is not on the judges' trusted PATH", need.Install("python3"))
	}
	return p
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// call is a tool call event; result its result event.
func call(id, tool, input string) transcript.Event {
	return transcript.Event{Kind: transcript.KindToolCall, ToolUseID: id, Tool: tool, Input: json.RawMessage(input)}
}

func result(id, text string, isErr bool) transcript.Event {
	return transcript.Event{Kind: transcript.KindToolResult, ToolUseID: id, Text: text, IsError: isErr}
}

func text(s string) transcript.Event { return transcript.Event{Kind: transcript.KindText, Text: s} }

func writeFile(p, body string) error { return os.WriteFile(p, []byte(body), 0o644) }

func renderFor(tpl string, rec *Record) (string, error) {
	return prompt.RenderWith(tpl, templateVars(rec, nil))
}

func removeCache(p string) error { return os.RemoveAll(p) }
