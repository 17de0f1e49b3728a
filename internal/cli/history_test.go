package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-eval/agent-eval/internal/report"
	"github.com/agent-eval/agent-eval/internal/testutil/golden"
)

// historyRuns copies the report package's runs of one eval (passed,
// failed, not scored, incomplete, unreadable, and a matrix folder) into a
// temporary folder. The runs without a started_at take their time from
// their ids, in $TZ's zone: runCLIInUTC sets it to UTC for the test.
func historyRuns(t *testing.T) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "greet")
	if err := os.CopyFS(dst, os.DirFS("../report/testdata/history")); err != nil {
		t.Fatal(err)
	}
	return dst
}

func TestHistoryGolden(t *testing.T) {
	tests := []struct {
		name, golden string
		args         []string
	}{
		{"table", "history.golden.txt", nil},
		{"json", "history.golden.json", []string{"--json"}},
		{"limit", "history-limit.golden.txt", []string{"--limit", "2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			runs := historyRuns(t)
			code, stdout, stderr := runCLIInUTC(t, append([]string{"history", runs}, tt.args...)...)
			if code != ExitOK {
				t.Fatalf("history exited %d: %s", code, stderr)
			}
			for _, want := range []string{"agent-eval: not runs, not listed: matrix-20261206-000000\n", "agent-eval: wrote " + filepath.Join(runs, report.HistoryFile) + "\n"} {
				if !strings.Contains(stderr, want) {
					t.Errorf("stderr %q lacks %q", stderr, want)
				}
			}
			if _, err := os.Stat(filepath.Join(runs, report.HistoryFile)); err != nil {
				t.Errorf("no history.html: %v", err)
			}
			golden.Assert(t, filepath.Join("testdata", tt.golden), []byte(strings.ReplaceAll(stdout, runs, "$RUNS")))
		})
	}
}

func TestHistoryPageFlags(t *testing.T) {
	runs := historyRuns(t)
	page := filepath.Join(t.TempDir(), "elsewhere.html")
	if code, _, stderr := runCLIInUTC(t, "history", runs, "--html", page); code != ExitOK || !strings.Contains(stderr, "wrote "+page) {
		t.Fatalf("history --html exited %d: %s", code, stderr)
	}
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	// Its links are relative to where the page is.
	rel, _ := filepath.Rel(filepath.Dir(page), filepath.Join(runs, "20261201-101500.000-claude-sonnet-4-5", "report.html"))
	if !strings.Contains(string(b), `href="`+rel+`"`) {
		t.Errorf("%s does not link %s", page, rel)
	}
	if _, err := os.Stat(filepath.Join(runs, report.HistoryFile)); err == nil {
		t.Error("--html FILE also wrote history.html into the runs directory")
	}
	if code, _, stderr := runCLIInUTC(t, "history", runs, "--no-html"); code != ExitOK || strings.Contains(stderr, "wrote") {
		t.Errorf("history --no-html exited %d, stderr %q", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(runs, report.HistoryFile)); err == nil {
		t.Error("--no-html wrote history.html")
	}
}

func TestHistoryErrors(t *testing.T) {
	runs := historyRuns(t)
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"a negative limit", []string{runs, "--limit", "-1"}, ExitUsage, "--limit: -1 is below 0"},
		{"both page flags", []string{runs, "--html", "x.html", "--no-html"}, ExitUsage, "not both"},
		{"both a folder and -c", []string{runs, "-c", "eval.yaml"}, ExitUsage, "give a RUNS_DIR or -c eval.yaml, not both"},
		{"no such folder", []string{filepath.Join(runs, "none")}, ExitUsage, "no runs directory"},
		{"two folders", []string{runs, runs}, ExitUsage, "at most 1 argument"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCLIInUTC(t, append([]string{"history"}, tt.args...)...)
			if code != tt.code || !strings.Contains(stderr, tt.want) {
				t.Errorf("history %v = %d, stderr %q; want %d and %q", tt.args, code, stderr, tt.code, tt.want)
			}
			if stdout != "" {
				t.Errorf("history %v printed %q on stdout", tt.args, stdout)
			}
		})
	}
}

// TestHistoryRedacts plants a secret of the environment as a run's model
// and as a judge's name: neither the table, nor the JSON, nor the page
// holds it.
func TestHistoryRedacts(t *testing.T) {
	const secret = "cli-hist-s3cret-4Tq9bWz"
	t.Setenv("HISTORY_CLI_TOKEN", secret)
	runs := historyRuns(t)
	for _, f := range []struct{ path, old string }{
		{"20261203-110000.000-claude-opus-4-1/run_result.json", `"model":"claude-opus-4-1"`},
		{"20261201-101500.000-claude-sonnet-4-5/summary.yaml", "name: quality"},
	} {
		p := filepath.Join(runs, f.path)
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		planted := strings.Replace(string(b), f.old, f.old[:len(f.old)-1]+secret+f.old[len(f.old)-1:], 1)
		if planted == string(b) {
			t.Fatalf("%s: nothing planted", p)
		}
		if err := os.WriteFile(p, []byte(planted), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"history", runs}, {"history", runs, "--json"}} {
		code, stdout, stderr := runCLIInUTC(t, args...)
		if code != ExitOK {
			t.Fatalf("%v exited %d: %s", args, code, stderr)
		}
		if strings.Contains(stdout+stderr, secret) {
			t.Errorf("%v shows the secret:\n%s", args, stdout)
		}
		if !strings.Contains(stdout, "[redacted]") && !strings.Contains(stdout, "REDACTED") {
			t.Errorf("%v shows no redaction:\n%s", args, stdout)
		}
	}
	b, err := os.ReadFile(filepath.Join(runs, report.HistoryFile))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), secret) {
		t.Error("history.html holds the secret")
	}
}

// runCLIInUTC is runCLI with TZ=UTC, the zone the fixture's run ids are
// read in.
func runCLIInUTC(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	e := env{
		Streams: Streams{In: strings.NewReader(""), Out: &out, Err: &errb},
		Getenv:  func(k string) string { return map[string]string{"TZ": "UTC"}[k] },
	}
	code = run(context.Background(), args, e)
	return code, out.String(), errb.String()
}

// TestZone: the run ids are read in $TZ's zone (a leading ':' allowed),
// else the local one.
func TestZone(t *testing.T) {
	for tz, want := range map[string]string{"": time.Local.String(), "UTC": "UTC", ":Asia/Tokyo": "Asia/Tokyo", "Nowhere/Atlantis": time.Local.String()} {
		e := env{Getenv: func(k string) string { return map[string]string{"TZ": tz}[k] }}
		if got := zone(e).String(); got != want {
			t.Errorf("TZ=%q: zone %s, want %s", tz, got, want)
		}
	}
}
