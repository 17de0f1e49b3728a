package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/redact"
)

// Exit codes, in one table. The hook subcommand follows Claude Code's hook
// protocol instead and never uses this table.
const (
	ExitOK          = 0   // success
	ExitGate        = 1   // the run finished but a gate failed (regression)
	ExitUsage       = 2   // bad flags, arguments or configuration
	ExitFailure     = 3   // the harness itself failed
	ExitInterrupted = 130 // interrupted by SIGINT or SIGTERM
)

// UsageError is a misuse of the command line (an unknown command or flag,
// a bad flag value, missing or extra arguments); it exits ExitUsage and is
// followed by the hint to see --help. A problem with the config, a file or
// a run directory is an inputErrorf instead: the same exit code, no hint.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

func usageErrorf(format string, args ...any) error {
	return &UsageError{Err: fmt.Errorf(format, args...)}
}

// inputErrorf is a problem the user must fix that is not a misuse of the
// command line (a config value, a missing file or key, a run not scored):
// it exits ExitUsage without the usage hint.
func inputErrorf(format string, args ...any) error {
	return &codedError{ExitUsage, fmt.Errorf(format, args...)}
}

// errReported is returned when the command already printed its errors.
type errReported struct{ code int }

func (e errReported) Error() string { return fmt.Sprintf("exit %d", e.code) }

// codedError is an error that exits code, printed without the usage hint.
type codedError struct {
	code int
	err  error
}

func (e *codedError) Error() string { return e.err.Error() }
func (e *codedError) Unwrap() error { return e.err }

// exitCode maps an error to its exit code and prints it once, redacted
// (URL credentials, secret-looking values).
func exitCode(err error, stderr io.Writer) int {
	if err == nil {
		return ExitOK
	}
	stderr = redactingWriter{stderr}
	var rep errReported
	if errors.As(err, &rep) {
		return rep.code
	}
	var cfg config.Errors
	var usage *UsageError
	var coded *codedError
	switch {
	case errors.As(err, &coded):
		fmt.Fprintf(stderr, "agent-eval: error: %v\n", err)
		return coded.code
	case errors.Is(err, context.Canceled):
		fmt.Fprintln(stderr, "agent-eval: interrupted")
		return ExitInterrupted
	case errors.As(err, &cfg):
		fmt.Fprintln(stderr, cfg.Error())
		noConfigNote(stderr, cfg)
		return ExitUsage
	case errors.As(err, &usage):
		fmt.Fprintf(stderr, "agent-eval: error: %v\nagent-eval: hint: run 'agent-eval --help' for usage\n", err)
		return ExitUsage
	}
	fmt.Fprintf(stderr, "agent-eval: error: %v\n", err)
	return ExitFailure
}

// redactingWriter redacts what is written through it with redact.String.
type redactingWriter struct{ w io.Writer }

func (r redactingWriter) Write(b []byte) (int, error) {
	if _, err := io.WriteString(r.w, redact.String(string(b))); err != nil {
		return 0, err
	}
	return len(b), nil
}

// noConfigNote follows the one error of a command that looked for -c's
// default, eval.yaml in the current folder, and found none, with where it
// looked and how to name an eval.
func noConfigNote(w io.Writer, es config.Errors) {
	if len(es) != 1 || es[0].File != "eval.yaml" || es[0].Code != config.CodeFile || es[0].Msg != "no such file" {
		return
	}
	wd, _ := os.Getwd()
	fmt.Fprintf(w, "agent-eval: no eval.yaml in %s: name the eval with -c FILE (or the folder holding eval.yaml), or write a starter with 'agent-eval init'\n", wd)
}
