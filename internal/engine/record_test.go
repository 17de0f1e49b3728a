package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agent-eval/agent-eval/internal/engine"
	"github.com/agent-eval/agent-eval/internal/hook"
	"github.com/agent-eval/agent-eval/internal/results"
	"github.com/agent-eval/agent-eval/internal/rundir"
	"github.com/agent-eval/agent-eval/internal/runner"
	"github.com/agent-eval/agent-eval/internal/transcript"
)

// recordEval names a secret by reference and one literally: the run's copy
// keeps the reference and hides the literal.
const recordEval = `name: demo
execution: {prompt: hi, env: {TOKEN: $RECORD_TOKEN, API_KEY: "literal-secret-0123456789"}}
models: {skill: m, hook: hm, judge: jm}
dataset: {path: cases}
outputs: [{path: out}]
permissions: {allow: [Read], deny: ["Bash(rm:*)"]}
`

// A run records what it ran: eval.yaml as loaded (references kept, a
// literal secret redacted), the compiled permissions, the agent, the
// models, the command line (its secrets redacted), its times and, in a git
// work tree, the project's commit and whether it was dirty.
func TestRunRecordsWhatItRan(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		git   bool
		dirty bool
	}{
		{"outside git", false, false},
		{"a clean work tree", true, false},
		{"a dirty work tree", true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := project(t, recordEval, "a")
			commit := ""
			if tc.git {
				commit = gitCommitAll(t, dir)
				if tc.dirty {
					if err := os.WriteFile(filepath.Join(dir, "cases", "a", "input.yaml"), []byte("name: changed\n"), 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
			r := newRun(t, dir, nil)
			r.args = []string{"agent-eval", "run", "--model", "m", "--api-key", "sk-test-0123456789abcdef"}
			before := time.Now().Add(-time.Second)
			if _, err := r.exec(context.Background(), t); err != nil {
				t.Fatal(err)
			}
			got, err := r.runDir().ReadRun()
			if err != nil {
				t.Fatal(err)
			}
			if got.LayoutVersion != rundir.LayoutVersion {
				t.Errorf("layout_version = %d, want %d", got.LayoutVersion, rundir.LayoutVersion)
			}
			if got.Agent != "fake" || got.AgentVersion != "1.0" {
				t.Errorf("agent = %q %q, want fake 1.0", got.Agent, got.AgentVersion)
			}
			if want := (results.Models{Agent: "m", Hook: "hm", Judge: "jm"}); got.Models == nil || *got.Models != want {
				t.Errorf("models = %+v, want %+v", got.Models, want)
			}
			for name, ts := range map[string]string{"started_at": got.StartedAt, "ended_at": got.EndedAt} {
				tm, err := time.Parse(time.RFC3339, ts)
				if err != nil || tm.Before(before.Truncate(time.Second)) || tm.After(time.Now().Add(time.Second)) {
					t.Errorf("%s = %q, want an RFC 3339 time of the run (%v)", name, ts, err)
				}
			}
			wantArgs := []string{"agent-eval", "run", "--model", "m", "--api-key", "[redacted]"}
			if !slices.Equal(got.CommandLine, wantArgs) {
				t.Errorf("command_line = %q, want %q", got.CommandLine, wantArgs)
			}
			src, _ := os.ReadFile(filepath.Join(dir, "eval.yaml"))
			abs, _ := filepath.Abs(filepath.Join(dir, "eval.yaml"))
			if c := got.Config; c == nil || c.Path != abs || c.Dir != filepath.Dir(abs) || c.SHA256 == "" {
				t.Errorf("config = %+v, want path %s", c, abs)
			}
			copyB, err := os.ReadFile(r.runDir().EvalCopy())
			if err != nil {
				t.Fatal(err)
			}
			if cp := string(copyB); !strings.Contains(cp, "$RECORD_TOKEN") || strings.Contains(cp, "literal-secret-0123456789") ||
				cp != strings.ReplaceAll(string(src), "literal-secret-0123456789", "REDACTED") {
				t.Errorf("config/eval.yaml keeps $VAR references and hides literal secrets; got:\n%s", cp)
			}
			var perms struct {
				Allow, Deny []string
				Sandbox     struct{ On bool }
			}
			b, err := os.ReadFile(r.runDir().PermissionsCopy())
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(b, &perms); err != nil || !slices.Equal(perms.Allow, []string{"Read"}) || !slices.Equal(perms.Deny, []string{"Bash(rm:*)"}) {
				t.Errorf("config/permissions.json = %s (%v), want allow [Read], deny [Bash(rm:*)]", b, err)
			}
			switch p := got.Project; {
			case !tc.git && p != nil:
				t.Errorf("project = %+v outside a git work tree, want none", p)
			case tc.git && (p == nil || p.Commit != commit || p.Dirty != tc.dirty):
				t.Errorf("project = %+v, want commit %s, dirty %v", p, commit, tc.dirty)
			}
		})
	}
}

// gitCommitAll makes dir a git repository with everything in it committed
// and returns the commit.
func gitCommitAll(t *testing.T, dir string) string {
	t.Helper()
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "x"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	cmd := exec.Command("git", "rev-parse", "HEAD")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

// A secret written literally in any env block of eval.yaml is hidden in
// the run's copy, whichever block holds it, and so is one elsewhere that
// is shaped like a credential.
func TestTheRunsCopyHidesEveryLiteralEnvSecret(t *testing.T) {
	t.Parallel()
	const secret = "literal-secret-9876543210"
	for name, block := range map[string]string{
		"execution.env": "execution: {prompt: hi, env: {API_TOKEN: \"" + secret + "\"}}\n",
		"runner.env":    "execution: {prompt: hi}\nrunner: {env: {API_TOKEN: \"" + secret + "\"}}\n",
		"steps[].env":   "execution: {steps: [{id: one, prompt: hi, env: {API_TOKEN: \"" + secret + "\"}}]}\n",
		// Not an env value, so not a known one: hidden by its shape.
		"a hook's bearer token": "execution: {prompt: hi}\nhooks: {before_scoring: [{command: \"curl -H 'Authorization: Bearer " + secret + "' https://ci.example.com\"}]}\n",
		"a hook's URL password": "execution: {prompt: hi}\nhooks: {before_scoring: [{command: \"git clone https://bot:" + secret + "@git.example.com/x.git\"}]}\n",
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := project(t, "name: demo\n"+block+"models: {skill: m}\ndataset: {path: cases}\n", "a")
			r := newRun(t, dir, nil)
			if _, err := r.exec(context.Background(), t); err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(r.runDir().EvalCopy())
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(b), secret) {
				t.Errorf("config/eval.yaml holds %s's literal secret:\n%s", name, b)
			}
		})
	}
}

