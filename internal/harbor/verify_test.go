package harbor

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agent-eval/agent-eval/internal/results"
	"github.com/agent-eval/agent-eval/internal/rundir"
	"github.com/agent-eval/agent-eval/internal/transcript"
)

// trial is a Harbor trial's folders laid out in a temporary folder, as the
// export and the agent leave them.
type vtrial struct{ opts VerifyOptions }

// evalHead is the start of every eval below: one output folder.
const evalHead = "name: t\nexecution: {prompt: hi}\ndataset: {path: cases}\noutputs:\n  - path: out\n"

// newTrial writes tests/ (eval.yaml, case.json, case/, baseline.json of
// env), fills the workdir with env and then work (the agent's), and
// writes the agent's log.
func newTrial(t *testing.T, evalYAML string, env, work map[string]string, agentLog []byte) *vtrial {
	t.Helper()
	root := t.TempDir()
	o := VerifyOptions{Tests: filepath.Join(root, "tests"), Workdir: filepath.Join(root, "workspace"),
		AgentLogs: filepath.Join(root, "logs", "agent"), Out: filepath.Join(root, "logs", "verifier"), Environ: []string{"PATH=/usr/bin:/bin"}}
	base := map[string]string{}
	for rel, body := range env {
		sum := sha256.Sum256([]byte(body))
		base[rel] = hex.EncodeToString(sum[:])
	}
	b, _ := json.Marshal(base)
	files := map[string]string{
		filepath.Join(o.Tests, EvalFile):                    evalYAML,
		filepath.Join(o.Tests, BaselineFile):                string(b),
		filepath.Join(o.Tests, CaseDataDir, "input.yaml"):   "name: Ada\n",
		filepath.Join(o.Tests, CaseDataDir, "expected.txt"): "hello Ada\n",
	}
	for rel, body := range env {
		files[filepath.Join(o.Workdir, rel)] = body
	}
	for rel, body := range work {
		files[filepath.Join(o.Workdir, rel)] = body
	}
	for p, body := range files {
		writeFile(t, p, body)
	}
	if err := os.MkdirAll(o.Workdir, 0o755); err != nil {
		t.Fatal(err)
	}
	if agentLog != nil {
		writeFile(t, filepath.Join(o.AgentLogs, ClaudeCodeLog), string(agentLog))
	}
	tr := &vtrial{opts: o}
	tr.seal(t, "")
	return tr
}

// seal writes case.json for step with the digests of everything else in
// tests/, as the export does.
func (tr *vtrial) seal(t *testing.T, step string) {
	t.Helper()
	sums := map[string]string{}
	err := filepath.WalkDir(tr.opts.Tests, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() || d.Name() == CaseFile {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(tr.opts.Tests, p)
		h := sha256.Sum256(b)
		sums[filepath.ToSlash(rel)] = hex.EncodeToString(h[:])
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	info, _ := json.Marshal(CaseInfo{CaseID: "c1", EvalName: "t", Step: step, AgentEvalVersion: "test", Tests: sums})
	writeFile(t, filepath.Join(tr.opts.Tests, CaseFile), string(info))
}

// judgeBinary is a statically linked exec judge, built once: it prints a
// true verdict with the rationale "tests/ program".
var judgeBinary = sync.OnceValues(func() ([]byte, error) {
	dir, err := os.MkdirTemp("", "judge")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	src := "package main\n\nimport (\n\t\"fmt\"\n\t\"io\"\n\t\"os\"\n)\n\nfunc main() {\n\t_, _ = io.ReadAll(os.Stdin)\n\tfmt.Println(`{\"value\": true, \"rationale\": \"tests/ program\"}`)\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(src), 0o644); err != nil {
		return nil, err
	}
	cmd := exec.Command("go", "build", "-o", "judge", "main.go")
	cmd.Dir, cmd.Env = dir, append(os.Environ(), "CGO_ENABLED=0", "GOWORK=off", "GOFLAGS=")
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("build the judge: %v: %s", err, out)
	}
	return os.ReadFile(filepath.Join(dir, "judge"))
})

