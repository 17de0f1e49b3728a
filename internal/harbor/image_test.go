package harbor

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-eval/agent-eval/internal/testutil/golden"
)

// TestClaudeShim runs the shim over a stand-in for Claude Code that prints
// its arguments: --print gets --permission-prompt-tool stdio (AskUserQuestion
// then reaches the hook), anything else passes through untouched.
func TestClaudeShim(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real claude") // a space: the shim quotes it
	if err := os.WriteFile(real, []byte("#!/bin/sh\nprintf '%s|' \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	shim := filepath.Join(dir, "claude")
	if err := os.WriteFile(shim, []byte(ClaudeShim(real)), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--version"}, "--version|"},
		{[]string{"--verbose", "--output-format=stream-json", "--print"}, "--permission-prompt-tool|stdio|--verbose|--output-format=stream-json|--print|"},
		{[]string{"-p", "hi there"}, "--permission-prompt-tool|stdio|-p|hi there|"},
		{[]string{"mcp", "add", "x --print"}, "mcp|add|x --print|"}, // one argument that only contains the word
	} {
		out, err := exec.Command(shim, tc.args...).Output()
		if err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		if string(out) != tc.want {
			t.Errorf("shim %q ran %q, want %q", tc.args, out, tc.want)
		}
	}
}

// TestImageBuildContext pins the recipe (golden) and checks the build
// context: the binary, the shim, and the shim pointing where npm puts the
// native binary.
func TestImageBuildContext(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(t.TempDir(), "agent-eval")
	if err := os.WriteFile(bin, []byte("binary"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := WriteImage(dir, bin, "", false); err != nil {
		t.Fatal(err)
	}
	if err := WriteImage(dir, bin, "", false); err == nil || !strings.Contains(err.Error(), "--force") {
		t.Errorf("a second write without force: %v, want a refusal naming --force", err)
	}
	if err := WriteImage(dir, bin, "", true); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dir, DockerfileName))
	if err != nil {
		t.Fatal(err)
	}
	golden.Assert(t, filepath.Join("testdata", "Dockerfile.golden"), got)
	for _, line := range strings.Split(string(got), "\n") {
		if strings.HasPrefix(line, "COPY") {
			src := strings.Fields(line)[2]
			if _, err := os.Stat(filepath.Join(dir, src)); err != nil {
				t.Errorf("the Dockerfile copies %s, which the build context lacks", src)
			}
		}
	}
	shim, _ := os.ReadFile(filepath.Join(dir, ClaudeShimName))
	if !strings.Contains(string(shim), ImageClaudePath) {
		t.Errorf("the shim does not run %s:\n%s", ImageClaudePath, shim)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, BinaryName)); string(b) != "binary" {
		t.Errorf("the build context's agent-eval is %q", b)
	}
}

// TestFindBinary: a static linux/amd64 ELF passes; a script, a dynamic
// executable and a missing file are refused with the fix.
func TestFindBinary(t *testing.T) {
	script := filepath.Join(t.TempDir(), "script")
	if err := os.WriteFile(script, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	dynamic, _ := exec.LookPath("ls") // Debian's ls is linked against libc
	static := filepath.Join(t.TempDir(), "static")
	build := exec.Command("go", "build", "-o", static, "./testdata/static")
	build.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH=amd64")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, tc := range []struct {
		path, err string
	}{
		{static, ""},
		{script, "not an ELF"},
		{dynamic, "dynamically linked"},
		{filepath.Join(t.TempDir(), "missing"), "not an ELF"},
	} {
		_, err := FindBinary(tc.path)
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%s: %v", tc.path, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), "CGO_ENABLED=0")):
			t.Errorf("%s: %v, want an error saying %q and how to build one", tc.path, err, tc.err)
		}
	}
}
