package score

import (
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/agent-eval/agent-eval/internal/config"
)

func TestJudgeVarProblem(t *testing.T) {
	t.Parallel()
	ev := &config.Eval{Outputs: []config.Output{{Name: "report", Path: "out"}}}
	tests := []struct{ tpl, err string }{
		{"{{ outputs }} {{ outputs.files }} {{ inputs }} {{ input.prompt }} {{ reasoning }} {{ evidence }}", ""},
		{"{% for f in outputs.files %}{{ f }}{% endfor %} {{ annotations.get('k') }} {{ arguments.x | tojson }}", ""},
		{"{{ extra | default('') }} {% if later is defined %}{{ later }}{% endif %}", ""},
		{"{{ __bare_outputs }} {{ __context_0 }}", ""},
		{"{{ events }}", "the prompt uses variable events, which the judge is not given (its variables are " + strings.Join(JudgeVars(), ", ") + ")"},
		{"{{ a }} {{ b.c }} {{ a }}", "variables a, b,"},
		{"{{ report }}", "report names an output"},
	}
	for _, tt := range tests {
		err := judgeVarProblem(tt.tpl, ev)
		switch {
		case tt.err == "" && err != nil:
			t.Errorf("judgeVarProblem(%q) = %v, want none", tt.tpl, err)
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("judgeVarProblem(%q) = %v, want %q", tt.tpl, err, tt.err)
		}
	}
}

// The schema's doc of judges[].prompt lists every variable a judge gets.
func TestJudgePromptDocListsVars(t *testing.T) {
	t.Parallel()
	f, _ := reflect.TypeFor[config.Judge]().FieldByName("Prompt")
	doc := f.Tag.Get("doc")
	for _, v := range JudgeVars() {
		if !regexp.MustCompile(`\b` + v + `\b`).MatchString(doc) {
			t.Errorf("judges[].prompt's doc does not list %s: %q", v, doc)
		}
	}
}
