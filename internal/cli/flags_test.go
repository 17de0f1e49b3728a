package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestCommandLineLikeTheToolsPeopleKnow(t *testing.T) {
	t.Parallel()
	quick := "../../examples/quickstart"
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stderr string // a line stderr must hold
		stdout string // a prefix stdout must have
	}{
		{"suggestion", []string{"valdate"}, ExitUsage, `unknown command "valdate" for agent-eval; did you mean validate?`, ""},
		{"no suggestion for nonsense", []string{"xyzzy"}, ExitUsage, `unknown command "xyzzy" for agent-eval` + "\n", ""},
		{"validate a folder", []string{"validate", quick}, ExitOK, "", quick + "/eval.yaml: ok: eval quickstart"},
		{"validate a file", []string{"validate", quick + "/eval.yaml"}, ExitOK, "", quick + "/eval.yaml: ok: eval quickstart"},
		{"validate -c a folder", []string{"validate", "-c", quick}, ExitOK, "", quick + "/eval.yaml: ok: eval quickstart"},
		{"permissions -c a folder", []string{"permissions", "-c", quick}, ExitOK, "", ""},
		{"validate PATH and -c", []string{"validate", "-c", quick, quick}, ExitUsage, "not both", ""},
		{"bad int", []string{"run", "--parallel", "abc"}, ExitUsage, `--parallel: "abc" is not a whole number`, ""},
		{"bad float", []string{"run", "--max-budget", "lots"}, ExitUsage, `--max-budget: "lots" is not a number`, ""},
		{"negative budget", []string{"run", "--max-budget", "-1"}, ExitUsage, "--max-budget must be at least 0, got -1", ""},
		{"zero budget is a budget", []string{"run", "--max-budget", "0", "-c", "/nonexistent/eval.yaml"}, ExitUsage, "/nonexistent/eval.yaml: no such file", ""},
		{"bad duration", []string{"run", "--timeout", "10x"}, ExitUsage, `--timeout: "10x" is not a duration`, ""},
		{"seconds on --timeout", []string{"run", "--timeout", "600", "-c", "/nonexistent/eval.yaml"}, ExitUsage, "/nonexistent/eval.yaml: no such file", ""},
		{"a duration on --timeout", []string{"run", "--timeout", "10m", "-c", "/nonexistent/eval.yaml"}, ExitUsage, "/nonexistent/eval.yaml: no such file", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			code, stdout, stderr := runCLI(t, tc.args...)
			if code != tc.code || !strings.Contains(stderr, tc.stderr) || !strings.HasPrefix(stdout, tc.stdout) {
				t.Errorf("%q = %d\nstdout %q\nstderr %q\nwant %d, stderr holding %q, stdout starting %q", tc.args, code, stdout, stderr, tc.code, tc.stderr, tc.stdout)
			}
			if strings.Contains(stderr, "strconv") || strings.Contains(stderr, "is a directory") {
				t.Errorf("a raw error: %s", stderr)
			}
		})
	}
}

func TestDurationFlagTakesSecondsAndDurations(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]time.Duration{"600": 10 * time.Minute, "10m": 10 * time.Minute, "1.5": 1500 * time.Millisecond, "1h30m": 90 * time.Minute} {
		var d durationValue
		if err := d.Set(in); err != nil || time.Duration(d) != want {
			t.Errorf("Set(%q) = %v, %v; want %v", in, time.Duration(d), err, want)
		}
	}
	for _, in := range []string{"", "-5", "ten", "10x", "-1m"} {
		var d durationValue
		if err := d.Set(in); err == nil {
			t.Errorf("Set(%q) accepted: %v", in, time.Duration(d))
		}
	}
}

func TestJSONCommandsPrintAnErrorDocument(t *testing.T) {
	t.Parallel()
	missing := filepath.Join(t.TempDir(), "eval.yaml")
	for _, tc := range []struct {
		args     []string
		code     int
		message  string
		problems int
	}{
		{[]string{"run", "--json", "--parallel", "abc"}, ExitUsage, `--parallel: "abc" is not a whole number`, 0},
		{[]string{"run", "--json", "-c", missing}, ExitUsage, missing + " has 1 problem", 1},
		{[]string{"permissions", "--json", "-c", missing}, ExitUsage, missing + " has 1 problem", 1},
		{[]string{"validate", "--json", "-c", missing}, ExitUsage, missing + " has 1 problem", 1},
		{[]string{"explain", "--json", "-c", missing, "--tool", "Bash", "--command", "ls"}, ExitUsage, missing + " has 1 problem", 1},
	} {
		code, stdout, stderr := runCLI(t, tc.args...)
		var doc struct {
			Error *struct {
				Code     int               `json:"code"`
				Message  string            `json:"message"`
				Problems []json.RawMessage `json:"problems"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(stdout), &doc); err != nil || doc.Error == nil {
			t.Errorf("%q: stdout is no JSON error document (%v):\n%s", tc.args, err, stdout)
			continue
		}
		if code != tc.code || doc.Error.Code != tc.code || doc.Error.Message != tc.message || len(doc.Error.Problems) != tc.problems {
			t.Errorf("%q = %d, error %+v; want %d, %q, %d problems", tc.args, code, *doc.Error, tc.code, tc.message, tc.problems)
		}
		if stderr == "" {
			t.Errorf("%q: no human text on stderr", tc.args)
		}
	}
	// Without --json, stdout stays empty.
	if _, stdout, _ := runCLI(t, "run", "-c", missing); stdout != "" {
		t.Errorf("run without --json printed %q", stdout)
	}
}

func TestInitNamesTheEvalAfterItsFolder(t *testing.T) {
	t.Parallel()
	for dir, want := range map[string]string{"my-eval": "my-eval", "Team Evals": "team-evals", "2026": "2026", "yes": "yes"} {
		path := filepath.Join(t.TempDir(), dir)
		if code, _, stderr := runCLI(t, "init", path); code != ExitOK {
			t.Fatalf("init %s = %d: %s", dir, code, stderr)
		}
		code, stdout, stderr := runCLI(t, "validate", path)
		if code != ExitOK || !strings.Contains(stdout, ": ok: eval "+want+",") {
			t.Errorf("init %q then validate = %d, %q %q; want eval %s", dir, code, stdout, stderr, want)
		}
	}
}

// TestErrorsAreRedacted: the error, on stdout as JSON and on stderr.
func TestErrorsAreRedacted(t *testing.T) {
	t.Parallel()
	code, stdout, stderr := runCLI(t, "run", "--json", "-c", "https://ada:hunter2sekret@jira.example.com/eval.yaml")
	if code != ExitUsage || strings.Contains(stdout+stderr, "hunter2sekret") || !strings.Contains(stdout, `"error"`) {
		t.Errorf("run --json = %d, stdout %s, stderr %s; want 2 and the password redacted", code, stdout, stderr)
	}
}
