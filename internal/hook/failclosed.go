package hook

import "github.com/agent-eval/agent-eval/internal/intercept"

// FailClosed wraps a hook command line for an agent that runs a call
// whose hook fails with anything but exit 2 (Codex, measured: a gate that
// exited 1 or was killed let the call run): every other outcome — the
// binary missing, crashing, killed — becomes exit 2, the block, with the
// reason on stderr. A decision (exit 0 with its JSON) and a block pass
// through.
func FailClosed(command string) string {
	script := command + `; s=$?; case $s in 0|2) exit $s;; esac; ` +
		`echo "agent-eval hook could not run or failed (exit $s): the call is denied" >&2; exit 2`
	return "sh -c " + intercept.ShellQuote(script)
}
