package generate

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/llm"
)

// parse loads eval.yaml text written into a temporary folder (so
// prompt_file resolves beside it).
func parse(t *testing.T, src string, files map[string]string) *config.Eval {
	t.Helper()
	dir := t.TempDir()
	for p, body := range files {
		if err := os.WriteFile(filepath.Join(dir, p), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{"eval/dataset", "d"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	p := filepath.Join(dir, "eval.yaml")
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	ev, err := config.Load(p)
	if err != nil {
		t.Fatal(err)
	}
	return ev
}

// Upstream's TestPromptResolution: the five builtins exist, carry the
// sections every builtin has, and a seed resolves inline, then
// prompt_file (relative to eval.yaml), then builtin.
func TestBuiltins(t *testing.T) {
	want := []string{"docs/anti-pattern", "docs/architecture", "docs/authoring", "docs/component-usage", "docs/navigation"}
	var got []string
	for _, b := range Builtins() {
		got = append(got, b.Name)
		if b.Purpose == "" {
			t.Errorf("%s has no **Purpose** line (what list_prompts shows)", b.Name)
		}
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("builtins = %v, want %v", got, want)
	}
	for _, name := range want {
		text, err := BuiltinPrompt(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, section := range []string{"Test Case Structure", "Input Schema", "Generation Instructions", "Example", "Validation Criteria"} {
			if !strings.Contains(text, "## "+section) {
				t.Errorf("%s has no section %q", name, section)
			}
		}
		if !strings.Contains(text, "**Category**: "+strings.TrimPrefix(name, "docs/")) {
			t.Errorf("%s does not name its category", name)
		}
	}
}

func TestSeedPrompt(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "custom.md"), []byte("project prompt body"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		seed     config.GenerationSeed
		want     string // a part of the text
		wantErr  string
		wantFull bool
	}{
		// Deliberate difference: our builtins are our own text, so the
		// title upstream's test looks for ("Navigation Test Template")
		// is ours ("Navigation cases").
		{name: "builtin", seed: config.GenerationSeed{Category: "navigation", Builtin: "docs/navigation"}, want: "# Navigation cases"},
		{name: "builtin by bare name", seed: config.GenerationSeed{Category: "n", Builtin: "navigation"}, want: "# Navigation cases"},
		{name: "inline", seed: config.GenerationSeed{Category: "x", Prompt: "inline text"}, want: "inline text", wantFull: true},
		{name: "prompt_file", seed: config.GenerationSeed{Category: "x", PromptFile: "custom.md"}, want: "project prompt body", wantFull: true},
		{name: "missing prompt_file", seed: config.GenerationSeed{Category: "x", PromptFile: "does-not-exist.md"}, wantErr: "no such file"},
		{name: "builtin in another group", seed: config.GenerationSeed{Category: "x", Builtin: "code/navigation"}, wantErr: `no builtin seed prompt "code/navigation"; the builtins are docs/anti-pattern`},
		{name: "unknown builtin", seed: config.GenerationSeed{Category: "x", Builtin: "docs/nope"}, wantErr: "docs/navigation"},
		{name: "none set", seed: config.GenerationSeed{Category: "x"}, wantErr: "sets none of"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := SeedPrompt(tc.seed, dir)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if (tc.wantFull && got != tc.want) || !strings.Contains(got, tc.want) {
				t.Fatalf("prompt = %q, want %q", got, tc.want)
			}
		})
	}
}

// Upstream's TestJSONExtraction, for a model that answers in text instead
// of calling the tool.
func TestExtractCases(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       int
		first      string // the first case's input.prompt
		wantErr    string
	}{
		{name: "plain JSON", text: `[{"input": {"prompt": "test"}}]`, want: 1, first: "test"},
		{name: "markdown block", text: "Here are the test cases:\n\n```json\n[\n  {\"input\": {\"prompt\": \"test1\"}, \"annotations\": {\"category\": \"navigation\"}},\n  {\"input\": {\"prompt\": \"test2\"}}\n]\n```\n\nThese test cases cover...", want: 2, first: "test1"},
		{name: "block without a language", text: "```\n[{\"input\": {\"prompt\": \"test\"}}]\n```", want: 1, first: "test"},
		{name: "text around brackets", text: `Sure: [{"input": {"prompt": "x"}}] done`, want: 1, first: "x"},
		{name: "the tool's own shape", text: `{"cases": [{"input": {"prompt": "y"}}]}`, want: 1, first: "y"},
		{name: "not JSON", text: "This is not JSON at all", wantErr: "no JSON array of cases"},
		{name: "empty", text: "  ", wantErr: "no text"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := extractCases(tc.text)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != tc.want {
				t.Fatalf("%d cases, want %d", len(got), tc.want)
			}
			c, problem := shapeCase(got[0])
			if problem != "" || c.Input["prompt"] != tc.first {
				t.Fatalf("first case = %+v (%s), want prompt %q", c, problem, tc.first)
			}
		})
	}
}

