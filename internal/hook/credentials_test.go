package hook

import (
	"testing"
)

// TestCredentialNamesIsReadOnly: renaming every entry of what
// CredentialNames returns does not let a credentials file carry another
// variable, nor stop it carrying the API key.
func TestCredentialNamesIsReadOnly(t *testing.T) {
	t.Parallel()
	names := CredentialNames()
	for i := range names {
		names[i] = "GITHUB_TOKEN"
	}
	env := map[string]string{"ANTHROPIC_API_KEY": "sk-x", "GITHUB_TOKEN": "g"}
	got := FormatCredentials(func(n string) (string, bool) { v, ok := env[n]; return v, ok })
	if got != "ANTHROPIC_API_KEY=sk-x\n" {
		t.Errorf("FormatCredentials after the names' copy was changed = %q, want only the API key", got)
	}
}
