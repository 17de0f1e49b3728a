package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDiffExitCodes: 0 whether or not the runs differ, 2 for bad
// arguments or a missing run, 3 for a run that cannot be read.
func TestDiffExitCodes(t *testing.T) {
	dir := t.TempDir()
	write := func(p, s string) {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, run := range []string{"a", "b"} {
		write(run+"/cases/c1/run_result.json", `{"case_id":"c1","status":"completed"}`)
	}
	write("b/cases/c1/transcript.jsonl", `{"kind":"tool_call","tool_use_id":"t1","tool":"Bash","input":{"command":"ls"}}`+"\n")
	if err := os.MkdirAll(filepath.Join(dir, "broken/cases/c1"), 0o755); err != nil {
		t.Fatal(err)
	}
	a, b, broken := filepath.Join(dir, "a"), filepath.Join(dir, "b"), filepath.Join(dir, "broken")
	for _, c := range []struct {
		args []string
		code int
		out  string
	}{
		{[]string{"diff", a, a}, 0, "no differences"},
		{[]string{"diff", a, b}, 0, "first divergence: added: A (none) | B #1 Bash ls → no result"},
		{[]string{"diff", a}, ExitUsage, ""},
		{[]string{"diff", "--format", "pdf", a, b}, ExitUsage, ""},
		{[]string{"diff", "--json", "--format", "html", a, b}, ExitUsage, ""},
		{[]string{"diff", a, filepath.Join(dir, "missing")}, ExitUsage, ""},
		{[]string{"diff", "--case", "nope", a, b}, ExitUsage, ""},
		{[]string{"diff", a, broken}, ExitFailure, ""},
	} {
		var out, errb bytes.Buffer
		code := Main(c.args, Streams{In: strings.NewReader(""), Out: &out, Err: &errb})
		if code != c.code || !strings.Contains(out.String(), c.out) {
			t.Errorf("agent-eval %s: exit %d, want %d; stdout %q (want %q); stderr %s", strings.Join(c.args, " "), code, c.code, out.String(), c.out, errb.String())
		}
	}
}
