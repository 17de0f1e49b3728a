package engine

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/rundir"
)

// TestAssignBatch: batch_pattern assigns a batch run's files to cases by
// their position (the counter advancing by each case's entry count),
// shares them ("*", or no pattern beside a patterned output), or, with no
// pattern at all, leaves the batch one unit; what matches no case is
// reported, and a name that leaves the folder is refused.
func TestAssignBatch(t *testing.T) {
	t.Parallel()
	three := []orderEntry{{"a", 1}, {"b", 1}, {"c", 1}}
	tests := []struct {
		name    string
		outputs []config.Output
		order   []orderEntry
		files   map[string][]string
		want    rundir.BatchAssignment
	}{{
		name:    "padded counter",
		outputs: []config.Output{{Path: "out", BatchPattern: "case-{n:03d}"}},
		order:   three,
		files:   map[string][]string{"out": {"out/case-002.md", "out/case-001.md", "out/case-003/notes.txt", "out/stray.md"}},
		want: rundir.BatchAssignment{Outputs: []rundir.BatchOutput{{Path: "out", Pattern: "case-{n:03d}"}}, Order: []string{"a", "b", "c"},
			Cases:      map[string][]string{"a": {"out/case-001.md"}, "b": {"out/case-002.md"}, "c": {"out/case-003/notes.txt"}},
			Unassigned: []string{"out/stray.md"}},
	}, {
		name:    "entry counts advance the counter; 1 is no prefix of 10",
		outputs: []config.Output{{Path: "r", BatchPattern: "r{n}"}},
		order:   []orderEntry{{"none", 0}, {"two", 2}, {"one", 1}},
		files:   map[string][]string{"r": {"r/r1.md", "r/r2.md", "r/r3.md", "r/r10.md"}},
		want: rundir.BatchAssignment{Outputs: []rundir.BatchOutput{{Path: "r", Pattern: "r{n}"}}, Order: []string{"none", "two", "one"},
			Cases:      map[string][]string{"none": {}, "two": {"r/r1.md", "r/r2.md"}, "one": {"r/r3.md"}},
			Unassigned: []string{"r/r10.md"}},
	}, {
		name:    "shared with every case",
		outputs: []config.Output{{Path: "all", BatchPattern: "*"}, {Path: "per", BatchPattern: "{n}-"}, {Path: "plain"}},
		order:   []orderEntry{{"a", 1}, {"b", 1}},
		files:   map[string][]string{"all": {"all/index.md"}, "per": {"per/1-x", "per/2-y"}, "plain": {"plain"}},
		want: rundir.BatchAssignment{Outputs: []rundir.BatchOutput{{Path: "all", Pattern: "*"}, {Path: "per", Pattern: "{n}-"}, {Path: "plain"}}, Order: []string{"a", "b"},
			Cases:  map[string][]string{"a": {"all/index.md", "per/1-x", "plain"}, "b": {"all/index.md", "per/2-y", "plain"}},
			Shared: []string{"all/index.md", "plain"}},
	}, {
		name:    "no pattern: one unit",
		outputs: []config.Output{{Path: "out"}, {Tool: "Write"}},
		order:   three,
		files:   map[string][]string{"out": {"out/b.md", "out/a.md"}},
		want: rundir.BatchAssignment{Unit: true, UnitID: "batch", Outputs: []rundir.BatchOutput{{Path: "out"}}, Order: []string{"batch"},
			Cases: map[string][]string{"batch": {"out/a.md", "out/b.md"}}},
	}, {
		name:    "names that leave the folder are refused",
		outputs: []config.Output{{Path: "out", BatchPattern: "*"}},
		order:   []orderEntry{{"a", 1}},
		files:   map[string][]string{"out": {"out/../../etc/passwd", "/abs", "out/ok"}},
		want: rundir.BatchAssignment{Outputs: []rundir.BatchOutput{{Path: "out", Pattern: "*"}}, Order: []string{"a"},
			Cases: map[string][]string{"a": {"out/ok"}}, Shared: []string{"out/ok"}, Refused: []string{"/abs", "out/../../etc/passwd"}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := assignBatch(tt.outputs, tt.order, tt.files, "batch")
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(&tt.want, got); d != "" {
				t.Errorf("assignment (-want +got):\n%s", d)
			}
		})
	}
}