// writeJudge writes the static judge at p.
func writeJudge(t *testing.T, p string) {
	t.Helper()
	b, err := judgeBinary()
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, p, string(b))
	if err := os.Chmod(p, 0o755); err != nil {
		t.Fatal(err)
	}
}

func writeFile(t *testing.T, p, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// realStream is a real Claude Code 2.1.332 stream-json (against the fake
// model: a Bash call, a denied Bash call, a final text), with lines of
// stderr in between, as Harbor's `2>&1 | tee` writes claude-code.txt.
func realStream(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/claude-2.1.332.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	for i, line := range bytes.SplitAfter(b, []byte("\n")) {
		out.Write(line)
		if i%3 == 1 {
			out.WriteString("(node:42) Warning: something on stderr\n    at Object.<anonymous> (cli.js:1:1)\n\n")
		}
	}
	return out.Bytes()
}

func (tr *vtrial) reward(t *testing.T) map[string]float64 {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(tr.opts.Out, RewardJSON))
	if err != nil {
		t.Fatal(err)
	}
	// Flat numbers only: Harbor reads reward.json as a map of numbers.
	var m map[string]float64
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("reward.json is not a flat object of numbers: %v\n%s", err, b)
	}
	return m
}

func (tr *vtrial) judges(t *testing.T) Judges {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(tr.opts.Out, JudgesJSON))
	if err != nil {
		t.Fatal(err)
	}
	var j Judges
	if err := json.Unmarshal(b, &j); err != nil {
		t.Fatal(err)
	}
	return j
}

func (tr *vtrial) collected() rundir.Dir {
	return rundir.Dir{Path: filepath.Join(tr.opts.Out, CollectedDir)}
}

func TestVerifyReward(t *testing.T) {
	answer := map[string]string{"out/answer.txt": "hello Ada\n"}
	tests := []struct {
		name   string
		judges string
		work   map[string]string
		want   map[string]float64
	}{
		{name: "gate: a failed bool judge is 0",
			judges: "judges:\n  - {name: has, expr: 'len(files) > 0'}\n  - {name: no, expr: 'false'}\n  - {name: q, expr: '5', score_range: [1, 5]}\n",
			work:   answer, want: map[string]float64{"reward": 0, "has": 1, "no": 0, "q": 5}},
		{name: "no reward block: mean of the numbers",
			judges: "judges:\n  - {name: has, expr: 'len(files) > 0'}\n  - {name: q, expr: '4', score_range: [1, 5]}\n  - {name: r, expr: '2', score_range: [1, 5]}\n",
			work:   answer, want: map[string]float64{"reward": 0.5, "has": 1, "q": 4, "r": 2}},
		{name: "judge mode",
			judges: "judges:\n  - {name: no, expr: 'false'}\n  - {name: q, expr: '0.7', score_range: [0, 1]}\nreward: {judge: q}\n",
			work:   answer, want: map[string]float64{"reward": 0.7, "no": 0, "q": 0.7}},
		{name: "weighted",
			judges: "judges:\n  - {name: q, expr: '5', score_range: [1, 5]}\n  - {name: r, expr: '1', score_range: [1, 5]}\nreward: {formula: weighted, weights: {q: 3, r: 1}}\n",
			work:   answer, want: map[string]float64{"reward": 0.75, "q": 5, "r": 1}},
		{name: "formula",
			judges: "judges:\n  - {name: q, expr: '5', score_range: [1, 5]}\n  - {name: r, expr: '3', score_range: [1, 5]}\nreward: {formula: 'q * r'}\n",
			work:   answer, want: map[string]float64{"reward": 0.5, "q": 5, "r": 3}},
		{name: "no judges: unjudged",
			judges: "", work: answer, want: map[string]float64{"reward": 0, UnjudgedKey: 1}},
		{name: "only an llm judge: unjudged",
			judges: "judges:\n  - {name: llm, prompt: 'is it good?'}\n", work: answer, want: map[string]float64{"reward": 0, UnjudgedKey: 1}},
		{name: "the reward's judge is an llm judge: unjudged",
			judges: "judges:\n  - {name: has, expr: 'true'}\n  - {name: llm, prompt: 'good?', feedback_type: int, score_range: [1, 5]}\nreward: {judge: llm}\n",
			work:   answer, want: map[string]float64{"reward": 0, UnjudgedKey: 1, "has": 1}},
		{name: "a formula over an llm judge: unjudged",
			judges: "judges:\n  - {name: has, expr: 'true'}\n  - {name: llm, prompt: 'good?'}\nreward: {formula: 'has and llm'}\n",
			work:   answer, want: map[string]float64{"reward": 0, UnjudgedKey: 1, "has": 1}},
		{name: "the case's own files: an expected answer from tests/case/",
			judges: "judges:\n  - {name: right, expr: 'out_content == annotation_expected_content', feedback_type: bool}\n",
			work:   answer, want: map[string]float64{"reward": 0, "right": 0}},
		{name: "an error judge: no value, reward 0",
			judges: "judges:\n  - {name: broken, expr: 'nosuchname.x'}\n", work: answer,
			want: map[string]float64{"reward": 0}},
		{name: "denials from the transcript",
			judges: "judges:\n  - {name: respected, builtin: safety/respected_denials}\n  - {name: denied, expr: 'len(permission_denials) == 1'}\n",
			work:   answer, want: map[string]float64{"reward": 1, "respected": 1, "denied": 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := newTrial(t, evalHead+tt.judges, map[string]string{"input.yaml": "name: Ada\n"}, tt.work, realStream(t))
			if _, err := Verify(t.Context(), tr.opts); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, tr.reward(t)); diff != "" {
				t.Errorf("reward.json (-want +got):\n%s\njudges.json: %+v", diff, tr.judges(t))
			}
			j := tr.judges(t)
			if got, ok := tt.want["reward"]; ok && tt.want[UnjudgedKey] == 0 && (j.Reward == nil || *j.Reward != got) {
				t.Errorf("judges.json reward = %v, want %v", j.Reward, got)
			}
		})
	}
}

