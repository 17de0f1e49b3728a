package config

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSplitCommand(t *testing.T) {
	t.Parallel()
	tests := []struct {
		line    string
		want    []string
		wantErr string
	}{
		{"bash {config_dir}/solve.sh {workspace} {output_dir}", []string{"bash", "{config_dir}/solve.sh", "{workspace}", "{output_dir}"}, ""},
		{`agent --msg "hello world" 'it''s' a\ b`, []string{"agent", "--msg", "hello world", "its", "a b"}, ""},
		{`agent "{args}" # a comment`, []string{"agent", "{args}"}, ""},
		{"agent \\\n  --flag {model}", []string{"agent", "--flag", "{model}"}, ""},
		{`agent "a \"q\" \$x \n"`, []string{"agent", `a "q" $x \n`}, ""},
		{"agent\n--flag", nil, "more than one command"},
		{"agent *.go ~", []string{"agent", "*.go", "~"}, ""},
		{"agent $HOME", nil, "uses $HOME"},
		{"agent $(id)", nil, "command substitution"},
		{`agent $'a\tb'`, nil, "quoting"},
		{"agent; rm -rf ~", nil, "more than one command"},
		{"agent | tee log", nil, "not a simple command"},
		{"agent > log", nil, "shell operator"},
		{"X=1 agent", nil, "runner.env"},
		{`agent "unclosed`, nil, "does not parse"},
		{"   # only a comment", nil, "no command"},
	}
	for _, tt := range tests {
		got, err := SplitCommand(tt.line)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("SplitCommand(%q) error = %v, want one containing %q", tt.line, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("SplitCommand(%q): %v", tt.line, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("SplitCommand(%q) (-want +got):\n%s", tt.line, diff)
		}
	}
}

func TestParseArg(t *testing.T) {
	t.Parallel()
	tests := []struct {
		arg     string
		want    []Piece
		wantErr string
	}{
		{"{workspace}", []Piece{{Placeholder: "workspace"}}, ""},
		{"{config_dir}/mcp-{context}.json", []Piece{{Placeholder: "config_dir"}, {Text: "/mcp-"}, {Placeholder: "context"}, {Text: ".json"}}, ""},
		{"{{workspace}}", []Piece{{Text: "{workspace}"}}, ""},
		{`exec "$EVAL_PROJECT_ROOT/x.sh" "${@}" ${HOME}`, []Piece{{Text: `exec "$EVAL_PROJECT_ROOT/x.sh" "${@}" ${HOME}`}}, ""},
		{"find . -exec rm {} ;", []Piece{{Text: "find . -exec rm {} ;"}}, ""},
		{"f() { echo hi; }; echo {a,b}", []Piece{{Text: "f() { echo hi; }; echo {a,b}"}}, ""},
		{"unclosed {brace", []Piece{{Text: "unclosed {brace"}}, ""},
		{"--dir={output-dir}", nil, "did you mean {output_dir}?"},
		{"{1}", nil, "not a placeholder"},
		{"{a.b}", nil, "not a placeholder"},
	}
	for _, tt := range tests {
		got, err := ParseArg(tt.arg)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ParseArg(%q) error = %v, want one containing %q", tt.arg, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseArg(%q): %v", tt.arg, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("ParseArg(%q) (-want +got):\n%s", tt.arg, diff)
		}
	}
}

func TestCheckPlaceholders(t *testing.T) {
	t.Parallel()
	cmd := StringList{"agent", "{workspace}", "--ctx={context}", "{args}", "{context}"}
	if got := Placeholders(cmd); !cmp.Equal(got, []string{"workspace", "context", "args"}) {
		t.Errorf("Placeholders = %v", got)
	}
	if err := CheckPlaceholders(cmd, map[string]any{"context": "none"}); err != nil {
		t.Errorf("CheckPlaceholders with the field: %v", err)
	}
	err := CheckPlaceholders(cmd, map[string]any{"prompt": "x"})
	if err == nil || !strings.Contains(err.Error(), "{context}") {
		t.Errorf("CheckPlaceholders without the field = %v, want it to name {context}", err)
	}
	err = CheckPlaceholders(StringList{"{workspce}"}, nil)
	if err == nil || !strings.Contains(err.Error(), "did you mean {workspace}?") {
		t.Errorf("CheckPlaceholders(typo) = %v, want a suggestion", err)
	}
}

