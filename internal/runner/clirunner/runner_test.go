package clirunner

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/runner"
	"github.com/agent-eval/agent-eval/internal/testutil"
	"github.com/agent-eval/agent-eval/internal/transcript"
)

// loadEval writes eval.yaml (and files) into a temp folder and loads it.
func loadEval(t *testing.T, src string, files map[string]string) *config.Eval {
	t.Helper()
	dir := t.TempDir()
	files["eval.yaml"] = src
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	ev, err := config.Load(filepath.Join(dir, "eval.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return ev
}

// The runner.Runner adapter: placeholders from the eval, the case's input
// and the invocation; the program relative to eval.yaml; the fake model's
// per-invocation URL; execution.env and the invocation's env; output/
// made; a case lacking an input field fails at Prepare.
func TestRunnerAdapter(t *testing.T) {
	t.Parallel()
	ev := loadEval(t, `
execution:
  skill: smoke
  arguments: "{prompt}"
  env: {FROM_EXEC: x}
runner:
  type: cli
  effort: high
  env: {FROM_RUNNER: "y"}
  command: scripts/agent.sh {agent} {args} {workspace} {output_dir} {model} {subagent_model} {timeout} {max_budget_usd} {effort} {config_dir} {city}
models: {skill: m1}
dataset: {path: cases}
`, map[string]string{
		"scripts/agent.sh":     "#!/bin/sh\nfor a; do echo \"arg=$a\"; done\necho \"env=$FROM_EXEC $FROM_RUNNER $FROM_HOOK $ANTHROPIC_BASE_URL\"\n[ -d output ] && echo output-exists\n",
		"cases/a/input.yaml":   "prompt: say hi; rm -rf ~\ncity: Paris\n",
		"cases/b/input.yaml":   "prompt: hi\n",
		"cases/a/keep.txt":     "",
		"cases/b/keep.txt":     "",
		"scripts/.placeholder": "",
	})
	r := New()
	if c := r.Capabilities(); c.Interception || c.NativePermissions || c.Sandbox || c.AskUserQuestion {
		t.Errorf("Capabilities = %+v: a command is not hooked", c)
	}
	root := t.TempDir()
	ws := filepath.Join(root, "ws", "a")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx := testutil.Context(t, 2*time.Minute)
	run, err := r.Start(ctx, runner.RunSetup{Eval: ev, Model: "m1", FakeModelURL: "http://127.0.0.1:9", Workspaces: []string{ws}})
	if err != nil {
		t.Fatal(err)
	}
	defer run.Close()
	if name, _ := run.Agent(); name != "cli:agent.sh" {
		t.Errorf("Agent = %q", name)
	}
	if _, err := run.Prepare(ctx, runner.Workspace{ID: "b", Dir: ws, CaseDir: filepath.Join(ev.DatasetDir(), "b")}); !errors.As(err, new(*runner.ConfigError)) || !strings.Contains(err.Error(), "{city}") {
		t.Errorf("Prepare(case without city) = %v, want a config error naming {city}", err)
	}
	sess, err := run.Prepare(ctx, runner.Workspace{ID: "a", Dir: ws, CaseDir: filepath.Join(ev.DatasetDir(), "a")})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	var stdout bytes.Buffer
	res := sess.Invoke(ctx, runner.Invocation{Name: "a", Prompt: "/smoke say hi; rm -rf ~", Timeout: 90 * time.Second, MaxBudgetUSD: 2,
		Env: map[string]string{"FROM_HOOK": "z"}, Stdout: &stdout})
	if res.ExitCode != 0 || res.Err != nil {
		t.Fatalf("Invoke = exit %d, %v; stdout:\n%s", res.ExitCode, res.Err, stdout.String())
	}
	want := strings.Join([]string{"arg=smoke", "arg=say hi; rm -rf ~", "arg=" + ws, "arg=" + filepath.Join(ws, "output"), "arg=m1", "arg=m1",
		"arg=90", "arg=2", "arg=high", "arg=" + ev.Dir(), "arg=Paris",
		"env=x y z http://127.0.0.1:9/s/a", "output-exists"}, "\n") + "\n"
	if stdout.String() != want {
		t.Errorf("the agent printed:\n%s\nwant:\n%s", stdout.String(), want)
	}
}

// A case whose text would reach the command as an option is refused as
// the case's own error (a runner.CaseError naming the case and the field),
// not as one of the machine's, and the agent does not start.
func TestRunnerRefusesTheCasesOption(t *testing.T) {
	t.Parallel()
	ev := loadEval(t, `
execution: {prompt: "{prompt}"}
runner:
  type: cli
  command: [scripts/agent.sh, "{n}", "{args}"]
dataset: {path: cases}
`, map[string]string{
		"scripts/agent.sh":   "#!/bin/sh\necho ran\n",
		"cases/a/input.yaml": "prompt: -inf\nn: 1\n",
		"cases/b/input.yaml": "prompt: hi\nn: -0x1p-2\n",
	})
	for _, tt := range []struct{ id, prompt, field string }{
		{"a", "-inf", "the prompt (execution.prompt) in {args}"},
		{"b", "hi", "input field n in {n}"},
	} {
		ws := t.TempDir()
		ctx := testutil.Context(t, time.Minute)
		run, err := New().Start(ctx, runner.RunSetup{Eval: ev, Workspaces: []string{ws}})
		if err != nil {
			t.Fatal(err)
		}
		defer run.Close()
		sess, err := run.Prepare(ctx, runner.Workspace{ID: tt.id, Dir: ws, CaseDir: filepath.Join(ev.DatasetDir(), tt.id)})
		if err != nil {
			t.Fatal(err)
		}
		defer sess.Close()
		var stdout bytes.Buffer
		res := sess.Invoke(ctx, runner.Invocation{Name: tt.id, Prompt: tt.prompt, Stdout: &stdout})
		var ce *runner.CaseError
		if !errors.As(res.Err, &ce) || ce.Case != tt.id || ce.Field != tt.field || !errors.As(res.Err, new(*OptionError)) {
			t.Errorf("case %s: Invoke = %v, want a runner.CaseError of case %s, field %q, wrapping an *OptionError", tt.id, res.Err, tt.id, tt.field)
		}
		if res.ExitCode != -1 || stdout.Len() != 0 {
			t.Errorf("case %s: exit %d, the agent printed %q: it ran", tt.id, res.ExitCode, stdout.String())
		}
	}
}

func TestRunnerStartChecksProgram(t *testing.T) {
	t.Parallel()
	ev := loadEval(t, "execution: {prompt: hi}\nrunner:\n  type: cli\n  command: no-such-agent-xyz {args}\n", map[string]string{})
	_, err := New().Start(testutil.Context(t, time.Minute), runner.RunSetup{Eval: ev})
	if !errors.As(err, new(*runner.ConfigError)) || !strings.Contains(err.Error(), "no-such-agent-xyz") {
		t.Errorf("Start = %v, want a config error naming the program", err)
	}
}

func TestInvocationVars(t *testing.T) {
	t.Parallel()
	ev := loadEval(t, "execution:\n  steps:\n    - {id: plan, skill: planner}\n    - {id: say, prompt: hello}\nrunner: {type: cli, command: agent}\n", map[string]string{})
	for _, tt := range []struct {
		step, prompt string
		want         Vars
	}{
		{"plan", "/planner do it", Vars{Agent: "planner", Args: "do it"}},
		{"plan", "/planner", Vars{Agent: "planner", Args: ""}},
		{"plan", "/plannerx y", Vars{Agent: "planner", Args: "/plannerx y"}},
		{"say", "hello", Vars{Args: "hello"}},
	} {
		if got := InvocationVars(ev, tt.step, tt.prompt); got != tt.want {
			t.Errorf("InvocationVars(%s, %q) = %+v, want %+v", tt.step, tt.prompt, got, tt.want)
		}
	}
}

// The transcript of a recognised stream gets the invocation's step.
func TestRunnerTranscript(t *testing.T) {
	t.Parallel()
	abs, err := filepath.Abs("testdata/opencode-bash-write.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	ev := loadEval(t, "execution: {prompt: hi}\nrunner: {type: cli, command: [cat, "+abs+"]}\n", map[string]string{})
	ctx := testutil.Context(t, time.Minute)
	run, err := New().Start(ctx, runner.RunSetup{Eval: ev, Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	sess, err := run.Prepare(ctx, runner.Workspace{ID: "batch", Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	var tr bytes.Buffer
	w := transcript.NewWriter(&tr)
	res := sess.Invoke(ctx, runner.Invocation{Name: "batch", Step: "s1", Prompt: "hi", Transcript: w})
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	events, _, _ := transcript.Read(&tr)
	if res.ExitCode != 0 || res.Text != "done." || res.Usage.OutputTokens != 17 || len(events) != 5 || events[4].Step != "s1" || events[4].Kind != transcript.KindResult {
		t.Errorf("Invoke = %+v; events %+v", res, events)
	}
}
