package redecide_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/agent-eval/agent-eval/internal/hook"
	"github.com/agent-eval/agent-eval/internal/intercept"
	"github.com/agent-eval/agent-eval/internal/redecide"
	"github.com/agent-eval/agent-eval/internal/rundir"
)

var (
	jira = intercept.Handler{Match: "Jira.", Patterns: []string{"Bash"}, InputFilters: []string{`\bjira\b`},
		EnvChecks: map[string]intercept.EnvCheck{"JIRA_SERVER": {MustContain: []string{"test"}}}}
	questions = func(answer string) intercept.Handler {
		return intercept.Handler{Match: "Questions.", Patterns: []string{"AskUserQuestion"}, CaseOverrides: map[string]string{"Deploy to production?": answer}}
	}
	askModel = intercept.Handler{Match: "Questions.", Prompt: "Answer from the case.", Patterns: []string{"AskUserQuestion"}}
)

// policy is a Policy of handlers (and denied paths) rooted at each case's
// recorded workspace, as the CLI builds it.
func policy(t *testing.T, f intercept.File, allow, deny []string) redecide.Policy {
	return redecide.Policy{Allow: allow, Deny: deny, Home: "/home/u", Hook: func(_, ws string) (*hook.Decider, error) {
		f.Root = ws
		if f.Handlers == nil {
			f.Handlers = []intercept.Handler{}
		}
		return hook.NewDecider(f, hook.DialectClaude)
	}}
}

