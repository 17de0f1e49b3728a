package permissions

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var broadAllow = []string{"Read(**)", "Write(**)", "Shell(**)", "WebFetch(*)", "Mcp(*:*)"}

// TestPlanCursor has a row for each rule of the seed's "Cursor deny-only
// configurations" and of upstream-run-spec §3.9.
func TestPlanCursor(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		allow, deny rules
		existing    map[string]any
		wantAllow   []string
		wantDeny    []string
		wantNil     bool
		warn        string
	}{
		{name: "neither list: write nothing", wantNil: true},
		{name: "deny-only: a broad default allow beside the denies",
			deny:      rules{s("mcp__*"), p("eval/", "Read", "Bash")},
			wantAllow: broadAllow, wantDeny: []string{"Mcp(*:*)", "Read(eval/**)", "Shell(**)"}},
		{name: "deny-only keeps an existing allow list",
			deny: rules{s("Bash(rm:*)")}, existing: map[string]any{"permissions": map[string]any{"allow": []any{"Read(src/**)"}, "deny": []any{"Write(.git/**)"}}},
			wantAllow: []string{"Read(src/**)"}, wantDeny: []string{"Write(.git/**)", "Shell(rm)"}},
		{name: "allow: ungranted capabilities become explicit denies",
			allow:     rules{s("Read"), p("artifacts/", "Write", "Edit"), s("Bash(git status)")},
			wantAllow: []string{"Read(**)", "Write(artifacts/**)", "Shell(git:status)"}, wantDeny: []string{"WebFetch(*)", "Mcp(*:*)"}},
		{name: "allow that maps to nothing: empty allow list (deny everything) and a warning",
			allow:     rules{s("Glob")},
			wantAllow: []string{}, wantDeny: broadAllow, warn: "did not map to any Cursor permission pattern"},
		{name: "allow cannot path-scope Shell: dropped with a warning",
			allow:     rules{p("scripts/", "Bash", "Read")},
			wantAllow: []string{"Read(scripts/**)"}, wantDeny: []string{"Write(**)", "Shell(**)", "WebFetch(*)", "Mcp(*:*)"}, warn: "cannot path-scope Bash"},
		{name: "translations",
			allow:     rules{s("Grep(docs/)"), s("WebFetch(domain:example.com)"), s("mcp__jira__get_issue"), s("mcp__slack"), s("Mcp(s:t)"), s("Bash(npm test *)")},
			deny:      rules{s("Agent"), s("Glob(secret/**)"), s("WebSearch"), s("Bash(python3 -c *)")},
			wantAllow: []string{"Read(docs/**)", "WebFetch(example.com)", "Mcp(jira:get_issue)", "Mcp(slack:*)", "Mcp(s:t)", "Shell(npm:test)"},
			wantDeny:  []string{"Read(secret/**)", "WebFetch(*)", "Shell(python3:-c)", "Write(**)"}},
	}
	for _, tt := range tests {
		got, err := PlanCursor(tt.allow, tt.deny, tt.existing)
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if tt.wantNil {
			if got.Config != nil {
				t.Errorf("%s: wrote %v, want nothing", tt.name, got.Config)
			}
			continue
		}
		perms := got.Config["permissions"].(map[string]any)
		if diff := cmp.Diff(tt.wantAllow, perms["allow"]); diff != "" {
			t.Errorf("%s: allow (-want +got):\n%s", tt.name, diff)
		}
		if diff := cmp.Diff(tt.wantDeny, perms["deny"]); diff != "" {
			t.Errorf("%s: deny (-want +got):\n%s", tt.name, diff)
		}
		if joined := strings.Join(got.Warnings, "\n"); (tt.warn == "") != (joined == "") || !strings.Contains(joined, tt.warn) {
			t.Errorf("%s: warnings %q, want %q", tt.name, got.Warnings, tt.warn)
		}
	}
	for _, r := range []rules{{s("Skill")}, {s("Agent")}} {
		if _, err := PlanCursor(r, nil, nil); err == nil {
			t.Errorf("PlanCursor(allow %v) succeeded, want an error (no Cursor equivalent)", r)
		}
	}
}

func TestWriteCursorConfig(t *testing.T) {
	t.Parallel()
	doc := map[string]any{"permissions": map[string]any{"allow": []string{"Read(**)"}, "deny": []string{}}}

	// No .cursor before: it is created and removed again.
	ws := t.TempDir()
	restore, err := WriteCursorConfig(ws, doc)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := ReadCursorConfig(ws); err != nil || got["permissions"] == nil {
		t.Fatalf("ReadCursorConfig after write = %v, %v", got, err)
	}
	if err := restore(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(ws, ".cursor")); !os.IsNotExist(err) {
		t.Errorf("restore left .cursor behind (%v)", err)
	}

	// An existing cli.json is restored byte for byte, mode included.
	ws = t.TempDir()
	if err := os.Mkdir(filepath.Join(ws, ".cursor"), 0o755); err != nil {
		t.Fatal(err)
	}
	orig := []byte("{\"permissions\": {\"allow\": [\"Read(src/**)\"]}}  \n")
	cfg := filepath.Join(ws, CursorConfigPath)
	if err := os.WriteFile(cfg, orig, 0o640); err != nil {
		t.Fatal(err)
	}
	restore, err = WriteCursorConfig(ws, doc)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(cfg); string(b) == string(orig) {
		t.Error("the new config was not written")
	}
	if err := restore(); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(cfg)
	st, _ := os.Stat(cfg)
	if string(b) != string(orig) || st.Mode().Perm() != 0o640 {
		t.Errorf("restored %q mode %v, want the original bytes and 0640", b, st.Mode().Perm())
	}

	// Symlinks are never followed.
	outside := t.TempDir()
	ws = t.TempDir()
	if err := os.Symlink(outside, filepath.Join(ws, ".cursor")); err != nil {
		t.Fatal(err)
	}
	if _, err := WriteCursorConfig(ws, doc); err == nil {
		t.Error("wrote through a symlinked .cursor")
	}
	ws = t.TempDir()
	_ = os.Mkdir(filepath.Join(ws, ".cursor"), 0o755)
	if err := os.Symlink(filepath.Join(outside, "x.json"), filepath.Join(ws, CursorConfigPath)); err != nil {
		t.Fatal(err)
	}
	if _, err := WriteCursorConfig(ws, doc); err == nil {
		t.Error("wrote through a symlinked cli.json")
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("files appeared outside the workspace: %v", entries)
	}
}
