package redecide_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agent-eval/agent-eval/internal/hook"
	"github.com/agent-eval/agent-eval/internal/intercept"
	"github.com/agent-eval/agent-eval/internal/redecide"
	"github.com/agent-eval/agent-eval/internal/rundir"
	"github.com/agent-eval/agent-eval/internal/testutil/decisions"
)

// TestReplayCorpus replays every case of the shared decision corpus as a
// recorded call that ran with no hook decision: the new policy (the case's
// handler set) must decide what the corpus says, so replay and the hook
// cannot drift. A deny is an allowed → denied change naming the corpus's
// reason; an answer is an answer change with the corpus's answers; a pass
// changes nothing.
func TestReplayCorpus(t *testing.T) {
	t.Parallel()
	corpus, err := decisions.Load("../intercept/testdata/decisions.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(corpus.Cases) < 20 {
		t.Fatalf("the corpus has %d cases", len(corpus.Cases))
	}
	for _, c := range corpus.Cases {
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			ws := filepath.Join(root, "ws")
			if err := os.MkdirAll(ws, 0o755); err != nil {
				t.Fatal(err)
			}
			set := corpus.HandlerSets[c.Handlers]
			fsys := intercept.PathFS(nil)
			cwd := ws
			if c.Workspace != "" {
				if err := corpus.Workspaces[c.Workspace].Build(ws); err != nil {
					t.Fatal(err)
				}
				cwd, fsys = filepath.Join(ws, c.CWD), hook.OSFS{}
			}
			dir := recordCall(t, root, cwd, c.Tool, c.Input)
			p := redecide.Policy{Hook: func(string, string) (*hook.Decider, error) {
				f := set
				if f.Root == "" {
					f.Root = ws
				}
				return hook.NewDecider(f, hook.DialectClaude)
			}}
			rep, err := redecide.Run(context.Background(), dir, p, redecide.Options{Env: c.Env, FS: fsys,
				NewAnswerer: func(string) intercept.Answerer { return c.Answerer() }})
			if err != nil {
				t.Fatal(err)
			}
			changes := rep.Cases[0].Changes
			switch {
			case c.Want == intercept.Deny:
				if len(changes) != 1 || changes[0].Kind != redecide.AllowedToDenied || !changes[0].Ran {
					t.Fatalf("changes = %+v, want the call denied", changes)
				}
				if !strings.Contains(changes[0].New.Reason, c.Reason) {
					t.Errorf("reason %q does not contain %q", changes[0].New.Reason, c.Reason)
				}
			case len(c.Answers) > 0:
				if len(changes) != 1 || changes[0].Kind != redecide.AnswerChanged {
					t.Fatalf("changes = %+v, want the answers", changes)
				}
				if diff := cmp.Diff(c.Answers, changes[0].New.Answers); diff != "" {
					t.Errorf("answers (-want +got):\n%s", diff)
				}
			case len(changes) != 0:
				t.Fatalf("changes = %+v, want none (%s)", changes, c.Want)
			}
		})
	}
}

// recordCall writes a run directory of one case whose transcript has one
// call, which came back, with no ledger line and no denial.
func recordCall(t *testing.T, root, ws, tool string, input map[string]any) rundir.Dir {
	t.Helper()
	d := rundir.Dir{Path: filepath.Join(root, "run")}
	in, err := json.Marshal(input)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		d.RunResult():        `{"schema_version":1,"run_id":"r","agent":"claude-code"}`,
		d.CaseResult("case"): `{"case_id":"case","workspace":` + quote(ws) + `}`,
		d.Transcript("case"): `{"kind":"tool_call","tool_use_id":"t1","tool":` + quote(tool) + `,"input":` + string(in) + "}\n" +
			`{"kind":"tool_result","tool_use_id":"t1","text":"ok"}` + "\n",
	}
	for p, s := range files {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return d
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
