package rundir

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSecretMarks: the marks point at the secrets in a case's kept files
// without holding them; KnownSecrets gives them back (decoded too when
// marked JSON-escaped) and names a marked file that changed since.
func TestSecretMarks(t *testing.T) {
	t.Parallel()
	d := Dir{Path: t.TempDir()}
	write := func(rel, body string) {
		p := filepath.Join(d.Case("c1"), filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(RunResultFile, `{"case_id":"c1"}`)
	write("outputs/out/a.txt", "key Secret-One here")
	write("outputs/out/b.json", `{"pw":"q\"uote-Secret"}`)
	write("_modified/src/c.go", "nothing to see")
	write("outputs/out/name-Secret-One.log", "")
	find := func(b []byte) [][2]int {
		var out [][2]int
		for _, s := range []string{"Secret-One", `q\"uote-Secret`} {
			if i := strings.Index(string(b), s); i >= 0 {
				out = append(out, [2]int{i, i + len(s)})
			}
		}
		return out
	}
	if err := MarkSecrets(d.Case("c1"), find); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(d.Case("c1"), SecretMarksFile))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "Secret") || strings.Contains(string(b), "c.go") || !strings.Contains(string(b), "path_sha256") {
		t.Errorf("marks:\n%s", b)
	}
	vals, changed, err := d.KnownSecrets()
	if err != nil || len(changed) != 0 || strings.Join(vals, "|") != `Secret-One|q"uote-Secret|q\"uote-Secret` {
		t.Errorf("KnownSecrets() = %q, %q, %v", vals, changed, err)
	}
	write("outputs/out/a.txt", "key Secret-One changed")
	vals, changed, err = d.KnownSecrets()
	// The secret in the name of an unchanged file is still known.
	if err != nil || len(changed) != 1 || changed[0] != "cases/c1/outputs/out/a.txt" || strings.Join(vals, "|") != `Secret-One|q"uote-Secret|q\"uote-Secret` {
		t.Errorf("after a change: KnownSecrets() = %q, %q, %v", vals, changed, err)
	}
	// Nothing found: no marks file (an earlier attempt's is removed).
	if err := MarkSecrets(d.Case("c1"), func([]byte) [][2]int { return nil }); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(d.Case("c1"), SecretMarksFile)); !os.IsNotExist(err) {
		t.Errorf("marks left behind: %v", err)
	}
}

// TestKeptFilesUnlistable: a folder of the kept files that cannot be
// listed (here nested past PATH_MAX, which stops root too) is an error,
// not a smaller list that would leave a secret file name unredacted.
func TestKeptFilesUnlistable(t *testing.T) {
	t.Parallel()
	d := Dir{Path: t.TempDir()}
	out := filepath.Join(d.Case("c1"), OutputsDir)
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{"a.txt": "key Secret-One here", "name-Secret-One.log": ""} {
		if err := os.WriteFile(filepath.Join(out, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	find := func(b []byte) [][2]int {
		if i := strings.Index(string(b), "Secret-One"); i >= 0 {
			return [][2]int{{i, i + len("Secret-One")}}
		}
		return nil
	}
	if err := MarkSecrets(d.Case("c1"), find); err != nil {
		t.Fatal(err)
	}
	r, err := os.OpenRoot(out)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	name := strings.Repeat("d", 250)
	rel := name
	for range 20 {
		if err := r.Mkdir(rel, 0o755); err != nil {
			t.Fatal(err)
		}
		rel += "/" + name
	}
	if _, err := keptFiles(d.Case("c1")); err == nil {
		t.Error("keptFiles over a folder it cannot list: no error")
	}
	// The error comes with the secrets found, for a reader that shows the
	// run anyway.
	vals, _, err := d.KnownSecrets()
	if err == nil || strings.Join(vals, "|") != "Secret-One" {
		t.Errorf("KnownSecrets() = %q, %v; want Secret-One and an error", vals, err)
	}
	if got, err := keptFiles(t.TempDir()); err != nil || len(got) != 0 {
		t.Errorf("keptFiles of a case without kept files = %v, %v; want none", got, err)
	}
}
