package generate

import (
	"context"
	"fmt"
	"path"
	"sort"
	"strings"
	"time"

	yaml "go.yaml.in/yaml/v3"
)

// AgentRunner runs one agent inside the harness's boundary in a staged
// folder (the engine's, not this package's). The skill strategy writes no
// runner of its own: the CLI gives it one, or it refuses to start.
type AgentRunner interface {
	Run(ctx context.Context, task AgentTask) (AgentResult, error)
}

// AgentTask is one agent run.
type AgentTask struct {
	// Files are staged into the agent's folder before it starts, by
	// slash-separated relative path.
	Files map[string]string
	// Prompt is what the agent is asked.
	Prompt string
	// AllowedTools are the only tools it may use.
	AllowedTools []string
	Timeout      time.Duration
	// BudgetUSD caps its spend (0: the eval's default).
	BudgetUSD float64
}

// AgentResult is what the agent left: the files it wrote under output/
// (paths relative to output/) and its final text.
type AgentResult struct {
	Files map[string]string
	Text  string
}

// skill asks an agent to read the skill under test and the eval and write
// cases as folders under output/cases/.
type skill struct{}

// DefaultSkillCount is how many cases the agent is asked for without
// --count (upstream's default).
const DefaultSkillCount = 5

// SkillFiles names, in the staged folder, what the agent reads.
const (
	StagedEval    = "eval.yaml"
	StagedSkill   = "skill/"   // the skill's folder (SKILL.md and its files)
	StagedDataset = "dataset/" // one existing case, as an example of the layout
)

func (skill) Generate(ctx context.Context, req Request, deps Deps) ([]Case, []string, error) {
	if deps.Agent == nil {
		return nil, nil, &ErrMissing{What: "the skill strategy needs an agent run inside the harness's boundary (internal/agentcall), and none was given"}
	}
	n := req.Count
	if n <= 0 {
		n = DefaultSkillCount
	}
	task := AgentTask{Files: map[string]string{}, Prompt: skillPrompt(req, n),
		AllowedTools: []string{"Read", "Glob", "Grep", "Write"}, Timeout: req.timeout()}
	if b := req.Eval.Source(); len(b) > 0 {
		task.Files[StagedEval] = string(b)
	}
	for p, body := range req.SkillFiles {
		task.Files[StagedSkill+p] = body
	}
	for p, body := range req.ExampleCase {
		task.Files[StagedDataset+p] = body
	}
	progressf(req.Progress, "asking an agent for %d case(s) of skill %s", n, req.Eval.Execution.Skill)
	res, err := deps.Agent.Run(ctx, task)
	if err != nil {
		return nil, nil, fmt.Errorf("the generating agent: %w", err)
	}
	cases, failed := agentCases(res)
	if len(cases) == 0 && len(failed) == 0 {
		failed = append(failed, "the agent wrote no case under output/cases/")
	}
	return cases, failed, nil
}

// skillPrompt is what the generating agent is asked.
func skillPrompt(req Request, n int) string {
	ev := req.Eval
	var b strings.Builder
	fmt.Fprintf(&b, "Write %d new eval case(s) for the skill %q.\n\n", n, ev.Execution.Skill)
	fmt.Fprintf(&b, "Read %s (the eval: how the skill is run, what the judges check, dataset.schema) and the skill under %s (start with SKILL.md).", StagedEval, StagedSkill)
	if len(req.ExampleCase) > 0 {
		fmt.Fprintf(&b, " %s holds one case already in the dataset: follow its layout.", StagedDataset)
	}
	if len(req.Existing) > 0 {
		fmt.Fprintf(&b, "\n\nThe dataset already has these cases; do not repeat them or their ids: %s.", strings.Join(req.Existing, ", "))
	}
	b.WriteString(`

Write each case as a folder output/cases/<id>/ holding input.yaml (what the
agent under test is given: every field the eval's prompt or arguments
template uses) and annotations.yaml (what the judges check: expected
outcomes, and the fields their if: conditions read), plus any companion file
the schema asks for. <id> is short, lower-case, descriptive
(case-003-edge-empty-context). Cover the skill's range: one simple case, one
complex case, one edge case, and the rest aimed at what the strictest judges
check, with both outcomes of every conditional judge. Make the inputs
realistic; for a value that must exist in an external system, write
TODO_<SYSTEM>_<FIELD>. Do not write reference outputs you are not sure of.
Write nothing outside output/. End with one line per case: its id and what
it tests.
`)
	return b.String()
}

// agentCases reads the cases the agent wrote under output/cases/<id>/.
func agentCases(res AgentResult) ([]Case, []string) {
	byID := map[string]map[string]string{}
	var stray []string
	for p, body := range res.Files {
		rest, ok := strings.CutPrefix(path.Clean(p), "cases/")
		id, file, ok2 := strings.Cut(rest, "/")
		if !ok || !ok2 || id == "" || file == "" {
			stray = append(stray, p)
			continue
		}
		if byID[id] == nil {
			byID[id] = map[string]string{}
		}
		byID[id][file] = body
	}
	ids := make([]string, 0, len(byID))
	for id := range byID {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var cases []Case
	var failed []string
	if len(stray) > 0 {
		sort.Strings(stray)
		failed = append(failed, "files outside output/cases/<id>/ left out: "+strings.Join(stray, ", "))
	}
	for _, id := range ids {
		files := byID[id]
		c := Case{ID: id, Source: "skill", Files: map[string]string{}}
		in, ok := files["input.yaml"]
		if !ok {
			failed = append(failed, "case "+id+": it has no input.yaml")
			continue
		}
		if err := yaml.Unmarshal([]byte(in), &c.Input); err != nil || len(c.Input) == 0 {
			failed = append(failed, fmt.Sprintf("case %s: input.yaml is not a mapping: %v", id, errOrEmpty(err)))
			continue
		}
		if a, ok := files["annotations.yaml"]; ok {
			if err := yaml.Unmarshal([]byte(a), &c.Annotations); err != nil {
				failed = append(failed, fmt.Sprintf("case %s: annotations.yaml: %v", id, err))
				continue
			}
		}
		for f, body := range files {
			if f != "input.yaml" && f != "annotations.yaml" {
				c.Files[f] = body
			}
		}
		if len(c.Files) == 0 {
			c.Files = nil
		}
		cases = append(cases, c)
	}
	return cases, failed
}

func errOrEmpty(err error) string {
	if err != nil {
		return err.Error()
	}
	return "it is empty"
}