func TestMarkUngated(t *testing.T) {
	for _, tc := range []struct {
		name            string
		status          results.Status
		exit            int
		wired           bool
		canaries, calls int
		want            results.Status
		wantExit        int
		ungated         bool
	}{
		{"gated", results.StatusCompleted, 0, true, 1, 3, results.StatusCompleted, 0, false},
		{"not wired", results.StatusCompleted, 0, false, 0, 3, results.StatusCompleted, 0, false},
		{"no canary", results.StatusCompleted, 0, true, 0, 0, results.StatusError, 1, true},
		{"failed after calls", results.StatusFailed, 4, true, 0, 2, results.StatusError, 4, true},
		{"failed before any call", results.StatusFailed, 4, true, 0, 0, results.StatusFailed, 4, true},
		{"timed out", results.StatusTimeout, -1, true, 0, 5, results.StatusTimeout, -1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &results.Case{Status: tc.status, ExitCode: tc.exit}
			engine.MarkUngated(c, tc.wired, tc.canaries, tc.calls)
			if c.Status != tc.want || c.ExitCode != tc.wantExit || c.Ungated != tc.ungated {
				t.Errorf("status %s exit %d ungated %v, want %s %d %v", c.Status, c.ExitCode, c.Ungated, tc.want, tc.wantExit, tc.ungated)
			}
			if tc.want == results.StatusError && !strings.Contains(c.Error, "without its hook") {
				t.Errorf("error %q does not say why", c.Error)
			}
		})
	}
}