// Upstream skips a case that is not a mapping, has no input, or whose
// input or annotations are not mappings; so does shapeCase.
func TestShapeCase(t *testing.T) {
	for _, tc := range []struct{ raw, problem string }{
		{`{"input": {"prompt": "p"}, "annotations": {"difficulty": "easy"}}`, ""},
		{`{"input": {"prompt": "p"}}`, ""},
		{`"just text"`, "not an object"},
		{`{"annotations": {}}`, "it has no input"},
		{`{"input": "p"}`, "its input is not a mapping"},
		{`{"input": {}}`, "its input is empty"},
		{`{"input": {"prompt": "p"}, "annotations": ["a"]}`, "its annotations are not a mapping"},
	} {
		_, problem := shapeCase(json.RawMessage(tc.raw))
		if !strings.Contains(problem, tc.problem) || (tc.problem == "") != (problem == "") {
			t.Errorf("shapeCase(%s) = %q, want %q", tc.raw, problem, tc.problem)
		}
	}
}

// fakeModel answers every ForcedTool with the next of its answers and
// records the requests.
type fakeModel struct {
	answers []fakeAnswer
	got     []llm.ToolRequest
}

type fakeAnswer struct {
	input string // the tool call's input ("" for none)
	text  string
	err   error
}

func (m *fakeModel) ForcedTool(_ context.Context, req llm.ToolRequest) (json.RawMessage, string, error) {
	m.got = append(m.got, req)
	a := m.answers[0]
	if len(m.answers) > 1 {
		m.answers = m.answers[1:]
	}
	if a.input == "" {
		return nil, a.text, a.err
	}
	return json.RawMessage(a.input), a.text, a.err
}

const sampleEval = `name: test-eval
description: Checks that agents find the docs.
execution:
  mode: case
  prompt: "{{ input.prompt }}"
dataset:
  path: eval/dataset
  schema: input.yaml with prompt field
generation:
  strategy: synthetic
  context:
    type: test-repo
    documentation_structure:
      entry_point: CLAUDE.md
      areas:
        - path: ai-docs/workflows/
          topics: [process]
  seeds:
    - category: navigation
      builtin: docs/navigation
      count: 2
      description: Finding the right document
outputs:
  - path: output
`

