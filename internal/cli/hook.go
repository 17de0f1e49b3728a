package cli

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/agent-eval/agent-eval/internal/hook"
)

// newHookCmd is Claude Code's PreToolUse hook. Its exit codes follow the
// hook protocol (internal/hook), not agent-eval's exit-code table.
func newHookCmd(e env) *cobra.Command {
	var handlers string
	cmd := &cobra.Command{
		Use:    "hook",
		Short:  "Claude Code PreToolUse hook: decide a tool call from tool_handlers.yaml",
		Hidden: true,
		Long: `Read Claude Code's PreToolUse JSON on stdin and print the decision on stdout:
nothing (pass through), allow (with answers for AskUserQuestion) or deny with a
reason. The handlers come from --handlers, else $AGENT_EVAL_HANDLERS, else
tool_handlers.yaml in the call's cwd. Every decision is appended to
hook_decisions.jsonl beside the handlers file. Anything that goes wrong denies
the call with a reason; it never passes a call through because it failed.`,
		RunE: func(cmd *cobra.Command, _ []string) error {
			code := hook.Run(cmd.Context(), e.In, e.Out, e.Err, hook.Options{
				HandlersPath: handlers, Environ: os.Environ(), NewAnswerer: hook.NewLLMAnswerer,
			})
			if code != 0 {
				return errReported{code}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&handlers, "handlers", "", "the tool_handlers.yaml `FILE`")
	return cmd
}
