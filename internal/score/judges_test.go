package score

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/fakeapi"
	"github.com/agent-eval/agent-eval/internal/redact"
	"github.com/agent-eval/agent-eval/internal/results"
	"github.com/agent-eval/agent-eval/internal/testutil/fakemodel"
	"github.com/agent-eval/agent-eval/internal/transcript"
)

// kindCase configures one judge kind for the shared suite: a judge that
// passes, one that fails, one that errors, and (when the kind can be slow)
// one that blocks until cancelled.
type kindCase struct {
	kind                     string
	pass, fail, broken, slow config.Judge
	needsPython              bool
}

// verdictScript answers an LLM judge by the mode word its prompt holds.
var verdictScript = &fakeapi.Script{Match: []fakeapi.Match{
	{Contains: "mode=pass", Turn: fakeapi.Turn{ToolUse: &fakeapi.ToolUse{Name: "submit_evaluation", Input: map[string]any{"passed": true, "rationale": "fine"}}}},
	{Contains: "mode=fail", Turn: fakeapi.Turn{ToolUse: &fakeapi.ToolUse{Name: "submit_evaluation", Input: map[string]any{"passed": false, "rationale": "not fine"}}}},
	{Contains: "mode=error", Turn: fakeapi.Turn{Text: "I would rather not say."}},
}}

func suiteKinds(t *testing.T, root string) []kindCase {
	must(t, os.MkdirAll(filepath.Join(root, "judges"), 0o755))
	must(t, os.WriteFile(filepath.Join(root, "judges", "mod.py"), []byte(`
import time
def good(outputs, **kw):
    return True, "ok"
def bad(outputs, **kw):
    return False, "nope"
def broken(outputs, **kw):
    raise ValueError("boom")
def slow(outputs, **kw):
    time.sleep(5)
    return True
`), 0o644))
	llm := func(mode string) config.Judge {
		return config.Judge{Name: "l", FeedbackType: "bool", Prompt: "Judge case {{ case_id }} with mode={{ arguments.mode }}.", Arguments: map[string]any{"mode": mode}}
	}
	return []kindCase{
		{kind: "check", needsPython: true,
			pass:   config.Judge{Name: "c", Check: "files = outputs.get('files', {})\nreturn 'output/hello.txt' in files, 'found'"},
			fail:   config.Judge{Name: "c", Check: "return False, 'nope'"},
			broken: config.Judge{Name: "c", Check: "raise ValueError('boom')"},
			slow:   config.Judge{Name: "c", Check: "import time\ntime.sleep(5)\nreturn True"}},
		{kind: "code", needsPython: true,
			pass:   config.Judge{Name: "m", Module: "judges.mod", Function: "good"},
			fail:   config.Judge{Name: "m", Module: "judges.mod", Function: "bad"},
			broken: config.Judge{Name: "m", Module: "judges/mod.py", Function: "broken"},
			slow:   config.Judge{Name: "m", Module: "judges.mod", Function: "slow"}},
		{kind: "expr",
			pass:   config.Judge{Name: "e", Expr: `"output/hello.txt" in files && exit_code == 0`},
			fail:   config.Judge{Name: "e", Expr: `[len(permission_denials) > 0, "no denials"]`},
			broken: config.Judge{Name: "e", Expr: `int("not a number")`}},
		{kind: "exec",
			pass:   config.Judge{Name: "x", Exec: config.StringList{`grep -q '"case_id":"case-1"' && echo 'checking case-1' && echo '{"value": true, "rationale": "ok"}'`}},
			fail:   config.Judge{Name: "x", Exec: config.StringList{"sh", "-c", `cat >/dev/null; echo '{"value": 2, "rationale": "meh"}'`}, ScoreRange: &config.ScoreRange{Min: 1, Max: 5}, FeedbackType: "int"},
			broken: config.Judge{Name: "x", Exec: config.StringList{"echo not json"}},
			slow:   config.Judge{Name: "x", Exec: config.StringList{"sleep 5"}}},
		{kind: "llm", pass: llm("pass"), fail: llm("fail"), broken: llm("error")},
		{kind: "agent", pass: agentSuiteJudge("pass"), fail: agentSuiteJudge("fail"), broken: agentSuiteJudge("error"), slow: agentSuiteJudge("slow")},
		{kind: "builtin",
			pass:   config.Judge{Name: "b", Builtin: "efficiency/cost_budget", Arguments: map[string]any{"max_cost_usd": 1.0}},
			fail:   config.Judge{Name: "b", Builtin: "cost_budget", Arguments: map[string]any{"max_cost_usd": 0.01}},
			broken: config.Judge{Name: "b", Builtin: "quality/output_completeness", Arguments: map[string]any{"criteria": []any{"mode=error"}}}},
		// The case's agent was refused a host once (and nothing else).
		{kind: "builtin",
			pass:   config.Judge{Name: "v", Builtin: "safety/no_violations", Arguments: map[string]any{"kinds": []any{"denied_call", "hidden_path"}}},
			fail:   config.Judge{Name: "v", Builtin: "no_violations"},
			broken: config.Judge{Name: "v", Builtin: "quality/output_completeness", Arguments: map[string]any{"criteria": []any{"mode=error"}}}},
	}
}

