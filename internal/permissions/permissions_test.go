package permissions

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/agent-eval/agent-eval/internal/config"
)

func s(pattern string) config.PermissionRule { return config.PermissionRule{Pattern: pattern} }

func p(path string, tools ...string) config.PermissionRule {
	return config.PermissionRule{Path: path, Tools: tools}
}

type rules = []config.PermissionRule

// TestCompile has a row for every example of the permissions seed page, plus
// the effective equivalents Claude Code 2.1.332 needs.
func TestCompile(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		allow, deny rules
		want        Compiled
		notes       int
	}{
		{"seed: both forms mixed",
			rules{s("Skill"), p("artifacts/", "Write")}, rules{s("mcp__*"), p("eval/", "Read", "Bash")},
			Compiled{Form: FormPath, Allow: []string{"Skill", "Write(artifacts/**)", "Edit(artifacts/**)"},
				Deny: []string{"mcp__*", "Read(eval/**)", "Edit(eval/**)"}}, 0},
		{"seed: harden_bash",
			nil, rules{p("eval/", "Bash")},
			Compiled{Form: FormPath, Allow: []string{}, Deny: []string{"Read(eval/**)", "Edit(eval/**)"}}, 0},
		{"seed: a directory is recursive, a file verbatim",
			nil, rules{p("eval/", "Read"), p("eval.yaml", "Read")},
			Compiled{Form: FormPath, Allow: []string{}, Deny: []string{"Read(eval/**)", "Read(eval.yaml)"}}, 0},
		{"seed: simple only passes through",
			rules{s("Skill"), s("Read")}, rules{s("mcp__*")},
			Compiled{Form: FormSimple, Allow: []string{"Skill", "Read"}, Deny: []string{"mcp__*"}}, 0},
		{"seed: harden_bash is deny-only",
			rules{p("scripts/", "Bash")}, nil,
			Compiled{Form: FormPath, Allow: []string{}, Deny: []string{}}, 1},
		{"seed: common patterns (answer key in repo mode)",
			nil, rules{p("eval/", "Read", "Edit", "Bash"), p("eval.yaml", "Read"), p("eval.md", "Read"), p("tmp/", "Read", "Edit")},
			Compiled{Form: FormPath, Allow: []string{},
				Deny: []string{"Read(eval/**)", "Edit(eval/**)", "Read(eval.yaml)", "Read(eval.md)", "Read(tmp/**)", "Edit(tmp/**)"}}, 0},
		{"Grep and Glob also deny Read, which Claude Code consults",
			nil, rules{p("eval/", "Grep", "Glob")},
			Compiled{Form: FormPath, Allow: []string{}, Deny: []string{"Grep(eval/**)", "Read(eval/**)", "Glob(eval/**)"}}, 0},
		{"a tool that takes no path is dropped with a note",
			rules{p("docs/", "Read", "WebFetch")}, nil,
			Compiled{Form: FormPath, Allow: []string{"Read(docs/**)"}, Deny: []string{}}, 1},
		{"an absolute path is spelled //",
			nil, rules{p("/etc/secrets/", "Read"), p("//already", "Read")},
			Compiled{Form: FormPath, Allow: []string{}, Deny: []string{"Read(//etc/secrets/**)", "Read(//already)"}}, 0},
		{"duplicates are dropped, first-seen order kept",
			rules{s("Skill"), p("a/", "Edit"), s("Skill"), p("a/", "Write")}, nil,
			Compiled{Form: FormPath, Allow: []string{"Skill", "Edit(a/**)", "Write(a/**)"}, Deny: []string{}}, 0},
		{"nothing configured",
			nil, nil,
			Compiled{Form: FormSimple, Allow: []string{}, Deny: []string{}}, 0},
	}
	for _, tt := range tests {
		got := Compile(tt.allow, tt.deny)
		if diff := cmp.Diff(tt.want, got, cmpopts.IgnoreFields(Compiled{}, "Notes")); diff != "" {
			t.Errorf("%s: Compile (-want +got):\n%s", tt.name, diff)
		}
		if len(got.Notes) != tt.notes {
			t.Errorf("%s: %d notes %v, want %d", tt.name, len(got.Notes), got.Notes, tt.notes)
		}
	}
}

