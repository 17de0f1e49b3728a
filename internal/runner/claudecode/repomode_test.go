package claudecode

import (
	"os/exec"
	"slices"
	"testing"
	"time"

	"github.com/agent-eval/agent-eval/internal/testutil"
)

// TestRepoModeDenies: an agent run in the project itself (repo mode) gets,
// in the settings file Claude Code is pointed at, denies of editing the
// project and its git folder (Claude Code's sandbox takes them as its
// denyWrite, so Bash cannot write there either), of its worktree tools and
// of git's writing verbs, and may edit only its output folder.
func TestRepoModeDenies(t *testing.T) {
	st, ws, _, project, _ := hiddenSetup(t)
	if out, err := exec.CommandContext(testutil.Context(t, time.Minute), "git", "-C", project, "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, out)
	}
	st.s.Repo = project
	st.s.Warn = func(string) {}
	s := agentSettingsOf(t, st, ws)
	tests := []struct {
		name, rule string
		allow      bool
	}{
		{"the project", "Edit(/" + project + "/**)", false},
		{"its git folder", "Edit(/" + project + "/.git/**)", false},
		{"the eval file", "Edit(eval.yaml)", false},
		{"the dataset", "Read(cases/**)", false},
		{"the runs", "Edit(runs/e/**)", false},
		{"worktree tool", "EnterWorktree", false},
		{"git commit", "Bash(git commit:*)", false},
		{"git checkout", "Bash(git checkout:*)", false},
		{"output read", "Read(/" + ws + "/**)", true},
		{"output edit", "Edit(/" + ws + "/**)", true},
	}
	for _, tt := range tests {
		list := s.Permissions.Deny
		if tt.allow {
			list = s.Permissions.Allow
		}
		if !slices.Contains(list, tt.rule) {
			t.Errorf("%s: no rule %s (allow=%v) in %+v", tt.name, tt.rule, tt.allow, s.Permissions)
		}
	}
}
