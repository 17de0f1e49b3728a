package workspace

import (
	"slices"
	"testing"
)

// TestProtectedDeniesIsReadOnly: overwriting or appending to what
// ProtectedDenies returns does not change the rules the next caller gets.
func TestProtectedDeniesIsReadOnly(t *testing.T) {
	t.Parallel()
	got := ProtectedDenies()
	for i := range got {
		got[i] = "Edit(nothing)"
	}
	_ = append(got[:0], "Read(nothing)")
	want := []string{"Edit(.claude/**)", "Edit(tool_handlers.yaml)", "Edit(hook_decisions.jsonl)"}
	if again := ProtectedDenies(); !slices.Equal(again, want) {
		t.Errorf("ProtectedDenies() after its copy was changed = %q, want %q", again, want)
	}
}
