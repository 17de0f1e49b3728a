package matrix

import (
	"reflect"
	"testing"
	"time"

	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/rundir"
)

func intp(n int) *int { return &n }

func TestExpand(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		m     *config.Matrix
		names []string
	}{
		{"none", nil, nil},
		{"no factors", &config.Matrix{}, nil},
		{"one factor, one replication", &config.Matrix{Factors: map[string][]any{"context": {"cognee", "none"}}},
			[]string{"c01.context-cognee.r1", "c02.context-none.r1"}},
		{"factors sorted, levels in file order, replications adjacent",
			&config.Matrix{Factors: map[string][]any{"model": {"claude-sonnet-4-6", "claude-opus-4-6"}, "context": {"none", "cognee"}}, Replications: intp(2)},
			[]string{
				"c01.context-none.model-claude-sonnet-4-6.r1", "c01.context-none.model-claude-sonnet-4-6.r2",
				"c02.context-none.model-claude-opus-4-6.r1", "c02.context-none.model-claude-opus-4-6.r2",
				"c03.context-cognee.model-claude-sonnet-4-6.r1", "c03.context-cognee.model-claude-sonnet-4-6.r2",
				"c04.context-cognee.model-claude-opus-4-6.r1", "c04.context-cognee.model-claude-opus-4-6.r2",
			}},
		{"unsafe and non-string levels are made folder-safe", &config.Matrix{Factors: map[string][]any{"k": {"a/b c", 3, true, 0.5}}},
			[]string{"c01.k-a_b_c.r1", "c02.k-3.r1", "c03.k-true.r1", "c04.k-0_5.r1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cells := Expand(tt.m)
			var names []string
			for _, c := range cells {
				names = append(names, c.Name)
				if !rundir.SafeSegment(c.Name) {
					t.Errorf("%s is not a safe folder name", c.Name)
				}
			}
			if !reflect.DeepEqual(names, tt.names) {
				t.Errorf("names %q, want %q", names, tt.names)
			}
		})
	}
}

func TestCellModelAndOverrides(t *testing.T) {
	t.Parallel()
	cells := Expand(&config.Matrix{Factors: map[string][]any{"model": {"m1"}, "n": {2}, "ctx": {"x"}}})
	if len(cells) != 1 {
		t.Fatalf("%d cells", len(cells))
	}
	c := cells[0]
	if c.Model() != "m1" || c.Replication != 1 || c.Combination != 1 {
		t.Errorf("cell %+v", c)
	}
	if got := c.InputOverrides(); !reflect.DeepEqual(got, map[string]any{"n": 2, "ctx": "x"}) {
		t.Errorf("overrides %v", got)
	}
	if got := c.LevelTexts(); !reflect.DeepEqual(got, map[string]string{"model": "m1", "n": "2", "ctx": "x"}) {
		t.Errorf("levels %v", got)
	}
	if (Cell{}).Model() != "" || (Cell{}).InputOverrides() != nil {
		t.Error("an empty cell has a model or overrides")
	}
}

func TestIndexRoundTrip(t *testing.T) {
	t.Parallel()
	m := &config.Matrix{Factors: map[string][]any{"model": {"a", "b"}, "ctx": {"x", "y"}}, Replications: intp(2)}
	ix := NewIndex("m1", "demo", m, time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	d := Folder(t.TempDir(), "m1")
	if _, err := d.ReadIndex(); err == nil {
		t.Fatal("read an index that was never written")
	}
	if err := d.WriteIndex(ix); err != nil {
		t.Fatal(err)
	}
	got, err := d.ReadIndex()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, ix) {
		t.Errorf("round trip:\n got %+v\nwant %+v", got, ix)
	}
	if len(got.Cells) != 8 || got.Cells[0].RunDir != "cells/"+got.Cells[0].Name || got.CreatedAt != "2026-01-02T03:04:05Z" {
		t.Errorf("index %+v", got)
	}
	if !reflect.DeepEqual(got.FactorNames(), []string{"ctx", "model"}) || !reflect.DeepEqual(got.Factors[1].Levels, []string{"a", "b"}) {
		t.Errorf("factors %+v", got.Factors)
	}
	if s := d.CellState(got.Cells[0].Name); s != StatePending {
		t.Errorf("state of a cell never run: %s", s)
	}
	// A cell name that would leave the cells folder is refused.
	bad := ix
	bad.Cells = append([]IndexCell(nil), ix.Cells...)
	bad.Cells[0].Name, bad.Cells[0].RunDir = "..", "cells/.."
	if err := d.WriteIndex(bad); err != nil {
		t.Fatal(err)
	}
	if _, err := d.ReadIndex(); err == nil {
		t.Error("read an index with the cell name ..")
	}
}

// A runner level is named by its name (its type by default), sets the
// cell's model and no case input, and reads back from matrix.json.
func TestRunnerCells(t *testing.T) {
	t.Parallel()
	m := &config.Matrix{Factors: map[string][]any{
		"runner": {
			map[string]any{"type": "claude-code", "model": "claude-sonnet-4-5"},
			map[string]any{"type": "codex", "model": "gpt-5.5", "name": "codex-high", "effort": "high"},
		},
		"ctx": {"x"},
	}}
	cells := Expand(m)
	var names []string
	for _, c := range cells {
		names = append(names, c.Name)
	}
	if want := []string{"c01.ctx-x.runner-claude-code.r1", "c02.ctx-x.runner-codex-high.r1"}; !reflect.DeepEqual(names, want) {
		t.Fatalf("names %q, want %q", names, want)
	}
	if got := cells[1].InputOverrides(); !reflect.DeepEqual(got, map[string]any{"ctx": "x"}) {
		t.Errorf("overrides %v: the runner is not a case input", got)
	}
	d := Folder(t.TempDir(), "m")
	if err := d.WriteIndex(NewIndex("m", "demo", m, time.Now())); err != nil {
		t.Fatal(err)
	}
	ix, err := d.ReadIndex()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(ix.Factors[1], Factor{Name: "runner", Levels: []string{"claude-code", "codex-high"}}) {
		t.Errorf("factor %+v", ix.Factors[1])
	}
	c := ix.Cells[1].Cell()
	r, ok := c.Runner()
	if !ok || r.Type != "codex" || r.Effort != "high" || c.Model() != "gpt-5.5" || c.LevelTexts()["runner"] != "codex-high" {
		t.Errorf("cell %s from matrix.json: runner %+v (%v), model %q", c.Name, r, ok, c.Model())
	}
	if _, ok := cells[0].Runner(); !ok {
		t.Error("no runner level in a runner cell")
	}
	if _, ok := (Cell{}).Runner(); ok {
		t.Error("a runner level in an empty cell")
	}
}