func TestPlanClaude(t *testing.T) {
	t.Parallel()
	simple := Compile(rules{s("Skill"), s("Read")}, rules{s("mcp__*")})
	path := Compile(rules{p("artifacts/", "Write")}, rules{p("eval/", "Read")})
	existing := map[string]any{
		"permissions": map[string]any{"allow": []any{"Bash(make *)"}, "deny": []any{"Read(eval/**)", "Bash(curl *)"}},
		"hooks":       map[string]any{"PreToolUse": []any{}},
		"env":         map[string]any{"KEEP": "1", "ANTHROPIC_BASE_URL": "old"},
	}
	tests := []struct {
		name     string
		c        Compiled
		existing map[string]any
		planEnv  map[string]string
		want     ClaudePlan
	}{
		{"seed: simple rules become flags, no file", simple, existing, nil,
			ClaudePlan{Args: []string{"--disallowed-tools", "mcp__*", "--allowed-tools", "Skill,Read"}}},
		{"seed: path rules merge into .eval-permissions.json", path, existing, nil,
			ClaudePlan{Args: []string{"--settings", ".claude/.eval-permissions.json"}, SettingsFile: PermissionsFile,
				Settings: map[string]any{
					"permissions": map[string]any{"allow": []string{"Bash(make *)", "Write(artifacts/**)", "Edit(artifacts/**)"},
						"deny": []string{"Read(eval/**)", "Bash(curl *)"}},
					"hooks": map[string]any{"PreToolUse": []any{}},
					"env":   map[string]any{"KEEP": "1", "ANTHROPIC_BASE_URL": "old"}}}},
		{"path rules without existing settings", path, nil, nil,
			ClaudePlan{Args: []string{"--settings", ".claude/.eval-permissions.json"}, SettingsFile: PermissionsFile,
				Settings: map[string]any{"permissions": map[string]any{"allow": []string{"Write(artifacts/**)", "Edit(artifacts/**)"}, "deny": []string{"Read(eval/**)"}}}}},
		{"seed: a provider plan writes .eval-overlay.json even for simple rules, flags alongside", simple, existing,
			map[string]string{"ANTHROPIC_BASE_URL": "https://plan", "ANTHROPIC_AUTH_TOKEN": "k"},
			ClaudePlan{Args: []string{"--disallowed-tools", "mcp__*", "--allowed-tools", "Skill,Read", "--settings", ".claude/.eval-overlay.json"},
				SettingsFile: OverlayFile,
				Settings: map[string]any{
					"permissions": map[string]any{"allow": []any{"Bash(make *)"}, "deny": []any{"Read(eval/**)", "Bash(curl *)"}},
					"hooks":       map[string]any{"PreToolUse": []any{}},
					"env":         map[string]any{"KEEP": "1", "ANTHROPIC_BASE_URL": "https://plan", "ANTHROPIC_AUTH_TOKEN": "k"}}}},
	}
	for _, tt := range tests {
		got := PlanClaude(tt.c, tt.existing, ".claude", tt.planEnv)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s: PlanClaude (-want +got):\n%s", tt.name, diff)
		}
	}
	if _, ok := existing["permissions"].(map[string]any)["allow"].([]any); !ok {
		t.Error("PlanClaude changed the existing settings it was given")
	}
}

// TestTwins has a row for every example of upstream-run-spec §3.7.
func TestTwins(t *testing.T) {
	t.Parallel()
	const ws = "/ws"
	present := map[string]bool{"scripts/foo.py": true, "scripts/": true}
	exists := func(rel string) bool { return present[rel] }
	tests := []struct {
		rule  string
		allow bool
		want  []string // twins added
	}{
		{"Bash(python3 scripts/foo.py *)", true, []string{"Bash(python3 /ws/scripts/foo.py *)"}},
		{"Bash(python3 ./scripts/foo.py *)", true, []string{"Bash(python3 /ws/scripts/foo.py *)"}},
		{"Bash(python3 scripts/foo.py:*)", true, []string{"Bash(python3 /ws/scripts/foo.py:*)"}},
		{"Bash(ls scripts/)", true, []string{"Bash(ls /ws/scripts/)"}},
		{"Bash(python3 * scripts/foo.py)", true, nil},
		{"Bash(python3 scripts/*.py *)", true, nil},
		{"Bash(python3 /opt/x.py *)", true, nil},
		{"Bash(python3 ../scripts/foo.py *)", true, nil},
		{"Bash(python3 scripts/missing.py *)", true, nil},
		{"Bash(make)", true, nil},
		{"Read(scripts/**)", true, nil},
		{"Bash(python3 scripts/*)", false, []string{"Bash(python3 /ws/scripts/*)"}},
		{"Bash(python3 * scripts/foo.py)", false, []string{"Bash(python3 * /ws/scripts/foo.py)"}},
		{"Bash(python3 scripts/missing.py *)", false, []string{"Bash(python3 /ws/scripts/missing.py *)"}},
	}
	for _, tt := range tests {
		got, warn := Twins([]string{tt.rule}, []string{ws}, tt.allow, exists)
		want := append([]string{tt.rule}, tt.want...)
		if warn != "" || !cmp.Equal(want, got) {
			t.Errorf("Twins(%q, allow=%v) = %q (warning %q), want %q", tt.rule, tt.allow, got, warn, want)
		}
		again, _ := Twins(got, []string{ws}, tt.allow, exists)
		if !cmp.Equal(got, again) {
			t.Errorf("Twins is not idempotent on %q: %q then %q", tt.rule, got, again)
		}
	}
	got, _ := Twins([]string{"Bash(python3 scripts/foo.py *)"}, []string{"/tmp/link", "/real/ws"}, true, exists)
	if want := []string{"Bash(python3 scripts/foo.py *)", "Bash(python3 /tmp/link/scripts/foo.py *)", "Bash(python3 /real/ws/scripts/foo.py *)"}; !cmp.Equal(want, got) {
		t.Errorf("symlinked workspace: %q, want %q", got, want)
	}
	for _, bad := range []string{"/my ws", "/ws*", "/w$s", "/w'q"} {
		got, warn := Twins([]string{"Bash(python3 scripts/foo.py *)"}, []string{bad}, true, exists)
		if len(got) != 1 || !strings.Contains(warn, "cannot be spliced") {
			t.Errorf("Twins with base %q = %q, %q; want no twins and a warning", bad, got, warn)
		}
	}
}

