package claudecode

import (
	"slices"
	"testing"
)

// TestEnvAllowlistIsReadOnly: renaming every entry of what EnvAllowlist
// returns neither lets a new variable into the agent's environment nor
// keeps an allowed one out.
func TestEnvAllowlistIsReadOnly(t *testing.T) {
	t.Parallel()
	got := EnvAllowlist()
	for i := range got {
		got[i] = "GITHUB_TOKEN"
	}
	caller := map[string]string{"PATH": "/bin", "GITHUB_TOKEN": "g"}
	env := Env(func(k string) (string, bool) { v, ok := caller[k]; return v, ok }, nil)
	if !slices.Equal(env, []string{"PATH=/bin"}) || !slices.Contains(EnvAllowlist(), "PATH") {
		t.Errorf("Env after the allowlist's copy was changed = %q, want only PATH=/bin", env)
	}
}
