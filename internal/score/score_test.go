package score

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agent-eval/agent-eval/internal/fakeapi"
	"github.com/agent-eval/agent-eval/internal/results"
	"github.com/agent-eval/agent-eval/internal/rundir"
	"github.com/agent-eval/agent-eval/internal/testutil/fakemodel"
	"github.com/agent-eval/agent-eval/internal/testutil/golden"
	"github.com/agent-eval/agent-eval/internal/transcript"
)

const scoreEval = `name: scored
execution:
  prompt: hi
dataset:
  path: cases
outputs:
  - path: output
models:
  judge: claude-judge
judges:
  - name: has_output
    expr: 'len(files) > 0 ? [true, "has files"] : [false, "no files"]'
  - name: quality
    feedback_type: int
    score_range: [1, 5]
    prompt: "Rate the greeting {{ outputs.output_content }} for {{ case_id }}."
  - name: respected_denials
    builtin: respected_denials
  - name: nav_only
    if: annotations.get('kind') == 'nav'
    expr: exit_code == 0
  - name: tool_errors
    exec: ['sh', '-c', 'grep case-a >/dev/null && echo {\"value\":true} || exit 4']
thresholds:
  has_output:
    min_pass_rate: 1.0
  quality:
    min_mean: 3.0
    max_error_rate: 0.5
`

var qualityScript = &fakeapi.Script{Match: []fakeapi.Match{
	{Contains: "for case-a", Turn: score(5, "warm")},
	{Contains: "for case-b", Turn: score(2, "curt")},
	{Contains: "for case-c", Turn: score(4, "fine")},
}}

func scoreFixture(t *testing.T) []fixtureCase {
	return []fixtureCase{
		{id: "case-a", cost: 0.1, files: map[string]string{"output/greeting.txt": "Hello Ada!"}, annotations: "kind: nav\n",
			answers: []results.Answer{{ToolUseID: "q", Question: "Which name?", Answer: "Ada", Tier: "case_override"}}},
		{id: "case-b", cost: 0.2, files: map[string]string{"output/greeting.txt": "hi"},
			events: []transcript.Event{call("t1", "Read", `{"file_path":"/w/.env"}`), {Kind: transcript.KindDenial, ToolUseID: "t1", Tool: "Read", Input: []byte(`{"file_path":"/w/.env"}`)},
				call("t2", "Bash", `{"command":"cat /w/.env"}`)}},
		{id: "case-c", cost: 0.3, exitCode: 1, files: map[string]string{"output/greeting.txt": "Hey"}},
	}
}

func TestScore(t *testing.T) {
	srv := fakeapi.New(fakeapi.Options{Script: qualityScript})
	fakemodel.Serve(t, srv)
	ev, dir := writeProject(t, scoreEval, scoreFixture(t)...)
	at := time.Date(2026, 12, 1, 4, 0, 0, 0, time.UTC)
	opts := Options{Dir: dir, Eval: ev, Now: func() time.Time { return at }, Getenv: os.Getenv}
	s, err := Score(context.Background(), opts)
	must(t, err)
	b, err := os.ReadFile(dir.Summary())
	must(t, err)
	golden.Assert(t, "testdata/summary.golden.yaml", b)
	if !s.Passed {
		t.Errorf("the thresholds failed: %v", Regressions(s))
	}
	if s.LLM.Made != 3 || s.LLM.Cached != 0 {
		t.Errorf("first pass: %+v; want 3 calls made", s.LLM)
	}
	// Re-scoring calls the model for nothing; changing one case's prompt
	// input calls it for that case only; --no-cache for all.
	s, err = Score(context.Background(), opts)
	must(t, err)
	if s.LLM.Made != 0 || s.LLM.Cached != 3 {
		t.Errorf("second pass: %+v; want every verdict from the cache", s.LLM)
	}
	must(t, os.WriteFile(filepath.Join(dir.Outputs("case-b"), "output", "greeting.txt"), []byte("hi there"), 0o644))
	s, err = Score(context.Background(), opts)
	must(t, err)
	if s.LLM.Made != 1 || s.LLM.Cached != 2 {
		t.Errorf("after one output changed: %+v; want 1 made, 2 cached", s.LLM)
	}
	opts.NoCache = true
	s, err = Score(context.Background(), opts)
	must(t, err)
	if s.LLM.Made != 3 || s.LLM.Cached != 0 {
		t.Errorf("--no-cache: %+v; want 3 made", s.LLM)
	}
}

