package agentcall

import "testing"

func TestDefang(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		renamed  bool
	}{
		{"report/summary.md", "report/summary.md", false},
		{"CLAUDE.md", "CLAUDE.md.untrusted", true},
		{"docs/Agents.md", "docs/Agents.md.untrusted", true},
		{".claude/settings.local.json", ".claude.untrusted/settings.local.json", true},
		{".Gemini/settings.json", ".Gemini.untrusted/settings.json", true},
		{"a/.git/hooks/x", "a/.git.untrusted/hooks/x", true},
		{"claude.md.bak", "claude.md.bak", false},
		{"my.claude/x", "my.claude/x", false},
	} {
		got, renamed := Defang(tc.in)
		if got != tc.want || renamed != tc.renamed {
			t.Errorf("Defang(%q) = %q, %v; want %q, %v", tc.in, got, renamed, tc.want, tc.renamed)
		}
	}
}
