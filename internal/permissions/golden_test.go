package permissions

import (
	"encoding/json"
	"testing"

	"github.com/agent-eval/agent-eval/internal/testutil/golden"
)

// TestSettingsGolden pins the documents a run writes for the seed's example
// block: the workspace settings (with twins), .eval-permissions.json, the
// provider-plan overlay and Cursor's cli.json.
func TestSettingsGolden(t *testing.T) {
	t.Parallel()
	allow := rules{s("Skill"), s("Bash(python3 scripts/foo.py *)"), p("artifacts/", "Write")}
	deny := rules{s("mcp__*"), p("eval/", "Read", "Bash"), p("eval.yaml", "Read"), p("tmp/", "Read", "Edit")}
	project := map[string]any{"permissions": map[string]any{"allow": []any{"Bash(make test)"}, "deny": []any{"Bash(curl *)"}}, "env": map[string]any{"CI": "1"}}
	c := Compile(allow, deny)
	ws, _, _ := WorkspaceSettings(project, c, []string{"/work/case-001"}, func(rel string) bool { return rel == "scripts/foo.py" })
	cursor, err := PlanCursor(rules{s("Read"), p("artifacts/", "Write")}, deny, nil)
	if err != nil {
		t.Fatal(err)
	}
	docs := map[string]any{
		".claude/settings.json":                       ws,
		".claude/" + PermissionsFile:                  PlanClaude(c, ws, ".claude", nil),
		".claude/" + OverlayFile + " (provider plan)": PlanClaude(c, ws, ".claude", map[string]string{"ANTHROPIC_BASE_URL": "https://plan.example/api", "ANTHROPIC_API_KEY": ""}),
		CursorConfigPath:                              cursor,
	}
	b, err := json.MarshalIndent(docs, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden.Assert(t, "testdata/settings.golden.json", append(b, '\n'))
}
