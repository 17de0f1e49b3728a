package clirunner

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agent-eval/agent-eval/internal/config"
)

func TestExpand(t *testing.T) {
	t.Parallel()
	budget := 1.5
	vars := Vars{Agent: "smoke", Workspace: "/ws/a b", OutputDir: "/ws/a b/output", Model: "m", SubagentModel: "s",
		Timeout: 120e9, MaxBudgetUSD: &budget, Effort: "high", SystemPrompt: "be brief", ConfigDir: "/evals/x", Args: "say \"hi\"; rm -rf ~"}
	input := map[string]any{"context": "none", "workspace": "/evil", "n": 3, "flag": true, "list": []any{"a", 1}, "nothing": nil,
		"evil": "$(id); rm -rf ~ `id` \"'"}
	tests := []struct {
		name string
		cmd  config.StringList
		want []string
	}{
		{"upstream opencode-smoke list", config.StringList{"bash", "-c", `exec "$EVAL_PROJECT_ROOT/run.sh" "$@"`, "--", "{args}", "{workspace}", "{output_dir}", "{model}"},
			[]string{"bash", "-c", `exec "$EVAL_PROJECT_ROOT/run.sh" "$@"`, "--", "say \"hi\"; rm -rf ~", "/ws/a b", "/ws/a b/output", "m"}},
		{"upstream anova string, split at load", mustSplit(t, "bash {config_dir}/solve.sh {workspace} {output_dir} {model} {config_dir}/mcp-{context}.json"),
			[]string{"bash", "/evals/x/solve.sh", "/ws/a b", "/ws/a b/output", "m", "/evals/x/mcp-none.json"}},
		{"every built-in", config.StringList{"{agent}", "{subagent_model}", "{timeout}", "{max_budget_usd}", "{effort}", "{system_prompt}"},
			[]string{"smoke", "s", "120", "1.5", "high", "be brief"}},
		{"input never overrides a built-in", config.StringList{"{workspace}"}, []string{"/ws/a b"}},
		{"input values as text", config.StringList{"{n}-{flag}", "{list}", "[{nothing}]"}, []string{"3-true", `["a",1]`, "[]"}},
		{"injection stays one argument", config.StringList{"agent", "--x={evil}"}, []string{"agent", "--x=$(id); rm -rf ~ `id` \"'"}},
		{"escaped braces", config.StringList{"{{args}}", "${HOME}"}, []string{"{args}", "${HOME}"}},
	}
	for _, tt := range tests {
		got, err := Expand(tt.cmd, vars, input)
		if err != nil {
			t.Errorf("%s: Expand: %v", tt.name, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s: Expand (-want +got):\n%s", tt.name, diff)
		}
	}
	if _, err := Expand(config.StringList{"agent", "{city}"}, vars, input); err == nil || !strings.Contains(err.Error(), "{city}") {
		t.Errorf("Expand with a missing input field = %v, want an error naming it", err)
	}
	if got, err := Expand(config.StringList{"{timeout}{max_budget_usd}"}, Vars{}, nil); err != nil || got[0] != "" {
		t.Errorf("unset timeout and budget = %q, %v, want empty", got, err)
	}
}

func mustSplit(t *testing.T, line string) config.StringList {
	t.Helper()
	args, err := config.SplitCommand(line)
	if err != nil {
		t.Fatal(err)
	}
	return args
}

// A case input holding shell syntax reaches the agent as one literal
// argument: no shell ever sees it.
func TestExpandNoInjection(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cmd := mustSplit(t, `sh -c 'printf "%s\n" "$#" "$1"' agent {evil}`)
	evil := "; rm -rf ~ $(id) `id` && touch pwned"
	argv, err := Expand(cmd, Vars{}, map[string]any{"evil": evil})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	res := Run(context.Background(), Spec{Argv: argv, Dir: dir, Env: Env(nil, map[string]string{"PATH": "/usr/bin:/bin"}), Stdout: &out})
	if res.ExitCode != 0 || res.Err != nil {
		t.Fatalf("Run = exit %d, %v", res.ExitCode, res.Err)
	}
	if want := "1\n" + evil + "\n"; out.String() != want {
		t.Errorf("the agent got %q, want %q (one argument, verbatim)", out.String(), want)
	}
}

// A case's text that fills a whole argument and begins with "-" would be
// read by the program as an option (`claude -p {args}` with the prompt
// "--permission-mode=bypassPermissions"): it is an error unless a "--"
// ends the options before it. A number (`--offset {n}`, -5) is a value.
func TestExpandOptionInjection(t *testing.T) {
	t.Parallel()
	input := map[string]any{"q": "--permission-mode=bypassPermissions", "n": -5, "neg": "-2.5"}
	vars := Vars{Args: "--dangerously-skip-permissions", SystemPrompt: "-be brief"}
	bad := []config.StringList{{"claude", "-p", "{args}"}, {"agent", "{q}"}, {"opencode", "run", "{q}"}, {"sh", "-c", "{q}"}, {"sh", "{q}"}}
	for _, cmd := range bad {
		if got, err := Expand(cmd, vars, input); err == nil || !strings.Contains(err.Error(), `"--"`) {
			t.Errorf("Expand(%q) = %q, %v; want an error saying to put \"--\" before it", cmd, got, err)
		}
	}
	good := []config.StringList{
		{"claude", "-p", "--", "{args}"},
		{"bash", "-c", `agent "$1"`, "--", "{q}"},
		{"sh", "-c", `agent "$1"`, "agent", "{q}"},
		{"agent", "--offset", "{n}", "--scale", "{neg}"},
		{"agent", "--prompt={args}"},
		{"agent", "--system-prompt", "{system_prompt}"},
	}
	for _, cmd := range good {
		if _, err := Expand(cmd, vars, input); err != nil {
			t.Errorf("Expand(%q): %v", cmd, err)
		}
	}
}
