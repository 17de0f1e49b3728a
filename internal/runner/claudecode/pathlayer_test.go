package claudecode

import (
	"strings"
	"testing"

	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/intercept"
	"github.com/agent-eval/agent-eval/internal/permissions"
	"github.com/agent-eval/agent-eval/internal/runner"
)

// TestHookFileFollowsTheSandbox: the hook's path layer is written where the
// sandbox is off, and left out where it is on — also when the compiled
// handlers carry denied paths of their own (compile writes them).
func TestHookFileFollowsTheSandbox(t *testing.T) {
	t.Parallel()
	compiled := permissions.Compile(nil, []config.PermissionRule{{Path: "secret/", Tools: []string{"Read", "Bash"}}})
	jira := intercept.Handler{Match: "Jira", Patterns: []string{"Bash"}, InputFilters: []string{`\bjira\b`}}
	for _, tc := range []struct {
		name     string
		handlers *intercept.File
		sandbox  bool
		want     int // denied paths in the hook file; -1: no hook file
	}{
		{"no sandbox, no handlers", nil, false, 1},
		{"no sandbox, handlers", &intercept.File{Handlers: []intercept.Handler{jira}}, false, 1},
		{"sandbox, no handlers", nil, true, -1},
		{"sandbox, handlers", &intercept.File{Handlers: []intercept.Handler{jira}}, true, 0},
		{"sandbox, handlers compiled with denied paths", &intercept.File{Handlers: []intercept.Handler{jira},
			DeniedPaths: []string{"secret/**"}, DeniedPathReasons: map[string]string{"secret/**": "x"}}, true, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			st := &started{s: runner.RunSetup{Handlers: tc.handlers, Permissions: compiled, Sandbox: config.SandboxDecision{On: tc.sandbox}}}
			f := st.hookFile("/ws", map[string]string{"Q?": "A"}, hiddenPaths{})
			switch {
			case tc.want < 0 && f != nil:
				t.Fatalf("a hook file with nothing to do: %+v", f)
			case tc.want < 0:
				return
			case f == nil:
				t.Fatal("no hook file")
			}
			if len(f.DeniedPaths) != tc.want || (tc.want == 0 && len(f.DeniedPathReasons) != 0) {
				t.Errorf("denied paths %v (reasons %v), want %d", f.DeniedPaths, f.DeniedPathReasons, tc.want)
			}
			if f.Root != "/ws" {
				t.Errorf("root %q, want /ws", f.Root)
			}
		})
	}
}

// TestHookFileGit: the hook's git layer is written in repo mode (read-only
// git) and wherever the eval denies a git command, sandbox or not; its
// Bash entry is wired.
func TestHookFileGit(t *testing.T) {
	t.Parallel()
	gitDeny := permissions.Compile(nil, []config.PermissionRule{{Pattern: "Bash(git push:*)"}, {Pattern: "Bash(rm:*)"}})
	for _, tc := range []struct {
		name    string
		perms   permissions.Compiled
		repo    string
		sandbox bool
		want    *intercept.GitPolicy
	}{
		{"nothing about git", permissions.Compiled{}, "", true, nil},
		{"a git deny rule", gitDeny, "", true, &intercept.GitPolicy{Deny: []string{"push"}}},
		{"repo mode", permissions.Compiled{}, "/repo", true, &intercept.GitPolicy{ReadOnly: true}},
		{"repo mode and a git deny rule", gitDeny, "/repo", false, &intercept.GitPolicy{ReadOnly: true, Deny: []string{"push"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			st := &started{s: runner.RunSetup{Permissions: tc.perms, Repo: tc.repo, Sandbox: config.SandboxDecision{On: tc.sandbox},
				Eval: &config.Eval{}}}
			f := st.hookFile("/ws", nil, hiddenPaths{})
			if tc.want == nil {
				if f != nil {
					t.Fatalf("a hook file with nothing to do: %+v", f)
				}
				return
			}
			if f == nil || f.Git == nil {
				t.Fatalf("hook file %+v, want git %+v", f, tc.want)
			}
			if f.Git.ReadOnly != tc.want.ReadOnly || strings.Join(f.Git.Deny, ",") != strings.Join(tc.want.Deny, ",") {
				t.Errorf("git = %+v, want %+v", *f.Git, *tc.want)
			}
			entries := HookSettings(*f, "hook", 10)
			if len(entries) != 1 || entries[0].Matcher != "Bash" {
				t.Errorf("hook entries %+v, want one for Bash", entries)
			}
		})
	}
}