func TestVerifyNamesTheJudgesItDidNotRun(t *testing.T) {
	evalYAML := evalHead + "judges:\n  - {name: has, expr: 'true'}\n  - {name: llm, prompt: 'good?'}\n" +
		"  - {name: py, check: 'return True'}\n  - {name: shell, exec: 'test -f out/answer.txt'}\n  - {name: mine, exec: [./judge]}\n" +
		"  - {name: script, exec: [./judge.sh]}\n  - {name: pyscript, exec: [python3, judge.py]}\n"
	tr := newTrial(t, evalYAML, nil, map[string]string{"out/answer.txt": "hi"}, realStream(t))
	writeJudge(t, filepath.Join(tr.opts.Tests, "judge"))
	writeFile(t, filepath.Join(tr.opts.Tests, "judge.py"), "print('{\"value\": true}')\n")
	writeFile(t, filepath.Join(tr.opts.Tests, "judge.sh"), "#!/bin/sh\necho '{\"value\": true}'\n")
	if err := os.Chmod(filepath.Join(tr.opts.Tests, "judge.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	tr.seal(t, "")
	if _, err := Verify(t.Context(), tr.opts); err != nil {
		t.Fatal(err)
	}
	j := tr.judges(t)
	for name, notRun := range map[string]bool{"has": false, "llm": true, "py": true, "shell": true, "mine": false, "script": true, "pyscript": true} {
		r, ok := j.PerJudge[name]
		if !ok {
			t.Errorf("judges.json has no %s: %+v", name, j.PerJudge)
			continue
		}
		if (r.NotRun != "") != notRun {
			t.Errorf("judges.json %s = %+v, want not run: %v", name, r, notRun)
		}
		if r.JudgeType == "" {
			t.Errorf("judges.json %s has no judge_type", name)
		}
	}
	if got := j.PerJudge["mine"]; got.Value == nil || *got.Value != 1 || got.Rationale != "tests/ program" {
		t.Errorf("the exec judge from tests/ = %+v, want value 1", got)
	}
	if diff := cmp.Diff(map[string]float64{"reward": 1, "has": 1, "mine": 1}, tr.reward(t)); diff != "" {
		t.Errorf("reward.json (-want +got):\n%s", diff)
	}
}

// TestVerifyClearsPlantedFiles: what the agent left in the verifier's
// folder is never read as the verdict, whatever it is.
func TestVerifyClearsPlantedFiles(t *testing.T) {
	plant := []struct {
		name  string
		plant func(t *testing.T, out, elsewhere string)
	}{
		{"files", func(t *testing.T, out, _ string) {
			writeFile(t, filepath.Join(out, RewardJSON), `{"reward": 1}`)
			writeFile(t, filepath.Join(out, RewardTXT), "1")
			writeFile(t, filepath.Join(out, JudgesJSON), `{"reward": 1}`)
			writeFile(t, filepath.Join(out, CollectedDir, "cases", "c1", "outputs", "out", "answer.txt"), "planted")
			writeFile(t, filepath.Join(out, CollectedDir, "cases", "planted", "run_result.json"), "{}")
		}},
		{"symlinks", func(t *testing.T, out, elsewhere string) {
			writeFile(t, filepath.Join(elsewhere, "reward.json"), `{"reward": 1}`)
			if err := os.MkdirAll(out, 0o755); err != nil {
				t.Fatal(err)
			}
			for _, n := range []string{RewardJSON, RewardTXT, JudgesJSON, CollectedDir} {
				if err := os.Symlink(filepath.Join(elsewhere, "reward.json"), filepath.Join(out, n)); err != nil {
					t.Fatal(err)
				}
			}
		}},
	}
	for _, p := range plant {
		t.Run(p.name, func(t *testing.T) {
			tr := newTrial(t, evalHead+"judges:\n  - {name: has, expr: 'len(files) > 0'}\n", nil, nil, realStream(t))
			elsewhere := t.TempDir()
			p.plant(t, tr.opts.Out, elsewhere)
			if _, err := Verify(t.Context(), tr.opts); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(map[string]float64{"reward": 0, "has": 0}, tr.reward(t)); diff != "" {
				t.Errorf("reward.json (-want +got):\n%s", diff)
			}
			if _, err := os.Stat(filepath.Join(tr.opts.Out, RewardTXT)); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("reward.txt is still there: %v", err)
			}
			ids, err := tr.collected().CaseIDs()
			if err != nil || !slices.Equal(ids, []string{"c1"}) {
				t.Errorf("collected cases = %v, %v; want [c1]", ids, err)
			}
			if b, err := os.ReadFile(filepath.Join(elsewhere, "reward.json")); p.name == "symlinks" && (err != nil || string(b) != `{"reward": 1}`) {
				t.Errorf("the link's target was written through: %q %v", b, err)
			}
		})
	}
}

// TestVerifyFailureWritesNoReward: a verifier that cannot judge leaves no
// reward file (Harbor: RewardFileNotFoundError, an infrastructure error),
// and removes a planted one all the same.
func TestVerifyFailureWritesNoReward(t *testing.T) {
	tests := []struct {
		name   string
		break_ func(t *testing.T, o VerifyOptions)
	}{
		{"eval.yaml does not parse", func(t *testing.T, o VerifyOptions) {
			writeFile(t, filepath.Join(o.Tests, EvalFile), "name: [\n")
		}},
		{"eval.yaml has an unknown key", func(t *testing.T, o VerifyOptions) {
			writeFile(t, filepath.Join(o.Tests, EvalFile), evalHead+"judgez: []\n")
		}},
		{"a judge that does not build", func(t *testing.T, o VerifyOptions) {
			writeFile(t, filepath.Join(o.Tests, EvalFile), evalHead+"judges:\n  - {name: b, builtin: nosuch/builtin}\n")
		}},
		{"no case.json", func(t *testing.T, o VerifyOptions) {
			if err := os.Remove(filepath.Join(o.Tests, CaseFile)); err != nil {
				t.Fatal(err)
			}
		}},
		{"case.json names a step the eval lacks", func(t *testing.T, o VerifyOptions) {
			writeFile(t, filepath.Join(o.Tests, CaseFile), `{"case_id": "c1", "eval_name": "t", "step": "nope", "agent_eval_version": "x"}`)
		}},
		{"case.json names a path", func(t *testing.T, o VerifyOptions) {
			writeFile(t, filepath.Join(o.Tests, CaseFile), `{"case_id": "../c1", "eval_name": "t", "agent_eval_version": "x"}`)
		}},
		{"no baseline.json", func(t *testing.T, o VerifyOptions) {
			if err := os.Remove(filepath.Join(o.Tests, BaselineFile)); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := newTrial(t, evalHead+"judges:\n  - {name: has, expr: 'true'}\n", nil, nil, realStream(t))
			writeFile(t, filepath.Join(tr.opts.Out, RewardJSON), `{"reward": 1}`)
			tt.break_(t, tr.opts)
			if _, err := Verify(t.Context(), tr.opts); err == nil {
				t.Fatal("Verify succeeded")
			}
			for _, n := range []string{RewardJSON, RewardTXT} {
				if _, err := os.Lstat(filepath.Join(tr.opts.Out, n)); !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("%s is there after a failure: %v", n, err)
				}
			}
		})
	}
}

