package score

import (
	"testing"

	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/results"
	"github.com/agent-eval/agent-eval/internal/transcript"
)

// TestJudgesSeeViolations: check, expr and exec judges read the case's
// violations (outputs.violations: total, by_kind, cli_traffic, list), so a
// team can write its own rule over them; a case with none still has the
// fields.
func TestJudgesSeeViolations(t *testing.T) {
	ev, dir := writeProject(t, "name: v\nexecution:\n  prompt: hi\ndataset:\n  path: cases\n",
		fixtureCase{id: "c1", events: []transcript.Event{call("t1", "Bash", `{"command":"curl https://acme.atlassian.net"}`)},
			refused: []results.Refusal{{Host: "acme.atlassian.net", Count: 1}, {Host: "chatgpt.com", Count: 2, CLIHost: true}}},
		fixtureCase{id: "c2"})
	tests := []struct {
		name   string
		judge  config.Judge
		python bool
		want   map[string]bool // case → passed
	}{
		{name: "expr: the counts", judge: config.Judge{Name: "e", Expr: `violations.total == 0`},
			want: map[string]bool{"c1": false, "c2": true}},
		{name: "expr: the CLI's traffic apart", judge: config.Judge{Name: "e", Expr: `violations.cli_traffic == 2 && violations.by_kind.refused_connection == 1`},
			want: map[string]bool{"c1": true, "c2": false}},
		{name: "expr: a rule of the team's own over the list, through outputs",
			judge: config.Judge{Name: "e", Expr: `none(outputs.violations.list, .kind == "refused_connection" && .target endsWith "atlassian.net")`},
			want:  map[string]bool{"c1": false, "c2": true}},
		{name: "exec: on stdin", judge: config.Judge{Name: "x", Exec: config.StringList{"sh", "-c",
			`if grep -q '"kind":"cli_traffic"'; then echo '{"value": false}'; else echo '{"value": true}'; fi`}},
			want: map[string]bool{"c1": false, "c2": true}},
		{name: "check: in outputs", python: true, judge: config.Judge{Name: "c",
			Check: "v = outputs['violations']\nreturn v['total'] == 0 and len(v['list']) == 0, 'clean'"},
			want: map[string]bool{"c1": false, "c2": true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := &Env{Eval: ev, Dir: ev.Dir(), RunDir: dir.Path}
			if tt.python {
				needPython(t)
				env.Python = FindPython()
			}
			f, ok := Kinds().Lookup(tt.judge.Type())
			if !ok {
				t.Fatalf("no kind %s", tt.judge.Type())
			}
			jd, err := f(tt.judge, 0, env)
			must(t, err)
			for id, want := range tt.want {
				rec, err := BuildRecord(dir, ev, id)
				must(t, err)
				o := jd.Score(t.Context(), rec)
				if o.Err != nil {
					t.Fatalf("%s: %v", id, o.Err)
				}
				passed := false
				switch v := o.Value.(type) {
				case bool:
					passed = v
				case float64:
					passed = v == 1
				}
				if passed != want {
					t.Errorf("%s: %v (%s), want passed %v", id, o.Value, o.Rationale, want)
				}
			}
		})
	}
}
