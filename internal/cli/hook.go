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
	var opts hookArgs
	cmd := &cobra.Command{
		Use:    "hook",
		Short:  "Claude Code PreToolUse hook: decide a tool call from tool_handlers.yaml",
		Hidden: true,
		Long: `Read Claude Code's PreToolUse JSON on stdin and print the decision on stdout:
nothing (pass through), allow (with answers for AskUserQuestion) or deny with a
reason. The handlers come from --handlers, else $AGENT_EVAL_HANDLERS, else
tool_handlers.yaml in the call's cwd. With --sha256 the file must still have
that digest (agent-eval run pins the file it writes), else every call is
denied. Every decision is appended to hook_decisions.jsonl beside the handlers
file. Anything that goes wrong denies the call with a reason; it never passes a
call through because it failed.`,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if code := runHook(cmd.Context(), e, opts); code != 0 {
				return errReported{code}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&opts.handlers, "handlers", "", "the tool_handlers.yaml `FILE`")
	cmd.Flags().StringVar(&opts.sha256, "sha256", "", "the `DIGEST` (hex) the handlers file must have")
	cmd.Flags().StringVar(&opts.dialect, "dialect", "", "the agent whose hook protocol stdin and stdout speak: claude (default), codex, gemini or cursor")
	cmd.Flags().StringVar(&opts.canary, "canary", "", "append a canary line naming `EVENT` to the ledger and print nothing (the proof a session ran its hooks)")
	cmd.Flags().StringVar(&opts.credentials, "credentials", "", "a `FILE` of ANTHROPIC_* credentials for the hook model (agent-eval run writes it when Claude Code's scrub removes them from the hook)")
	return cmd
}

type hookArgs struct{ handlers, sha256, credentials, dialect, canary string }

func runHook(ctx context.Context, e env, a hookArgs) int {
	return hook.Run(ctx, e.In, e.Out, e.Err, hook.Options{
		HandlersPath: a.handlers, HandlersSHA256: a.sha256, Environ: os.Environ(), NewAnswerer: hook.NewLLMAnswerer,
		CredentialsFile: a.credentials, Dialect: a.dialect, Canary: a.canary,
	})
}

// hookFastPath recognises the command lines agent-eval writes into Claude
// Code's settings — "hook" with "--handlers FILE", "--sha256 DIGEST",
// "--credentials FILE", "--dialect NAME" and "--canary EVENT" (or
// their --flag=value forms), each at most once — so the hook, which runs
// once per tool call, skips building the command tree and the signal
// handling. Anything else (help, a typo, an empty value) goes through cobra
// as usual.
func hookFastPath(args []string) (a hookArgs, ok bool) {
	if len(args) == 0 || args[0] != "hook" {
		return a, false
	}
	seen := map[string]bool{}
	for rest := args[1:]; len(rest) > 0; {
		name, value, inline := strings.Cut(rest[0], "=")
		rest = rest[1:]
		if !inline {
			if len(rest) == 0 {
				return hookArgs{}, false
			}
			value, rest = rest[0], rest[1:]
		}
		if value == "" || strings.HasPrefix(value, "-") || seen[name] {
			return hookArgs{}, false
		}
		seen[name] = true
		switch name {
		case "--handlers":
			a.handlers = value
		case "--sha256":
			a.sha256 = value
		case "--credentials":
			a.credentials = value
		case "--dialect":
			a.dialect = value
		case "--canary":
			a.canary = value
		default:
			return hookArgs{}, false
		}
	}
	return a, true
}
