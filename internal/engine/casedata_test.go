package engine_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-eval/agent-eval/internal/results"
	"github.com/agent-eval/agent-eval/internal/runner/fake"
	"github.com/agent-eval/agent-eval/internal/testutil"
)

// A runner's refusal of a case's own data (a runner.CaseError: its prompt
// or an input field would reach the agent as an option) ends the case in
// status error, which counts against the verdict, on the first try; an
// agent that could not start (the machine's doing) beside it is tried
// again and lost as infra_error.
func TestACaseRefusedForItsDataIsAnErrorNotRetried(t *testing.T) {
	t.Parallel()
	dir := project(t, caseEval, "bad", "lost", "fine")
	r := newRun(t, dir, map[string]fake.Script{
		"bad":  {RefuseField: "input field n in {n}", Err: `{n} makes the argument begin with "-inf"`},
		"lost": {Err: "exec: no such file"},
	})
	r.flags.RetryErrors, r.flags.RetryBackoff = 2, time.Millisecond
	res, err := r.exec(testutil.Context(t, time.Minute), t)
	if err != nil {
		t.Fatal(err)
	}
	calls := map[string]int{}
	for _, c := range r.fake.Calls() {
		calls[c.Name]++
	}
	tests := []struct {
		id      string
		status  results.Status
		calls   int
		retries int
		errWant []string
	}{
		{"bad", results.StatusError, 1, 0, []string{"case bad", "input field n in {n}", `"-inf"`}},
		{"lost", results.StatusInfraError, 3, 2, []string{"could not be run", "3 tries"}},
		{"fine", results.StatusCompleted, 1, 0, nil},
	}
	for _, tt := range tests {
		c, err := r.runDir().ReadCase(tt.id)
		if err != nil {
			t.Fatal(err)
		}
		if c.Status != tt.status || res.PerCase[tt.id].Status != tt.status {
			t.Errorf("%s: status %s (aggregate %s), want %s", tt.id, c.Status, res.PerCase[tt.id].Status, tt.status)
		}
		if calls[tt.id] != tt.calls || len(c.Retries) != tt.retries {
			t.Errorf("%s: invoked %d times with retries %q, want %d times, %d retries", tt.id, calls[tt.id], c.Retries, tt.calls, tt.retries)
		}
		for _, w := range tt.errWant {
			if !strings.Contains(c.Error, w) {
				t.Errorf("%s: error %q does not say %q", tt.id, c.Error, w)
			}
		}
	}
	if res.ExitCode == 0 {
		t.Error("the run exits 0 with a case refused")
	}
	for _, w := range r.obs.warnings {
		if strings.Contains(w, "bad:") {
			t.Errorf("the refusal was warned about as a retry: %s", w)
		}
	}
}

// A case whose prompt renders empty is refused before its agent starts
// (an agent CLI given nothing fails before its first turn, which would
// pass for the machine's failure): status error, naming the case and the
// field, and no invocation.
func TestACaseWhosePromptRendersEmptyIsAnError(t *testing.T) {
	t.Parallel()
	dir := project(t, "name: demo\nexecution: {prompt: \"{name?}\"}\nmodels: {skill: m}\ndataset: {path: cases}\n", "blank", "fine")
	if err := os.WriteFile(filepath.Join(dir, "cases", "blank", "input.yaml"), []byte("other: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := newRun(t, dir, map[string]fake.Script{})
	r.flags.RetryErrors, r.flags.RetryBackoff = 2, time.Millisecond
	if _, err := r.exec(testutil.Context(t, time.Minute), t); err != nil {
		t.Fatal(err)
	}
	for _, c := range r.fake.Calls() {
		if c.Name == "blank" {
			t.Errorf("the agent was given the prompt %q", c.Prompt)
		}
	}
	c, err := r.runDir().ReadCase("blank")
	if err != nil {
		t.Fatal(err)
	}
	if c.Status != results.StatusError || len(c.Retries) > 0 || !strings.Contains(c.Error, "case blank") || !strings.Contains(c.Error, "execution.prompt") || !strings.Contains(c.Error, "renders empty") {
		t.Errorf("blank: status %s, retries %q, error %q; want error naming the case and execution.prompt", c.Status, c.Retries, c.Error)
	}
	if c, _ := r.runDir().ReadCase("fine"); c == nil || c.Status != results.StatusCompleted {
		t.Errorf("fine: %+v", c)
	}
}