// TestJudgeSuite runs the same behaviours against every judge kind: a
// pass, a fail, an error sample, a skip and an error through if:, and
// cancellation.
func TestJudgeSuite(t *testing.T) {
	srv := fakeapi.New(fakeapi.Options{Script: verdictScript})
	fakemodel.Serve(t, srv)
	ev, dir := writeProject(t, "name: suite\nexecution:\n  prompt: hi\ndataset:\n  path: cases\nmodels:\n  judge: claude-judge\n",
		fixtureCase{id: "case-1", cost: 0.1, files: map[string]string{"output/hello.txt": "hello world"},
			annotations: "expected_file: hello.txt\nby_year: {2024: a}\n", events: []transcript.Event{text("done")},
			refused: []results.Refusal{{Host: "example.com", Count: 1}}})
	rec, err := BuildRecord(dir, ev, "case-1")
	must(t, err)
	env := &Env{Eval: ev, Dir: ev.Dir(), Python: FindPython(), Model: "claude-judge", LLM: NewLLMRunner(dir, 2, true), RunDir: dir.Path, Agents: &fakeAgents{}}
	reg := Kinds()
	covered := map[string]bool{}
	for _, kc := range suiteKinds(t, ev.Dir()) {
		covered[kc.kind] = true
		t.Run(kc.kind, func(t *testing.T) {
			if kc.needsPython {
				needPython(t)
			}
			f, ok := reg.Lookup(kc.kind)
			if !ok {
				t.Fatalf("kind %s is not registered", kc.kind)
			}
			mk := func(j config.Judge) built {
				t.Helper()
				if got := j.Type(); got != kc.kind {
					t.Fatalf("the %s suite's judge is of kind %q", kc.kind, got)
				}
				jd, err := f(j, 0, env)
				if err != nil {
					t.Fatalf("build: %v", err)
				}
				if jd.Kind() != kc.kind && !(kc.kind == "builtin" && jd.Kind() == "builtin") {
					t.Errorf("Kind() = %q", jd.Kind())
				}
				b := built{name: j.Name, cfg: j, judge: jd}
				if j.If != "" {
					b.cond, err = compileCond(j.If)
					if err != nil {
						t.Fatal(err)
					}
				}
				return b
			}
			ctx := context.Background()
			v := judgeCase(ctx, mk(kc.pass), rec, redact.FromEnviron(nil))
			if v.Error != "" || v.Value == nil || *v.Value != 1 {
				t.Errorf("pass: %+v", v)
			}
			v = judgeCase(ctx, mk(kc.fail), rec, redact.FromEnviron(nil))
			if v.Error != "" || v.Value == nil || *v.Value == 1 || (v.Passed != nil && *v.Passed) {
				t.Errorf("fail: %+v", v)
			}
			v = judgeCase(ctx, mk(kc.broken), rec, redact.FromEnviron(nil))
			if v.Error == "" || v.Value != nil {
				t.Errorf("error sample: %+v", v)
			}
			skip := kc.pass
			skip.If = "annotations.get('expected_file') == 'other.txt'"
			v = judgeCase(ctx, mk(skip), rec, redact.FromEnviron(nil))
			if !v.Skipped || v.Value != nil || v.Error != "" {
				t.Errorf("skip via if: %+v", v)
			}
			bad := kc.pass
			bad.If = "int('x') > 0"
			v = judgeCase(ctx, mk(bad), rec, redact.FromEnviron(nil))
			if v.Error == "" || !strings.Contains(v.Error, "condition") || v.Value != nil {
				t.Errorf("if: error: %+v", v)
			}
			cancelled, cancel := context.WithCancel(ctx)
			cancel()
			v = judgeCase(cancelled, mk(kc.pass), rec, redact.FromEnviron(nil))
			if v.Error == "" || v.Value != nil {
				t.Errorf("cancelled context: %+v", v)
			}
			if kc.slow.Name != "" {
				ctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
				defer cancel()
				start := time.Now()
				v = judgeCase(ctx, mk(kc.slow), rec, redact.FromEnviron(nil))
				if v.Error == "" || time.Since(start) > 3*time.Second {
					t.Errorf("slow judge under a cancelled context: %+v after %s", v, time.Since(start))
				}
			}
		})
	}
	for _, k := range reg.Names() {
		if !covered[k] {
			t.Errorf("judge kind %s is not in the shared suite", k)
		}
	}
}

// An exec judge that floods stdout (a runaway log) is an error sample with
// its output bounded in memory, not a score process growing without end.
func TestExecJudgeStdoutBounded(t *testing.T) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	o := runProtocol(context.Background(), proc{argv: []string{"/bin/sh", "-c", `head -c 300000000 /dev/zero; echo '{"value": true}'`}, dir: t.TempDir(), env: os.Environ()}, nil, time.Minute)
	runtime.ReadMemStats(&after)
	if o.Err == nil || !strings.Contains(o.Err.Error(), "stdout") {
		t.Errorf("outcome = %+v, want an error about its stdout", o)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 256<<20 { // unbounded: about 1 GiB
		t.Errorf("reading the judge's stdout allocated %d MiB", grew>>20)
	}
}
