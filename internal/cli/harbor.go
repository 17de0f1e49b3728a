package cli

import "github.com/spf13/cobra"

// newHarborCmd is `agent-eval harbor`: the verbs that make cases into
// Harbor task packages, check them, verify a trial inside its container and
// read a Harbor job back into a run directory (package harbor). One file
// per verb: harbor_<verb>.go.
func newHarborCmd(e env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "harbor",
		Short: "Run cases on Harbor: export task packages, check them, import a job's results",
		Long: `Harbor runs trials in containers, on Docker or a cloud sandbox, many at once.
agent-eval makes the eval's cases into Harbor task packages (export), checks a
tree of them against Harbor's acceptance rules (check), and maps a Harbor job
folder back into a run directory that score, report and compare read as they
read a local run (import). 'agent-eval run --backend harbor' does all three.`,
	}
	cmd.AddCommand(
		// one line per verb (harbor_<verb>.go)
		newHarborExportCmd(e),
		newHarborCheckCmd(e),
		newHarborImageCmd(e),
		newHarborVerifyCmd(e),
		newHarborImportCmd(e),
	)
	return cmd
}
