package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-eval/agent-eval/internal/rundir"
	"github.com/agent-eval/agent-eval/internal/runner/fake"
	"github.com/agent-eval/agent-eval/internal/transcript"
)

// TestTheRunRedactsACasesOwnSecrets: a secret a before_each hook hands the
// case (a test instance's token) is one of the run's known secrets: the
// transcript (a tool result printing it on a line of its own) and the
// case's result hide it, the output file keeps it for the judges, and the
// case's secret marks point at it without holding it, so score and report
// can hide it later without the run's environment. The hook's data is
// kept redacted.
func TestTheRunRedactsACasesOwnSecrets(t *testing.T) {
	t.Parallel()
	const secret = "bE4chSecretValue9"
	dir := project(t, caseEval+`hooks:
  before_each:
    - command: |
        printf 'env:\n  CASE_API_TOKEN: `+secret+`\ndata:\n  admin_password: hook-data-pw-77\n  user: tester\n' > .hook-outputs.yaml
`, "c1")
	r := newRun(t, dir, map[string]fake.Script{"": {
		Text:      "the token is " + secret,
		ToolCalls: []transcript.ToolCall{{ID: "t1", Name: "Bash", Input: []byte(`{"command":"cat .env"}`), Result: "APP=1\nNOTE=" + secret + "\n", Returned: true}},
		Files:     map[string]string{"out/x.txt": "token $ENV{CASE_API_TOKEN}\n"},
	}})
	if _, err := r.exec(context.Background(), t); err != nil {
		t.Fatal(err)
	}
	rd := r.runDir()
	for _, f := range []string{rd.Transcript("c1"), rd.CaseResult("c1"), rd.RunResult()} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), secret) {
			t.Errorf("%s holds the case's secret:\n%s", filepath.Base(f), b)
		}
	}
	// The hook's own data (a test account it made) is kept redacted.
	if b, err := os.ReadFile(filepath.Join(rd.Case("c1"), rundir.HookOutputs)); err != nil || strings.Contains(string(b), "hook-data-pw-77") || !strings.Contains(string(b), "tester") {
		t.Errorf("hook_outputs.yaml: %q (%v)", b, err)
	}
	if b, err := os.ReadFile(filepath.Join(rd.Outputs("c1"), "out", "x.txt")); err != nil || !strings.Contains(string(b), secret) {
		t.Errorf("the output must keep what the agent wrote: %q (%v)", b, err)
	}
	marks, err := os.ReadFile(filepath.Join(rd.Case("c1"), rundir.SecretMarksFile))
	if err != nil {
		t.Fatalf("no secret marks: %v", err)
	}
	if strings.Contains(string(marks), secret) {
		t.Errorf("the marks hold the secret: %s", marks)
	}
	vals, changed, err := rd.KnownSecrets()
	if err != nil || len(changed) != 0 || len(vals) != 1 || vals[0] != secret {
		t.Errorf("KnownSecrets() = %q, %q, %v; want [%s]", vals, changed, err, secret)
	}
}
