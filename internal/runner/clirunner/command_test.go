package clirunner

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/testutil"
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
	res := Run(testutil.Context(t, time.Minute), Spec{Argv: argv, Dir: dir, Env: Env(nil, map[string]string{"PATH": "/usr/bin:/bin"}), Stdout: &out})
	if res.ExitCode != 0 || res.Err != nil {
		t.Fatalf("Run = exit %d, %v", res.ExitCode, res.Err)
	}
	if want := "1\n" + evil + "\n"; out.String() != want {
		t.Errorf("the agent got %q, want %q (one argument, verbatim)", out.String(), want)
	}
}

// A case's text that begins an argument and makes it begin with "-" would
// be read by the program as an option (`claude -p {args}` with the prompt
// "--permission-mode=bypassPermissions", or `"{args} please"`): it is an
// error unless a "--" ends the options before it. Only a plain decimal
// number (`--offset {n}`, -5, -2.5) is a value: -inf, -Infinity, -NaN,
// -0x1p-2 and -1e5 parse as floats but reach the program as options (-inf
// is -i nf to getopt).
func TestExpandOptionInjection(t *testing.T) {
	t.Parallel()
	vars := Vars{Args: "--dangerously-skip-permissions", SystemPrompt: "-be brief", Workspace: "/ws"}
	tests := []struct {
		name  string
		cmd   config.StringList
		input map[string]any
		ok    bool
	}{
		{"args fills the argument", config.StringList{"claude", "-p", "{args}"}, nil, false},
		{"an input field", config.StringList{"agent", "{q}"}, map[string]any{"q": "--permission-mode=bypassPermissions"}, false},
		{"a sub-command's operand", config.StringList{"opencode", "run", "{q}"}, map[string]any{"q": "--x"}, false},
		{"the script of sh -c", config.StringList{"sh", "-c", "{q}"}, map[string]any{"q": "-x"}, false},
		{"sh's first operand", config.StringList{"sh", "{q}"}, map[string]any{"q": "-x"}, false},
		{"args begins the argument", config.StringList{"claude", "-p", "{args} please"}, nil, false},
		{"an input field begins it", config.StringList{"agent", "{q}.txt"}, map[string]any{"q": "--output=/etc/x"}, false},
		{"an empty built-in before it", config.StringList{"agent", "{max_budget_usd}{q}"}, map[string]any{"q": "--yolo"}, false},
		{"an empty field before it", config.StringList{"agent", "{e}{q} now"}, map[string]any{"e": "", "q": "--yolo"}, false},
		{"a number then text", config.StringList{"agent", "{n}px"}, map[string]any{"n": -5}, false},
		{"-inf", config.StringList{"agent", "{q}"}, map[string]any{"q": "-inf"}, false},
		{"-Inf", config.StringList{"agent", "{q}"}, map[string]any{"q": "-Inf"}, false},
		{"-Infinity", config.StringList{"agent", "{q}"}, map[string]any{"q": "-Infinity"}, false},
		{"-infinity", config.StringList{"agent", "{q}"}, map[string]any{"q": "-infinity"}, false},
		{"-NaN", config.StringList{"agent", "{q}"}, map[string]any{"q": "-NaN"}, false},
		{"-nan", config.StringList{"agent", "{q}"}, map[string]any{"q": "-nan"}, false},
		{"hex float", config.StringList{"agent", "{q}"}, map[string]any{"q": "-0x1p-2"}, false},
		{"hex", config.StringList{"agent", "{q}"}, map[string]any{"q": "-0x10"}, false},
		{"exponent", config.StringList{"agent", "{q}"}, map[string]any{"q": "-1e5"}, false},
		{"underscores", config.StringList{"agent", "{q}"}, map[string]any{"q": "-1_000"}, false},
		{"no digit before the point", config.StringList{"agent", "{q}"}, map[string]any{"q": "-.5"}, false},
		{"no digit after the point", config.StringList{"agent", "{q}"}, map[string]any{"q": "-5."}, false},
		{"a float value", config.StringList{"agent", "{q}"}, map[string]any{"q": -1e300}, false},
		{"a lone dash", config.StringList{"agent", "{q}"}, map[string]any{"q": "-"}, false},
		{"a number then a space and an option", config.StringList{"agent", "{q}"}, map[string]any{"q": "-5 --yolo"}, false},

		{"after --", config.StringList{"claude", "-p", "--", "{args}"}, nil, true},
		{"after --, text follows", config.StringList{"claude", "-p", "--", "{args} please"}, nil, true},
		// A shell hands what follows its script to the script ("--" is
		// its $0): the script decides whether $1 is an option.
		{"bash -c's $1 as an option", config.StringList{"bash", "-c", `agent "$1"`, "--", "{q}"}, map[string]any{"q": "--x"}, false},
		{"sh -c's $1 after $0", config.StringList{"sh", "-c", `agent "$1"`, "agent", "{q}"}, map[string]any{"q": "--x"}, false},
		{"sh -c's $@", config.StringList{"sh", "-c", `exec agent -p "$@"`, "sh", "{q}"}, map[string]any{"q": "--x"}, false},
		{"$1 through a variable", config.StringList{"sh", "-c", `x=$1; agent -- "$x"`, "sh", "{q}"}, map[string]any{"q": "--x"}, false},
		{"$1 after -- of another command", config.StringList{"sh", "-c", `echo -- ok; agent "$1"`, "sh", "{q}"}, map[string]any{"q": "--x"}, false},
		{"${1} as the program", config.StringList{"sh", "-c", `${1:-agent} -- x`, "sh", "{q}"}, map[string]any{"q": "--x"}, false},
		{"a script file's $1", config.StringList{"bash", "run.sh", "{q}"}, map[string]any{"q": "--x"}, false},
		{"a script file after --", config.StringList{"bash", "--", "run.sh", "{q}"}, map[string]any{"q": "--x"}, false},
		{"a script that does not parse", config.StringList{"sh", "-c", `agent -- "$1`, "sh", "{q}"}, map[string]any{"q": "--x"}, false},
		{"bash -c's $1 after its --", config.StringList{"bash", "-c", `agent -p -- "$1"`, "--", "{q}"}, map[string]any{"q": "--x"}, true},
		{"sh -c's $@ after its --", config.StringList{"sh", "-c", `exec agent -- "$@"`, "sh", "{q}"}, map[string]any{"q": "--x"}, true},
		{"sh -c's $1 in the script's own option", config.StringList{"sh", "-c", `agent --prompt="$1"`, "sh", "{q}"}, map[string]any{"q": "--x"}, true},
		{"negative integer", config.StringList{"agent", "--offset", "{n}"}, map[string]any{"n": -5}, true},
		{"negative decimal text", config.StringList{"agent", "--scale", "{q}"}, map[string]any{"q": "-2.5"}, true},
		{"negative decimal value", config.StringList{"agent", "--scale", "{f}"}, map[string]any{"f": -2.5}, true},
		{"the eval's own option prefix", config.StringList{"agent", "--prompt={args}"}, nil, true},
		{"the eval's own text first", config.StringList{"agent", "say {args}"}, nil, true},
		{"a built-in that is not case text", config.StringList{"agent", "--system-prompt", "{system_prompt}"}, nil, true},
		{"a built-in begins the argument", config.StringList{"agent", "{workspace}{q}"}, map[string]any{"q": "--x"}, true},
		{"text not beginning with a dash", config.StringList{"agent", "{q} --x"}, map[string]any{"q": "fix it"}, true},
		{"a leading space", config.StringList{"agent", "{q}"}, map[string]any{"q": " --x"}, true},
	}
	for _, tt := range tests {
		got, err := Expand(tt.cmd, vars, tt.input)
		switch {
		case tt.ok && err != nil:
			t.Errorf("%s: Expand(%q): %v", tt.name, tt.cmd, err)
		case !tt.ok && (err == nil || !strings.Contains(err.Error(), `"--"`)):
			t.Errorf("%s: Expand(%q) = %q, %v; want an error saying to put \"--\" before it", tt.name, tt.cmd, got, err)
		case !tt.ok && !errors.As(err, new(*OptionError)):
			t.Errorf("%s: Expand(%q): %v is no *OptionError (the runner could not tell it is the case's)", tt.name, tt.cmd, err)
		}
	}
}
