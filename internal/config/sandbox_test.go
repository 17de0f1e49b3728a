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
		lost     int      // protections run names as off
	}{
		// Secure by default: on for claude-code whatever the eval denies.
		{"nothing denied", "permissions: {allow: [Bash]}", true, false, nil, 0},
		{"no permissions at all", "", true, false, nil, 0},
		{"path denied for Bash", "permissions: {deny: [{path: secret/, tools: [Bash]}]}", true, false, nil, 0},
		{"path denied for Read, Bash allowed", "permissions: {allow: [Bash], deny: [{path: secret/, tools: [Read]}]}", true, false, nil, 0},
		{"string Grep deny", "permissions: {deny: [\"Grep(keys/**)\"]}", true, false, nil, 0},
		{"Edit only", "permissions: {deny: [{path: logs/, tools: [Edit]}]}", true, false, nil, 0},
		{"Bash denied outright", "permissions: {deny: [Bash, {path: secret/, tools: [Read]}]}", false, false, nil, 0},
		{"Bash(*) denied outright", "permissions: {deny: [\"Bash(*)\", \"Read(secret/**)\"]}", false, false, nil, 0},
		{"Bash denied for one command only", "permissions: {deny: [\"Bash(rm:*)\", \"Read(secret/**)\"]}", true, false, nil, 0},
		{"on without denies", "permissions: {sandbox: on}", true, false, nil, 0},
		{"network turns it on", "permissions: {network: {allow: [localhost]}}", true, false, nil, 0},
		{"off with a deny", "permissions: {sandbox: off, deny: [\"Read(secret/**)\"]}", false, true, []string{"secret/**"}, 5},
		{"off without a deny", "permissions: {sandbox: off}", false, false, nil, 4},
		{"runner settings off", "permissions: {deny: [\"Read(secret/**)\"]}\nrunner: {settings: {sandbox: {enabled: false}}}", false, true, []string{"secret/**"}, 5},
		{"runner settings on", "runner: {settings: {sandbox: {enabled: true}}}", true, false, nil, 0},
		{"cursor has none", "runner: {type: cursor}\npermissions: {deny: [{path: secret/, tools: [Read]}]}", false, true, []string{"secret/"}, 5},
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
			if d.On != tc.on || d.OptedOut != tc.optedOut || !slices.Equal(d.Open, tc.open) || len(d.Lost) != tc.lost {
				t.Errorf("Sandbox() = %+v, want on=%v optedOut=%v open=%q, %d protections lost", d, tc.on, tc.optedOut, tc.open, tc.lost)
			}
		})
	}
}

func TestScoringInputs(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "eval", "eval.yaml")
	if err := os.MkdirAll(filepath.Join(dir, "eval", "cases"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "data"), 0o755); err != nil {
		t.Fatal(err)
	}
	body := `execution: {prompt: x}
dataset:
  path: ` + filepath.Join(dir, "data") + `
  workspace: {files: [{dest: a.txt, source: shared/a.txt}, {dest: b.txt, source: eval/b.txt}]}
judges:
  - {name: j1, exec: [./judge.sh]}
  - {name: j2, exec: [python3, j.py]}
  - {name: j3, exec: [/opt/judges/run]}
`
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	ev, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	got := ev.ScoringInputs(dir)
	want := []string{filepath.Join(dir, "data"), filepath.Join(dir, "eval"), filepath.Join(dir, "shared", "a.txt"), "/opt/judges/run"}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("ScoringInputs() =\n%q\nwant\n%q", got, want)
	}
}