// Upstream's test_generate_synthetic_mocked: two cases of the seed, the
// category stamped, the source recorded, and (asserted here, where
// upstream's test does not) expected_files moved out of input.
// Deliberate difference: ids are <category>-NNN, not case-NNN.
func TestSyntheticMocked(t *testing.T) {
	ev := parse(t, sampleEval, nil)
	m := &fakeModel{answers: []fakeAnswer{{input: `{"cases": [
		{"input": {"prompt": "How do I find process documentation?", "expected_files": ["CLAUDE.md", "ai-docs/workflows/process.md"]},
		 "annotations": {"category": "navigation", "difficulty": "easy"}},
		{"input": {"prompt": "Where are the workflow docs?", "expected_files": ["ai-docs/workflows/process.md"]},
		 "annotations": {"category": "something-else", "difficulty": "easy"}}]}`}}}
	cases, failed, err := synthetic{}.Generate(context.Background(), Request{Eval: ev, Model: "claude-x", SkillDescription: "Answers questions about docs."}, Deps{Model: m})
	if err != nil || len(failed) > 0 {
		t.Fatalf("err %v, failed %v", err, failed)
	}
	if len(cases) != 2 {
		t.Fatalf("%d cases, want 2", len(cases))
	}
	for i, c := range cases {
		if want := []string{"navigation-001", "navigation-002"}[i]; c.ID != want {
			t.Errorf("case %d id = %s, want %s", i, c.ID, want)
		}
		if c.Category != "navigation" || c.Annotations["category"] != "navigation" || c.Source != "docs/navigation" {
			t.Errorf("case %s: category %q / %v, source %q", c.ID, c.Category, c.Annotations["category"], c.Source)
		}
		if _, ok := c.Input["expected_files"]; ok || c.Annotations["expected_files"] == nil {
			t.Errorf("case %s: expected_files not moved to annotations: %+v", c.ID, c)
		}
		if c.Annotations["difficulty"] != "easy" {
			t.Errorf("case %s lost its difficulty", c.ID)
		}
	}
	if !strings.Contains(cases[0].Input["prompt"].(string), "How do I find") {
		t.Errorf("input = %v", cases[0].Input)
	}
	if len(m.got) != 1 {
		t.Fatalf("%d model calls, want 1", len(m.got))
	}
	req := m.got[0]
	for _, want := range []string{`Write 2 eval case(s) of the category "navigation"`, "# Navigation cases", "type: test-repo",
		"entry_point: CLAUDE.md", "Finding the right document", "Checks that agents find the docs.", "input.yaml with prompt field"} {
		if !strings.Contains(req.User, want) {
			t.Errorf("the prompt lacks %q:\n%s", want, req.User)
		}
	}
	if req.Model != "claude-x" || req.Tool != casesTool || req.Schema["required"].([]string)[0] != "cases" {
		t.Errorf("request = %+v", req)
	}
}

// Upstream's test_no_seeds_raises_error, and what else synthetic needs
// before it calls anything.
func TestSyntheticRefuses(t *testing.T) {
	noSeeds := parse(t, "name: e\nexecution: {prompt: p}\ndataset: {path: d}\n", nil)
	withSeeds := parse(t, sampleEval, nil)
	badSecond := parse(t, "name: e\nexecution: {prompt: p}\ndataset: {path: d}\ngeneration:\n  strategy: synthetic\n  seeds:\n    - {category: a, prompt: x, count: 1}\n    - {category: b, builtin: docs/nope, count: 1}\n", nil)
	asked := &fakeModel{answers: []fakeAnswer{{input: `{"cases": []}`}}}
	defer func() {
		if len(asked.got) > 0 {
			t.Errorf("the model was asked %d time(s) before the bad seed was refused", len(asked.got))
		}
	}()
	for _, tc := range []struct {
		name string
		req  Request
		deps Deps
		want string
	}{
		{"no seeds", Request{Eval: noSeeds, Model: "m"}, Deps{Model: &fakeModel{}}, "needs generation.seeds"},
		{"no model named", Request{Eval: withSeeds}, Deps{Model: &fakeModel{}}, "give --model, or set models.judge or $EVAL_JUDGE_MODEL"},
		{"no client", Request{Eval: withSeeds, Model: "m"}, Deps{}, "needs a model client"},
		{"a bad seed after a good one", Request{Eval: badSecond, Model: "m"}, Deps{Model: asked}, "seed b: no builtin seed prompt"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := synthetic{}.Generate(context.Background(), tc.req, tc.deps)
			var missing *ErrMissing
			if !errors.As(err, &missing) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want ErrMissing with %q", err, tc.want)
			}
		})
	}
}

