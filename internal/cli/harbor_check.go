package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agent-eval/agent-eval/internal/harbor"
)

func newHarborCheckCmd(e env) *cobra.Command {
	return &cobra.Command{
		Use:   "check DIR",
		Short: "Check Harbor task folders against Harbor's acceptance rules",
		Long: `Check DIR — one Harbor task folder, or a folder of them — against the rules
Harbor 0.26 applies when it loads tasks (task.toml's fields, instruction.md,
tests/test.sh, environment/). Harbor skips a folder that breaks them without a
word; here every child folder that is not a valid task is a problem.

Prints the problems on stderr, one per line with the file; exits 1 when there
is any, 0 (with the count of tasks on stdout) when there is none.`,
		Args: cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			problems := harbor.Check(args[0])
			for _, p := range problems {
				fmt.Fprintln(e.Err, p.String())
			}
			if len(problems) > 0 {
				fmt.Fprintf(e.Err, "%d problem(s)\n", len(problems))
				return errReported{ExitGate}
			}
			fmt.Fprintf(e.Out, "%d task(s) ok\n", harbor.CountTasks(args[0]))
			return nil
		},
	}
}
