package hook

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agent-eval/agent-eval/internal/intercept"
)

// TestCodexPatchCall: a one-file patch is Claude Code's Write or Edit of
// that file; a patch of several files, or a move, stays apply_patch.
func TestCodexPatchCall(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, patch, tool string
		input             map[string]any
	}{
		{"add", "*** Begin Patch\n*** Add File: out/a.txt\n+one\n+two\n*** End Patch\n", "Write",
			map[string]any{"file_path": "out/a.txt", "content": "one\ntwo"}},
		{"update", "*** Begin Patch\n*** Update File: /w/b.txt\n@@\n ctx\n-old\n+new\n*** End Patch\n", "Edit",
			map[string]any{"file_path": "/w/b.txt", "old_string": "old", "new_string": "new"}},
		{"delete", "*** Begin Patch\n*** Delete File: c.txt\n*** End Patch\n", "Edit",
			map[string]any{"file_path": "c.txt", "old_string": "", "new_string": ""}},
		{"two files", "*** Begin Patch\n*** Add File: a\n+1\n*** Update File: b\n@@\n-x\n+y\n*** End Patch\n", "apply_patch", nil},
		{"a move", "*** Begin Patch\n*** Update File: a\n*** Move to: b\n@@\n-x\n+y\n*** End Patch\n", "apply_patch", nil},
		{"no file", "not a patch", "apply_patch", nil},
	} {
		in, err := decodeCodex([]byte(input("apply_patch", map[string]any{"command": tt.patch}, "/w")))
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		want := tt.input
		if want == nil {
			want = map[string]any{"command": tt.patch}
		}
		if in.ToolName != tt.tool || !cmp.Equal(in.ToolInput, want) {
			t.Errorf("%s: %s %v; want %s %v", tt.name, in.ToolName, in.ToolInput, tt.tool, want)
		}
	}
	if in, err := decodeCodex([]byte(input("Bash", map[string]any{"command": "ls"}, "/w"))); err != nil || in.ToolName != "Bash" {
		t.Errorf("Bash: %v %v", in, err)
	}
}

// TestCodexPatchThroughHook: a handler of Edit gates a Codex patch
// updating a file, not one adding a file, as it would Claude Code's Edit
// and Write.
func TestCodexPatchThroughHook(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := writeHandlers(t, dir, intercept.File{Root: dir,
		Handlers: []intercept.Handler{{Match: "no edits", Patterns: []string{"Edit"}}}})
	patch := func(op, file string) string {
		return input("apply_patch", map[string]any{"command": "*** Begin Patch\n*** " + op + " File: " + file + "\n+x\n*** End Patch\n"}, dir)
	}
	for _, tt := range []struct{ op, file, want, reason string }{
		{"Update", "notes.txt", "deny", "no edits"},
		{"Add", "notes.txt", "pass", ""},
	} {
		r := runHook(t, patch(tt.op, tt.file), Options{HandlersPath: path, Dialect: DialectCodex})
		if r.decision() != tt.want || !strings.Contains(r.reason(), tt.reason) {
			t.Errorf("%s %s: %q; want %s mentioning %q", tt.op, tt.file, r.raw, tt.want, tt.reason)
		}
	}
}

// TestCodexPatchDeniedPath: without Codex's sandbox the path layer keeps a
// patch off a denied path, whether it changes one file or several, moves a
// file there or reaches it through a link; a patch elsewhere passes.
func TestCodexPatchDeniedPath(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "secret"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("secret", filepath.Join(dir, "innocent")); err != nil {
		t.Fatal(err)
	}
	path := writeHandlers(t, dir, intercept.File{Root: dir, DeniedPaths: []string{"secret/**"}, Handlers: []intercept.Handler{}})
	patch := func(body string) string {
		return input("apply_patch", map[string]any{"command": "*** Begin Patch\n" + body + "*** End Patch\n"}, dir)
	}
	for _, tt := range []struct{ name, body, want string }{
		{"one file", "*** Add File: secret/k\n+x\n", "deny"},
		{"several files", "*** Add File: ok.txt\n+1\n*** Update File: secret/k\n@@\n-a\n+b\n", "deny"},
		{"a move", "*** Update File: ok.txt\n*** Move to: secret/k\n@@\n-a\n+b\n", "deny"},
		{"through a link", "*** Add File: a.txt\n+1\n*** Add File: innocent/k\n+1\n", "deny"},
		{"absolute", "*** Delete File: " + filepath.Join(dir, "secret", "k") + "\n", "deny"},
		{"elsewhere", "*** Add File: ok.txt\n+1\n*** Add File: docs/b.txt\n+2\n", "pass"},
	} {
		r := runHook(t, patch(tt.body), Options{HandlersPath: path, Dialect: DialectCodex})
		if r.decision() != tt.want {
			t.Errorf("%s: %q; want %s", tt.name, r.raw, tt.want)
		}
	}
}
