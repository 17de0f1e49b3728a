package agentcall

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agent-eval/agent-eval/internal/engine"
)

// The synthetic eval loads: the prompt goes in through the case's input,
// so template code in it is sent as text, and the staged files land in
// the workspace by their top-level names.
func TestWriteProject(t *testing.T) {
	proj := t.TempDir()
	req := Request{Prompt: "judge {{ input.x }} {% if y %}", Model: "m", Allow: []any{"Read", map[string]any{"path": "output/score.json", "tools": []string{"Write"}}}, Deny: []any{"Bash"},
		Files: map[string][]byte{"report/a.md": []byte("A"), "notes.txt": []byte("N")}, BudgetUSD: 2}
	ev, err := writeProject(proj, req)
	if err != nil {
		t.Fatal(err)
	}
	ids, err := ev.CaseIDs()
	if err != nil || len(ids) != 1 || ids[0] != CaseID {
		t.Fatalf("cases = %v, %v", ids, err)
	}
	ws := t.TempDir()
	if err := engine.FillWorkspace(ev, proj, ws, filepath.Join(proj, "cases", CaseID)); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"report/a.md": "A", "notes.txt": "N"} {
		b, err := os.ReadFile(filepath.Join(ws, name))
		if err != nil || string(b) != want {
			t.Errorf("%s = %q, %v", name, b, err)
		}
	}
	p, err := engine.Prompt(ev, map[string]any{"prompt": req.Prompt}, "output")
	if err != nil || p != req.Prompt {
		t.Errorf("prompt = %q, %v", p, err)
	}
	if got := ev.Models.Skill; got != "m" {
		t.Errorf("model = %q", got)
	}
}

func TestSafeRel(t *testing.T) {
	for name, ok := range map[string]bool{"a/b": true, "a/../b": true, "../x": false, "/etc/passwd": false, "": false, ".": false, "a/../../x": false} {
		if _, err := safeRel(name); (err == nil) != ok {
			t.Errorf("safeRel(%q) err = %v, want ok=%v", name, err, ok)
		}
	}
	if _, err := writeProject(t.TempDir(), Request{Files: map[string][]byte{"../escape": nil}}); err == nil {
		t.Error("a staged file leaving the workspace was written")
	}
}

// A caller that forgot to Defang what an agent under test wrote cannot
// stage it where the called agent's CLI loads its own settings or memory
// (a hook in .claude/settings.local.json would run in the call): the call
// is refused. Deeper, under a folder of the caller's, it is material.
func TestWriteProjectRefusesAgentConfig(t *testing.T) {
	for _, name := range []string{".claude/settings.local.json", ".Claude/settings.json", "CLAUDE.md", "AGENTS.md", ".mcp.json", ".gemini/settings.json", ".git/config"} {
		if _, err := writeProject(t.TempDir(), Request{Files: map[string][]byte{name: []byte("x")}}); err == nil {
			t.Errorf("%s was staged at the workspace's top", name)
		}
	}
	if _, err := writeProject(t.TempDir(), Request{Files: map[string][]byte{"dataset/case/.claude/settings.local.json": []byte("{}"), "skill/CLAUDE.md": []byte("x")}}); err != nil {
		t.Errorf("material under a caller's folder was refused: %v", err)
	}
}
