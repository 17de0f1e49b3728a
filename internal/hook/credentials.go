package hook

import (
	"bufio"
	"fmt"
	"os"
	"slices"
	"strings"
)

// CredentialNames returns a copy of the variables a credentials file may
// set for the hook model's client: what Claude Code's scrub takes from the
// hook's environment when the sandbox is on.
func CredentialNames() []string { return slices.Clone(credentialNames) }

var credentialNames = []string{"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_CUSTOM_HEADERS"}

// LoadCredentials reads a credentials file (NAME=VALUE lines, written by
// agent-eval run, mode 0600, in a folder the agent's commands and tools are
// denied) and sets each of CredentialNames it holds that the environment
// lacks, so tier 2 authenticates although Claude Code's scrub removed them
// from the hook's environment. A value may not span lines except
// ANTHROPIC_CUSTOM_HEADERS, whose lines are written \n-escaped.
func LoadCredentials(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("read the hook's credentials: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), "=")
		if !ok || !slices.Contains(credentialNames, name) {
			continue
		}
		if _, set := os.LookupEnv(name); set {
			continue
		}
		if err := os.Setenv(name, strings.ReplaceAll(value, `\n`, "\n")); err != nil {
			return fmt.Errorf("set %s: %w", name, err)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read the hook's credentials: %w", err)
	}
	return nil
}

// FormatCredentials is the content of a credentials file for the values of
// CredentialNames in lookup.
func FormatCredentials(lookup func(string) (string, bool)) string {
	var b strings.Builder
	for _, name := range credentialNames {
		if v, ok := lookup(name); ok && v != "" {
			fmt.Fprintf(&b, "%s=%s\n", name, strings.ReplaceAll(v, "\n", `\n`))
		}
	}
	return b.String()
}
