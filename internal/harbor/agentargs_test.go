package harbor_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agent-eval/agent-eval/internal/harbor"
	"github.com/agent-eval/agent-eval/internal/testutil"
)

// akValues are the --ak key=JSON-string pairs of a harbor run command line.
func akValues(t *testing.T, args []string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for i, a := range args {
		if a != "--ak" || i+1 == len(args) {
			continue
		}
		k, v, ok := strings.Cut(args[i+1], "=")
		var s string
		if !ok || json.Unmarshal([]byte(v), &s) != nil {
			t.Fatalf("--ak %q is not key=\"JSON string\"", args[i+1])
		}
		out[k] = s
	}
	return out
}

// TestAgentArgsCarryTheRules: the trial's Claude Code does not trust its
// workspace, so the allow rules of the exported .claude/settings.json do
// not apply there: the agent's command line (Harbor's allowed_tools and
// disallowed_tools) carries the eval's permission rules, and every rule of
// the settings.
func TestAgentArgsCarryTheRules(t *testing.T) {
	ev, dir := unpack(t, filepath.Join("testdata", "export", "permissions.txtar"))
	o := options(t, ev, dir)
	x, err := harbor.Export(testutil.Context(t, time.Minute), o)
	if err != nil || len(x.Tasks) != 1 {
		t.Fatalf("export: %v, %d task(s)", err, len(x.Tasks))
	}
	ak := akValues(t, harbor.AgentArgs(ev, "claude-sonnet-4-5"))
	allowed, denied := strings.Split(ak["allowed_tools"], ","), strings.Split(ak["disallowed_tools"], ",")
	if !slices.Equal(allowed, []string{"Bash(ls:*)"}) {
		t.Errorf("allowed_tools = %q, want the eval's allow rule Bash(ls:*)", ak["allowed_tools"])
	}
	for _, r := range []string{"Bash(rm:*)", "Read(secrets/**)", "Edit(secrets/**)"} {
		if !slices.Contains(denied, r) {
			t.Errorf("disallowed_tools = %q lacks the eval's deny rule %s", ak["disallowed_tools"], r)
		}
	}
	b, err := os.ReadFile(filepath.Join(x.Tasks[0].Dir, harbor.EnvironmentDir, ".claude", "settings.json"))
	if err != nil {
		t.Fatal(err)
	}
	var settings struct {
		Permissions struct{ Allow, Deny []string } `json:"permissions"`
	}
	if err := json.Unmarshal(b, &settings); err != nil {
		t.Fatal(err)
	}
	if len(settings.Permissions.Allow) == 0 || len(settings.Permissions.Deny) == 0 {
		t.Fatalf("the settings hold no rules: %s", b)
	}
	for _, r := range settings.Permissions.Allow {
		if !slices.Contains(allowed, r) {
			t.Errorf("settings.json allows %s, which the command line does not", r)
		}
	}
	for _, r := range settings.Permissions.Deny {
		if !slices.Contains(denied, r) {
			t.Errorf("settings.json denies %s, which the command line does not", r)
		}
	}
}
