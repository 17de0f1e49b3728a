package generate

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
)

// fakeAgent is a test double of the AgentRunner seam: it records the task
// and answers with result.
type fakeAgent struct {
	task   AgentTask
	result AgentResult
	err    error
}

func (f *fakeAgent) Run(_ context.Context, task AgentTask) (AgentResult, error) {
	f.task = task
	return f.result, f.err
}

func TestSkillWithoutRunner(t *testing.T) {
	ev := parse(t, "name: e\nexecution: {skill: triage}\ndataset: {path: d}\n", nil)
	_, _, err := skill{}.Generate(context.Background(), Request{Eval: ev}, Deps{})
	var missing *ErrMissing
	if !errors.As(err, &missing) || !strings.Contains(err.Error(), "the skill strategy needs an agent run inside the harness's boundary") {
		t.Fatalf("err = %v", err)
	}
}

func TestSkill(t *testing.T) {
	ev := parse(t, "name: e\nexecution: {skill: triage}\ndataset: {path: d}\n", nil)
	agent := &fakeAgent{result: AgentResult{Text: "done", Files: map[string]string{
		"cases/case-001-simple/input.yaml":        "issue: Login fails\n",
		"cases/case-001-simple/annotations.yaml":  "expected_label: bug\n",
		"cases/case-001-simple/docs/context.md":   "more",
		"cases/case-002-edge/input.yaml":          "issue: ''\n",
		"cases/case-003-broken/input.yaml":        "- not a mapping\n",
		"cases/case-004-noinput/annotations.yaml": "x: 1\n",
		"notes.txt": "stray",
	}}}
	req := Request{Eval: ev, Count: 4, Existing: []string{"old-1"},
		SkillFiles: map[string]string{"SKILL.md": "---\nname: triage\n---\nTriage issues."}, ExampleCase: map[string]string{"input.yaml": "issue: x\n"}}
	cases, failed, err := skill{}.Generate(context.Background(), req, Deps{Agent: agent})
	if err != nil {
		t.Fatal(err)
	}
	task := agent.task
	for _, want := range []string{`Write 4 new eval case(s) for the skill "triage"`, "output/cases/<id>/", "old-1", StagedDataset} {
		if !strings.Contains(task.Prompt, want) {
			t.Errorf("prompt lacks %q:\n%s", want, task.Prompt)
		}
	}
	for _, f := range []string{StagedEval, StagedSkill + "SKILL.md", StagedDataset + "input.yaml"} {
		if _, ok := task.Files[f]; !ok {
			t.Errorf("%s not staged: %v", f, task.Files)
		}
	}
	if !slices.Equal(task.AllowedTools, []string{"Read", "Glob", "Grep", "Write"}) || task.Timeout <= 0 {
		t.Errorf("task tools %v timeout %v", task.AllowedTools, task.Timeout)
	}
	var ids []string
	for _, c := range cases {
		ids = append(ids, c.ID)
	}
	if strings.Join(ids, " ") != "case-001-simple case-002-edge" {
		t.Fatalf("cases = %v", ids)
	}
	if cases[0].Annotations["expected_label"] != "bug" || cases[0].Files["docs/context.md"] != "more" || cases[0].Input["issue"] != "Login fails" || cases[0].Source != "skill" {
		t.Errorf("case 1 = %+v", cases[0])
	}
	all := strings.Join(failed, "\n")
	for _, want := range []string{"notes.txt", "case case-003-broken: input.yaml is not a mapping", "case case-004-noinput: it has no input.yaml"} {
		if !strings.Contains(all, want) {
			t.Errorf("failed lacks %q: %q", want, failed)
		}
	}
}

func TestSkillAgentFails(t *testing.T) {
	ev := parse(t, "name: e\nexecution: {skill: triage}\ndataset: {path: d}\n", nil)
	_, _, err := skill{}.Generate(context.Background(), Request{Eval: ev}, Deps{Agent: &fakeAgent{err: errors.New("budget exceeded")}})
	if err == nil || !strings.Contains(err.Error(), "the generating agent: budget exceeded") {
		t.Fatalf("err = %v", err)
	}
	_, failed, err := skill{}.Generate(context.Background(), Request{Eval: ev}, Deps{Agent: &fakeAgent{}})
	if err != nil || len(failed) != 1 || !strings.Contains(failed[0], "wrote no case") {
		t.Fatalf("err %v failed %q", err, failed)
	}
}
