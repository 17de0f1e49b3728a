package engine

import (
	"strings"
	"testing"

	"github.com/agent-eval/agent-eval/internal/config"
)

func TestPromptProblems(t *testing.T) {
	t.Parallel()
	withPrompt := map[string]any{"prompt": "Fix it."}
	tests := []struct {
		name  string
		ev    config.Eval
		input map[string]any
		want  string // "field: error", joined by "; "; "" for none
	}{
		{"bare name renders the field", config.Eval{Execution: config.Execution{Prompt: "{{prompt}}"}}, withPrompt, ""},
		{"bare name the input lacks", config.Eval{Execution: config.Execution{Prompt: "{{prompt}}"}}, map[string]any{"q": "x"},
			"execution.prompt: the case's input lacks prompt, which the prompt template needs (its fields are q)"},
		{"optional form", config.Eval{Execution: config.Execution{Prompt: "{{ prompt | default('do it') }}"}}, nil, ""},
		{"renders empty", config.Eval{Execution: config.Execution{Prompt: "{{ prompt }}"}}, map[string]any{"prompt": " "},
			"execution.prompt: " + errEmptyPrompt.Error()},
		{"a cli runner's command decides", config.Eval{Execution: config.Execution{Prompt: "{{ prompt }}"}, Runner: config.Runner{Type: "cli"}},
			map[string]any{"prompt": ""}, ""},
		{"skill arguments", config.Eval{Execution: config.Execution{Skill: "s", Arguments: "{{ topic }}"}}, withPrompt,
			"execution.arguments: the case's input lacks topic, which the prompt template needs (its fields are prompt)"},
		{"skill with no arguments is not empty", config.Eval{Execution: config.Execution{Skill: "s"}}, nil, ""},
		{"steps see earlier steps", config.Eval{Execution: config.Execution{Steps: []config.Step{
			{ID: "a", Prompt: "{{ prompt }}"}, {ID: "b", Prompt: "{{ steps.a.output }} {{ steps.c.output }}"}, {ID: "c", Prompt: "{{ input.nope }}"}}}}, withPrompt,
			"execution.steps[1].prompt: the step prompt refers to steps.c, which has not run; execution.steps[2].prompt: the case's input lacks nope, which the prompt template needs (its fields are prompt)"},
		{"an empty step", config.Eval{Execution: config.Execution{Steps: []config.Step{{ID: "a", Prompt: "{{ prompt | default('') }}"}}}}, nil,
			"execution.steps[0].prompt: " + errEmptyPrompt.Error()},
	}
	for _, tt := range tests {
		var got []string
		for _, p := range PromptProblems(&tt.ev, tt.input) {
			got = append(got, p.Field+": "+p.Err.Error())
		}
		if g := strings.Join(got, "; "); g != tt.want {
			t.Errorf("%s: PromptProblems = %q, want %q", tt.name, g, tt.want)
		}
	}
}
