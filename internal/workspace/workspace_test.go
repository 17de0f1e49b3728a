package workspace

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	yaml "go.yaml.in/yaml/v3"

	"github.com/agent-eval/agent-eval/internal/intercept"
)

// writeFile creates path (and its parents) holding content, with exactly
// mode (chmod after the write, so the umask does not interfere).
func writeFile(t *testing.T, path, content string, mode fs.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

// tree describes everything under root, keyed by slash-separated relative
// path: "dir", "symlink", or "file <perm> <content>". A missing root is an
// empty tree.
func tree(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) && p == root {
			return filepath.SkipAll
		}
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			out[rel] = "symlink"
		case d.IsDir():
			out[rel] = "dir"
		default:
			info, err := d.Info()
			if err != nil {
				return err
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out[rel] = fmt.Sprintf("file %#o %s", info.Mode().Perm(), b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestCopyTree(t *testing.T) {
	t.Parallel()
	// Modes are owner-only so that no common umask (022, 002, 027, 077)
	// changes them: copyFile creates files with the source mode plus owner
	// write, filtered by the umask.
	tests := []struct {
		name  string
		setup func(t *testing.T, src, outside string)
		want  map[string]string
	}{
		{
			name: "nested directories, contents and modes",
			setup: func(t *testing.T, src, _ string) {
				writeFile(t, filepath.Join(src, "top.txt"), "top", 0o600)
				writeFile(t, filepath.Join(src, "a", "run.sh"), "#!/bin/sh", 0o700)
				writeFile(t, filepath.Join(src, "a", "b", "c", "deep.txt"), "deep", 0o600)
				if err := os.MkdirAll(filepath.Join(src, "empty", "dir"), 0o755); err != nil {
					t.Fatal(err)
				}
			},
			want: map[string]string{
				".":              "dir",
				"top.txt":        "file 0600 top",
				"a":              "dir",
				"a/run.sh":       "file 0700 #!/bin/sh",
				"a/b":            "dir",
				"a/b/c":          "dir",
				"a/b/c/deep.txt": "file 0600 deep",
				"empty":          "dir",
				"empty/dir":      "dir",
			},
		},
		{
			name: "read-only files gain owner write",
			setup: func(t *testing.T, src, _ string) {
				writeFile(t, filepath.Join(src, "ro.txt"), "ro", 0o400)
				writeFile(t, filepath.Join(src, "rox.sh"), "rox", 0o500)
			},
			want: map[string]string{
				".":      "dir",
				"ro.txt": "file 0600 ro",
				"rox.sh": "file 0700 rox",
			},
		},
		{
			name: "symlinks inside the tree are neither followed nor copied",
			setup: func(t *testing.T, src, outside string) {
				writeFile(t, filepath.Join(outside, "secret.txt"), "SECRET", 0o600)
				writeFile(t, filepath.Join(outside, "dir", "secret2.txt"), "SECRET2", 0o600)
				writeFile(t, filepath.Join(src, "kept.txt"), "kept", 0o600)
				symlink(t, filepath.Join(outside, "secret.txt"), filepath.Join(src, "file-link"))
				symlink(t, filepath.Join(outside, "dir"), filepath.Join(src, "sub", "dir-link"))
				symlink(t, "kept.txt", filepath.Join(src, "inside-link"))
				symlink(t, filepath.Join(outside, "nope"), filepath.Join(src, "dangling"))
			},
			want: map[string]string{
				".":        "dir",
				"kept.txt": "file 0600 kept",
				"sub":      "dir",
			},
		},
		{
			name: "nested .git directories are skipped, .git files are not",
			setup: func(t *testing.T, src, _ string) {
				writeFile(t, filepath.Join(src, ".git", "HEAD"), "ref", 0o600)
				writeFile(t, filepath.Join(src, "sub", ".git", "config"), "cfg", 0o600)
				writeFile(t, filepath.Join(src, "sub", "x.txt"), "x", 0o600)
				writeFile(t, filepath.Join(src, "mod", ".git"), "gitdir: ../.git/modules/mod", 0o600)
				writeFile(t, filepath.Join(src, ".gitignore"), "*.log", 0o600)
			},
			want: map[string]string{
				".":          "dir",
				"sub":        "dir",
				"sub/x.txt":  "file 0600 x",
				"mod":        "dir",
				"mod/.git":   "file 0600 gitdir: ../.git/modules/mod",
				".gitignore": "file 0600 *.log",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			src, outside, dst := filepath.Join(root, "src"), filepath.Join(root, "outside"), filepath.Join(root, "dst")
			if err := os.MkdirAll(src, 0o755); err != nil {
				t.Fatal(err)
			}
			tt.setup(t, src, outside)
			if err := CopyTree(src, dst); err != nil {
				t.Fatalf("CopyTree: %v", err)
			}
			if diff := cmp.Diff(tt.want, tree(t, dst)); diff != "" {
				t.Errorf("dst tree (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCopyTreeSource(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		setup   func(t *testing.T, root string) (src string)
		dst     string            // relative to root
		want    map[string]string // the tree under root/out
		wantErr error
	}{
		{
			name: "a single file, into missing parent directories",
			setup: func(t *testing.T, root string) string {
				p := filepath.Join(root, "in", "input.yaml")
				writeFile(t, p, "a: 1", 0o600)
				return p
			},
			dst:  "out/deep/input.yaml",
			want: map[string]string{".": "dir", "deep": "dir", "deep/input.yaml": "file 0600 a: 1"},
		},
		{
			name: "a symlink to a file copies nothing",
			setup: func(t *testing.T, root string) string {
				writeFile(t, filepath.Join(root, "outside", "secret.txt"), "SECRET", 0o600)
				link := filepath.Join(root, "in", "input.yaml")
				symlink(t, filepath.Join(root, "outside", "secret.txt"), link)
				return link
			},
			dst:  "out/input.yaml",
			want: map[string]string{},
		},
		{
			name: "a symlink to a directory copies nothing",
			setup: func(t *testing.T, root string) string {
				writeFile(t, filepath.Join(root, "outside", "secret.txt"), "SECRET", 0o600)
				link := filepath.Join(root, "in", "plugin")
				symlink(t, filepath.Join(root, "outside"), link)
				return link
			},
			dst:  "out/plugin",
			want: map[string]string{},
		},
		{
			name: "a dangling symlink copies nothing",
			setup: func(t *testing.T, root string) string {
				link := filepath.Join(root, "in", "gone")
				symlink(t, filepath.Join(root, "nowhere"), link)
				return link
			},
			dst:  "out/gone",
			want: map[string]string{},
		},
		{
			name: "a source directory named .git is copied (only nested .git directories are skipped)",
			setup: func(t *testing.T, root string) string {
				writeFile(t, filepath.Join(root, "in", ".git", "HEAD"), "ref", 0o600)
				writeFile(t, filepath.Join(root, "in", ".git", "sub", ".git", "x"), "x", 0o600)
				return filepath.Join(root, "in", ".git")
			},
			dst:  "out/g",
			want: map[string]string{".": "dir", "g": "dir", "g/HEAD": "file 0600 ref", "g/sub": "dir"},
		},
		{
			name: "a missing source is ErrNotExist",
			setup: func(t *testing.T, root string) string {
				return filepath.Join(root, "in", "missing")
			},
			dst:     "out/missing",
			want:    map[string]string{},
			wantErr: fs.ErrNotExist,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			src := tt.setup(t, root)
			err := CopyTree(src, filepath.Join(root, tt.dst))
			if tt.wantErr == nil && err != nil {
				t.Fatalf("CopyTree: %v", err)
			}
			if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Fatalf("CopyTree error = %v, want %v", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, tree(t, filepath.Join(root, "out"))); diff != "" {
				t.Errorf("out tree (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCopyTreeOverwritesExistingFile(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	src, dst := filepath.Join(root, "src.txt"), filepath.Join(root, "dst.txt")
	writeFile(t, src, "new", 0o600)
	writeFile(t, dst, "old content that is longer", 0o600)
	if err := CopyTree(src, dst); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(dst)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(b); got != "new" {
		t.Errorf("dst = %q, want %q (truncated and rewritten)", got, "new")
	}
}

func TestInputFile(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		setup func(t *testing.T, dir string)
		want  string // base name, "" for none
	}{
		{"none", func(*testing.T, string) {}, ""},
		{"only input.yml", func(t *testing.T, d string) {
			writeFile(t, filepath.Join(d, "input.yml"), "a: 1", 0o644)
		}, "input.yml"},
		{"only input.json", func(t *testing.T, d string) {
			writeFile(t, filepath.Join(d, "input.json"), "{}", 0o644)
		}, "input.json"},
		{"input.yaml before input.yml and input.json", func(t *testing.T, d string) {
			for _, n := range []string{"input.json", "input.yml", "input.yaml"} {
				writeFile(t, filepath.Join(d, n), "{}", 0o644)
			}
		}, "input.yaml"},
		{"input.yml before input.json", func(t *testing.T, d string) {
			writeFile(t, filepath.Join(d, "input.json"), "{}", 0o644)
			writeFile(t, filepath.Join(d, "input.yml"), "{}", 0o644)
		}, "input.yml"},
		{"a directory named input.yaml is not an input", func(t *testing.T, d string) {
			if err := os.Mkdir(filepath.Join(d, "input.yaml"), 0o755); err != nil {
				t.Fatal(err)
			}
			writeFile(t, filepath.Join(d, "input.json"), "{}", 0o644)
		}, "input.json"},
		{"a dangling input.yaml symlink is not an input", func(t *testing.T, d string) {
			symlink(t, filepath.Join(d, "nowhere"), filepath.Join(d, "input.yaml"))
		}, ""},
		{"other names are ignored", func(t *testing.T, d string) {
			writeFile(t, filepath.Join(d, "Input.yaml"), "{}", 0o644)
			writeFile(t, filepath.Join(d, "input.txt"), "{}", 0o644)
		}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			tt.setup(t, dir)
			want := ""
			if tt.want != "" {
				want = filepath.Join(dir, tt.want)
			}
			if got := InputFile(dir); got != want {
				t.Errorf("InputFile = %q, want %q", got, want)
			}
		})
	}
}

func TestReadInput(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		files   map[string]string
		want    map[string]any
		wantErr string // the base name of the file the error must name; "" for no error
	}{
		{
			name:  "input.yaml",
			files: map[string]string{"input.yaml": "ticket: ABC-1\nlabels: [bug, ui]\nmeta:\n  priority: 2\n"},
			want:  map[string]any{"ticket": "ABC-1", "labels": []any{"bug", "ui"}, "meta": map[string]any{"priority": 2}},
		},
		{
			name:  "input.yml",
			files: map[string]string{"input.yml": "question: why?\nok: true\n"},
			want:  map[string]any{"question": "why?", "ok": true},
		},
		{
			name:  "input.json decodes numbers as float64",
			files: map[string]string{"input.json": `{"n": 3, "nested": {"list": ["a", 1.5]}}`},
			want:  map[string]any{"n": float64(3), "nested": map[string]any{"list": []any{"a", 1.5}}},
		},
		{
			name:  "no input file",
			files: map[string]string{"answers.yaml": "case_overrides: {}"},
			want:  nil,
		},
		{
			name:  "input.yaml wins, a broken input.json is never read",
			files: map[string]string{"input.yaml": "a: 1", "input.json": "{broken"},
			want:  map[string]any{"a": 1},
		},
		{
			name:  "an empty yaml file is no input",
			files: map[string]string{"input.yaml": ""},
			want:  nil,
		},
		{
			name:    "broken yaml",
			files:   map[string]string{"input.yaml": "a: [1, 2\n"},
			wantErr: "input.yaml",
		},
		{
			name:    "yaml that is not a mapping",
			files:   map[string]string{"input.yml": "- a\n- b\n"},
			wantErr: "input.yml",
		},
		{
			name:    "broken json",
			files:   map[string]string{"input.json": `{"a": `},
			wantErr: "input.json",
		},
		{
			name:    "an empty json file",
			files:   map[string]string{"input.json": ""},
			wantErr: "input.json",
		},
		{
			name:    "json that is not an object",
			files:   map[string]string{"input.json": `[1, 2]`},
			wantErr: "input.json",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			for n, c := range tt.files {
				writeFile(t, filepath.Join(dir, n), c, 0o644)
			}
			got, err := ReadInput(dir)
			if tt.wantErr != "" {
				if err == nil {
					t.Fatalf("ReadInput = %v, nil; want an error", got)
				}
				if p := filepath.Join(dir, tt.wantErr); !strings.HasPrefix(err.Error(), p+": ") {
					t.Errorf("error %q does not start with the file's path %q", err, p)
				}
				if got != nil {
					t.Errorf("ReadInput returned %v with its error, want nil", got)
				}
				return
			}
			if err != nil {
				t.Fatalf("ReadInput: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" { // cmp tells nil from empty
				t.Errorf("ReadInput (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCaseOverrides(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		answers *string // nil: no answers.yaml
		want    map[string]string
		wantErr bool
	}{
		{name: "no answers.yaml", answers: nil, want: nil},
		{name: "empty answers.yaml", answers: ptr(""), want: nil},
		{name: "no case_overrides key", answers: ptr("answers:\n  - q: a\n"), want: nil},
		{name: "null case_overrides", answers: ptr("case_overrides:\n"), want: nil},
		{name: "empty case_overrides", answers: ptr("case_overrides: {}\n"), want: map[string]string{}},
		{
			name:    "string overrides, other keys ignored",
			answers: ptr("other: 1\ncase_overrides:\n  \"Which branch?\": main\n  'Deploy now?': \"no\"\n"),
			want:    map[string]string{"Which branch?": "main", "Deploy now?": "no"},
		},
		{
			name:    "scalar values are taken as their text",
			answers: ptr("case_overrides: {a: 1, b: true, c: 1.5, d: ~}\n"),
			want:    map[string]string{"a": "1", "b": "true", "c": "1.5", "d": ""},
		},
		{name: "case_overrides is a list", answers: ptr("case_overrides: [a, b]\n"), wantErr: true},
		{name: "case_overrides is a scalar", answers: ptr("case_overrides: 3\n"), wantErr: true},
		{name: "an override value is a list", answers: ptr("case_overrides: {a: [x]}\n"), wantErr: true},
		{name: "an override value is a map", answers: ptr("case_overrides: {a: {b: c}}\n"), wantErr: true},
		{name: "the document is a list", answers: ptr("- a\n"), wantErr: true},
		{name: "broken yaml", answers: ptr("case_overrides: {a: b\n"), wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			if tt.answers != nil {
				writeFile(t, filepath.Join(dir, AnswersFile), *tt.answers, 0o644)
			}
			got, err := CaseOverrides(dir)
			if tt.wantErr {
				if err == nil {
					t.Fatalf("CaseOverrides = %v, nil; want an error", got)
				}
				if p := filepath.Join(dir, AnswersFile); !strings.HasPrefix(err.Error(), p+": ") {
					t.Errorf("error %q does not start with %q", err, p)
				}
				return
			}
			if err != nil {
				t.Fatalf("CaseOverrides: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" { // cmp tells nil from empty
				t.Errorf("CaseOverrides (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCaseOverridesUnreadable(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// A directory in answers.yaml's place exists but cannot be read as a
	// file: that is an error, not "no overrides".
	if err := os.Mkdir(filepath.Join(dir, AnswersFile), 0o755); err != nil {
		t.Fatal(err)
	}
	got, err := CaseOverrides(dir)
	if err == nil {
		t.Fatalf("CaseOverrides = %v, nil; want an error", got)
	}
	if errors.Is(err, fs.ErrNotExist) {
		t.Errorf("error %v is ErrNotExist, want another error", err)
	}
}

func ptr(s string) *string { return &s }

func TestWriteHandlers(t *testing.T) {
	t.Parallel()
	files := map[string]intercept.File{
		"empty": {},
		"full": {
			HookModel: "haiku",
			Handlers: []intercept.Handler{
				{
					Match:        "any jira call",
					Prompt:       "answer as jira would",
					Patterns:     []string{"mcp__jira__*", "Bash"},
					InputFilters: []string{"^curl .*jira"},
					EnvChecks: map[string]intercept.EnvCheck{
						"ZED": {MustContain: []string{"z"}},
						"AAA": {MustContain: []string{"a", "b"}},
						"MID": {MustContain: []string{"m"}},
					},
					CaseOverrides: map[string]string{"Which branch?": "main", "Deploy?": "no"},
				},
				{Match: "web", PromptFile: "web.md", Patterns: []string{"WebFetch"}},
			},
		},
	}
	for name, f := range files {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			path, digest, err := WriteHandlers(dir, f)
			if err != nil {
				t.Fatalf("WriteHandlers: %v", err)
			}
			if want := filepath.Join(dir, "tool_handlers.yaml"); path != want {
				t.Errorf("path = %q, want %q", path, want)
			}
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			sum := sha256.Sum256(b)
			if want := hex.EncodeToString(sum[:]); digest != want {
				t.Errorf("digest = %q, want sha256 of the written bytes %q", digest, want)
			}
			var back intercept.File
			if err := yaml.Unmarshal(b, &back); err != nil {
				t.Fatalf("the written file is not yaml: %v", err)
			}
			if diff := cmp.Diff(f, back, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("round trip (-wrote +read):\n%s", diff)
			}

			// The digest pins the file, so the same handlers must always
			// give the same bytes (maps included).
			for range 5 {
				_, again, err := WriteHandlers(t.TempDir(), f)
				if err != nil {
					t.Fatal(err)
				}
				if again != digest {
					t.Fatalf("digest changed between writes of the same handlers: %q then %q", digest, again)
				}
			}
		})
	}
}

func TestWriteHandlersReplacesAndDiffers(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	_, d1, err := WriteHandlers(dir, intercept.File{Handlers: []intercept.Handler{{Match: "first, with a longer text", Patterns: []string{"A"}}}})
	if err != nil {
		t.Fatal(err)
	}
	path, d2, err := WriteHandlers(dir, intercept.File{Handlers: []intercept.Handler{{Match: "second", Patterns: []string{"B"}}}})
	if err != nil {
		t.Fatal(err)
	}
	if d1 == d2 {
		t.Errorf("different handlers share digest %q", d1)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := "handlers:\n    - match: second\n      patterns:\n        - B\n"
	if diff := cmp.Diff(want, string(b)); diff != "" {
		t.Errorf("file after the second write (-want +got):\n%s", diff)
	}
	sum := sha256.Sum256(b)
	if hex.EncodeToString(sum[:]) != d2 {
		t.Errorf("digest %q is not the sha256 of the current file", d2)
	}
}

func TestWriteHandlersMissingDir(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "missing")
	_, _, err := WriteHandlers(dir, intercept.File{})
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("WriteHandlers into a missing directory: err = %v, want ErrNotExist", err)
	}
}

func TestWriteSettings(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		existing string // an existing settings.json, "" for none
		settings map[string]any
		want     string
	}{
		{
			name:     "creates .claude/settings.json, indented, keys sorted, newline-terminated",
			settings: map[string]any{"permissions": map[string]any{"deny": []any{"Edit(.claude/**)"}}, "env": map[string]any{"X": "1"}},
			want:     "{\n  \"env\": {\n    \"X\": \"1\"\n  },\n  \"permissions\": {\n    \"deny\": [\n      \"Edit(.claude/**)\"\n    ]\n  }\n}\n",
		},
		{
			name:     "empty settings",
			settings: map[string]any{},
			want:     "{}\n",
		},
		{
			name:     "replaces an existing file",
			existing: "{\"old\": \"a much longer previous document\"}\n",
			settings: map[string]any{"a": true},
			want:     "{\n  \"a\": true\n}\n",
		},
		{
			name:     "html characters are escaped as encoding/json does",
			settings: map[string]any{"cmd": "a && b > c"},
			want:     "{\n  \"cmd\": \"a \\u0026\\u0026 b \\u003e c\"\n}\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			if tt.existing != "" {
				writeFile(t, filepath.Join(dir, ".claude", "settings.json"), tt.existing, 0o644)
			}
			path, err := WriteSettings(dir, tt.settings)
			if err != nil {
				t.Fatalf("WriteSettings: %v", err)
			}
			if want := filepath.Join(dir, ".claude", "settings.json"); path != want {
				t.Errorf("path = %q, want %q", path, want)
			}
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(b)); diff != "" {
				t.Errorf("settings.json (-want +got):\n%s", diff)
			}
		})
	}
}

func TestWriteSettingsUnencodable(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path, err := WriteSettings(dir, map[string]any{"bad": make(chan int)})
	if err == nil {
		t.Fatalf("WriteSettings of a channel = %q, nil; want an error", path)
	}
	if path != "" {
		t.Errorf("path = %q with an error, want \"\"", path)
	}
	if _, err := os.Lstat(filepath.Join(dir, ".claude", "settings.json")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("settings.json exists after a failed write (stat err %v)", err)
	}
}

func TestDeepMerge(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		dst, src map[string]any
		want     map[string]any
	}{
		{
			name: "new keys are added",
			dst:  map[string]any{"a": 1},
			src:  map[string]any{"b": "two", "c": map[string]any{"d": true}},
			want: map[string]any{"a": 1, "b": "two", "c": map[string]any{"d": true}},
		},
		{
			name: "scalars are replaced",
			dst:  map[string]any{"model": "sonnet", "n": 1, "on": true},
			src:  map[string]any{"model": "opus", "n": 2.5, "on": false},
			want: map[string]any{"model": "opus", "n": 2.5, "on": false},
		},
		{
			name: "mappings recurse",
			dst:  map[string]any{"env": map[string]any{"A": "1", "B": "2"}, "hooks": map[string]any{"Pre": map[string]any{"x": 1, "y": 1}}},
			src:  map[string]any{"env": map[string]any{"B": "20", "C": "3"}, "hooks": map[string]any{"Pre": map[string]any{"y": 2}}},
			want: map[string]any{"env": map[string]any{"A": "1", "B": "20", "C": "3"}, "hooks": map[string]any{"Pre": map[string]any{"x": 1, "y": 2}}},
		},
		{
			name: "lists gain the items they lack, in order, without duplicates",
			dst:  map[string]any{"allow": []any{"Read", "Grep"}},
			src:  map[string]any{"allow": []any{"Grep", "Write", "Write", "Bash(ls)"}},
			want: map[string]any{"allow": []any{"Read", "Grep", "Write", "Bash(ls)"}},
		},
		{
			// The compiled permissions are []string, runner.settings' lists
			// []any: a deny rule from either side must survive the merge.
			name: "lists of other element types are lists too",
			dst:  map[string]any{"permissions": map[string]any{"deny": []string{"Bash(curl:*)", "Edit(.claude/**)"}, "allow": []string{"Read"}}},
			src:  map[string]any{"permissions": map[string]any{"deny": []any{"Bash(rm:*)", "Edit(.claude/**)"}}, "plugins": []string{"p"}},
			want: map[string]any{"permissions": map[string]any{"deny": []any{"Bash(curl:*)", "Edit(.claude/**)", "Bash(rm:*)"}, "allow": []string{"Read"}}, "plugins": []any{"p"}},
		},
		{
			name: "bytes are not a list",
			dst:  map[string]any{"b": []byte("ab")},
			src:  map[string]any{"b": []byte("c")},
			want: map[string]any{"b": []byte("c")},
		},
		{
			name: "duplicates already in dst are kept",
			dst:  map[string]any{"l": []any{"a", "a"}},
			src:  map[string]any{"l": []any{"a", "b"}},
			want: map[string]any{"l": []any{"a", "a", "b"}},
		},
		{
			name: "list items are compared as JSON values",
			dst:  map[string]any{"l": []any{map[string]any{"k": 1, "v": "x"}, 2}},
			src:  map[string]any{"l": []any{map[string]any{"v": "x", "k": 1.0}, 2.0, map[string]any{"k": 2}, "2"}},
			want: map[string]any{"l": []any{map[string]any{"k": 1, "v": "x"}, 2, map[string]any{"k": 2}, "2"}},
		},
		{
			name: "lists nested in mappings are extended",
			dst:  map[string]any{"permissions": map[string]any{"deny": []any{"Edit(.claude/**)"}, "defaultMode": "default"}},
			src:  map[string]any{"permissions": map[string]any{"deny": []any{"Bash(rm:*)"}}},
			want: map[string]any{"permissions": map[string]any{"deny": []any{"Edit(.claude/**)", "Bash(rm:*)"}, "defaultMode": "default"}},
		},
		{
			name: "a mapping replaces a scalar, a scalar replaces a mapping",
			dst:  map[string]any{"a": "text", "b": map[string]any{"x": 1}},
			src:  map[string]any{"a": map[string]any{"y": 2}, "b": 3},
			want: map[string]any{"a": map[string]any{"y": 2}, "b": 3},
		},
		{
			name: "a list replaces a mapping, a scalar replaces a list",
			dst:  map[string]any{"a": map[string]any{"x": 1}, "b": []any{"x"}},
			src:  map[string]any{"a": []any{"y"}, "b": "z"},
			want: map[string]any{"a": []any{"y"}, "b": "z"},
		},
		{
			name: "nil replaces a value",
			dst:  map[string]any{"a": map[string]any{"x": 1}, "b": []any{1}},
			src:  map[string]any{"a": nil, "b": nil},
			want: map[string]any{"a": nil, "b": nil},
		},
		{
			name: "empty src changes nothing",
			dst:  map[string]any{"a": map[string]any{"x": []any{1}}},
			src:  map[string]any{},
			want: map[string]any{"a": map[string]any{"x": []any{1}}},
		},
		{
			name: "empty dst becomes src",
			dst:  map[string]any{},
			src:  map[string]any{"a": map[string]any{"x": []any{1}}, "b": 2},
			want: map[string]any{"a": map[string]any{"x": []any{1}}, "b": 2},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srcBefore := deepCopy(tt.src)
			got := DeepMerge(tt.dst, tt.src)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("DeepMerge (-want +got):\n%s", diff)
			}
			// It merges in place and returns dst itself.
			if diff := cmp.Diff(tt.want, tt.dst); diff != "" {
				t.Errorf("dst after DeepMerge (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(srcBefore, tt.src); diff != "" {
				t.Errorf("DeepMerge modified src (-before +after):\n%s", diff)
			}
		})
	}
}

// TestDeepMergeInPlace pins what "merges src into dst ... returns dst"
// means for nested values: dst's own nested maps are updated in place.
func TestDeepMergeInPlace(t *testing.T) {
	t.Parallel()
	env := map[string]any{"A": "1"}
	dst := map[string]any{"env": env}
	got := DeepMerge(dst, map[string]any{"env": map[string]any{"B": "2"}, "x": 1})
	got["y"] = 2
	if _, ok := dst["y"]; !ok {
		t.Errorf("DeepMerge returned a map other than dst")
	}
	if diff := cmp.Diff(map[string]any{"A": "1", "B": "2"}, env); diff != "" {
		t.Errorf("dst's nested map was not merged in place (-want +got):\n%s", diff)
	}
}

// TestDeepMergeCopiesFromSrc: what dst takes from src is its own, so a
// later merge into dst does not reach back into src.
func TestDeepMergeCopiesFromSrc(t *testing.T) {
	t.Parallel()
	src := map[string]any{"env": map[string]any{"A": "1"}, "l": []any{"x"}}
	dst := DeepMerge(map[string]any{}, src)
	DeepMerge(dst, map[string]any{"env": map[string]any{"B": "2"}, "l": []any{"y"}})
	if diff := cmp.Diff(map[string]any{"env": map[string]any{"A": "1"}, "l": []any{"x"}}, src); diff != "" {
		t.Errorf("src changed by a later merge into dst (-want +got):\n%s", diff)
	}
}

func deepCopy(v map[string]any) map[string]any {
	return cloneValue(v).(map[string]any)
}

func cloneValue(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[k] = cloneValue(x)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = cloneValue(x)
		}
		return out
	default:
		return v
	}
}

// git runs git in dir for a test's own setup, isolated from the user's and
// the system's git configuration.
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// isolateGit makes every git the test (and the code under test) runs see no
// system config, a global config holding only user.useConfigOnly (so git
// cannot invent an identity from the host name), no identity in the
// environment, and no repository above root. It uses t.Setenv, so tests
// calling it cannot be parallel.
func isolateGit(t *testing.T, root string) {
	t.Helper()
	home := t.TempDir()
	global := filepath.Join(home, "gitconfig")
	writeFile(t, global, "[user]\n\tuseConfigOnly = true\n", 0o644)
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("GIT_CONFIG_GLOBAL", global)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_CEILING_DIRECTORIES", filepath.Dir(root))
	for _, k := range []string{"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "EMAIL", "GIT_DIR", "GIT_WORK_TREE"} {
		t.Setenv(k, "") // restores the original value after the test
		if err := os.Unsetenv(k); err != nil {
			t.Fatal(err)
		}
	}
}

// TestBaselineWithoutGitIdentity: Baseline must commit on a machine with no
// git identity configured anywhere. Not parallel: it uses t.Setenv.
func TestBaselineWithoutGitIdentity(t *testing.T) {
	ws := t.TempDir()
	isolateGit(t, ws)
	writeFile(t, filepath.Join(ws, "a.txt"), "a", 0o644)
	writeFile(t, filepath.Join(ws, "sub", "b.txt"), "b", 0o644)

	// The isolation must really leave git without an identity, or this test
	// proves nothing.
	probe := t.TempDir()
	for _, args := range [][]string{{"init", "-q"}, {"commit", "-q", "--allow-empty", "-m", "x"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = probe
		if out, err := cmd.CombinedOutput(); args[0] == "commit" && err == nil {
			t.Fatalf("a plain git commit succeeded without an identity; isolation is broken:\n%s", out)
		}
	}

	if err := Baseline(ws, bgd(ws)); err != nil {
		t.Fatalf("Baseline: %v", err)
	}
	cmd := exec.Command("git", append(gitArgs(ws, bgd(ws)), "ls-files")...)
	cmd.Dir = ws
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"a.txt", "sub/b.txt"}, strings.Fields(string(out))); diff != "" {
		t.Errorf("files in the baseline (-want +got):\n%s", diff)
	}
}

// TestGitOutsideRepo: SnapshotRepo and Modified outside any work tree. Not
// parallel: it uses t.Setenv.
func TestGitOutsideRepo(t *testing.T) {
	dir := t.TempDir()
	isolateGit(t, dir)
	writeFile(t, filepath.Join(dir, "a.txt"), "a", 0o644)
	for _, d := range []string{dir, filepath.Join(dir, "missing")} {
		if _, err := SnapshotRepo(t.Context(), d, t.TempDir(), nil); !errors.Is(err, ErrNotRepo) {
			t.Errorf("SnapshotRepo(%s) = %v, want ErrNotRepo", d, err)
		}
	}
	if files, err := Modified(dir, bgd(dir), nil); err == nil {
		t.Errorf("Modified(non-repo) = %q, nil; want an error", files)
	}
}

func TestBaselineErrors(t *testing.T) {
	t.Parallel()
	missing := filepath.Join(t.TempDir(), "missing")
	err := Baseline(missing, bgd(missing))
	if err == nil || !strings.HasPrefix(err.Error(), "git init: ") {
		t.Errorf("Baseline(missing dir) = %v, want an error starting \"git init: \"", err)
	}
}

// TestBaselineLeavesTheWorkspaceGitAlone: a workspace that ships its own
// repository (with hooks that would fail a commit) keeps it untouched: the
// baseline goes elsewhere and runs none of its hooks.
func TestBaselineLeavesTheWorkspaceGitAlone(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	git(t, ws, "init", "-q")
	for _, h := range []string{"pre-commit", "commit-msg"} {
		writeFile(t, filepath.Join(ws, ".git", "hooks", h), "#!/bin/sh\nexit 1\n", 0o755)
	}
	writeFile(t, filepath.Join(ws, "a.txt"), "a", 0o644)
	if err := Baseline(ws, bgd(ws)); err != nil {
		t.Fatalf("Baseline with failing commit hooks: %v", err)
	}
	if got := git(t, ws, "status", "--porcelain"); got != "?? a.txt\n" {
		t.Errorf("the workspace's own repository changed: status %q, want \"?? a.txt\"", got)
	}
	if files, err := Modified(ws, bgd(ws), nil); err != nil || files != nil {
		t.Errorf("Modified after Baseline = %q, %v; want nothing", files, err)
	}
}

// TestBaselineKeepsNoCopyInTheWorkspace: after Baseline no file under the
// workspace holds a denied file's content (a .git/ inside would: `git show
// HEAD:secret/key.txt`), and the baseline still sees what changed.
func TestBaselineKeepsNoCopyInTheWorkspace(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	const token = "TOKEN-baseline-7d1f3a"
	writeFile(t, filepath.Join(ws, "secret", "key.txt"), token+"\n", 0o644)
	writeFile(t, filepath.Join(ws, "a.txt"), "a", 0o644)
	if err := Baseline(ws, bgd(ws)); err != nil {
		t.Fatal(err)
	}
	var copies []string
	err := filepath.WalkDir(ws, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if p == filepath.Join(ws, "secret", "key.txt") {
			return nil
		}
		copies = append(copies, p)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{filepath.Join(ws, "a.txt")}, copies); diff != "" {
		t.Errorf("Baseline added files to the workspace (-want +got):\n%s", diff)
	}
	if out := git(t, ws, append(gitArgs(ws, bgd(ws)), "show", ":secret/key.txt")...); !strings.Contains(out, token) {
		t.Errorf("the baseline outside the workspace lacks the file: %q", out)
	}
	writeFile(t, filepath.Join(ws, "a.txt"), "changed", 0o644)
	if files, err := Modified(ws, bgd(ws), nil); err != nil || !slices.Equal(files, []string{"a.txt"}) {
		t.Errorf("Modified = %q, %v; want [a.txt]", files, err)
	}
}

func TestBaselineTwice(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	if err := Baseline(ws, bgd(ws)); err != nil { // an empty workspace still gets a commit
		t.Fatalf("first Baseline: %v", err)
	}
	writeFile(t, filepath.Join(ws, "a.txt"), "a", 0o644)
	if err := Baseline(ws, bgd(ws)); err != nil {
		t.Fatalf("second Baseline: %v", err)
	}
	files, err := Modified(ws, bgd(ws), nil)
	if err != nil {
		t.Fatal(err)
	}
	if files != nil {
		t.Errorf("Modified after re-baselining = %q, want nil", files)
	}
	writeFile(t, filepath.Join(ws, "a.txt"), "a2", 0o644)
	if files, err := Modified(ws, bgd(ws), nil); err != nil || !slices.Equal(files, []string{"a.txt"}) {
		t.Errorf("Modified after a change = %q, %v; want [a.txt]", files, err)
	}
}

func TestModified(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		before map[string]string // files in the baseline
		change func(t *testing.T, ws string)
		skip   []string
		want   []string // sorted
	}{
		{
			name:   "nothing changed",
			before: map[string]string{"a.txt": "a", "sub/b.txt": "b"},
			change: func(*testing.T, string) {},
			want:   nil,
		},
		{
			name:   "added and changed files, not unchanged ones",
			before: map[string]string{"a.txt": "a", "same.txt": "same", "sub/b.txt": "b"},
			change: func(t *testing.T, ws string) {
				writeFile(t, filepath.Join(ws, "a.txt"), "a2", 0o644)
				writeFile(t, filepath.Join(ws, "sub", "b.txt"), "b2", 0o644)
				writeFile(t, filepath.Join(ws, "new.txt"), "n", 0o644)
				writeFile(t, filepath.Join(ws, "newdir", "deep", "x.go"), "x", 0o644)
				writeFile(t, filepath.Join(ws, "same.txt"), "same", 0o644) // rewritten, same bytes
			},
			want: []string{"a.txt", "new.txt", "newdir/deep/x.go", "sub/b.txt"},
		},
		{
			name:   "deleted files are left out",
			before: map[string]string{"gone.txt": "g", "keep.txt": "k"},
			change: func(t *testing.T, ws string) {
				if err := os.Remove(filepath.Join(ws, "gone.txt")); err != nil {
					t.Fatal(err)
				}
			},
			want: nil,
		},
		{
			name:   "a mode change is a change",
			before: map[string]string{"run.sh": "#!/bin/sh"},
			change: func(t *testing.T, ws string) {
				if err := os.Chmod(filepath.Join(ws, "run.sh"), 0o755); err != nil {
					t.Fatal(err)
				}
			},
			want: []string{"run.sh"},
		},
		{
			name: "harness files are left out",
			before: map[string]string{
				".claude/settings.json": "{}", "tool_handlers.yaml": "handlers: []", "real.txt": "r",
			},
			change: func(t *testing.T, ws string) {
				for _, p := range []string{
					".claude/settings.json", ".claude/new/x", "tool_handlers.yaml", "hook_decisions.jsonl",
					".hook-outputs.yaml", ".hook-outputs.json", ".staged-plugins/p/plugin.json", "real.txt",
				} {
					writeFile(t, filepath.Join(ws, p), "changed", 0o644)
				}
			},
			want: []string{"real.txt"},
		},
		{
			name:   "harness names only match whole path components at the top",
			before: map[string]string{},
			change: func(t *testing.T, ws string) {
				for _, p := range []string{".claude.bak", "sub/.claude/x", "sub/tool_handlers.yaml", "tool_handlers.yaml.orig"} {
					writeFile(t, filepath.Join(ws, p), "x", 0o644)
				}
			},
			want: []string{".claude.bak", "sub/.claude/x", "sub/tool_handlers.yaml", "tool_handlers.yaml.orig"},
		},
		{
			name:   "skipped paths are left out: files, directories, with or without a slash",
			before: map[string]string{"report.md": "old"},
			change: func(t *testing.T, ws string) {
				for _, p := range []string{"report.md", "out/a.txt", "out/deep/b.txt", "logs/x.log", "output.txt", "outside/y", "kept.txt"} {
					writeFile(t, filepath.Join(ws, p), "new", 0o644)
				}
			},
			skip: []string{"report.md", "out", "logs/"},
			want: []string{"kept.txt", "output.txt", "outside/y"},
		},
		{
			name:   "names with spaces, quotes and non-ASCII come out verbatim",
			before: map[string]string{},
			change: func(t *testing.T, ws string) {
				for _, p := range []string{"with space.txt", "dir name/ü ñ.md", `quo"te.txt`, "tab\there"} {
					writeFile(t, filepath.Join(ws, p), "x", 0o644)
				}
			},
			want: []string{"dir name/ü ñ.md", `quo"te.txt`, "tab\there", "with space.txt"},
		},
		{
			name:   "a rename lists the new name only",
			before: map[string]string{"old.txt": "content", "z.txt": "z"},
			change: func(t *testing.T, ws string) {
				if err := os.Rename(filepath.Join(ws, "old.txt"), filepath.Join(ws, "new.txt")); err != nil {
					t.Fatal(err)
				}
				writeFile(t, filepath.Join(ws, "z.txt"), "z2", 0o644)
			},
			want: []string{"new.txt", "z.txt"},
		},
		{
			name:   "a file replaced by a folder lists the folder's files",
			before: map[string]string{"a": "a"},
			change: func(t *testing.T, ws string) {
				if err := os.Remove(filepath.Join(ws, "a")); err != nil {
					t.Fatal(err)
				}
				writeFile(t, filepath.Join(ws, "a", "b.txt"), "b", 0o644)
			},
			want: []string{"a/b.txt"},
		},
		{
			name:   "a file replaced by a symlink is a change",
			before: map[string]string{"a.txt": "a", "b.txt": "b"},
			change: func(t *testing.T, ws string) {
				if err := os.Remove(filepath.Join(ws, "a.txt")); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink("b.txt", filepath.Join(ws, "a.txt")); err != nil {
					t.Fatal(err)
				}
			},
			want: []string{"a.txt"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ws := t.TempDir()
			for p, c := range tt.before {
				writeFile(t, filepath.Join(ws, p), c, 0o644)
			}
			if err := Baseline(ws, bgd(ws)); err != nil {
				t.Fatalf("Baseline: %v", err)
			}
			tt.change(t, ws)
			got, err := Modified(ws, bgd(ws), tt.skip)
			if err != nil {
				t.Fatalf("Modified: %v", err)
			}
			if tt.want == nil {
				if got != nil {
					t.Errorf("Modified = %q, want nil", got)
				}
				return
			}
			slices.Sort(got)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Modified (-want +got):\n%s", diff)
			}
		})
	}
}

func TestModifiedDoesNotChangeSkip(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	if err := Baseline(ws, bgd(ws)); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(ws, "a.txt"), "a", 0o644)
	skip := make([]string, 1, 10) // spare capacity: appending to it would be visible
	skip[0] = "x"
	if _, err := Modified(ws, bgd(ws), skip); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"x", "", "", ""}, skip[:4]); diff != "" {
		t.Errorf("Modified wrote into skip's spare capacity (-want +got):\n%s", diff)
	}
}

// TestBaselineIgnoresUserGitConfig: a user who signs every commit, or has
// global hooks, still gets a baseline. Not parallel: it uses t.Setenv.
func TestBaselineIgnoresUserGitConfig(t *testing.T) {
	ws := t.TempDir()
	isolateGit(t, ws)
	hooks := t.TempDir()
	writeFile(t, filepath.Join(hooks, "post-commit"), "#!/bin/sh\ntouch "+filepath.Join(ws, "HOOK-RAN")+"\n", 0o755)
	writeFile(t, os.Getenv("GIT_CONFIG_GLOBAL"), "[commit]\n\tgpgsign = true\n[gpg]\n\tprogram = false\n[core]\n\thooksPath = "+hooks+"\n", 0o644)
	writeFile(t, filepath.Join(ws, "a.txt"), "a", 0o644)
	if err := Baseline(ws, bgd(ws)); err != nil {
		t.Fatalf("Baseline with commit.gpgsign and global hooks: %v", err)
	}
	if _, err := os.Stat(filepath.Join(ws, "HOOK-RAN")); err == nil {
		t.Error("the user's post-commit hook ran in the workspace")
	}
}

// TestCaseFilesAreNotReadThroughSymlinks: an input.yaml or answers.yaml
// that is a link is an error, not a read of whatever it points at.
func TestCaseFilesAreNotReadThroughSymlinks(t *testing.T) {
	t.Parallel()
	outside := filepath.Join(t.TempDir(), "secret.yaml")
	writeFile(t, outside, "case_overrides: {q: leaked}\nname: leaked\n", 0o644)
	for _, name := range []string{"input.yaml", "input.json", AnswersFile} {
		dir := t.TempDir()
		if err := os.Symlink(outside, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
		var err error
		if name == AnswersFile {
			_, err = CaseOverrides(dir)
		} else {
			_, err = ReadInput(dir)
		}
		if err == nil || !strings.Contains(err.Error(), "is a symlink") {
			t.Errorf("%s as a symlink: err %v, want it refused", name, err)
		}
	}
}

// TestCopyTreeTrailingSlashOnSymlink: "link/" is still the link, not the
// folder it points at.
func TestCopyTreeTrailingSlashOnSymlink(t *testing.T) {
	t.Parallel()
	outside := t.TempDir()
	writeFile(t, filepath.Join(outside, "secret"), "s", 0o644)
	root := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(t.TempDir(), "out")
	if err := CopyTree(filepath.Join(root, "link")+"/", dst); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dst, "secret")); err == nil {
		t.Error("CopyTree followed link/ out of the tree")
	}
}

// bgd is where a test keeps the baseline repository of ws: beside it, never
// inside.
func bgd(ws string) string { return ws + ".baseline.git" }

func TestRemoveSandboxPlaceholders(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, content string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(".npmrc", "registry=x\n") // the dataset's own, with content
	write(".env", "")               // the dataset's own, empty: it was there before
	before := TopLevel(dir)
	// What bubblewrap leaves behind, and what the agent wrote.
	write("package.json", "")
	write("yarn.lock", "")
	write(".gitmodules", "[submodule]\n") // the agent's, with content
	write("notes.txt", "")                // not a placeholder name
	if err := os.Mkdir(filepath.Join(dir, "node_modules"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "scripts", "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	removed := RemoveSandboxPlaceholders(dir, before)
	slices.Sort(removed)
	if want := []string{"node_modules", "package.json", "yarn.lock"}; !slices.Equal(removed, want) {
		t.Errorf("removed %v, want %v", removed, want)
	}
	for _, kept := range []string{".npmrc", ".env", ".gitmodules", "notes.txt", "scripts"} {
		if _, err := os.Lstat(filepath.Join(dir, kept)); err != nil {
			t.Errorf("%s was removed: %v", kept, err)
		}
	}
	if RemoveSandboxPlaceholders(dir, nil) != nil {
		t.Error("without a listing from before, nothing may be removed")
	}
	// node_modules as 2.1.332 leaves it, holding an empty .bin; one whose
	// .bin holds a file is the agent's.
	for _, tc := range []struct {
		file string
		want bool
	}{{"", true}, {"tool", false}} {
		d := t.TempDir()
		before := TopLevel(d)
		if err := os.MkdirAll(filepath.Join(d, "node_modules", ".bin"), 0o755); err != nil {
			t.Fatal(err)
		}
		if tc.file != "" {
			writeFile(t, filepath.Join(d, "node_modules", ".bin", tc.file), "x", 0o755)
		}
		got := slices.Equal(RemoveSandboxPlaceholders(d, before), []string{"node_modules"})
		if _, err := os.Lstat(filepath.Join(d, "node_modules")); got != tc.want || (err == nil) == tc.want {
			t.Errorf("node_modules/.bin holding %q: removed %v (%v), want %v", tc.file, got, err, tc.want)
		}
	}
}

func TestRemoveAll(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	var paths []string
	for i := range 30 {
		ws := filepath.Join(root, "ws", fmt.Sprint(i))
		writeFile(t, filepath.Join(ws, "d", "f.txt"), "x", 0o644)
		paths = append(paths, ws)
	}
	// The agent made a folder read-only: its entries cannot be unlinked
	// until it is writable again.
	if err := os.Chmod(filepath.Join(paths[3], "d"), 0o555); err != nil {
		t.Fatal(err)
	}
	paths = append(paths, filepath.Join(root, "missing"))
	if err := RemoveAll(paths); err != nil {
		t.Fatalf("RemoveAll: %v", err)
	}
	if left, _ := os.ReadDir(filepath.Join(root, "ws")); len(left) != 0 {
		t.Errorf("RemoveAll left %d workspaces", len(left))
	}
}

// An agent that makes its output a FIFO (or a folder holding one) must not
// hang the run that collects it: nothing is copied, at once.
func TestCopyTreeFIFO(t *testing.T) {
	t.Parallel()
	for _, rel := range []string{"answer.txt", "out/answer.txt"} {
		t.Run(rel, func(t *testing.T) {
			root := t.TempDir()
			p := filepath.Join(root, "ws", rel)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := syscall.Mkfifo(p, 0o644); err != nil {
				t.Fatalf("mkfifo: %v", err)
			}
			src := filepath.Join(root, "ws", strings.SplitN(rel, "/", 2)[0])
			done := make(chan error, 1)
			go func() { done <- CopyTree(src, filepath.Join(root, "out", "x")) }()
			select {
			case err := <-done:
				if err != nil {
					t.Fatalf("CopyTree: %v", err)
				}
			case <-time.After(5 * time.Second):
				// Unblock the copy so the test ends.
				if f, err := os.OpenFile(p, os.O_WRONLY, 0); err == nil {
					f.Close()
				}
				t.Fatal("CopyTree blocked on a FIFO")
			}
			if _, err := os.Stat(filepath.Join(root, "out", "x", filepath.Base(rel))); err == nil {
				t.Error("the FIFO was copied")
			}
		})
	}
}

// An output path whose folder the agent replaced by a link to a folder
// outside its workspace (out -> ~/.aws) copies nothing from there.
func TestCopyOutLinkedFolder(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "outside", "answer.txt"), "SECRET", 0o600)
	ws := filepath.Join(root, "ws")
	symlink(t, filepath.Join(root, "outside"), filepath.Join(ws, "out"))
	writeFile(t, filepath.Join(ws, "real", "answer.txt"), "mine", 0o600)
	if err := CopyOut(ws, "out/answer.txt", filepath.Join(root, "got", "out", "answer.txt")); err != nil {
		t.Fatalf("CopyOut: %v", err)
	}
	if _, err := os.Stat(filepath.Join(root, "got", "out", "answer.txt")); err == nil {
		t.Error("the file behind the linked folder was copied")
	}
	if err := CopyOut(ws, "real/answer.txt", filepath.Join(root, "got", "real", "answer.txt")); err != nil {
		t.Fatalf("CopyOut: %v", err)
	}
	if b, err := os.ReadFile(filepath.Join(root, "got", "real", "answer.txt")); err != nil || string(b) != "mine" {
		t.Errorf("the workspace's own output = %q, %v", b, err)
	}
	if err := CopyOut(ws, "../outside/answer.txt", filepath.Join(root, "got", "up")); err == nil {
		t.Error("CopyOut left the workspace by ..")
	}
}
