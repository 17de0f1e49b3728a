package harbor_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-eval/agent-eval/internal/cli"
	"github.com/agent-eval/agent-eval/internal/harbor"
	"github.com/agent-eval/agent-eval/internal/workspace"
)

// hookMainEnv makes the test binary agent-eval itself, for the hook
// wrapper's tests.
const hookMainEnv = "AGENT_EVAL_HARBOR_TEST_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(hookMainEnv) == "1" {
		os.Exit(cli.Main(os.Args[1:], cli.OSStreams()))
	}
	os.Exit(m.Run())
}

// TestHookWrapperFailsClosed runs the hook command an export wires, as
// Claude Code would (sh, a call on stdin), in an uploaded workspace whose
// hook binary lost its exec bit, is missing, is no program or crashes:
// every call that is not allowed by a working hook is denied (exit 2), since
// Claude Code runs a call whose hook fails any other way. A bare command
// line (no wrapper) lets the call run when the binary is missing (exit 127)
// or not executable (126).
func TestHookWrapperFailsClosed(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ev, dir := unpack(t, filepath.Join("testdata", "export", "permissions.txtar"))
	o := options(t, ev, dir)
	ws := filepath.Join(t.TempDir(), "workspace")
	o.Workdir = ws
	x, err := harbor.Export(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	env := filepath.Join(x.Tasks[0].Dir, harbor.EnvironmentDir)
	var settings struct {
		Hooks struct {
			PreToolUse []struct {
				Hooks []struct{ Command string } `json:"hooks"`
			}
		} `json:"hooks"`
	}
	b, err := os.ReadFile(filepath.Join(env, ".claude", "settings.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &settings); err != nil || len(settings.Hooks.PreToolUse) == 0 {
		t.Fatalf("no hook wired: %v %s", err, b)
	}
	command := settings.Hooks.PreToolUse[0].Hooks[0].Command
	call := func(cmd string) string {
		return `{"session_id":"s","cwd":"` + ws + `","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"` + cmd + `"},"tool_use_id":"toolu_1"}`
	}
	crash := "#!/bin/sh\nkill -SEGV $$\n"
	exit1 := "#!/bin/sh\nexit 1\n"
	cases := []struct {
		name    string
		binary  func(p string) // puts the hook binary (or not) at p
		call    string
		allowed bool
	}{
		{"working, allowed call", copyFrom(t, self, 0o755), "ls", true},
		{"working, denied call", copyFrom(t, self, 0o755), "cat secrets/key", false},
		{"mode 0644, allowed call", copyFrom(t, self, 0o644), "ls", true},
		{"mode 0644, denied call", copyFrom(t, self, 0o644), "cat secrets/key", false},
		{"missing", func(string) {}, "ls", false},
		{"not a program", writeFile(t, "\x00\x01garbage", 0o755), "ls", false},
		{"crashes", writeFile(t, crash, 0o755), "ls", false},
		{"exits 1", writeFile(t, exit1, 0o644), "ls", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if err := os.RemoveAll(ws); err != nil {
				t.Fatal(err)
			}
			if err := workspace.CopyTree(env, ws); err != nil { // Harbor's upload
				t.Fatal(err)
			}
			bin := filepath.Join(ws, filepath.FromSlash(harbor.HookBinary))
			if err := os.Remove(bin); err != nil {
				t.Fatal(err)
			}
			c.binary(bin)
			cmd := exec.Command("sh", "-c", command)
			cmd.Dir = ws
			cmd.Env = append(os.Environ(), hookMainEnv+"=1")
			cmd.Stdin = strings.NewReader(call(c.call))
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			code := cmd.ProcessState.ExitCode()
			denied := code == 2 || strings.Contains(stdout.String(), `"permissionDecision":"deny"`)
			if c.allowed == denied || code != 0 && code != 2 {
				t.Fatalf("exit %d (%v), stdout %s, stderr %s; want allowed=%v, exit 0 or 2", code, err, stdout.String(), stderr.String(), c.allowed)
			}
			if code == 2 && stderr.Len() == 0 {
				t.Error("denied without a reason on stderr")
			}
		})
	}
}

func copyFrom(t *testing.T, src string, mode os.FileMode) func(string) {
	return func(p string) {
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, string(b), mode)(p)
	}
}

func writeFile(t *testing.T, content string, mode os.FileMode) func(string) {
	return func(p string) {
		if err := os.WriteFile(p, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
	}
}
