// Package runnertest is the test suite every runner passes: it starts a
// run, prepares a workspace and invokes the agent to completion, past its
// timeout and through an interrupt, and checks what the engine relies on
// (exit codes, the flags, the transcript, that nothing hangs).
package runnertest

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/fakeapi"
	"github.com/agent-eval/agent-eval/internal/runner"
	"github.com/agent-eval/agent-eval/internal/testutil"
	"github.com/agent-eval/agent-eval/internal/transcript"
)

// Harness adapts a runner to the suite.
type Harness struct {
	New func() runner.Runner
	// Setup is the run setup for a run rooted at root (workspaces go
	// under root/ws). Invocations are named after what their agent must
	// do: "quick" answers and exits 0; "hang" works until it is stopped.
	Setup func(t *testing.T, root string) runner.RunSetup
	// Stop bounds how long a stopped agent may take to end.
	Stop time.Duration
}

// Run runs the suite.
func Run(t *testing.T, h Harness) {
	if h.Stop == 0 {
		h.Stop = 15 * time.Second
	}
	t.Run("Capabilities", func(t *testing.T) {
		c := h.New().Capabilities()
		if c.AskUserQuestion && !c.Interception {
			t.Errorf("AskUserQuestion without Interception: the questions reach no hook")
		}
	})
	t.Run("Quick", func(t *testing.T) {
		res, events, stdout := invoke(t, h, testutil.Context(t, 2*time.Minute), "quick", time.Minute)
		if res.ExitCode != 0 || res.Err != nil || res.TimedOut || res.Interrupted {
			t.Fatalf("quick: exit %d, err %v, timed out %v, interrupted %v; stdout:\n%s", res.ExitCode, res.Err, res.TimedOut, res.Interrupted, stdout)
		}
		if res.Duration <= 0 {
			t.Errorf("duration %v", res.Duration)
		}
		if res.Text == "" {
			t.Errorf("no final answer")
		}
		last := transcript.Event{}
		for _, e := range events {
			if e.Step != "s1" {
				t.Errorf("event %+v: step %q, want the invocation's s1", e, e.Step)
			}
			last = e
		}
		if last.Kind != transcript.KindResult {
			t.Errorf("the transcript does not end with the result: %+v", events)
		}
	})
	t.Run("Timeout", func(t *testing.T) {
		start := time.Now()
		// The test's own deadline, past the runner's timeout and stop, ends
		// a runner whose timeout does not fire (as an interrupt).
		res, _, _ := invoke(t, h, testutil.Context(t, h.Stop+time.Minute), "hang", 300*time.Millisecond)
		if !res.TimedOut || res.Interrupted || res.ExitCode != -1 {
			t.Errorf("hang past its timeout: timed out %v, interrupted %v, exit %d, err %v", res.TimedOut, res.Interrupted, res.ExitCode, res.Err)
		}
		if d := time.Since(start); d > h.Stop+10*time.Second {
			t.Errorf("the timed-out agent took %v to stop", d)
		}
	})
	t.Run("Interrupt", func(t *testing.T) {
		ctx, cancel := context.WithCancel(testutil.Context(t, h.Stop+time.Minute))
		defer cancel()
		time.AfterFunc(300*time.Millisecond, cancel)
		res, _, _ := invoke(t, h, ctx, "hang", time.Hour)
		if !res.Interrupted || res.TimedOut || res.ExitCode != -1 {
			t.Errorf("interrupted agent: interrupted %v, timed out %v, exit %d, err %v", res.Interrupted, res.TimedOut, res.ExitCode, res.Err)
		}
	})
}

// LoadEval writes body as root/eval.yaml (with an empty cases/ folder)
// and loads it.
func LoadEval(t *testing.T, root, body string) *config.Eval {
	t.Helper()
	cfg := filepath.Join(root, "eval.yaml")
	if err := os.MkdirAll(filepath.Join(root, "cases"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	ev, err := config.Load(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return ev
}

// FakeServer starts the fake model API with the named scripts (YAML) for
// the test and returns it and its URL.
func FakeServer(t *testing.T, scripts map[string]string) (*fakeapi.Server, string) {
	t.Helper()
	srv := fakeapi.New(fakeapi.Options{})
	for name, script := range scripts {
		sc, err := fakeapi.ParseScript([]byte(script))
		if err != nil {
			t.Fatal(err)
		}
		srv.SetScript(name, sc)
	}
	url, err := srv.Start("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	return srv, url
}

// invoke runs one invocation in a fresh run and workspace.
func invoke(t *testing.T, h Harness, ctx context.Context, name string, timeout time.Duration) (runner.Result, []transcript.Event, string) {
	t.Helper()
	root := t.TempDir()
	setup := h.Setup(t, root)
	ws := filepath.Join(root, "ws", name)
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	if setup.WorkspaceRoot == "" {
		setup.WorkspaceRoot = filepath.Join(root, "ws")
	}
	setup.Workspaces = append(setup.Workspaces, ws)
	run, err := h.New().Start(ctx, setup)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	defer func() {
		if err := run.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	}()
	if name, _ := run.Agent(); name == "" {
		t.Errorf("the run names no agent")
	}
	sess, err := run.Prepare(ctx, runner.Workspace{ID: name, Dir: ws})
	if err != nil {
		t.Fatalf("Prepare: %v", err)
	}
	defer func() {
		if err := sess.Close(); err != nil {
			t.Errorf("session Close: %v", err)
		}
	}()
	var stdout, stderr, tr bytes.Buffer
	w := transcript.NewWriter(&tr)
	res := sess.Invoke(ctx, runner.Invocation{Name: name, Step: "s1", Prompt: "Do the " + name + " thing.", Timeout: timeout,
		MaxBudgetUSD: 1, Stdout: &stdout, Stderr: &stderr, Transcript: w})
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	events, _, err := transcript.Read(&tr)
	if err != nil {
		t.Fatal(err)
	}
	return res, events, stdout.String()
}

// FakeModel is FakeServer's URL alone.
func FakeModel(t *testing.T, scripts map[string]string) string {
	t.Helper()
	_, url := FakeServer(t, scripts)
	return url
}