func TestLint(t *testing.T) {
	t.Parallel()
	tests := []struct {
		allow, deny rules
		want        string // a substring of the one finding; "" for none
	}{
		{rules{s("mcp__*")}, nil, "skips an allow glob"},
		{rules{s("*")}, nil, "skips an allow glob"},
		{rules{s("mcp__jira__*")}, nil, ""},
		{nil, rules{s("mcp__*")}, ""},
		{rules{p("docs/", "WebFetch")}, nil, "WebFetch takes no path"},
		{rules{p("scripts/", "Bash")}, nil, "Bash cannot be scoped"},
		{nil, rules{p("eval/", "Bash")}, ""},
		{nil, rules{s("Bash(eval/**)")}, "match the command string, not a path"},
		{rules{s("Bash(python3 scripts/foo.py *)")}, nil, ""},
		{nil, rules{s("Read(eval/*)")}, "only the files directly inside"},
		{nil, rules{p("eval/*", "Read")}, "only the files directly inside"},
		{nil, rules{s("Read(/etc/passwd)")}, "write //etc/passwd"},
		{nil, rules{s("Read(//etc/passwd)")}, ""},
		{rules{s("Write(artifacts/**)")}, nil, "write Edit(artifacts/**)"},
		{nil, rules{s("Grep(eval/**)")}, "write Read(eval/**)"},
		{rules{s("Skill"), s("Edit(artifacts/**)")}, nil, ""},
	}
	for _, tt := range tests {
		got := Lint(tt.allow, tt.deny)
		switch {
		case tt.want == "" && len(got) > 0:
			t.Errorf("Lint(%v, %v) = %v, want nothing", tt.allow, tt.deny, got)
		case tt.want != "" && (len(got) != 1 || !strings.Contains(got[0].Msg, tt.want)):
			t.Errorf("Lint(%v, %v) = %v, want one finding with %q", tt.allow, tt.deny, got, tt.want)
		}
	}
}

