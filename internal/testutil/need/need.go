// Package need decides what a test does when something it runs is missing
// from the machine (a program, a kernel feature): on a developer's machine
// the test skips, saying how to get it; in CI ($CI set, as .ci/run runs with
// CI=true) it fails with the same words, since a test CI skips proves
// nothing. A skip for any other reason (a fixture that does not load, a
// call that failed) is a bug: fail the test instead. Imported by tests only.
package need

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// T is what need asks of a test: testing.TB and testscript's T have it.
type T interface {
	Skip(args ...any)
	Fatal(args ...any)
}

// InCI reports whether the tests run in CI: $CI is set to anything but
// "false" or "0".
func InCI() bool {
	v := strings.TrimSpace(os.Getenv("CI"))
	return v != "" && v != "false" && v != "0"
}

// Missing ends the test for want of what: it skips, or in CI fails. install
// says how to get it.
func Missing(t T, what, install string) {
	if h, ok := t.(interface{ Helper() }); ok {
		h.Helper()
	}
	msg := message(what, install)
	if InCI() {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

// Program returns the path of the program name on PATH, or ends the test as
// Missing does, with how to install it.
func Program(t T, name string) string {
	if h, ok := t.(interface{ Helper() }); ok {
		h.Helper()
	}
	p, err := exec.LookPath(name)
	if err != nil {
		Missing(t, name+" is not on PATH", Install(name))
	}
	return p
}

// Condition is Missing for a testscript condition: with have false it
// reports false (the script's "[!cond] skip" skips), except in CI, where it
// returns the error that fails the script.
func Condition(have bool, what, install string) (bool, error) {
	if !have && InCI() {
		return false, fmt.Errorf("%s", message(what, install))
	}
	return have, nil
}

// ProgramCondition is Condition for a program on PATH.
func ProgramCondition(name string) (bool, error) {
	_, err := exec.LookPath(name)
	return Condition(err == nil, name+" is not on PATH", Install(name))
}

// Install says how to install the program name, as .ci/run does.
func Install(name string) string {
	switch name {
	case "bwrap", "socat":
		return "scripts/install-sandbox.sh (bubblewrap and socat)"
	case "python3":
		return "scripts/install-python.sh (python3 and python3-venv)"
	case "chromium":
		return "scripts/install-chromium.sh, or set CHROMIUM_BIN"
	case "claude":
		return "scripts/install-claude.sh, or set CLAUDE_BIN"
	case "opencode":
		return "scripts/install-opencode.sh, or set OPENCODE_BIN"
	case "codex":
		return "scripts/install-codex.sh, or set CODEX_BIN"
	case "gemini":
		return "scripts/install-gemini.sh, or set GEMINI_BIN"
	case "harbor":
		return "scripts/install-harbor.sh (Harbor into .cache, with Python 3.12 or newer), or set HARBOR_BIN"
	case "mlflow":
		return "scripts/install-mlflow.sh (MLflow into .cache, with Python 3.12 or newer), or set MLFLOW_BIN"
	case "jq":
		return "apt-get install jq"
	case "setsid", "nsenter":
		return "apt-get install util-linux"
	}
	return name
}

func message(what, install string) string {
	if InCI() {
		return fmt.Sprintf("CI runs every test, and this one lacks what it needs: %s; install: %s", what, install)
	}
	return fmt.Sprintf("%s; install: %s (skipped here; with CI set this fails)", what, install)
}