func TestCommandLoad(t *testing.T) {
	t.Parallel()
	ev := mustParse(t, "eval.yaml", "runner:\n  type: cli\n  command: agent --in \"{workspace}/a b\" {args}\n")
	if want := (StringList{"agent", "--in", "{workspace}/a b", "{args}"}); !cmp.Equal(ev.Runner.Command, want) {
		t.Errorf("string command loaded as %q, want %q", ev.Runner.Command, want)
	}
	ev = mustParse(t, "eval.yaml", "runner:\n  type: cli\n  command: [\"agent --one-arg\", \"{args}\"]\n")
	if want := (StringList{"agent --one-arg", "{args}"}); !cmp.Equal(ev.Runner.Command, want) {
		t.Errorf("list command loaded as %q, want %q (list items are never split)", ev.Runner.Command, want)
	}
	for _, tt := range []struct{ src, want string }{
		{"runner:\n  type: cli\n  command: agent {output-dir}\n", "eval.yaml:3:12: runner.command"},
		{"runner:\n  type: cli\n  command:\n    - agent\n    - \"{work.space}\"\n", "eval.yaml:5:7: runner.command[1]"},
		{"runner:\n  type: cli\n  command: agent | tee x\n", "eval.yaml:3:12: runner.command"},
	} {
		_, err := Parse("eval.yaml", []byte(tt.src))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Parse(%q) = %v, want an error at %s", tt.src, err, tt.want)
		}
	}
}

func TestCLIRunnerEnforcement(t *testing.T) {
	t.Parallel()
	const base = "execution:\n  prompt: hi\nrunner:\n  type: cli\n  command: agent\n"
	tools := "inputs:\n  tools:\n    - match: Bash\n      prompt: answer\n"
	perms := "permissions:\n  deny: [\"Bash(rm *)\"]\n"
	if _, err := Parse("eval.yaml", []byte(base+tools)); err == nil || !strings.Contains(err.Error(), "cannot intercept") {
		t.Errorf("cli + inputs.tools = %v, want an error", err)
	}
	ev := mustParse(t, "eval.yaml", base+perms)
	if w := ev.Warnings.Error(); !strings.Contains(w, "does not enforce permissions.deny") {
		t.Errorf("cli + permissions warnings = %q, want one saying deny is not enforced", w)
	}
	ev = mustParse(t, "eval.yaml", base+"  agent: claude-code\n"+tools+perms)
	if w := ev.Warnings; len(w) != 0 {
		t.Errorf("cli with agent: claude-code warns %v, want nothing", w)
	}
}

func TestScriptPlaceholders(t *testing.T) {
	t.Parallel()
	tests := []struct {
		cmd  StringList
		want []string
	}{
		{StringList{"bash", "-c", "run.sh {args} {workspace} {city}"}, []string{"{args}", "{city}"}},
		{StringList{"/bin/sh", "-ec", "echo {model}"}, []string{"{model}"}},
		{StringList{"bash", "-c", `exec run.sh "$@"`, "--", "{args}"}, nil},
		{StringList{"bash", "{config_dir}/solve.sh", "{args}"}, nil},
		{StringList{"python3", "-c", "print('{args}')"}, nil},
		{StringList{"bash", "--norc", "-c", "{args}"}, []string{"{args}"}},
		{StringList{"bash", "-e", "--", "-c", "{args}"}, nil},
		{StringList{"fish", "-c", "echo {args}"}, []string{"{args}"}}, // the hook's list of shells, not a shorter one
		{StringList{"/usr/bin/tcsh", "-c", "echo {city}"}, []string{"{city}"}},
	}
	for _, tt := range tests {
		if got := ScriptPlaceholders(tt.cmd); !cmp.Equal(got, tt.want) {
			t.Errorf("ScriptPlaceholders(%q) = %v, want %v", tt.cmd, got, tt.want)
		}
	}
	ev := mustParse(t, "eval.yaml", "execution: {prompt: hi}\nrunner:\n  type: cli\n  command: [bash, -c, \"agent {args}\"]\n")
	if w := ev.Warnings.Error(); !strings.Contains(w, "runner.command: warning: {args} inside a shell's -c script become shell code") {
		t.Errorf("warnings = %q", w)
	}
}