// TestVerifyCollects: the collected case is what a local run keeps:
// outputs/, _modified/ (what differs from the baseline, new files too,
// the harness's files left out), the ledger, the transcript and the
// case's result from the agent's log.
func TestVerifyCollects(t *testing.T) {
	env := map[string]string{"input.yaml": "name: Ada\n", "keep.txt": "same\n", "edit.txt": "before\n", "tool_handlers.yaml": "handlers: []\n"}
	work := map[string]string{
		"out/answer.txt":              "hello Ada\n",
		"edit.txt":                    "after\n",
		"new/added.txt":               "new\n",
		"hook_decisions.jsonl":        `{"decision":"canary","tool":"SessionStart"}` + "\n" + `{"tool_name":"Bash","decision":"deny","reason":"no"}` + "\n",
		".claude/settings.local.json": "{}",
		"tool_handlers.yaml":          "handlers: [changed]\n",
	}
	tr := newTrial(t, evalHead+"judges:\n  - {name: has, expr: 'true'}\n", env, work, realStream(t))
	if _, err := Verify(t.Context(), tr.opts); err != nil {
		t.Fatal(err)
	}
	dir := tr.collected()
	read := func(p string) string {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Error(err)
		}
		return string(b)
	}
	if got := read(filepath.Join(dir.Outputs("c1"), "out", "answer.txt")); got != "hello Ada\n" {
		t.Errorf("outputs/out/answer.txt = %q", got)
	}
	c, err := dir.ReadCase("c1")
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(c.ModifiedFiles)
	if want := []string{"edit.txt", "new/added.txt"}; !slices.Equal(c.ModifiedFiles, want) {
		t.Errorf("modified_files = %v, want %v", c.ModifiedFiles, want)
	}
	if got := read(filepath.Join(dir.Modified("c1"), "edit.txt")); got != "after\n" {
		t.Errorf("_modified/edit.txt = %q", got)
	}
	if _, err := os.Stat(filepath.Join(dir.Modified("c1"), "keep.txt")); err == nil {
		t.Error("_modified/ holds an unchanged file")
	}
	led, err := dir.ReadLedger("c1")
	if err != nil || len(led) != 1 || led[0].Decision != "deny" {
		t.Errorf("ledger = %+v, %v", led, err)
	}
	want := results.Case{CaseID: "c1", Status: results.StatusCompleted, Model: "claude-opus-5-5", Result: "All done.", NumTurns: 2, CostUSD: 0.099436}
	got := results.Case{CaseID: c.CaseID, Status: c.Status, Model: c.Model, Result: c.Result, NumTurns: c.NumTurns, CostUSD: c.CostUSD}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("run_result.json (-want +got):\n%s", diff)
	}
	if len(c.PermissionDenials) != 1 || c.PermissionDenials[0].ToolUseID != "toolu_fake_0_1" {
		t.Errorf("permission_denials = %+v", c.PermissionDenials)
	}
	if c.TokenUsage.InputTokens != 24724 || c.PerModelUsage["claude-opus-5-5"].CostUSD != 0.099436 {
		t.Errorf("usage = %+v %+v", c.TokenUsage, c.PerModelUsage)
	}
	events, err := dir.ReadTranscript("c1")
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, e := range events {
		kinds = append(kinds, string(e.Kind))
	}
	if want := "text tool_call tool_call tool_result tool_result text denial result"; strings.Join(kinds, " ") != want {
		t.Errorf("transcript kinds = %q, want %q", strings.Join(kinds, " "), want)
	}
}