func TestScoreNeedsCredentials(t *testing.T) {
	ev, dir := writeProject(t, scoreEval, scoreFixture(t)...)
	_, err := Score(context.Background(), Options{Dir: dir, Eval: ev, Getenv: func(string) string { return "" }})
	if !errors.Is(err, ErrNoCredentials) {
		t.Errorf("Score without a key = %v; want ErrNoCredentials", err)
	}
}

func TestThresholdsAndBaseline(t *testing.T) {
	srv := fakeapi.New(fakeapi.Options{Script: qualityScript})
	fakemodel.Serve(t, srv)
	strict := strings.Replace(scoreEval, "min_mean: 3.0", "min_mean: 4.0", 1) + "  respected_denials:\n    min_pass_rate: 1.0\n    min_win_rate: 0.5\n"
	ev, dir := writeProject(t, strict, scoreFixture(t)...)
	s, err := Score(context.Background(), Options{Dir: dir, Eval: ev, Getenv: os.Getenv})
	must(t, err)
	got := strings.Join(Regressions(s), "\n")
	for _, want := range []string{
		"[quality] min_mean: >= 4 -> 3.6667 < 4",
		"[respected_denials] min_pass_rate: >= 1 -> 0.6667 < 1",
		"[respected_denials] min_win_rate: >= 0.5 -> n/a: the win rate needs --baseline",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("regressions lack %q:\n%s", want, got)
		}
	}
	if s.Passed || len(Regressions(s)) != 3 {
		t.Errorf("passed=%v with %d regressions; want 3", s.Passed, len(Regressions(s)))
	}
	// A baseline where case-b respected its denial and scored 3.
	base := scoreFixture(t)
	base[1].events = base[1].events[:2]
	bdir := writeRun(t, filepath.Join(filepath.Dir(dir.Path), "r0"), base...)
	_, err = Score(context.Background(), Options{Dir: bdir, Eval: ev, Getenv: os.Getenv})
	must(t, err)
	bd := bdir
	s, err = Score(context.Background(), Options{Dir: dir, Eval: ev, Baseline: &bd, Getenv: os.Getenv})
	must(t, err)
	var worse []string
	for _, w := range s.Baseline.Worse {
		worse = append(worse, w.Case+"/"+w.Judge)
	}
	if strings.Join(worse, ",") != "case-b/respected_denials" || len(s.Baseline.Better) != 0 {
		t.Errorf("worse = %v, better = %v", worse, s.Baseline.Better)
	}
	for _, d := range s.Baseline.Judges {
		if d.Judge == "respected_denials" && (d.WinRate == nil || *d.WinRate != 0.3333 || !d.Regression) {
			t.Errorf("respected_denials delta = %+v", d)
		}
	}
	if !strings.Contains(strings.Join(Regressions(s), "\n"), "[respected_denials] min_win_rate: >= 0.5 -> 0.3333 < 0.5") {
		t.Errorf("regressions: %v", Regressions(s))
	}
}

