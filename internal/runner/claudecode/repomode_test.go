package claudecode

import (
	"encoding/json"
	"os"
	"os/exec"
	"slices"
	"testing"
)

// TestRepoModeDenies: an agent run in the project itself (repo mode) gets,
// in the settings file Claude Code is pointed at, denies of editing the
// project and its git folder (Claude Code's sandbox takes them as its
// denyWrite, so Bash cannot write there either), of its worktree tools and
// of git's writing verbs, and may edit only its output folder.
func TestRepoModeDenies(t *testing.T) {
	st, ws, _, project, _ := hiddenSetup(t)
	if out, err := exec.Command("git", "-C", project, "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, out)
	}
	st.s.Repo = project
	st.s.Warn = func(string) {}
	args, cleanup, err := st.settings(ws, nil)
	if err != nil {
		t.Fatal(err)
	}
	if cleanup != nil {
		t.Cleanup(cleanup)
	}
	i := slices.Index(args, "--settings")
	if i < 0 || i+1 >= len(args) {
		t.Fatalf("settings args %v: no --settings file", args)
	}
	b, err := os.ReadFile(args[i+1])
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Permissions struct{ Allow, Deny []string }
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("%s: %v", args[i+1], err)
	}
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
			t.Errorf("%s: no rule %s (allow=%v) in %s", tt.name, tt.rule, tt.allow, b)
		}
	}
}