func TestWriteSettingsFile(t *testing.T) {
	t.Parallel()
	settings := map[string]any{"permissions": map[string]any{"deny": []string{"Read(eval/**)"}}}
	dir := t.TempDir()
	path, remove, err := WriteSettingsFile(dir, OverlayFile, settings)
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("stat %s = %v, %v; want mode 0600", path, st, err)
	}
	b, _ := os.ReadFile(path)
	if want := "{\n  \"permissions\": {\n    \"deny\": [\n      \"Read(eval/**)\"\n    ]\n  }\n}\n"; string(b) != want {
		t.Errorf("content = %q, want %q", b, want)
	}
	// A stale regular file from an earlier run is replaced.
	if _, _, err := WriteSettingsFile(dir, OverlayFile, map[string]any{"x": 1}); err != nil {
		t.Errorf("replacing a stale file: %v", err)
	}
	if err := remove(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(path); !os.IsNotExist(err) {
		t.Errorf("remove left %s behind", path)
	}
	if err := remove(); err != nil {
		t.Errorf("a second remove: %v", err)
	}

	target := filepath.Join(dir, "target.json")
	if err := os.WriteFile(target, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	refused := map[string]func(string) error{
		"a symlink":          func(p string) error { return os.Symlink(target, p) },
		"a hard-linked file": func(p string) error { return os.Link(target, p) },
		"a directory":        func(p string) error { return os.Mkdir(p, 0o755) },
		"a dangling symlink": func(p string) error { return os.Symlink(filepath.Join(dir, "nowhere"), p) },
	}
	for what, make := range refused {
		d := t.TempDir()
		if err := make(filepath.Join(d, PermissionsFile)); err != nil {
			t.Fatal(err)
		}
		if _, _, err := WriteSettingsFile(d, PermissionsFile, settings); err == nil {
			t.Errorf("WriteSettingsFile over %s succeeded, want a refusal", what)
		}
	}
	if b, _ := os.ReadFile(target); string(b) != "{}" {
		t.Errorf("the symlink/hard-link target was modified: %q", b)
	}
}

func TestWorkspaceSettings(t *testing.T) {
	t.Parallel()
	project := map[string]any{
		"permissions": map[string]any{"allow": []any{"Bash(python3 scripts/foo.py *)"}, "deny": []any{"Bash(python3 scripts/*)"}},
		"env":         map[string]any{"A": "1"},
	}
	c := Compile(rules{s("Skill"), s("Bash(ls tools/)")}, rules{s("Bash(curl *)"), p("eval/", "Read")})
	exists := func(rel string) bool { return rel == "scripts/foo.py" }
	got, twins, warn := WorkspaceSettings(project, c, []string{"/ws"}, exists)
	want := map[string]any{
		"permissions": map[string]any{
			"allow": []string{"Bash(python3 scripts/foo.py *)", "Skill", "Bash(ls tools/)", "Bash(python3 /ws/scripts/foo.py *)"},
			"deny":  []string{"Bash(python3 scripts/*)", "Bash(curl *)", "Read(eval/**)", "Bash(python3 /ws/scripts/*)"},
		},
		"env": map[string]any{"A": "1"},
	}
	if diff := cmp.Diff(want, got); diff != "" || warn != "" {
		t.Errorf("WorkspaceSettings (-want +got), warning %q:\n%s", warn, diff)
	}
	if diff := cmp.Diff([]string{"Bash(python3 /ws/scripts/foo.py *)", "Bash(python3 /ws/scripts/*)"}, twins); diff != "" {
		t.Errorf("twins (-want +got):\n%s", diff)
	}
	again, more, _ := WorkspaceSettings(got, c, []string{"/ws"}, exists)
	if !cmp.Equal(got, again) || len(more) != 0 {
		t.Errorf("WorkspaceSettings is not idempotent: %v, twins %v", again, more)
	}
}

func TestHookDeniedPaths(t *testing.T) {
	t.Parallel()
	tests := []struct {
		deny []string
		want []string
	}{
		{[]string{"Read(secret/**)", "Edit(secret/**)", "Read(//abs/x)", "Read(secret/**)"}, []string{"secret/**", "//abs/x"}},
		{[]string{"Edit(.claude/**)", "Bash(git push:*)"}, nil},
		{[]string{"Read(secret/**)", "Bash"}, nil}, // Bash denied outright: no Bash to guard
		{[]string{"Read(secret/**)", "Bash(*)"}, nil},
		{[]string{"Read(secret/**)", "Bash(:*)"}, nil},
		{[]string{"Bash(rm:*)", "Read(.env)"}, []string{".env"}}, // one command denied: Bash still runs
		{[]string{"Read()"}, nil},
	}
	for _, tt := range tests {
		if got := HookDeniedPaths(tt.deny); !slices.Equal(got, tt.want) {
			t.Errorf("HookDeniedPaths(%q) = %q, want %q", tt.deny, got, tt.want)
		}
	}
}

// A {path, tools, reason} rule keeps its reason: in the compiled rules'
// Reasons (permissions --json, the hook's deny messages) and in its notes.
func TestCompileReasons(t *testing.T) {
	t.Parallel()
	deny := []config.PermissionRule{
		{Path: "eval/", Tools: []string{"Read", "Bash"}, Reason: "holds the answer key"},
		{Path: "eval/", Tools: []string{"Read"}, Reason: "second reason loses"},
		{Path: "docs/", Tools: []string{"Edit"}},
	}
	allow := []config.PermissionRule{{Path: "out/", Tools: []string{"Bash"}, Reason: "scratch space"}}
	c := Compile(allow, deny)
	want := map[string]string{"Read(eval/**)": "holds the answer key", "Edit(eval/**)": "holds the answer key"}
	if !cmp.Equal(want, c.Reasons) {
		t.Errorf("Reasons = %v, want %v", c.Reasons, want)
	}
	if len(c.Notes) != 1 || c.Notes[0].Reason != "scratch space" {
		t.Errorf("notes = %+v, want one carrying the rule's reason", c.Notes)
	}
}
