package rundir

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestKeptFiles(t *testing.T) {
	d := Dir{t.TempDir()}
	for p, body := range map[string]string{
		"cases/c1/outputs/a.txt":              "a\n",
		"cases/c1/_modified/src/b.go":         "package b\n",
		"cases/c1/transcript.jsonl":           "{}\n",
		"cases/c1/attempts/2/outputs/a.txt":   "A\n",
		"cases/c1/attempts/2/outputs/big.txt": strings.Repeat("x", 100),
	} {
		full := filepath.Join(d.Path, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("/etc/passwd", filepath.Join(d.Path, "cases/c1/outputs/link")); err != nil {
		t.Fatal(err)
	}
	got, err := d.KeptFiles("c1")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Path != "_modified/src/b.go" || got[1].Path != "outputs/a.txt" || got[1].Size != 2 ||
		got[1].SHA256 != "87428fc522803d31065e7bce3cf03fe475096631e5e07bbd7a0fde60c4cf25c7" {
		t.Errorf("KeptFiles(c1) = %+v, want b.go and a.txt (with a.txt's hash), no transcript, no link", got)
	}
	two, err := d.KeptFiles(AttemptKey("c1", 2))
	if err != nil || len(two) != 2 || two[0].SHA256 == got[1].SHA256 {
		t.Errorf("KeptFiles(c1@2) = %+v, %v: want attempt 2's own files", two, err)
	}
	if b, err := d.ReadKept("c1", "outputs/a.txt", 10); err != nil || string(b) != "a\n" {
		t.Errorf("ReadKept(outputs/a.txt) = %q, %v", b, err)
	}
	for _, c := range []struct{ key, rel string }{
		{"c1", "transcript.jsonl"},
		{"c1", "outputs/../transcript.jsonl"},
		{"c1", "outputs/link"},
		{"c1@2", "outputs/big.txt"},
	} {
		if _, err := d.ReadKept(c.key, c.rel, 10); err == nil {
			t.Errorf("ReadKept(%s, %s) read it, want an error", c.key, c.rel)
		}
	}
}
