package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

const minimal = "execution:\n  prompt: hi\n"

func mustParse(t *testing.T, name, src string) *Eval {
	t.Helper()
	ev, err := Parse(name, []byte(src))
	if err != nil {
		t.Fatalf("Parse(%q):\n%v", src, err)
	}
	return ev
}

func TestDefaults(t *testing.T) {
	t.Parallel()
	ev := mustParse(t, "eval.yaml", minimal)
	tests := []struct {
		name      string
		got, want any
	}{
		{"mode", ev.Mode(), "case"},
		{"timeout", ev.Timeout(), 3600 * time.Second},
		{"budget", ev.MaxBudgetUSD(), 100.0},
		{"parallelism", ev.Parallelism(), 1},
		{"hook model", ev.HookModel(), "claude-haiku-4-5-20251001"},
		{"runner", ev.RunnerType(), "claude-code"},
		{"mlflow off", ev.MLflowExperiment(), ""},
		{"traces unset", ev.Traces.Events == nil, true},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s = %v, want %v", tt.name, tt.got, tt.want)
		}
	}
}

func TestExplicitZeroIsKept(t *testing.T) {
	t.Parallel()
	ev := mustParse(t, "eval.yaml", minimal+"  max_budget_usd: 0\n  timeout: 5\nmlflow: {}\nname: demo\ntraces: {events: false}\n")
	if got := ev.MaxBudgetUSD(); got != 0 {
		t.Errorf("MaxBudgetUSD() = %v, want 0", got)
	}
	if got := ev.Timeout(); got != 5*time.Second {
		t.Errorf("Timeout() = %v, want 5s", got)
	}
	if got := ev.MLflowExperiment(); got != "demo" {
		t.Errorf("MLflowExperiment() = %q, want demo", got)
	}
	if ev.Traces.Events == nil || *ev.Traces.Events {
		t.Error("traces.events: false read as enabled")
	}
}

func TestEvalName(t *testing.T) {
	t.Parallel()
	tests := []struct {
		path, src, want string
	}{
		{"eval.yaml", "execution:\n  skill: rfe.create\n", "rfe.create"},
		{"eval.yaml", "name: My Skill Eval!\n" + minimal, "my-skill-eval"},
		{"eval/review/eval.yaml", minimal, "review"},
		{"eval/smoke.yaml", minimal, "smoke"},
		{"eval/smoke.yaml", "name: smoke\n" + minimal, "smoke"},
		{"eval.yaml", minimal, "eval"},
		{"other/thing.yaml", minimal, "eval"},
		{"eval.yaml", "skill: legacy\n", "legacy"},
	}
	for _, tt := range tests {
		ev := mustParse(t, tt.path, tt.src)
		if got := ev.EvalName(); got != tt.want {
			t.Errorf("EvalName(%s, %q) = %q, want %q", tt.path, tt.src, got, tt.want)
		}
	}
}

func TestRunsDir(t *testing.T) {
	t.Parallel()
	ev := mustParse(t, "eval.yaml", "name: demo\n"+minimal)
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	if got, want := ev.RunsDir(getenv), filepath.Join("eval", "runs", "demo"); got != want {
		t.Errorf("RunsDir() = %q, want %q", got, want)
	}
	env[RunsDirEnv] = "/tmp/runs"
	if got, want := ev.RunsDir(getenv), "/tmp/runs/demo"; got != want {
		t.Errorf("RunsDir() with $%s = %q, want %q", RunsDirEnv, got, want)
	}
}

func TestResolveEnv(t *testing.T) {
	t.Parallel()
	ev := mustParse(t, "eval.yaml", minimal+`  env:
    TOKEN: $JIRA_TOKEN
    BRACED: ${JIRA_TOKEN}
    UNSET: $NOT_SET_ANYWHERE
    SERVER: http://localhost:8080
    PORT: 8080
    MIXED: pre-$JIRA_TOKEN
    URL: https://${JIRA_TOKEN}/rest
    HALF: a-${NOT_SET_ANYWHERE}-b
`)
	if got := ev.Execution.Env["TOKEN"]; got != "$JIRA_TOKEN" {
		t.Errorf("loaded env keeps %q, want the raw $JIRA_TOKEN", got)
	}
	lookup := func(k string) (string, bool) {
		if k == "JIRA_TOKEN" {
			return "s3cret", true
		}
		return "", false
	}
	want := map[string]string{"TOKEN": "s3cret", "BRACED": "s3cret", "SERVER": "http://localhost:8080", "PORT": "8080", "MIXED": "pre-s3cret", "URL": "https://s3cret/rest", "HALF": "a--b"}
	if diff := cmp.Diff(want, ResolveEnv(ev.Execution.Env, lookup)); diff != "" {
		t.Errorf("ResolveEnv (-want +got):\n%s", diff)
	}
}

func TestDeprecatedSkill(t *testing.T) {
	t.Parallel()
	ev := mustParse(t, "eval.yaml", "skill: legacy\n")
	if ev.Execution.Skill != "legacy" {
		t.Errorf("execution.skill = %q, want the top-level skill copied in", ev.Execution.Skill)
	}
	if len(ev.Warnings) != 1 || !strings.Contains(ev.Warnings[0].Msg, "deprecated") || ev.Warnings[0].Line != 1 {
		t.Errorf("warnings = %v, want one deprecation warning on line 1", ev.Warnings)
	}
}