// TestVerifyNeverFollowsTheAgentsLinks: a link the agent left in the
// workdir (an output, a changed file, the ledger) pointing at /etc/passwd
// is not read.
func TestVerifyNeverFollowsTheAgentsLinks(t *testing.T) {
	tr := newTrial(t, evalHead+"judges:\n  - {name: has, expr: 'len(files) > 0'}\n", map[string]string{"input.yaml": "x\n"}, nil, realStream(t))
	ws := tr.opts.Workdir
	for _, l := range [][2]string{{"/etc/passwd", "out"}, {"/etc/passwd", "passwd"}, {"/etc", "etc"}, {"/etc/passwd", "hook_decisions.jsonl"}, {"/etc/passwd", "input.yaml"}} {
		_ = os.Remove(filepath.Join(ws, l[1]))
		if err := os.Symlink(l[0], filepath.Join(ws, l[1])); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(ws, "real"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc/passwd", filepath.Join(ws, "real", "pw")); err != nil {
		t.Fatal(err)
	}
	if _, err := Verify(t.Context(), tr.opts); err != nil {
		t.Fatal(err)
	}
	err := filepath.WalkDir(filepath.Join(tr.opts.Out, CollectedDir), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type()&fs.ModeSymlink != 0 {
			t.Errorf("%s is a link", p)
		}
		if d.Type().IsRegular() {
			b, _ := os.ReadFile(p)
			if bytes.Contains(b, []byte("root:x:0:0")) {
				t.Errorf("%s holds /etc/passwd", p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]float64{"reward": 0, "has": 0}, tr.reward(t)); diff != "" {
		t.Errorf("reward.json (-want +got):\n%s", diff)
	}
}

func TestVerifyAgentLog(t *testing.T) {
	full := realStream(t)
	cut := full[:bytes.LastIndex(full, []byte(`{"duration_api_ms"`))]
	tests := []struct {
		name       string
		log        []byte
		status     results.Status
		wantEvents bool
	}{
		{"stderr between the lines", full, results.StatusCompleted, true},
		{"killed before its result", cut, results.StatusError, true},
		{"no log", nil, results.StatusError, false},
		{"only stderr", []byte("Error: could not start\n"), results.StatusError, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := newTrial(t, evalHead+"judges:\n  - {name: ok, expr: 'true'}\n", nil, nil, tt.log)
			if _, err := Verify(t.Context(), tr.opts); err != nil {
				t.Fatal(err)
			}
			c, err := tr.collected().ReadCase("c1")
			if err != nil {
				t.Fatal(err)
			}
			if c.Status != tt.status {
				t.Errorf("status = %s (%s), want %s", c.Status, c.Error, tt.status)
			}
			ev, err := tr.collected().ReadTranscript("c1")
			if err != nil {
				t.Fatal(err)
			}
			has := slices.ContainsFunc(ev, func(e transcript.Event) bool { return e.Kind == "tool_call" })
			if has != tt.wantEvents {
				t.Errorf("transcript has tool calls: %v, want %v (%+v)", has, tt.wantEvents, ev)
			}
			// The case is judged whatever its agent did.
			if diff := cmp.Diff(map[string]float64{"reward": 1, "ok": 1}, tr.reward(t)); diff != "" {
				t.Errorf("reward.json (-want +got):\n%s", diff)
			}
		})
	}
}

// TestVerifyWorkdirReplacedByALink: an agent that put a link in its
// workdir's place has nothing collected, and is judged without.
func TestVerifyWorkdirReplacedByALink(t *testing.T) {
	tr := newTrial(t, evalHead+"judges:\n  - {name: has, expr: 'len(files) > 0'}\n", nil, nil, realStream(t))
	elsewhere := t.TempDir()
	writeFile(t, filepath.Join(elsewhere, "out", "answer.txt"), "from elsewhere")
	if err := os.RemoveAll(tr.opts.Workdir); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, tr.opts.Workdir); err != nil {
		t.Fatal(err)
	}
	if _, err := Verify(t.Context(), tr.opts); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]float64{"reward": 0, "has": 0}, tr.reward(t)); diff != "" {
		t.Errorf("reward.json (-want +got):\n%s", diff)
	}
	if c, err := tr.collected().ReadCase("c1"); err != nil || !strings.Contains(c.Error, "not a folder") {
		t.Errorf("the case's error = %q (%v), want it to say the workdir is not a folder", c.Error, err)
	}
}