// TestStartGate: only a canary written after the invocation started counts;
// a ledger that came with the workspace, one that shrank, and one swapped
// for a link count none.
func TestStartGate(t *testing.T) {
	canary := `{"decision":"canary","event":"SessionStart"}` + "\n"
	deny := `{"decision":"deny","tool":"Bash"}` + "\n"
	for _, tc := range []struct {
		name          string
		before, after string // the ledger at the start and at the end ("-": none; "link": a link to a file with after)
		want          int
	}{
		{"fresh canary", "-", canary, 1},
		{"appended canary", canary, canary + deny + canary, 1},
		{"only the old canary", canary + deny, canary + deny + deny, 0},
		{"rewritten shorter", canary + canary + deny, canary, 0},
		{"no ledger", "-", "-", 0},
		{"link", "-", "link", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws := t.TempDir()
			ledger := filepath.Join(ws, hook.LedgerFile)
			if tc.before != "-" {
				if err := os.WriteFile(ledger, []byte(tc.before), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			g := engine.ReadStartGate(ws, true)
			switch tc.after {
			case "-":
			case "link":
				other := filepath.Join(t.TempDir(), "l")
				if err := os.WriteFile(other, []byte(canary), 0o644); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(other, ledger); err != nil {
					t.Fatal(err)
				}
			default:
				if err := os.WriteFile(ledger, []byte(tc.after), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if got := g.Canaries(ws); got != tc.want {
				t.Errorf("canaries = %d, want %d", got, tc.want)
			}
		})
	}
}

// TestInfraFailure: only what is not the agent's doing is an
// infrastructure failure.
func TestInfraFailure(t *testing.T) {
	for _, tc := range []struct {
		name string
		res  runner.Result
		want string
	}{
		{"529", runner.Result{ExitCode: 1, APIErrorStatus: 529}, "HTTP 529"},
		{"429", runner.Result{ExitCode: 1, APIErrorStatus: 429}, "HTTP 429"},
		{"500", runner.Result{ExitCode: 1, APIErrorStatus: 500}, "HTTP 500"},
		{"400 is the request's", runner.Result{ExitCode: 1, APIErrorStatus: 400}, ""},
		{"not started", runner.Result{ExitCode: -1, Err: errors.New("exec: no such file")}, "could not be run"},
		{"timed out", runner.Result{ExitCode: -1, TimedOut: true, APIErrorStatus: 529}, ""},
		{"interrupted", runner.Result{ExitCode: -1, Interrupted: true, Err: errors.New("x")}, ""},
		{"the agent failed", runner.Result{ExitCode: 1, IsError: true}, ""},
		{"failed after working", runner.Result{ExitCode: -1, Err: errors.New("read"), NumTurns: 3}, ""},
		{"the runner says so", runner.Result{ExitCode: 1, InfraError: "Claude Code exited 1 before its first turn"}, "before its first turn"},
		{"the runner says so, but the agent worked", runner.Result{ExitCode: 1, InfraError: "x", ToolCalls: make([]transcript.ToolCall, 1)}, ""},
		{"the case's own data", runner.Result{ExitCode: -1, Err: fmt.Errorf("run: %w", &runner.CaseError{Case: "a", Field: "input field n in {n}", Err: errors.New("-inf")})}, ""},
	} {
		if got := engine.InfraFailure(tc.res); tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
	for try, want := range []time.Duration{time.Second, 2 * time.Second, 4 * time.Second} {
		if got := engine.RetryBackoff(time.Second, try); got != want {
			t.Errorf("backoff %d = %s, want %s", try, got, want)
		}
	}
	if got := engine.RetryBackoff(time.Second, 40); got != time.Minute {
		t.Errorf("backoff is not capped: %s", got)
	}
}
