package generate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/llm"
)

// synthetic asks a model for each seed's cases: the seed's prompt, the
// eval's generation.context and descriptions in, a forced write_cases
// tool call out.
type synthetic struct{}

// casesTool is the tool the model must call.
const casesTool = "write_cases"

func casesSchema() map[string]any {
	return map[string]any{
		"type": "object",
		"properties": map[string]any{
			"cases": map[string]any{
				"type":        "array",
				"description": "The generated cases, as many as asked for.",
				"items": map[string]any{
					"type": "object",
					"properties": map[string]any{
						"input":       map[string]any{"type": "object", "description": "What the agent is given (input.yaml): usually just prompt."},
						"annotations": map[string]any{"type": "object", "description": "What the judges check (annotations.yaml): difficulty, expected_* fields, topic."},
					},
					"required": []string{"input", "annotations"},
				},
			},
		},
		"required": []string{"cases"},
	}
}

func (synthetic) Generate(ctx context.Context, req Request, deps Deps) ([]Case, []string, error) {
	ev := req.Eval
	seeds := ev.Generation.Seeds
	if len(seeds) == 0 {
		return nil, nil, &ErrMissing{What: "strategy synthetic needs generation.seeds in " + ev.Path()}
	}
	if deps.Model == nil {
		return nil, nil, &ErrMissing{What: "strategy synthetic needs a model client"}
	}
	if req.Model == "" {
		return nil, nil, &ErrMissing{What: "strategy synthetic needs a model: give --model, or set models.judge or $EVAL_JUDGE_MODEL"}
	}
	// Every seed's prompt first: a bad one stops before anything is asked.
	texts := make([]string, len(seeds))
	for i, s := range seeds {
		text, err := SeedPrompt(s, ev.Dir())
		if err != nil {
			return nil, nil, &ErrMissing{What: fmt.Sprintf("seed %s: %v", s.Category, err)}
		}
		texts[i] = text
	}
	var cases []Case
	var failed []string
	for si, s := range seeds {
		n := seedCount(s, req.Count)
		text := texts[si]
		progressf(req.Progress, "seed %s: asking %s for %d case(s) from %s", s.Category, req.Model, n, seedSource(s))
		got, err := askSeed(ctx, deps.Model, req, s, text, n)
		if err != nil {
			if ctx.Err() != nil {
				return nil, nil, ctx.Err()
			}
			progressf(req.Progress, "seed %s failed: %v (going on with the other seeds)", s.Category, err)
			failed = append(failed, "seed "+s.Category+": "+err.Error())
			continue
		}
		if len(got) != n {
			progressf(req.Progress, "seed %s: asked for %d case(s), the model wrote %d", s.Category, n, len(got))
		}
		for i, raw := range got {
			c, problem := shapeCase(raw)
			if problem != "" {
				progressf(req.Progress, "seed %s: case %d left out: %s", s.Category, i+1, problem)
				failed = append(failed, fmt.Sprintf("seed %s: case %d: %s", s.Category, i+1, problem))
				continue
			}
			for _, f := range fixMisplaced(c) {
				progressf(req.Progress, "seed %s: case %d: moved %s from input to annotations", s.Category, i+1, f)
			}
			c.Annotations["category"] = s.Category // what judges' if: and reports group by
			c.Category, c.Source = s.Category, seedSource(s)
			c.ID = fmt.Sprintf("%s-%03d", slug(s.Category), len(casesOf(cases, s.Category))+1)
			cases = append(cases, c)
		}
	}
	return cases, failed, nil
}

// seedCount is seed s's count, or override when > 0.
func seedCount(s config.GenerationSeed, override int) int {
	if override > 0 {
		return override
	}
	if s.Count != nil && *s.Count > 0 {
		return *s.Count
	}
	return 1
}

func casesOf(cases []Case, category string) []Case {
	var out []Case
	for _, c := range cases {
		if c.Category == category {
			out = append(out, c)
		}
	}
	return out
}

// askSeed asks the model for n cases of seed s and returns them raw.
func askSeed(ctx context.Context, m Model, req Request, s config.GenerationSeed, seedText string, n int) ([]json.RawMessage, error) {
	input, text, err := m.ForcedTool(ctx, llm.ToolRequest{
		Model: req.Model, System: syntheticSystem, User: syntheticPrompt(req, s, seedText, n),
		Tool: casesTool, Description: "Write the generated eval cases.", Schema: casesSchema(),
		MaxTokens: 16000, Timeout: req.timeout(),
	})
	if err != nil {
		return nil, err
	}
	if input == nil {
		// A model that answered in text: its JSON array, if it wrote one.
		arr, err := extractCases(text)
		if err != nil {
			return nil, fmt.Errorf("the model did not call %s: %w", casesTool, err)
		}
		return arr, nil
	}
	var out struct {
		Cases []json.RawMessage `json:"cases"`
	}
	if err := json.Unmarshal(input, &out); err != nil {
		return nil, fmt.Errorf("the model's %s call: %w", casesTool, err)
	}
	if out.Cases == nil {
		return nil, errors.New("the model's " + casesTool + " call has no cases")
	}
	return out.Cases, nil
}

const syntheticSystem = "You write test cases for an evaluation of a coding agent. Each case is what the agent is asked (input) and what its judges check (annotations). You answer only by calling the tool you are given."

// syntheticPrompt is the user message for seed s.
func syntheticPrompt(req Request, s config.GenerationSeed, seedText string, n int) string {
	ev := req.Eval
	var b strings.Builder
	fmt.Fprintf(&b, "Write %d eval case(s) of the category %q.\n\n", n, s.Category)
	if d := strings.TrimSpace(s.Description); d != "" {
		fmt.Fprintf(&b, "The category: %s\n\n", d)
	}
	if d := strings.TrimSpace(ev.Description); d != "" {
		fmt.Fprintf(&b, "What the eval measures: %s\n\n", d)
	}
	if d := strings.TrimSpace(req.SkillDescription); d != "" {
		fmt.Fprintf(&b, "The skill under test (%s): %s\n\n", ev.Execution.Skill, d)
	}
	if d := strings.TrimSpace(ev.Dataset.Schema); d != "" {
		fmt.Fprintf(&b, "The dataset's case layout: %s\n\n", d)
	}
	b.WriteString("## How to write them\n\n")
	b.WriteString(strings.TrimSpace(seedText))
	b.WriteString("\n\n## What is known about the project\n\n")
	if ev.Generation.Context == nil {
		b.WriteString("(no generation.context was given: keep to what the instructions above say)\n")
	} else {
		ctxYAML, _ := yaml.Marshal(ev.Generation.Context)
		b.WriteString("```yaml\n" + strings.TrimRight(string(ctxYAML), "\n") + "\n```\n")
	}
	fmt.Fprintf(&b, `
## The answer

Call %s once with all %d case(s). In each case, input holds only what the
agent is given (usually a single prompt field); everything a judge checks
(difficulty, topic, expected_files, expected_mentions and every other
expected_* field) goes in annotations, never in input. Use real paths and
names from what is known about the project; vary the difficulty and the
aspect each case tests; make every case specific enough to check.
`, casesTool, n)
	return b.String()
}

// slug is s lower-cased with runs of other characters than [a-z0-9] as one
// "-" ("case" when nothing is left): a safe folder name.
func slug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	out := strings.TrimRight(b.String(), "-")
	if len(out) > 48 {
		out = strings.TrimRight(out[:48], "-")
	}
	if out == "" {
		return "case"
	}
	return out
}
