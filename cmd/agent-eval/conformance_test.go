package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// The runner conformance suite: every scenario of testdata/conformance runs
// once per runner, with runner.type switched and nothing else, against the
// real agent CLI (or, for Cursor, the stand-in of its documented CLI) and
// the built-in fake model (run --fake-model), whose scripts name tools in
// one vocabulary the fake speaks to every agent in its own protocol. What
// each scenario checks is what the engine, score and compare rely on of a
// runner: a file written and collected, usage, a runner-neutral
// transcript, a path deny that holds, a gated call denied with its reason
// reaching the model, permission_denials, the hook's canary, a timeout, a
// crash, a question answered (where the agent has a question tool).
//
// A scenario's eval.yaml names its runner @RUNNER@ and its model @MODEL@
// (the command subst fills them in) and the agent binary is $AGENT_BIN. Conditions:
// [runner:NAME] is the runner under test; [questions] it has a question
// tool the hook answers; [sandbox] its shell runs in an OS sandbox;
// [usage] it reports its token usage.

// conformant is one runner the suite runs.
type conformant struct {
	runner string
	// model is the models.skill its scenarios name (@MODEL@).
	model string
	// bin finds the agent binary: "" skips the runner here (the finder
	// fails the test in CI instead, where every agent is installed).
	bin func(t *testing.T) string
	// setup adds the runner's own environment to a script's.
	setup func(env *testscript.Env, bin string) error
	// questions: the agent has a question tool the hook answers.
	// sandbox: its shell runs in an OS sandbox. usage: it reports its
	// token usage.
	questions, sandbox, usage bool
}

// conformants are the runners the suite runs, in registry order.
func conformants() []conformant {
	return []conformant{
		{runner: "claude-code", model: "claude-sonnet-4-5", bin: claudeCLI, setup: claudeConformance, questions: true, sandbox: true, usage: true},
		{runner: "codex", model: "gpt-5.5", bin: codexCLI, setup: homeConformance, sandbox: true, usage: true},
		{runner: "gemini", model: "gemini-2.5-flash", bin: geminiCLI, setup: homeConformance, usage: true},
		// Cursor's documented result event has no usage (the runner reads
		// one where a CLI adds it, as upstream's parser does).
		{runner: "cursor", model: "gpt-5", bin: cursorStandin, setup: cursorConformance},
	}
}

func claudeConformance(env *testscript.Env, bin string) error {
	_, err := claudeScriptEnv(env, bin)
	if err != nil {
		return err
	}
	env.Setenv("ANTHROPIC_API_KEY", "fake-key-for-tests")
	for _, k := range []string{"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "DISABLE_TELEMETRY", "DISABLE_AUTOUPDATER", "DISABLE_ERROR_REPORTING"} {
		env.Setenv(k, "1")
	}
	env.Setenv("CLAUDE_CODE_MAX_RETRIES", "1") // crash: one retry, not ten with backoff
	return nil
}

// cursorConformance: the stand-in of Cursor's CLI on PATH as cursor-agent,
// a home of the script's own.
func cursorConformance(env *testscript.Env, bin string) error {
	env.Setenv("PATH", filepath.Dir(bin)+string(os.PathListSeparator)+env.Getenv("PATH"))
	return homeConformance(env, bin)
}

// homeConformance: a home of the script's own (the runner gives each case
// one of its own besides).
func homeConformance(env *testscript.Env, _ string) error {
	home := filepath.Join(env.WorkDir, "home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		return err
	}
	env.Setenv("HOME", home)
	return nil
}

func TestConformance(t *testing.T) {
	if testing.Short() {
		t.Skip("the conformance suite runs the real agent CLIs")
	}
	for _, c := range conformants() {
		t.Run(c.runner, func(t *testing.T) {
			bin := c.bin(t)
			if bin == "" {
				t.Skipf("the %s agent is not installed here", c.runner)
			}
			testscript.Run(t, testscript.Params{
				Dir:                 "testdata/conformance",
				RequireExplicitExec: true,
				RequireUniqueNames:  true,
				Setup: func(env *testscript.Env) error {
					env.Setenv("RUNNER", c.runner)
					env.Setenv("MODEL", c.model)
					env.Setenv("AGENT_BIN", bin)
					env.Setenv("AGENT_EVAL_BIN", "agent-eval")
					if err := c.setup(env, bin); err != nil {
						return err
					}
					return shortWorkspaces(env)
				},
				Condition: func(cond string) (bool, error) {
					if name, ok := strings.CutPrefix(cond, "runner:"); ok {
						return name == c.runner, nil
					}
					switch cond {
					case "questions":
						return c.questions, nil
					case "sandbox":
						return c.sandbox, nil
					case "usage":
						return c.usage, nil
					}
					return scriptCondition(cond)
				},
				Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
					"subst": cmdSubst,
				},
			})
		})
	}
}

// cmdSubst replaces @RUNNER@, @MODEL@ and @WORK@ in each file named with
// the runner under test, its model and the script's folder.
func cmdSubst(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: subst FILE...")
	}
	for _, f := range args {
		p := ts.MkAbs(f)
		b, err := os.ReadFile(p)
		ts.Check(err)
		ts.Check(os.WriteFile(p, []byte(strings.NewReplacer("@RUNNER@", ts.Getenv("RUNNER"), "@MODEL@", ts.Getenv("MODEL"), "@WORK@", ts.Getenv("WORK")).Replace(string(b))), 0o644))
	}
}
