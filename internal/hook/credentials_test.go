package hook

import (
	"testing"

	"github.com/agent-eval/agent-eval/internal/testutil/readonly"
)

// TestCredentialNamesIsReadOnly: what a credentials file carries stays the
// same after the names' copy is changed.
func TestCredentialNamesIsReadOnly(t *testing.T) {
	t.Parallel()
	lookup := func(n string) (string, bool) {
		return "v", n == "ANTHROPIC_API_KEY" || n == "CHANGED" || n == "APPENDED"
	}
	readonly.Strings(t, CredentialNames, func() string { return FormatCredentials(lookup) })
}
