package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/spf13/cobra"

	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/hook"
	"github.com/agent-eval/agent-eval/internal/intercept"
	"github.com/agent-eval/agent-eval/internal/permissions"
	"github.com/agent-eval/agent-eval/internal/redecide"
	"github.com/agent-eval/agent-eval/internal/rundir"
	"github.com/agent-eval/agent-eval/internal/workspace"
)

type replayOptions struct {
	config string
	env    []string
	noLLM  bool
	json   bool
}

func newReplayCmd(e env) *cobra.Command {
	opts := replayOptions{}
	cmd := &cobra.Command{
		Use:   "replay RUN",
		Short: "Re-decide a run's recorded tool calls under the eval's current policy, without running the agent",
		Long: `Re-decide every tool call RUN recorded (its transcript, matched with the hook's
ledger and the agent's permission denials) under eval.yaml's current
inputs.tools handlers and permissions, without running the agent, and list per
case the calls whose decision changes: allowed → denied, denied → allowed, an
AskUserQuestion answer changed, with the old and the new reason. Use it to test
a policy change on last week's real runs.

Each call goes through the hook's own decision function, with the case's
answers.yaml from the eval's dataset and the recorded workspace as the root of
the denied paths; the permission rules are compiled as run compiles them and
judged as explain judges them. env_checks read this process's environment
(the recorded run's is not kept), with --env K=V on top. A handler that asks
the hook model (tier 2) calls it as the hook does (ANTHROPIC_BASE_URL is
honoured); with --no-llm such a call is reported as undecidable offline.

Not to be confused with run --replay, which runs the eval again against a
recorded cassette of model answers: replay never runs anything.

Exit status: 1 when a call the new policy denies ran in the recording, 0
otherwise, 2 for bad arguments or config, 3 when RUN cannot be read.

  agent-eval replay runs/2026-12-01T10-00-00 -c eval.yaml
  agent-eval replay runs/last --env JIRA_SERVER=https://jira.test --no-llm --json`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageErrorf("replay needs one run directory, got %d arguments", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error { return runReplay(cmd.Context(), e, opts, args[0]) },
	}
	f := cmd.Flags()
	f.StringVarP(&opts.config, "config", "c", "eval.yaml", "the eval config `FILE` whose policy re-decides, or the folder holding eval.yaml")
	f.StringArrayVar(&opts.env, "env", nil, "an environment variable `K=V` for env_checks (repeatable)")
	f.BoolVar(&opts.noLLM, "no-llm", false, "never call the hook model: calls that need it are reported undecidable offline")
	f.BoolVar(&opts.json, "json", false, "print one JSON object")
	return cmd
}

func runReplay(ctx context.Context, e env, opts replayOptions, runPath string) error {
	if ctx == nil {
		ctx = context.Background()
	}
	environ, err := explainEnviron(explainOptions{env: opts.env})
	if err != nil {
		return err
	}
	ev, err := config.Load(opts.config)
	if err != nil {
		return err
	}
	file, source, err := explainHandlers(explainOptions{config: opts.config})
	if err != nil {
		return err
	}
	dir, err := rundir.Open(runPath)
	if err != nil {
		return &codedError{ExitFailure, fmt.Errorf("replay: %w", err)}
	}
	run, err := dir.ReadRun()
	if err != nil {
		return &codedError{ExitFailure, fmt.Errorf("replay: %w", err)}
	}
	rules := evalRules(ev)
	home, _ := os.UserHomeDir()
	policy := redecide.Policy{Allow: rules.Allow, Deny: rules.Deny, Mode: ev.Runner.PermissionMode, Home: home,
		Hook: replayHook(ev, file, source, rules, redecide.Dialect(run.Agent))}
	ro := redecide.Options{Env: environ, FS: hook.OSFS{}}
	if !opts.noLLM {
		ro.NewAnswerer = func(caseID string) intercept.Answerer {
			return hook.NewLLMAnswerer(filepath.Join(ev.DatasetDir(), caseID), func(k string) string { return environ[k] })
		}
	}
	rep, err := redecide.Run(ctx, dir, policy, ro)
	if errors.Is(err, redecide.ErrUnreadable) {
		return &codedError{ExitFailure, fmt.Errorf("replay: %w", err)}
	}
	if err != nil {
		return fmt.Errorf("replay: %w", err)
	}
	if opts.json {
		enc := json.NewEncoder(e.Out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return fmt.Errorf("replay: write the report: %w", err)
		}
	} else {
		printReplay(e.Out, rep, opts.config)
	}
	if rep.DeniedRan > 0 {
		fmt.Fprintf(e.Err, "agent-eval: replay: the new policy denies %d call(s) that ran in %s\n", rep.DeniedRan, runPath)
		return errReported{ExitGate}
	}
	return nil
}

// replayHook is the new policy's hook for a case, as the runners write it:
// the handlers with the case's answers.yaml overrides, rooted at the
// recorded workspace, with the permission denies' paths for the path layer.
func replayHook(ev *config.Eval, file intercept.File, source string, rules permissions.Compiled, dialect string) func(string, string) (*hook.Decider, error) {
	paths := permissions.HookDeniedPaths(rules.Deny)
	if len(file.Handlers) == 0 && len(paths) == 0 {
		return nil // the runners wire no hook
	}
	return func(caseID, ws string) (*hook.Decider, error) {
		f := file
		f.Handlers = slices.Clone(file.Handlers)
		if f.Handlers == nil {
			f.Handlers = []intercept.Handler{}
		}
		if caseDir := filepath.Join(ev.DatasetDir(), caseID); caseID == filepath.Base(caseID) {
			if fi, err := os.Stat(caseDir); err == nil && fi.IsDir() {
				overrides, err := workspace.CaseOverrides(caseDir)
				if err != nil {
					return nil, fmt.Errorf("case %s: %w", caseID, err)
				}
				f = intercept.WithCaseOverrides(f, overrides)
			}
		}
		if ws == "" {
			ws = string(filepath.Separator) + "workspace" // a case that records none: relative paths only
		}
		f.Root = ws
		f.DeniedPaths = append(slices.Clone(f.DeniedPaths), paths...)
		f.DeniedPathReasons = permissions.HookDeniedPathReasons(rules, f.DeniedPaths)
		d, err := hook.NewDecider(f, dialect)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", source, err)
		}
		return d, nil
	}
}

