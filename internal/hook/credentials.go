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

// ReadCredentials reads a credentials file (NAME=VALUE lines, written by
// agent-eval run, mode 0600, in a folder the agent's commands and tools are
// denied): the values of CredentialNames it holds, for tier 2 to
// authenticate although Claude Code's scrub removed them from the hook's
// environment. Other lines are ignored. A value may not span lines except
// ANTHROPIC_CUSTOM_HEADERS, whose lines are written \n-escaped.
func ReadCredentials(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read the hook's credentials: %w", err)
	}
	defer f.Close()
	creds := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), "=")
		if ok && slices.Contains(credentialNames, name) {
			creds[name] = strings.ReplaceAll(value, `\n`, "\n")
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read the hook's credentials: %w", err)
	}
	return creds, nil
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