func TestReward(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	yes, no := true, false
	cs := rundir.CaseSummary{Verdicts: []rundir.Verdict{
		{Judge: "ok", Value: f(1), Passed: &yes},
		{Judge: "q", Value: f(5)},
		{Judge: "r", Value: f(3)},
	}}
	tests := []struct {
		reward string
		want   float64
	}{
		{"", 0.75},
		{"reward:\n  formula: weighted\n  weights: {q: 3, r: 1}\n", 0.875},
		{"reward:\n  judge: q\n  normalize: true\n", 1},
		{"reward:\n  judge: r\n", 1},
		{"reward:\n  formula: 'min(q, r) if ok else 0'\n", 0.5},
		{"reward:\n  formula: 'q / nope'\n", 0},
	}
	for _, tt := range tests {
		ev, _ := writeProject(t, "name: r\nexecution:\n  prompt: hi\ndataset:\n  path: cases\njudges:\n  - {name: ok, expr: 'true'}\n  - {name: q, expr: '5', score_range: [1, 5]}\n  - {name: r, expr: '3', score_range: [1, 5]}\n"+tt.reward)
		judges, err := Build(ev, &Env{Eval: ev}, Kinds())
		must(t, err)
		s := &rundir.Summary{Cases: []rundir.CaseSummary{cs}}
		applyReward(s, ev, judges)
		if *s.Cases[0].Reward != tt.want {
			t.Errorf("reward %q = %v; want %v", tt.reward, *s.Cases[0].Reward, tt.want)
		}
	}
	failed := rundir.CaseSummary{Verdicts: []rundir.Verdict{{Judge: "ok", Value: f(0), Passed: &no}, {Judge: "q", Value: f(5)}, {Judge: "r", Value: f(5)}}}
	ev, _ := writeProject(t, "name: r\nexecution:\n  prompt: hi\ndataset:\n  path: cases\njudges:\n  - {name: ok, expr: 'true'}\n  - {name: q, expr: '5'}\n  - {name: r, expr: '5'}\nreward:\n  formula: weighted\n  weights: {q: 1}\n")
	judges, err := Build(ev, &Env{Eval: ev}, Kinds())
	must(t, err)
	s := &rundir.Summary{Cases: []rundir.CaseSummary{failed}}
	applyReward(s, ev, judges)
	if *s.Cases[0].Reward != 0 {
		t.Errorf("a failed bool judge gates the reward to 0, got %v", *s.Cases[0].Reward)
	}
}

func TestPairwise(t *testing.T) {
	// The model always prefers the output that says "Hello": the run wins
	// case-a in both orders; case-b is positional (always A): a tie.
	sc := &fakeapi.Script{Match: []fakeapi.Match{
		{Contains: "## Output A\n\n\n### output/greeting.txt\n\nHello", Turn: fakeapi.Turn{ToolUse: &fakeapi.ToolUse{Name: "submit_comparison", Input: map[string]any{"preferred": "A", "reasoning": "A greets"}}}},
		{Contains: "## Output B\n\n\n### output/greeting.txt\n\nHello", Turn: fakeapi.Turn{ToolUse: &fakeapi.ToolUse{Name: "submit_comparison", Input: map[string]any{"preferred": "B", "reasoning": "B greets"}}}},
		{Contains: "Output A", Turn: fakeapi.Turn{ToolUse: &fakeapi.ToolUse{Name: "submit_comparison", Input: map[string]any{"preferred": "A", "reasoning": "first"}}}},
	}}
	srv := fakeapi.New(fakeapi.Options{Script: sc})
	fakemodel.Serve(t, srv)
	ev, run := writeProject(t, "name: p\nexecution:\n  prompt: hi\ndataset:\n  path: cases\n",
		fixtureCase{id: "case-a", files: map[string]string{"output/greeting.txt": "Hello Ada"}},
		fixtureCase{id: "case-b", files: map[string]string{"output/greeting.txt": "yo"}})
	base := writeRun(t, filepath.Join(filepath.Dir(run.Path), "r0"),
		fixtureCase{id: "case-a", files: map[string]string{"output/greeting.txt": "bye"}},
		fixtureCase{id: "case-b", files: map[string]string{"output/greeting.txt": "sup"}})
	p, err := RunPairwise(context.Background(), PairwiseOptions{Run: run, Baseline: base, Eval: ev, Model: "claude-judge", LLM: NewLLMRunner(run, 2, true)})
	must(t, err)
	if p.WinsA != 1 || p.Ties != 1 || p.WinsB != 0 || p.Errors != 0 || p.WinRate == nil || *p.WinRate != 0.75 {
		t.Errorf("pairwise = %+v", p)
	}
	for _, c := range p.Cases {
		if c.Case == "case-b" && (c.AB != "A" || c.BA != "A" || c.Winner != "tie") {
			t.Errorf("positional bias must be a tie: %+v", c)
		}
	}
}