// printReplay prints the changed calls per case and the summary.
func printReplay(w io.Writer, rep *redecide.Report, cfg string) {
	fmt.Fprintf(w, "replay of %s (%s) under %s\n", rep.Run, rep.Agent, cfg)
	for _, c := range rep.Cases {
		if len(c.Changes) == 0 {
			continue
		}
		fmt.Fprintf(w, "\ncase %s: %d of %d calls change\n", c.ID, len(c.Changes), c.Calls)
		for _, ch := range c.Changes {
			ran := ""
			if ch.Ran {
				ran = " (it ran)"
			}
			fmt.Fprintf(w, "  #%d %s %s — %s%s\n", ch.Index, ch.Tool, ch.Target, replayKind(ch.Kind), ran)
			fmt.Fprintf(w, "     was: %s by %s: %s%s\n", ch.Old.Outcome, ch.Old.By, oneLineText(ch.Old.Reason), answersText(ch.Old.Answers))
			fmt.Fprintf(w, "     now: %s by %s: %s%s\n", ch.New.Outcome, ch.New.By, oneLineText(ch.New.Reason), answersText(ch.New.Answers))
		}
	}
	s := rep.Summary
	fmt.Fprintf(w, "\n%d call(s) in %d case(s): %d allowed → denied (%d of them ran), %d denied → allowed, %d answers changed, %d undecidable offline\n",
		rep.Calls, len(rep.Cases), s[redecide.AllowedToDenied], rep.DeniedRan, s[redecide.DeniedToAllowed], s[redecide.AnswerChanged], s[redecide.Undecidable])
}

func replayKind(k string) string {
	switch k {
	case redecide.AllowedToDenied:
		return "allowed → denied"
	case redecide.DeniedToAllowed:
		return "denied → allowed"
	case redecide.AnswerChanged:
		return "answer changed"
	}
	return "undecidable offline"
}

func answersText(a map[string]string) string {
	if len(a) == 0 {
		return ""
	}
	b, _ := json.Marshal(a)
	return " answers " + string(b)
}
