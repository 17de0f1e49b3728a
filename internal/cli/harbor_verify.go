package cli

import (
	"fmt"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/agent-eval/agent-eval/internal/harbor"
)

// newHarborVerifyCmd is `agent-eval harbor verify`: the verifier a Harbor
// task's tests/test.sh runs inside the trial's container after the agent
// (package harbor, Verify). Its folders default to the container's paths;
// tests give temporary ones.
func newHarborVerifyCmd(e env) *cobra.Command {
	var o harbor.VerifyOptions
	cmd := &cobra.Command{
		Use:   "verify [--tests DIR] [--workdir DIR] [--agent-logs DIR] [--out DIR]",
		Short: "Judge a Harbor trial inside its container and write its reward (run by the task's tests/test.sh)",
		Long: `verify runs inside a Harbor trial's container after the agent: it removes any
reward file from --out first, collects the case as a local run does (outputs/,
_modified/, the hook's ledger, the transcript from the agent's claude-code.txt)
into --out/agent-eval/, runs the judges the container can run (expr judges,
the builtins that call no model, exec judges whose program is a static
executable in --tests), and writes judges.json, then reward.json. On any error it writes no reward
file, so Harbor reports the verifier as failed rather than a reward of 0.`,
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.Warn = func(msg string) { fmt.Fprintln(e.Err, "agent-eval: warning:", msg) }
			j, err := harbor.Verify(cmd.Context(), o)
			if err != nil {
				return fmt.Errorf("harbor verify: %w", err)
			}
			ran := 0
			for _, r := range j.PerJudge {
				if r.NotRun == "" {
					ran++
				}
			}
			reward := "none (no judge the reward needs could run here)"
			if j.Reward != nil {
				reward = strconv.FormatFloat(*j.Reward, 'g', -1, 64)
			}
			_, err = fmt.Fprintf(e.Out, "agent-eval: reward %s: %d of %d judge(s) run; wrote %s and %s in %s\n",
				reward, ran, len(j.PerJudge), harbor.JudgesJSON, harbor.RewardJSON, o.Out)
			return err
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Tests, "tests", harbor.TestsDir, "the task's tests/ folder (case.json, eval.yaml, case/, baseline.json)")
	f.StringVar(&o.Workdir, "workdir", harbor.Workdir, "the agent's working folder")
	f.StringVar(&o.AgentLogs, "agent-logs", harbor.AgentLogsDir, "the agent's logs (claude-code.txt)")
	f.StringVar(&o.Out, "out", harbor.VerifierLogsDir, "where the reward goes (Harbor's verifier logs)")
	return cmd
}