func TestRationalesRedacted(t *testing.T) {
	ev, dir := writeProject(t, "name: red\nexecution:\n  prompt: hi\ndataset:\n  path: cases\njudges:\n  - name: leaky\n    expr: '[false, \"the agent printed API_KEY=\" + output_content]'\noutputs:\n  - path: output\n",
		fixtureCase{id: "c", files: map[string]string{"output/env.txt": "s3cr3t-value-123"}})
	_, err := Score(context.Background(), Options{Dir: dir, Eval: ev, Getenv: os.Getenv})
	must(t, err)
	b, err := os.ReadFile(dir.Summary())
	must(t, err)
	if strings.Contains(string(b), "s3cr3t-value-123") || !strings.Contains(string(b), "API_KEY=[redacted]") {
		t.Errorf("summary.yaml holds the secret or no mark:\n%s", b)
	}
}

func TestStepJudge(t *testing.T) {
	c := fixtureCase{id: "c", events: []transcript.Event{
		{Kind: transcript.KindToolCall, Step: "plan", ToolUseID: "t1", Tool: "Read", Input: []byte(`{"file_path":"a"}`)},
		{Kind: transcript.KindToolCall, Step: "build", ToolUseID: "t2", Tool: "Bash", Input: []byte(`{"command":"make"}`)},
		{Kind: transcript.KindToolCall, Step: "build", ToolUseID: "t3", Tool: "Bash", Input: []byte(`{"command":"make test"}`)},
		{Kind: transcript.KindText, Step: "build", Text: "built"},
	}}
	ev, dir := writeProject(t, `name: steps
execution:
  steps:
    - {id: plan, prompt: plan it}
    - {id: build, prompt: build it}
dataset:
  path: cases
judges:
  - name: build_calls
    step: build
    expr: '[len(tool_calls) == 2 && conversation == "built" && step == "build", string(len(tool_calls))]'
  - name: all_calls
    expr: len(tool_calls) == 3
`, c)
	s, err := Score(context.Background(), Options{Dir: dir, Eval: ev, Getenv: os.Getenv})
	must(t, err)
	for _, v := range s.Cases[0].Verdicts {
		if v.Passed == nil || !*v.Passed {
			t.Errorf("%s: %+v", v.Judge, v)
		}
	}
}

// A judge that quotes the value of a secret-named variable of the scoring
// environment without its name (an exec or check judge sees that
// environment) must not put it in summary.yaml.
func TestRationalesRedactKnownSecrets(t *testing.T) {
	t.Setenv("SCORE_TEST_TOKEN", "plain-looking-value-4711")
	ev, dir := writeProject(t, "name: red\nexecution:\n  prompt: hi\ndataset:\n  path: cases\njudges:\n  - name: leaky\n    expr: '[false, \"the agent wrote \" + output_content]'\noutputs:\n  - path: output\n",
		fixtureCase{id: "c", files: map[string]string{"output/env.txt": "plain-looking-value-4711"}})
	_, err := Score(context.Background(), Options{Dir: dir, Eval: ev, Getenv: os.Getenv})
	must(t, err)
	b, err := os.ReadFile(dir.Summary())
	must(t, err)
	if strings.Contains(string(b), "plain-looking-value-4711") || !strings.Contains(string(b), "the agent wrote [redacted]") {
		t.Errorf("summary.yaml holds the secret or no mark:\n%s", b)
	}
}

