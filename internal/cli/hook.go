package cli

import (
	"context"
	"os"
	"strings"

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
			if code := runHook(cmd.Context(), e, handlers); code != 0 {
				return errReported{code}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&handlers, "handlers", "", "the tool_handlers.yaml `FILE`")
	return cmd
}

func runHook(ctx context.Context, e env, handlers string) int {
	return hook.Run(ctx, e.In, e.Out, e.Err, hook.Options{
		HandlersPath: handlers, Environ: os.Environ(), NewAnswerer: hook.NewLLMAnswerer,
	})
}

// hookFastPath recognises the exact command lines agent-eval writes into
// Claude Code's settings ("hook", "hook --handlers FILE", "hook
// --handlers=FILE") so the hook, which runs once per tool call, skips
// building the command tree and the signal handling. Anything else (help,
// a typo) goes through cobra as usual.
func hookFastPath(args []string) (handlers string, ok bool) {
	switch {
	case len(args) == 1 && args[0] == "hook":
		return "", true
	case len(args) == 2 && args[0] == "hook" && strings.HasPrefix(args[1], "--handlers=") && len(args[1]) > len("--handlers="):
		return strings.TrimPrefix(args[1], "--handlers="), true
	case len(args) == 3 && args[0] == "hook" && args[1] == "--handlers" && args[2] != "" && !strings.HasPrefix(args[2], "-"):
		return args[2], true
	}
	return "", false
}
