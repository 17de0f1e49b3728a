package config

import (
	"bytes"
	"os"
	"testing"
)

// A runner level's eval is the file with the level's runner and model
// written in: runner.effort and runner.settings stay for a level of the
// eval's own type and go for another, Loaded stays the file's content, and
// the rewritten source loads again as the same eval.
func TestForRunner(t *testing.T) {
	src := []byte(`# top comment
execution:
  prompt: Say hello.
runner:
  type: claude-code   # the base agent
  effort: high
  settings: {binary: /opt/claude}
models:
  skill: claude-sonnet-4-6
matrix:
  factors:
    runner:
      - {type: claude-code, model: claude-opus-4-6}
      - {type: codex, model: gpt-5.5}
      - {type: gemini, model: gemini-2.5-flash, settings: {general: {x: 1}}}
`)
	path := t.TempDir() + "/eval.yaml"
	if err := os.WriteFile(path, src, 0o644); err != nil {
		t.Fatal(err)
	}
	ev, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	levels := ev.Matrix.RunnerLevels()
	if len(levels) != 3 {
		t.Fatalf("levels = %+v", levels)
	}
	for _, tc := range []struct {
		level                      int
		typ, model, effort, binary string
		settings                   bool
	}{
		{0, "claude-code", "claude-opus-4-6", "high", "/opt/claude", true},
		{1, "codex", "gpt-5.5", "", "", false},
		{2, "gemini", "gemini-2.5-flash", "", "", true},
	} {
		cell, err := ev.ForRunner(levels[tc.level])
		if err != nil {
			t.Fatalf("level %d: %v", tc.level, err)
		}
		if cell.RunnerType() != tc.typ || cell.Models.Skill != tc.model || cell.Runner.Effort != tc.effort {
			t.Errorf("level %d: runner %s, model %s, effort %q; want %s, %s, %q", tc.level, cell.RunnerType(), cell.Models.Skill, cell.Runner.Effort, tc.typ, tc.model, tc.effort)
		}
		if b, _ := cell.Runner.Settings["binary"].(string); b != tc.binary || (cell.Runner.Settings != nil) != tc.settings {
			t.Errorf("level %d: settings %v", tc.level, cell.Runner.Settings)
		}
		if !bytes.Equal(cell.Loaded(), src) || bytes.Equal(cell.Source(), src) {
			t.Errorf("level %d: Loaded is not the file's content, or Source was not rewritten", tc.level)
		}
		if !bytes.Contains(cell.Source(), []byte("# top comment")) || cell.Path() != ev.Path() || cell.Dir() != ev.Dir() {
			t.Errorf("level %d: the rewritten eval lost its comments or its place:\n%s", tc.level, cell.Source())
		}
		again, err := ParseCopy(path+".copy", cell.Source(), path)
		if err != nil || again.RunnerType() != tc.typ || again.Models.Skill != tc.model {
			t.Errorf("level %d: the rewritten source does not load as the cell's eval: %v", tc.level, err)
		}
	}
}

// An anchor under runner: would be shared with other places: refused.
func TestForRunnerAnchor(t *testing.T) {
	ev, err := Parse("eval.yaml", []byte("execution: {prompt: hi}\nrunner: &r {type: claude-code}\nmodels: {skill: m}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ev.ForRunner(RunnerLevel{Name: "codex", Type: "codex", Model: "gpt-5.5"}); err == nil {
		t.Error("ForRunner rewrote an anchored runner: block")
	}
}
