package claudecode

import (
	"strings"
	"testing"

	"github.com/agent-eval/agent-eval/internal/testutil/readonly"
)

// TestEnvAllowlistIsReadOnly: what reaches the agent's environment stays
// the same after the allowlist's copy is changed.
func TestEnvAllowlistIsReadOnly(t *testing.T) {
	t.Parallel()
	lookup := func(k string) (string, bool) { return "v", k == "PATH" || k == "CHANGED" || k == "APPENDED" }
	readonly.Strings(t, EnvAllowlist, func() string { return strings.Join(Env(lookup, nil), " ") })
}
