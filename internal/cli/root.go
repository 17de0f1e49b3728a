// Package cli is the agent-eval command line. It is the only package that
// knows cobra; every command parses its flags here and calls into the domain
// packages under internal/.
package cli

import (
	"context"
	"errors"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/agent-eval/agent-eval/internal/guard"
)

// Streams are the standard streams a command reads and writes. stdout
// carries results; stderr carries progress, warnings and errors.
type Streams struct {
	In  io.Reader
	Out io.Writer
	Err io.Writer
}

// OSStreams returns the process's standard streams.
func OSStreams() Streams { return Streams{In: os.Stdin, Out: os.Stdout, Err: os.Stderr} }

// env is what commands need from the process, injected so tests can run
// commands in-process and in parallel.
type env struct {
	Streams
	Getenv func(string) string
	// Args is the command line after the program name (a run records it).
	Args []string
}

// Main runs agent-eval with args (without the program name) and returns the
// exit code. SIGINT and SIGTERM cancel the context commands run under.
func Main(args []string, s Streams) int {
	e := env{Streams: s, Getenv: os.Getenv, Args: args}
	if a, ok := hookFastPath(args); ok {
		return runHook(context.Background(), e, a)
	}
	if a, ok := guardFastPath(args); ok {
		return guard.Main(a, s.Err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return run(ctx, args, e)
}

func run(ctx context.Context, args []string, e env) int {
	root := newRootCmd(e)
	root.SetArgs(args)
	root.SetIn(e.In)
	root.SetOut(e.Out)
	root.SetErr(e.Err)
	cmd, err := root.ExecuteContextC(ctx)
	code := exitCode(err, e.Err)
	var rep errReported
	if err != nil && !errors.As(err, &rep) && wantsJSON(cmd, args) {
		writeJSONError(e.Out, code, err)
	}
	return code
}

func newRootCmd(e env) *cobra.Command {
	root := &cobra.Command{
		Use:   "agent-eval",
		Short: "Evaluate coding agents headless over a dataset of cases",
		Long: `agent-eval runs a coding agent headless over the cases of an eval (Claude Code,
Codex, Gemini CLI, Cursor, or any CLI agent by command with runner.type cli),
intercepts the tool calls that would hang or touch production, scores the
results with judges and fails CI on regressions.

Everything is configured in eval.yaml; see 'agent-eval init' for a starter and
'agent-eval schema' for the JSON Schema editors use to complete it.`,
		SilenceErrors: true,
		// "did you mean …?" for a mistyped command.
		SuggestionsMinimumDistance: 2,
		SilenceUsage:               true,
		CompletionOptions: cobra.CompletionOptions{
			HiddenDefaultCmd: true,
		},
	}
	root.Args = func(cmd *cobra.Command, args []string) error {
		if len(args) > 0 {
			return usageErrorf("unknown command %q for agent-eval%s", args[0], suggest(cmd, args[0]))
		}
		return nil
	}
	root.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error {
		if err := checkNumericFlags(cmd); err != nil {
			return err
		}
		return resolveConfigFlag(cmd)
	}
	root.RunE = func(cmd *cobra.Command, _ []string) error { return cmd.Help() }
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return flagError(err) })
	root.AddCommand(newScoreCmd(e), newCompareCmd(e), newDiffCmd(e), newMatrixCmd(e))
	root.AddCommand(
		newVersionCmd(e),
		newValidateCmd(e),
		newSchemaCmd(e),
		newInitCmd(e),
		newRunCmd(e),
		newPermissionsCmd(e),
		newHookCmd(e),
		newCompileCmd(e),
		newExplainCmd(e),
		newAuditCmd(e),
		newReplayCmd(e),
		newFakeModelCmd(e),
		newGuardCmd(e),
		newReportCmd(e),
		newAnalyzeCmd(e),
		newReviewCmd(e),
		newHistoryCmd(e),
		newViewCmd(e),
		newMLflowCmd(e),
		newHarborCmd(e),
		newGenerateCmd(e),
	)
	for _, c := range root.Commands() {
		if c.Name() == "help" {
			continue
		}
		c.SetFlagErrorFunc(root.FlagErrorFunc())
		if c.Args == nil {
			c.Args = noArgs
		}
	}
	return root
}

func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usageErrorf("%s takes no arguments, got %q", cmd.CommandPath(), args[0])
	}
	return nil
}

func maxArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) > n {
			return usageErrorf("%s takes at most %d argument(s), got %d", cmd.CommandPath(), n, len(args))
		}
		return nil
	}
}