// A run_result.json cut short is an error, not a run of no cost, no model
// and a made-up run id.
func TestCorruptRunResultFails(t *testing.T) {
	ev, dir := writeProject(t, "name: cut\nexecution:\n  prompt: hi\ndataset:\n  path: cases\njudges:\n  - name: ok\n    expr: 'true'\n",
		fixtureCase{id: "c"})
	if err := os.WriteFile(dir.RunResult(), []byte("{\n  \"schema_version\": 1,\n  \"ru"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Score(context.Background(), Options{Dir: dir, Eval: ev, Getenv: os.Getenv})
	if err == nil || !strings.Contains(err.Error(), "run_result.json") {
		t.Errorf("err = %v, want one naming run_result.json", err)
	}
	if _, err := os.Stat(dir.Summary()); err == nil {
		t.Error("summary.yaml written for a run whose run_result.json is corrupt")
	}
}

// A judge that errored on every case it judged fails the verdict, even
// with no threshold on it; one that judged a case does not.
func TestBrokenJudgeFails(t *testing.T) {
	evalYAML := `name: broken
execution: {prompt: "{prompt}"}
dataset: {path: cases}
judges:
  - name: always_errors
    expr: 'outputs_missing.x > 1'
  - name: fine
    expr: 'true'
`
	ev, dir := writeProject(t, evalYAML, fixtureCase{id: "a"}, fixtureCase{id: "b"})
	s, err := Score(context.Background(), Options{Dir: dir, Eval: ev, Getenv: os.Getenv})
	must(t, err)
	regs := Regressions(s)
	if s.Passed || len(regs) != 1 || !strings.Contains(regs[0], "[always_errors] judged no case") || !slices.Equal(s.BrokenJudges, []string{"always_errors"}) {
		t.Errorf("passed=%v, broken=%v, regressions=%v; want a failed verdict naming always_errors only", s.Passed, s.BrokenJudges, regs)
	}
}

// TestViolationsGate: thresholds.violations.max_violations fails the
// verdict when the run's agents were refused more than it allows, counted
// from the cases' files (a run before layout 8 recorded none), and holds
// at its limit.
func TestViolationsGate(t *testing.T) {
	cases := []fixtureCase{
		{id: "a", events: []transcript.Event{call("t1", "Bash", `{"command":"cat secret/key"}`), result("t1", "Blocked", true)},
			ledger: []rundir.Decision{{ToolUseID: "t1", Tool: "Bash", Decision: "deny", Reason: "Blocked", Detail: "path layer: reads secret/key"}}},
		{id: "b", refused: []results.Refusal{{Host: "example.com", Count: 2}}},
		{id: "c"},
	}
	for _, tt := range []struct {
		max  int
		pass bool
	}{{0, false}, {2, false}, {3, true}} {
		evalYAML := fmt.Sprintf("name: v\nexecution:\n  prompt: hi\ndataset:\n  path: cases\njudges:\n  - {name: ok, expr: 'true'}\nthresholds:\n  violations:\n    max_violations: %d\n", tt.max)
		ev, dir := writeProject(t, evalYAML, cases...)
		s, err := Score(context.Background(), Options{Dir: dir, Eval: ev, Getenv: os.Getenv})
		must(t, err)
		if s.Passed != tt.pass {
			t.Errorf("max_violations %d: passed = %v, want %v (%v)", tt.max, s.Passed, tt.pass, Regressions(s))
		}
		if s.Violations.Total != 3 || s.Violations.Cases != 2 || s.Violations.ByKind["hidden_path"] != 1 || s.Violations.ByKind["refused_connection"] != 2 {
			t.Errorf("summary violations = %+v", s.Violations)
		}
		if !tt.pass {
			want := fmt.Sprintf("[violations] max_violations: <= %d -> 3 > %d: 1 hidden_path, 2 refused_connection in 2 case(s)", tt.max, tt.max)
			if got := strings.Join(Regressions(s), "\n"); !strings.Contains(got, want) {
				t.Errorf("regressions lack %q:\n%s", want, got)
			}
		}
		want := map[string]int{"a": 1, "b": 2}
		for _, c := range s.Cases {
			n := 0
			if c.Violations != nil {
				n = c.Violations.Total
			}
			if n != want[c.ID] {
				t.Errorf("case %s: %d violations in the summary, want %d", c.ID, n, want[c.ID])
			}
		}
	}
}
