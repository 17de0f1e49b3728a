package workspace

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
)

func TestModifiedSince(t *testing.T) {
	dir := t.TempDir()
	sum := func(s string) string { h := sha256.Sum256([]byte(s)); return hex.EncodeToString(h[:]) }
	base := map[string]string{"same.txt": sum("same"), "edit.txt": sum("before"), "gone.txt": sum("x"), "sub/linked.txt": sum("l"), "tool_handlers.yaml": sum("h")}
	for p, body := range map[string]string{"same.txt": "same", "edit.txt": "after", "new/deep/file.txt": "n", "out/answer.txt": "a",
		".claude/settings.json": "{}", "tool_handlers.yaml": "changed", "hook_decisions.jsonl": "{}"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc/passwd", filepath.Join(dir, "sub", "linked.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc", filepath.Join(dir, "etc")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := ModifiedSince(dir, base, []string{"out/"})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	// Changed, new, and the links (listed as git lists them, never
	// followed); not the unchanged, the removed, the FIFO, the outputs or
	// the harness's files.
	want := []string{"edit.txt", "etc", "new/deep/file.txt", "sub/linked.txt"}
	if !slices.Equal(got, want) {
		t.Errorf("ModifiedSince = %v, want %v", got, want)
	}
}
