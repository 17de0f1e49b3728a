package cli

import (
	"github.com/spf13/cobra"

	"github.com/agent-eval/agent-eval/internal/guard"
)

// newGuardCmd is the supervisor `agent-eval run` starts each agent under
// (package guard). Main takes the fast path for it; this command is for
// help and for a command line the fast path does not recognise.
func newGuardCmd(e env) *cobra.Command {
	return &cobra.Command{
		Use:                "guard [--init] [--status-fd N] -- COMMAND [ARG...]",
		Short:              "Run COMMAND so that it and everything it starts die with the caller (used by run)",
		Hidden:             true,
		DisableFlagParsing: true,
		Args:               cobra.ArbitraryArgs,
		RunE: func(_ *cobra.Command, args []string) error {
			if code := guard.Main(args, e.Err); code != 0 {
				return errReported{code}
			}
			return nil
		},
	}
}

// guardFastPath recognises `guard -- …` and `guard --OPTION …` (--init,
// --status-fd N, --probe), which run writes: the guard then skips the
// command tree and Main's signal handling (it handles its own).
func guardFastPath(args []string) ([]string, bool) {
	if len(args) < 2 || args[0] != "guard" {
		return nil, false
	}
	switch args[1] {
	case "--":
		return args[2:], len(args) >= 3
	case "--init", "--status-fd", "--probe", "--relay", "--fsize":
		return args[1:], true
	}
	return nil, false
}
