package gemini

import (
	"strings"
	"testing"

	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/permissions"
)

func TestCompilePolicy(t *testing.T) {
	c := permissions.Compile([]config.PermissionRule{{Pattern: "Bash(git status:*)"}},
		[]config.PermissionRule{{Path: "secret/", Tools: []string{"Read", "Bash"}, Reason: "the key"}, {Pattern: "Bash(curl:*)"}, {Pattern: "WebSearch"}})
	var warns []string
	p := compilePolicy(c, func(s string) { warns = append(warns, s) })
	t.Log(p.toml)
	for _, want := range []string{
		"toolName = \"run_shell_command\"\ncommandPrefix = 'git status'\ndecision = \"allow\"",
		"commandPrefix = 'curl'\ndecision = \"deny\"\npriority = 900\ndenyMessage = 'eval.yaml denies Bash(curl:*)'",
		`argsPattern = '"file_path":"(\./)?secret/[^"]*'`,
		"toolName = \"google_web_search\"\ndecision = \"deny\"",
	} {
		if !strings.Contains(p.toml, want) {
			t.Errorf("policy lacks %q:\n%s", want, p.toml)
		}
	}
	if strings.Join(p.exclude, ",") != "google_web_search" {
		t.Errorf("exclude = %v", p.exclude)
	}
}

// TestCompilePolicyWriteAllows: an allow list of paths for Write limits
// write_file and replace to them, as headless Claude Code denies the
// writes nobody approved.
func TestCompilePolicyWriteAllows(t *testing.T) {
	c := permissions.Compile([]config.PermissionRule{{Path: "artifacts/", Tools: []string{"Write"}}}, nil)
	p := compilePolicy(c, func(string) {})
	for _, want := range []string{
		"toolName = \"write_file\"\nargsPattern = '\"file_path\":\"(\\./)?artifacts/[^\"]*'\ndecision = \"allow\"\npriority = 500",
		"toolName = \"write_file\"\nargsPattern = '\"file_path\":\"[^\"]*/artifacts/[^\"]*'\ndecision = \"allow\"",
		"toolName = \"replace\"\ndecision = \"deny\"\npriority = 100",
		"toolName = \"write_file\"\ndecision = \"deny\"\npriority = 100",
	} {
		if !strings.Contains(p.toml, want) {
			t.Errorf("policy lacks %q:\n%s", want, p.toml)
		}
	}
	if strings.Contains(p.toml, "run_shell_command") || len(p.exclude) > 0 {
		t.Errorf("a Write allow limits the shell or excludes a tool:\n%s", p.toml)
	}
}