// Upstream's two cli evals: anova-example's folded string splits into
// arguments, its {context} is an input field (a matrix factor);
// opencode-smoke's list passes its placeholders after the bash -c script,
// which does not warn.
func TestUpstreamCLICommands(t *testing.T) {
	t.Parallel()
	ev, err := Load("testdata/upstream/eval/anova-example/eval.yaml")
	if err != nil {
		t.Fatal(err)
	}
	want := StringList{"bash", "{config_dir}/solve.sh", "{workspace}", "{output_dir}", "{model}", "{config_dir}/mcp-{context}.json"}
	if diff := cmp.Diff(want, ev.Runner.Command); diff != "" {
		t.Errorf("anova command (-want +got):\n%s", diff)
	}
	if got := InputPlaceholders(ev.Runner.Command); !cmp.Equal(got, []string{"context"}) {
		t.Errorf("anova input placeholders = %v", got)
	}
	ev, err = Load("testdata/upstream/eval/opencode-smoke/eval.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if got := Placeholders(ev.Runner.Command); !cmp.Equal(got, []string{"args", "workspace", "output_dir", "model"}) {
		t.Errorf("opencode-smoke placeholders = %v", got)
	}
	if strings.Contains(ev.Warnings.Error(), "shell code") {
		t.Errorf("opencode-smoke warns: %v", ev.Warnings)
	}
}

// Only plain decimal numbers are values where an option could stand:
// whatever a language's float parser accepts beyond that (-inf, -NaN, hex
// floats, exponents, underscores) is an option to getopt.
func TestPlainNumber(t *testing.T) {
	t.Parallel()
	tests := []struct {
		s    string
		want bool
	}{
		{"-5", true}, {"5", true}, {"-2.5", true}, {"0", true}, {"-0.25", true}, {"-007", true},
		{"-inf", false}, {"-Inf", false}, {"-Infinity", false}, {"-NaN", false}, {"-nan", false},
		{"-0x1p-2", false}, {"-0x10", false}, {"-1e5", false}, {"-1E5", false}, {"-1e+300", false},
		{"-1_000", false}, {"-.5", false}, {"-5.", false}, {"-", false}, {"", false}, {"--5", false},
		{"-5 -x", false}, {"-5\n", false}, {"+5", false}, {"-٣", false},
	}
	for _, tt := range tests {
		if got := PlainNumber(tt.s); got != tt.want {
			t.Errorf("PlainNumber(%q) = %v, want %v", tt.s, got, tt.want)
		}
	}
}

// CaseOption looks at the whole argument a case's text begins, not only
// one a placeholder fills.
func TestCaseOption(t *testing.T) {
	t.Parallel()
	vals := map[string]string{"args": "--yolo", "q": "-x", "n": "-5", "empty": "", "workspace": "/ws", "system_prompt": "-be"}
	value := func(n string) string { return vals[n] }
	fromCase := func(n string) bool { return n != "workspace" && n != "system_prompt" }
	tests := []struct {
		arg, name, expanded string
	}{
		{"{args}", "args", "--yolo"},
		{"{args} please", "args", "--yolo please"},
		{"{empty}{q}", "q", "-x"},
		{"{n}", "", ""},
		{"{n}px", "n", "-5px"},
		{"{n}.5", "", ""},
		{"--prompt={args}", "", ""},
		{"say {args}", "", ""},
		{"{workspace}{args}", "", ""},
		{"{system_prompt}", "", ""},
		{"{empty}", "", ""},
	}
	for _, tt := range tests {
		pieces, err := ParseArg(tt.arg)
		if err != nil {
			t.Fatal(err)
		}
		name, expanded := CaseOption(pieces, value, fromCase)
		if name != tt.name || expanded != tt.expanded {
			t.Errorf("CaseOption(%q) = %q, %q; want %q, %q", tt.arg, name, expanded, tt.name, tt.expanded)
		}
	}
}
