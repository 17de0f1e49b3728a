package generate

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

func listDir(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && p != dir {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	sort.Strings(out)
	return out
}

func TestWrite(t *testing.T) {
	mk := func(id string) Case {
		return Case{ID: id, Input: map[string]any{"prompt": "p " + id}, Annotations: map[string]any{"category": "c"}}
	}
	for _, tc := range []struct {
		name     string
		existing []string // case folders already there
		cases    []Case
		invalid  string // the id Validate refuses
		dryRun   bool
		want     []string // id:status
		files    []string // the dataset afterwards (folders named, files inside)
	}{
		{
			name:  "new dataset",
			cases: []Case{mk("nav-001"), mk("nav-002")},
			want:  []string{"nav-001:written", "nav-002:written"},
			files: []string{"nav-001", "nav-001/annotations.yaml", "nav-001/input.yaml", "nav-002", "nav-002/annotations.yaml", "nav-002/input.yaml"},
		},
		{
			name:     "a taken id is renamed past the highest number",
			existing: []string{"nav-001", "nav-007"},
			cases:    []Case{mk("nav-001"), mk("other")},
			want:     []string{"nav-008:written", "other:written"},
			files:    []string{"nav-001", "nav-007", "nav-008", "nav-008/annotations.yaml", "nav-008/input.yaml", "other", "other/annotations.yaml", "other/input.yaml"},
		},
		{
			name:     "an unnumbered taken id gets -2",
			existing: []string{"edge"},
			cases:    []Case{mk("edge")},
			want:     []string{"edge-2:written"},
			files:    []string{"edge", "edge-2", "edge-2/annotations.yaml", "edge-2/input.yaml"},
		},
		{
			name:     "a trace already imported is skipped",
			existing: []string{"trace-abc"},
			cases:    []Case{func() Case { c := mk("trace-abc"); c.KeepExisting = true; return c }()},
			want:     []string{"trace-abc:skipped"},
			files:    []string{"trace-abc"},
		},
		{
			name:    "an invalid case is not written",
			cases:   []Case{mk("a-001"), mk("a-002")},
			invalid: "a-001",
			want:    []string{"a-001:invalid", "a-002:written"},
			files:   []string{"a-002", "a-002/annotations.yaml", "a-002/input.yaml"},
		},
		{
			name:  "an unsafe id is not written",
			cases: []Case{mk("../up"), mk(".hidden")},
			want:  []string{"../up:invalid", ".hidden:invalid"},
		},
		{
			name:  "a file leaving the case folder is not written",
			cases: []Case{func() Case { c := mk("f"); c.Files = map[string]string{"../x": "y"}; return c }()},
			want:  []string{"f:invalid"},
		},
		{
			name:  "companion files are written",
			cases: []Case{func() Case { c := mk("g"); c.Files = map[string]string{"docs/strategy.md": "s"}; return c }()},
			want:  []string{"g:written"},
			files: []string{"g", "g/annotations.yaml", "g/docs", "g/docs/strategy.md", "g/input.yaml"},
		},
		{
			name:     "dry run writes nothing",
			existing: []string{"nav-001"},
			cases:    []Case{mk("nav-001"), mk("b")},
			invalid:  "b",
			dryRun:   true,
			want:     []string{"nav-002:would-write", "b:invalid"},
			files:    []string{"nav-001"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "dataset")
			for _, id := range tc.existing {
				if err := os.MkdirAll(filepath.Join(dir, id), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			var seen []string
			var log strings.Builder
			out, err := Write(dir, tc.cases, WriteOptions{DryRun: tc.dryRun, Progress: &log, Validate: func(root, id string) []string {
				seen = append(seen, id)
				if _, err := os.Stat(filepath.Join(root, id, "input.yaml")); err != nil {
					return []string{"no input.yaml to validate"}
				}
				if id == tc.invalid {
					return []string{"prompt: no field x"}
				}
				return nil
			}})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, o := range out {
				got = append(got, o.ID+":"+o.Status)
			}
			if strings.Join(got, " ") != strings.Join(tc.want, " ") {
				t.Errorf("outcomes = %v, want %v\n%s", got, tc.want, log.String())
			}
			if files := listDir(t, dir); strings.Join(files, " ") != strings.Join(tc.files, " ") {
				t.Errorf("dataset = %v, want %v", files, tc.files)
			}
			for _, o := range out {
				if o.Status != Written && o.Status != WouldWrite && !strings.Contains(log.String(), o.ID) {
					t.Errorf("stderr does not name %s (%s):\n%s", o.ID, o.Status, log.String())
				}
			}
		})
	}
}

func TestWriteContent(t *testing.T) {
	dir := t.TempDir()
	_, err := Write(dir, []Case{{ID: "c-001", Input: map[string]any{"prompt": "How?"}, Annotations: map[string]any{"category": "nav", "expected_files": []any{"CLAUDE.md"}}}}, WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	in, _ := os.ReadFile(filepath.Join(dir, "c-001", "input.yaml"))
	ann, _ := os.ReadFile(filepath.Join(dir, "c-001", "annotations.yaml"))
	if string(in) != "prompt: How?\n" || string(ann) != "category: nav\nexpected_files:\n    - CLAUDE.md\n" {
		t.Errorf("input.yaml %q, annotations.yaml %q", in, ann)
	}
}

func TestFreeID(t *testing.T) {
	taken := map[string]bool{"nav-001": true, "nav-002": true, "x": true, "x-2": true, "nav-2x": true}
	for id, want := range map[string]string{"nav-001": "nav-003", "x": "x-3", "new-5": "new-6"} {
		if got := freeID(id, taken); got != want {
			t.Errorf("freeID(%s) = %s, want %s", id, got, want)
		}
	}
}