func TestReplayFixture(t *testing.T) {
	t.Parallel()
	dir, err := rundir.Open("testdata/run")
	if err != nil {
		t.Fatal(err)
	}
	// The fixture's case: #1 jira (passed its check, ran), #2 cat
	// secret/key.txt (the hook denied it), #3 Write notes.md (ran), #4 rm
	// -rf build (the runner denied it), #5 AskUserQuestion (answered "no").
	// The recorded policy: the secret path denied, jira checked, rm denied.
	recorded := intercept.File{DeniedPaths: []string{"secret/**"}, Handlers: []intercept.Handler{jira, questions("no")}}
	tests := []struct {
		name      string
		policy    redecide.Policy
		env       map[string]string
		noLLM     bool
		llm       string   // what the hook model answers ("": no model)
		want      []string // index:kind of each change
		deniedRan int
		reason    string // in the first change's new reason
	}{
		{name: "the recorded policy changes nothing", policy: policy(t, recorded, nil, []string{"Bash(rm:*)"}),
			env: map[string]string{"JIRA_SERVER": "https://jira.test"}},
		{name: "an env the check refuses denies a call that ran", policy: policy(t, recorded, nil, []string{"Bash(rm:*)"}),
			env: map[string]string{"JIRA_SERVER": "https://jira.example.com"}, want: []string{"1:" + redecide.AllowedToDenied}, deniedRan: 1, reason: "JIRA_SERVER"},
		{name: "a new deny rule denies a write that ran", policy: policy(t, recorded, nil, []string{"Bash(rm:*)", "Write"}),
			env: map[string]string{"JIRA_SERVER": "https://jira.test"}, want: []string{"3:" + redecide.AllowedToDenied}, deniedRan: 1, reason: "Write"},
		{name: "dropping the denied path allows what the hook denied", policy: policy(t, intercept.File{Handlers: []intercept.Handler{jira, questions("no")}}, nil, []string{"Bash(rm:*)"}),
			env: map[string]string{"JIRA_SERVER": "https://jira.test"}, want: []string{"2:" + redecide.DeniedToAllowed}, reason: "no rule denies"},
		{name: "an allow rule allows what the runner denied", policy: policy(t, recorded, []string{"Bash(rm:*)"}, nil),
			env: map[string]string{"JIRA_SERVER": "https://jira.test"}, want: []string{"4:" + redecide.DeniedToAllowed}, reason: "Bash(rm:*)"},
		{name: "a new override changes the answer", policy: policy(t, intercept.File{DeniedPaths: []string{"secret/**"}, Handlers: []intercept.Handler{jira, questions("yes")}}, nil, []string{"Bash(rm:*)"}),
			env: map[string]string{"JIRA_SERVER": "https://jira.test"}, want: []string{"5:" + redecide.AnswerChanged}},
		{name: "a question for the model is undecidable offline", policy: policy(t, intercept.File{DeniedPaths: []string{"secret/**"}, Handlers: []intercept.Handler{jira, askModel}}, nil, []string{"Bash(rm:*)"}),
			env: map[string]string{"JIRA_SERVER": "https://jira.test"}, noLLM: true, want: []string{"5:" + redecide.Undecidable}, reason: "--no-llm"},
		{name: "the hook model's new answer is an answer change", policy: policy(t, intercept.File{DeniedPaths: []string{"secret/**"}, Handlers: []intercept.Handler{jira, askModel}}, nil, []string{"Bash(rm:*)"}),
			env: map[string]string{"JIRA_SERVER": "https://jira.test"}, llm: "yes", want: []string{"5:" + redecide.AnswerChanged}},
		// notes.md is denied at any depth, so rm -rf build may remove one:
		// the path layer keeps the call denied whatever the rules allow (and
		// Claude Code's Write is its permission rules' to judge, not the
		// path layer's).
		{name: "a denied path under what rm removes keeps it denied", policy: policy(t, intercept.File{DeniedPaths: []string{"secret/**", "notes.md"}, Handlers: []intercept.Handler{jira, questions("no")}}, []string{"Bash(rm:*)"}, nil),
			env: map[string]string{"JIRA_SERVER": "https://jira.test"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			opts := redecide.Options{Env: tc.env}
			if !tc.noLLM {
				opts.NewAnswerer = func(string) intercept.Answerer {
					if tc.llm == "" {
						return nil
					}
					return model(tc.llm)
				}
			}
			rep, err := redecide.Run(context.Background(), dir, tc.policy, opts)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Calls != 5 || len(rep.Cases) != 1 {
				t.Fatalf("calls = %d in %d cases, want 5 in 1", rep.Calls, len(rep.Cases))
			}
			var got []string
			for _, ch := range rep.Cases[0].Changes {
				got = append(got, fmt.Sprintf("%d:%s", ch.Index, ch.Kind))
			}
			if strings.Join(got, " ") != strings.Join(tc.want, " ") {
				t.Fatalf("changes = %v, want %v\n%+v", got, tc.want, rep.Cases[0].Changes)
			}
			if rep.DeniedRan != tc.deniedRan {
				t.Errorf("denied_ran = %d, want %d", rep.DeniedRan, tc.deniedRan)
			}
			if tc.reason != "" && !strings.Contains(rep.Cases[0].Changes[0].New.Reason, tc.reason) {
				t.Errorf("new reason %q lacks %q", rep.Cases[0].Changes[0].New.Reason, tc.reason)
			}
			if tc.llm != "" && rep.Cases[0].Changes[0].New.Answers["Deploy to production?"] != tc.llm {
				t.Errorf("new answers = %v, want the model's %q", rep.Cases[0].Changes[0].New.Answers, tc.llm)
			}
			if len(got) > 0 && rep.Cases[0].Changes[0].Old.Reason == "" {
				t.Errorf("the old reason is empty")
			}
		})
	}
}

func TestReplayUnreadable(t *testing.T) {
	t.Parallel()
	_, err := redecide.Run(context.Background(), rundir.Dir{Path: t.TempDir()}, redecide.Policy{}, redecide.Options{})
	if err == nil || !strings.Contains(err.Error(), "cannot read the run") {
		t.Fatalf("err = %v, want the run unreadable", err)
	}
}

// model is a hook model that always gives one answer.
type model string

func (m model) Answer(context.Context, intercept.Question) (string, error) { return string(m), nil }
