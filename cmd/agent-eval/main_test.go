package main

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/agent-eval/agent-eval/internal/cli"
	"github.com/agent-eval/agent-eval/internal/testutil/need"
	"github.com/agent-eval/agent-eval/internal/workspace"
)

// TestMain registers agent-eval as a command of the test scripts: the test
// binary re-runs itself as the real CLI, exit codes and streams included.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"agent-eval":      func() { os.Exit(cli.Main(os.Args[1:], cli.OSStreams())) },
		"denyhook":        denyhook,
		"mcpstub":         mcpstub,
		"agent-eval-json": agentEvalJSON,
		"bash-turns":      bashTurns,
		"leak-count":      leakCount,
	})
}

// TestScripts runs testdata/script/*.txtar end to end.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		Setup: func(env *testscript.Env) error {
			env.Setenv("AGENT_EVAL_RUNS_DIR", "")
			env.Values[fakeKey{}] = &fakeHolder{} // fake start SCRIPT: a fake Messages API for the verbs that call a model
			mlflowSetup(env)
			if err := setExamples(env); err != nil {
				return err
			}
			return shortWorkspaces(env)
		},
		Condition: scriptCondition,
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){"anova-near": cmdANOVANear,
			"mlflow-run": cmdMLflowRun, "fake": cmdFake, "mlflow-secret-free": cmdMLflowSecretFree, "mlflow-traces": cmdMLflowTraces},
	})
}

// scriptCondition is the scripts' [need:PROGRAM]: PROGRAM is on PATH, and
// [root]: the tests run as root. A
// script that needs it starts with [!need:PROGRAM] skip, which skips without
// it, except in CI ($CI set), where the condition's error fails the script
// (need.ProgramCondition).
func scriptCondition(cond string) (bool, error) {
	if name, ok := strings.CutPrefix(cond, "need:"); ok && name != "" {
		return need.ProgramCondition(name)
	}
	if cond == "root" {
		return os.Geteuid() == 0, nil // the tests run as root here and in CI, as a user elsewhere
	}
	return false, fmt.Errorf("unknown condition %q", cond)
}

// shortWorkspaces gives a script a private workspace root of its own
// ($AGENT_EVAL_WORKSPACES), removed after it: short, as the sandbox's
// sockets need (testscript's $WORK is too long), and apart from every other
// run on the machine.
func shortWorkspaces(env *testscript.Env) error {
	d, err := os.MkdirTemp("/tmp", "ae")
	if err != nil {
		return err
	}
	env.Defer(func() { _ = os.RemoveAll(d) })
	env.Setenv(workspace.RootEnv, d)
	return nil
}