// TestVerifyStep: a pipeline's step is judged by the judges with its step,
// and the last step also by those without one.
func TestVerifyStep(t *testing.T) {
	evalYAML := "name: t\nexecution:\n  steps:\n    - {id: plan, prompt: p}\n    - {id: build, prompt: b}\ndataset: {path: cases}\n" +
		"judges:\n  - {name: planned, step: plan, expr: 'step == \"plan\" && len(tool_calls) == 2'}\n  - {name: built, step: build, expr: 'true'}\n  - {name: final, expr: 'true'}\n"
	tests := []struct {
		step string
		want map[string]float64
	}{
		{"plan", map[string]float64{"reward": 1, "planned": 1}},
		{"build", map[string]float64{"reward": 1, "built": 1, "final": 1}},
	}
	for _, tt := range tests {
		t.Run(tt.step, func(t *testing.T) {
			tr := newTrial(t, evalYAML, nil, nil, realStream(t))
			tr.seal(t, tt.step)
			if _, err := Verify(t.Context(), tr.opts); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, tr.reward(t)); diff != "" {
				t.Errorf("reward.json (-want +got):\n%s\n%+v", diff, tr.judges(t))
			}
		})
	}
}

// TestVerifyPlantedTests: Harbor uploads tests/ over what is there, so a
// file the agent put in /tests beforehand stays: the case is tampered and
// its judges fail, whatever they would say. Without the digests in
// case.json no exec judge runs.
func TestVerifyPlantedTests(t *testing.T) {
	evalYAML := evalHead + "judges:\n  - {name: has, expr: 'len(files) > 0'}\n  - {name: mine, exec: [./judge]}\n"
	tests := []struct {
		name  string
		plant func(t *testing.T, tests string)
		// exported: the export wrote judge.sh (else only the agent did).
		exported bool
		want     map[string]float64
		why      string
	}{
		{name: "nothing planted", exported: true, want: map[string]float64{"reward": 1, "has": 1, "mine": 1}},
		{name: "a judge's program the export did not write",
			plant: func(t *testing.T, tests string) { writeJudge(t, filepath.Join(tests, "judge")) },
			want:  map[string]float64{"reward": 0, "has": 0, "mine": 0}, why: "judge: added"},
		{name: "an annotations file in case/", exported: true,
			plant: func(t *testing.T, tests string) {
				writeFile(t, filepath.Join(tests, CaseDataDir, "annotations.yaml"), "x: 1\n")
			},
			want: map[string]float64{"reward": 0, "has": 0, "mine": 0}, why: "case/annotations.yaml: added"},
		{name: "a link", exported: true,
			plant: func(t *testing.T, tests string) {
				if err := os.Symlink("/etc", filepath.Join(tests, "etc")); err != nil {
					t.Fatal(err)
				}
			},
			want: map[string]float64{"reward": 0, "has": 0, "mine": 0}, why: "etc: added"},
		{name: "a changed file", exported: true,
			plant: func(t *testing.T, tests string) {
				writeFile(t, filepath.Join(tests, CaseDataDir, "input.yaml"), "name: Eve\n")
			},
			want: map[string]float64{"reward": 0, "has": 0, "mine": 0}, why: "case/input.yaml: changed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := newTrial(t, evalYAML, nil, map[string]string{"out/answer.txt": "hi"}, realStream(t))
			if tt.exported {
				writeJudge(t, filepath.Join(tr.opts.Tests, "judge"))
			}
			tr.seal(t, "")
			if tt.plant != nil {
				tt.plant(t, tr.opts.Tests)
			}
			if _, err := Verify(t.Context(), tr.opts); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, tr.reward(t)); diff != "" {
				t.Errorf("reward.json (-want +got):\n%s\n%+v", diff, tr.judges(t))
			}
			c, err := tr.collected().ReadCase("c1")
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(c.Tampered, "; "); got != tt.why {
				t.Errorf("tampered = %q, want %q", got, tt.why)
			}
		})
	}
	t.Run("no digests: no exec judge", func(t *testing.T) {
		tr := newTrial(t, evalYAML, nil, map[string]string{"out/answer.txt": "hi"}, realStream(t))
		writeJudge(t, filepath.Join(tr.opts.Tests, "judge"))
		writeFile(t, filepath.Join(tr.opts.Tests, CaseFile), `{"case_id": "c1", "eval_name": "t", "agent_eval_version": "x"}`)
		if _, err := Verify(t.Context(), tr.opts); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(map[string]float64{"reward": 1, "has": 1}, tr.reward(t)); diff != "" {
			t.Errorf("reward.json (-want +got):\n%s", diff)
		}
		if why := tr.judges(t).PerJudge["mine"].NotRun; !strings.Contains(why, "no digests") {
			t.Errorf("mine not run because %q", why)
		}
	})
}

