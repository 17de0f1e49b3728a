package claudecode

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// carve protects a folder whole unless it holds a place the agent must keep
// writing; then its other entries, as deep as needed.
func TestCarve(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"eval/cases/c1", "eval/home/.cache", "eval/tmp/ws/c1", "eval/tmp/ws/c2", "home/proj"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"eval/eval.yaml", "home/proj/eval.yaml"} {
		if err := os.WriteFile(filepath.Join(root, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	j := func(p string) string { return filepath.Join(root, p) }
	for _, tc := range []struct {
		name         string
		root         string
		hold, around []string
		want         []string
	}{
		{"nothing to keep inside: the whole folder", "eval/cases", []string{"eval/tmp/ws/c1"}, []string{"eval/tmp"}, []string{"eval/cases"}},
		// The e2e layout: $HOME and $TMPDIR (with the workspaces) under eval.yaml's folder.
		{"around HOME and TMPDIR", "eval", []string{"eval/tmp/ws/c1"}, []string{"eval/home", "eval/tmp"}, []string{"eval/cases", "eval/eval.yaml"}},
		// Only the agent's own workspace stays writable: the others are protected.
		{"the workspace alone", "eval", []string{"eval/tmp/ws/c1"}, nil, []string{"eval/cases", "eval/eval.yaml", "eval/home", "eval/tmp/ws/c2"}},
		// eval.yaml in a project under $HOME: protected whole.
		{"inside HOME", "home/proj", []string{"eval/tmp/ws/c1"}, []string{"home"}, []string{"home/proj"}},
		{"inside the workspace: never", "eval/tmp/ws/c1", []string{"eval/tmp/ws/c1"}, nil, nil},
		{"missing", "eval/nothing", nil, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var hold, around, want []string
			for _, p := range tc.hold {
				hold = append(hold, j(p))
			}
			for _, p := range tc.around {
				around = append(around, j(p))
			}
			for _, p := range tc.want {
				want = append(want, j(p))
			}
			got := carve(nil, j(tc.root), hold, around)
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Errorf("carve(%s) =\n%q\nwant\n%q", tc.root, got, want)
			}
		})
	}
}