func TestPermissionRules(t *testing.T) {
	t.Parallel()
	ev := mustParse(t, "eval.yaml", minimal+`permissions:
  allow: [Skill, {path: artifacts/, tools: [Write]}]
  deny:
    - "mcp__*"
    - path: eval/
      tools: [Read, Bash]
`)
	want := Permissions{
		Allow: []PermissionRule{{Pattern: "Skill", Line: 4, Col: 11}, {Path: "artifacts/", Tools: []string{"Write"}, Line: 4, Col: 18}},
		Deny:  []PermissionRule{{Pattern: "mcp__*", Line: 6, Col: 7}, {Path: "eval/", Tools: []string{"Read", "Bash"}, Line: 7, Col: 7}},
	}
	if diff := cmp.Diff(want, ev.Permissions); diff != "" {
		t.Errorf("permissions (-want +got):\n%s", diff)
	}
	if ev.Permissions.Allow[0].IsPath() || !ev.Permissions.Allow[1].IsPath() {
		t.Error("IsPath() is wrong")
	}
}

func TestMergeKeysAndAnchors(t *testing.T) {
	t.Parallel()
	// Top-level x-* keys are free, so they can hold anchors.
	ev := mustParse(t, "eval.yaml", `x-judge: &base
  feedback_type: bool
  prompt: judge it
judges:
  - {name: a, <<: *base}
  - <<: *base
    name: b
    prompt: overridden
`+minimal)
	want := []Judge{
		{Name: "a", FeedbackType: "bool", Prompt: "judge it"},
		{Name: "b", FeedbackType: "bool", Prompt: "overridden"},
	}
	if diff := cmp.Diff(want, ev.Judges); diff != "" {
		t.Errorf("judges (-want +got):\n%s", diff)
	}
}

func TestErrorsAreCollectedAndSorted(t *testing.T) {
	t.Parallel()
	_, err := Parse("e.yaml", []byte("judges: 3\nexecution:\n  mode: x\n  prompt: 4\nbogus: 1\n"))
	var es Errors
	if !errors.As(err, &es) {
		t.Fatalf("Parse error = %v (%T), want Errors", err, err)
	}
	var got []string
	for _, e := range es {
		got = append(got, e.Error())
	}
	want := []string{
		"e.yaml:1:9: judges: must be a list, got the integer 3",
		`e.yaml:3:9: execution.mode: "x" is not one of: case, batch`,
		"e.yaml:4:11: execution.prompt: must be a string, got the integer 4 (quote it to use it as text)",
		`e.yaml:5:1: bogus: unknown key "bogus"`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}

func TestSyntaxErrorPositions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		src  string
		want string
	}{
		{"execution:\n\tprompt: x\n", "e.yaml:2:1: invalid YAML: a tab character in the indentation; YAML indents with spaces only"},
		{"execution:\n  prompt: x\n  \tmode: case\n", "e.yaml:3:3: invalid YAML: a tab character in the indentation; YAML indents with spaces only"},
		{"judges: [a, b\nname: x\n", "e.yaml:2:1: invalid YAML: did not find expected ',' or ']'"},
		{"name: &a x\ntitle: *b\n", "e.yaml:2:1: invalid YAML: unknown anchor 'b' referenced"},
	}
	for _, tt := range tests {
		_, err := Parse("e.yaml", []byte(tt.src))
		if err == nil || err.Error() != tt.want {
			t.Errorf("Parse(%q) = %v, want %s", tt.src, err, tt.want)
		}
	}
}

func TestAliasBombFailsFast(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i < 9; i++ {
		b.WriteString("a" + string(rune('0'+i)) + ": &a" + string(rune('0'+i)) + " [")
		for j := 0; j < 10; j++ {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString("*a" + string(rune('0'+i-1)))
		}
		b.WriteString("]\n")
	}
	src := "generation:\n  context:\n" + indent(b.String(), "    ") + minimal
	start := time.Now()
	_, err := Parse("bomb.yaml", []byte(src))
	if err == nil {
		t.Fatal("an alias bomb loaded without error")
	}
	if time.Since(start) > 10*time.Second {
		t.Errorf("an alias bomb took %v to reject", time.Since(start))
	}
}

func indent(s, prefix string) string {
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	for i := range lines {
		lines[i] = prefix + lines[i]
	}
	return strings.Join(lines, "\n") + "\n"
}

func TestCaseIDs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, c := range []string{"b", "a", ".hidden"} {
		if err := os.MkdirAll(filepath.Join(dir, "cases", c), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "cases", "README.md"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "eval.yaml")
	if err := os.WriteFile(path, []byte(minimal+"dataset:\n  path: cases\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ev, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	ids, err := ev.CaseIDs()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"a", "b"}, ids); diff != "" {
		t.Errorf("CaseIDs (-want +got):\n%s", diff)
	}
}

func TestSuggest(t *testing.T) {
	t.Parallel()
	tests := []struct {
		word string
		want string
	}{
		{"promt", "prompt"},
		{"excution", "execution"},
		{"Judges", "judges"},
		{"max-budget-usd", "max_budget_usd"},
		{"zzz", ""},
		{"exectuion", "execution"},
	}
	keys := []string{"prompt", "execution", "judges", "max_budget_usd", "mode"}
	for _, tt := range tests {
		if got := suggest(tt.word, keys); got != tt.want {
			t.Errorf("suggest(%q) = %q, want %q", tt.word, got, tt.want)
		}
	}
}