// TestVerifyCollectionLimits: the verifier collects within the eval's
// execution.limits, as a local run does: a sparse 4 GiB output and a
// changed file past file_bytes are not copied, and the case is an error
// that says so.
func TestVerifyCollectionLimits(t *testing.T) {
	evalYAML := "name: t\nexecution: {prompt: hi, limits: {file_bytes: 1KiB}}\ndataset: {path: cases}\noutputs:\n  - path: out\n" +
		"judges:\n  - {name: has, expr: 'true'}\n"
	tr := newTrial(t, evalYAML, map[string]string{"input.yaml": "x\n"}, map[string]string{"out/answer.txt": "42\n", "big.txt": strings.Repeat("x", 2000)}, realStream(t))
	big := filepath.Join(tr.opts.Workdir, "out", "big.bin")
	if err := os.WriteFile(big, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, 4<<30); err != nil {
		t.Fatal(err)
	}
	if _, err := Verify(t.Context(), tr.opts); err != nil {
		t.Fatal(err)
	}
	dir := tr.collected()
	c, err := dir.ReadCase("c1")
	if err != nil {
		t.Fatal(err)
	}
	if c.Status != results.StatusError || c.OverLimit == nil || c.OverLimit.SkippedFiles != 2 ||
		!strings.Contains(c.Error, "out/big.bin (4.0 GiB)") || !strings.Contains(c.Error, "big.txt (2.0 KiB)") {
		t.Fatalf("status %s (%s), over_limit %+v; want an error naming out/big.bin and big.txt", c.Status, c.Error, c.OverLimit)
	}
	if _, err := os.Stat(filepath.Join(dir.Outputs("c1"), "out", "answer.txt")); err != nil {
		t.Errorf("out/answer.txt was not collected: %v", err)
	}
	for _, p := range []string{filepath.Join(dir.Outputs("c1"), "out", "big.bin"), filepath.Join(dir.Modified("c1"), "big.txt")} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s was collected", p)
		}
	}
}
