package config

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestSandboxDecision(t *testing.T) {
	for _, tc := range []struct {
		name     string
		yaml     string
		on       bool
		optedOut bool
		open     []string // the paths left open to Bash (only when off)
	}{
		{"nothing denied", "permissions: {allow: [Bash]}", false, false, nil},
		{"path denied for Bash", "permissions: {deny: [{path: secret/, tools: [Bash]}]}", true, false, nil},
		{"path denied for Read, Bash allowed", "permissions: {allow: [Bash], deny: [{path: secret/, tools: [Read]}]}", true, false, nil},
		{"string Grep deny", "permissions: {deny: [\"Grep(keys/**)\"]}", true, false, nil},
		{"Edit only: Bash cannot read past it", "permissions: {deny: [{path: logs/, tools: [Edit]}]}", false, false, nil},
		{"Bash denied outright", "permissions: {deny: [Bash, {path: secret/, tools: [Read]}]}", false, false, nil},
		{"Bash(*) denied outright", "permissions: {deny: [\"Bash(*)\", \"Read(secret/**)\"]}", false, false, nil},
		{"Bash denied for one command only", "permissions: {deny: [\"Bash(rm:*)\", \"Read(secret/**)\"]}", true, false, nil},
		{"on without denies", "permissions: {sandbox: on}", true, false, nil},
		{"network turns it on", "permissions: {network: {allow: [localhost]}}", true, false, nil},
		{"off with a deny", "permissions: {sandbox: off, deny: [\"Read(secret/**)\"]}", false, true, []string{"secret/**"}},
		{"off without a deny", "permissions: {sandbox: off}", false, false, nil},
		{"runner settings off", "permissions: {deny: [\"Read(secret/**)\"]}\nrunner: {settings: {sandbox: {enabled: false}}}", false, true, []string{"secret/**"}},
		{"runner settings on", "runner: {settings: {sandbox: {enabled: true}}}", true, false, nil},
		{"cursor has none", "runner: {type: cursor}\npermissions: {deny: [{path: secret/, tools: [Read]}]}", false, true, []string{"secret/"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "eval.yaml")
			if err := os.WriteFile(path, []byte("execution: {prompt: x}\n"+tc.yaml+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			ev, err := Load(path)
			if err != nil {
				t.Fatal(err)
			}
			d := ev.Sandbox()
			if d.On != tc.on || d.OptedOut != tc.optedOut || !slices.Equal(d.Open, tc.open) {
				t.Errorf("Sandbox() = %+v, want on=%v optedOut=%v open=%q", d, tc.on, tc.optedOut, tc.open)
			}
		})
	}
}