// A seed that fails leaves the others going (as upstream's loop does); a
// case that is not one is left out and reported; --count overrides every
// seed's count; a text answer holding the JSON is read.
func TestSyntheticSeeds(t *testing.T) {
	ev := parse(t, `name: e
execution: {prompt: "{{ input.prompt }}"}
dataset: {path: d}
generation:
  strategy: synthetic
  seeds:
    - {category: Broken Seed, prompt: "fails", count: 1}
    - {category: Adhoc Cases!, prompt_file: seed.md, count: 4}
`, map[string]string{"seed.md": "Write adhoc cases."})
	m := &fakeModel{answers: []fakeAnswer{
		{err: errors.New("overloaded")},
		{text: "```json\n[{\"input\": {\"prompt\": \"a\"}}, {\"input\": \"not a map\"}, {\"input\": {\"prompt\": \"b\", \"topic\": \"t\"}}]\n```"},
	}}
	cases, failed, err := synthetic{}.Generate(context.Background(), Request{Eval: ev, Model: "m", Count: 3}, Deps{Model: m})
	if err != nil {
		t.Fatal(err)
	}
	if len(failed) != 2 || !strings.Contains(failed[0], "seed Broken Seed: overloaded") || !strings.Contains(failed[1], "case 2: its input is not a mapping") {
		t.Errorf("failed = %q", failed)
	}
	if len(cases) != 2 || cases[0].ID != "adhoc-cases-001" || cases[1].ID != "adhoc-cases-002" || cases[1].Annotations["topic"] != "t" || cases[0].Source != "seed.md" {
		t.Errorf("cases = %+v", cases)
	}
	for _, r := range m.got {
		if !strings.Contains(r.User, "Write 3 eval case(s)") {
			t.Errorf("--count 3 did not override the seed's count:\n%s", r.User)
		}
	}
	if !strings.Contains(m.got[1].User, "Write adhoc cases.") || !strings.Contains(m.got[1].User, "no generation.context") {
		t.Errorf("second prompt:\n%s", m.got[1].User)
	}
}

// Upstream's TestGenerationStrategy: the default strategy is skill,
// from-traces needs no seeds, an unknown strategy and seeds without
// synthetic are refused (by the config's validation).
func TestStrategies(t *testing.T) {
	if s, err := Lookup(""); err != nil || s != (skill{}) {
		t.Errorf("Lookup(\"\") = %v, %v; want skill", s, err)
	}
	for _, n := range []string{"skill", "synthetic", "from-traces"} {
		if _, err := Lookup(n); err != nil {
			t.Errorf("Lookup(%s): %v", n, err)
		}
	}
	if _, err := Lookup("bogus"); err == nil || !strings.Contains(err.Error(), "from-traces, skill, synthetic") {
		t.Errorf("Lookup(bogus) = %v", err)
	}
	base := "name: e\nexecution: {prompt: \"{{ input.prompt }}\"}\ndataset: {path: d}\n"
	for _, tc := range []struct{ gen, wantErr string }{
		{"", ""},
		{"generation: {strategy: skill}\n", ""},
		{"generation: {strategy: from-traces}\n", ""},
		{"generation: {strategy: bogus}\n", "generation.strategy"},
		{"generation: {strategy: from-traces, seeds: [{category: n, builtin: docs/navigation, count: 1}]}\n", "seeds only apply to strategy: synthetic"},
		{"generation: {strategy: synthetic}\n", "strategy synthetic needs generation.seeds"},
		{"generation: {strategy: synthetic, seeds: [{category: n, builtin: docs/navigation, prompt: x, count: 1}]}\n", "exactly one of builtin, prompt_file and prompt"},
	} {
		_, err := config.Parse("eval.yaml", []byte(base+tc.gen))
		var es config.Errors
		if errors.As(err, &es) {
			es = slices.DeleteFunc(es, func(e config.Error) bool { return e.Field == "dataset.path" })
			if err = nil; len(es) > 0 {
				err = es
			}
		}
		if (err == nil) != (tc.wantErr == "") || (err != nil && !strings.Contains(err.Error(), tc.wantErr)) {
			t.Errorf("%q: err = %v, want %q", tc.gen, err, tc.wantErr)
		}
	}
}

func TestSlug(t *testing.T) {
	for in, want := range map[string]string{"navigation": "navigation", "Anti Pattern!": "anti-pattern", "---": "case", "a__b": "a-b",
		strings.Repeat("x", 60): strings.Repeat("x", 48)} {
		if got := slug(in); got != want {
			t.Errorf("slug(%q) = %q, want %q", in, got, want)
		}
	}
}
