package permissions

import (
	"encoding/json"
	"testing"
)

func TestSandbox(t *testing.T) {
	for _, tc := range []struct {
		name string
		spec SandboxSpec
		want string
	}{
		// Without permissions.network no host is reachable: secure by default.
		{"no allowlist closes the network", SandboxSpec{},
			`{"allowUnsandboxedCommands":false,"autoAllowBashIfSandboxed":false,"enabled":true,"failIfUnavailable":true,"filesystem":{"allowWrite":["~/.cache"]},"network":{"allowedDomains":[]}}`},
		{"any host on request", SandboxSpec{Network: []string{"*"}},
			`{"allowUnsandboxedCommands":false,"autoAllowBashIfSandboxed":false,"enabled":true,"failIfUnavailable":true,"filesystem":{"allowWrite":["~/.cache"]},"network":{"allowedDomains":["*"]}}`},
		{"allowlist with localhost", SandboxSpec{Network: []string{"localhost", "*.test", "localhost"}},
			`{"allowUnsandboxedCommands":false,"autoAllowBashIfSandboxed":false,"enabled":true,"failIfUnavailable":true,"filesystem":{"allowWrite":["~/.cache"]},"network":{"allowedDomains":["localhost","127.0.0.1","::1","*.test"]}}`},
		{"empty allowlist closes the network", SandboxSpec{Network: []string{}},
			`{"allowUnsandboxedCommands":false,"autoAllowBashIfSandboxed":false,"enabled":true,"failIfUnavailable":true,"filesystem":{"allowWrite":["~/.cache"]},"network":{"allowedDomains":[]}}`},
		{"harness paths", SandboxSpec{AllowWrite: []string{"/out", "~/.cache"}, DenyRead: []string{"/data/cases", "/runs", "/data/cases"}},
			`{"allowUnsandboxedCommands":false,"autoAllowBashIfSandboxed":false,"enabled":true,"failIfUnavailable":true,"filesystem":{"allowWrite":["~/.cache","/out"],"denyRead":["/data/cases","/runs"],"denyWrite":["/data/cases","/runs"]},"network":{"allowedDomains":[]}}`},
		// The private root is hidden but for the agent's own slot, which it
		// must keep writing: the root is not made read-only.
		{"private root with the agent's slot", SandboxSpec{AllowWrite: []string{"/root/0a"}, DenyRead: []string{"/runs", "/root"}, AllowRead: []string{"/root/0a"}},
			`{"allowUnsandboxedCommands":false,"autoAllowBashIfSandboxed":false,"enabled":true,"failIfUnavailable":true,"filesystem":{"allowRead":["/root/0a"],"allowWrite":["~/.cache","/root/0a"],"denyRead":["/runs","/root"],"denyWrite":["/runs"]},"network":{"allowedDomains":[]}}`},
		// What scoring reads stays readable but not writable.
		{"write-only denies", SandboxSpec{DenyRead: []string{"/runs"}, DenyWrite: []string{"/eval", "/runs"}},
			`{"allowUnsandboxedCommands":false,"autoAllowBashIfSandboxed":false,"enabled":true,"failIfUnavailable":true,"filesystem":{"allowWrite":["~/.cache"],"denyRead":["/runs"],"denyWrite":["/runs","/eval"]},"network":{"allowedDomains":[]}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := json.Marshal(Sandbox(tc.spec))
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tc.want {
				t.Errorf("Sandbox() =\n%s\nwant\n%s", b, tc.want)
			}
		})
	}
}

func TestWithSandbox(t *testing.T) {
	allowlist := SandboxSpec{Network: []string{"localhost"}, DenyRead: []string{"/ds"}}
	for _, tc := range []struct {
		name     string
		spec     SandboxSpec
		settings string
		want     string
	}{
		{"no sandbox in the settings", allowlist, `{"env":{"A":"1"}}`,
			`{"env":{"A":"1"},"sandbox":{"allowUnsandboxedCommands":false,"autoAllowBashIfSandboxed":false,"enabled":true,"failIfUnavailable":true,"filesystem":{"allowWrite":["~/.cache"],"denyRead":["/ds"],"denyWrite":["/ds"]},"network":{"allowedDomains":["localhost","127.0.0.1","::1"]}}}`},
		// runner.settings may add to the block but not loosen what enforces it.
		{"user settings cannot switch it off or widen the network", allowlist, `{"sandbox":{"enabled":false,"failIfUnavailable":false,"allowUnsandboxedCommands":true,"autoAllowBashIfSandboxed":true,"excludedCommands":["docker *"],"network":{"allowedDomains":["*"],"allowLocalBinding":true},"filesystem":{"allowWrite":["/extra"],"denyRead":["/more"]}}}`,
			`{"sandbox":{"allowUnsandboxedCommands":false,"autoAllowBashIfSandboxed":false,"enabled":true,"excludedCommands":["docker *"],"failIfUnavailable":true,"filesystem":{"allowWrite":["~/.cache","/extra"],"denyRead":["/ds","/more"],"denyWrite":["/ds"]},"network":{"allowLocalBinding":true,"allowedDomains":["localhost","127.0.0.1","::1"]}}}`},
		// runner.settings cannot re-open what the harness hides.
		{"user allowRead inside or above a harness deny is dropped", SandboxSpec{DenyRead: []string{"/ds", "/root"}, AllowRead: []string{"/root/0a"}},
			`{"sandbox":{"filesystem":{"allowRead":["/ds/case","/","/root/0b","/elsewhere"]}}}`,
			`{"sandbox":{"allowUnsandboxedCommands":false,"autoAllowBashIfSandboxed":false,"enabled":true,"failIfUnavailable":true,"filesystem":{"allowRead":["/root/0a","/elsewhere"],"allowWrite":["~/.cache"],"denyRead":["/ds","/root"],"denyWrite":["/ds"]},"network":{"allowedDomains":[]}}}`},
		// Without permissions.network the runner's own allowlist still holds.
		{"the runner's allowlist without permissions.network", SandboxSpec{}, `{"sandbox":{"network":{"allowedDomains":["api.test"]}}}`,
			`{"sandbox":{"allowUnsandboxedCommands":false,"autoAllowBashIfSandboxed":false,"enabled":true,"failIfUnavailable":true,"filesystem":{"allowWrite":["~/.cache"]},"network":{"allowedDomains":["api.test"]}}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var settings map[string]any
			if err := json.Unmarshal([]byte(tc.settings), &settings); err != nil {
				t.Fatal(err)
			}
			got := WithSandbox(settings, Sandbox(tc.spec))
			b, err := json.Marshal(got)
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tc.want {
				t.Errorf("WithSandbox() =\n%s\nwant\n%s", b, tc.want)
			}
		})
	}
}
