package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/hook"
	"github.com/agent-eval/agent-eval/internal/intercept"
)

type explainOptions struct {
	config   string
	handlers string
	tool     string
	command  string
	input    string
	env      []string
	json     bool
}

// explanation is `agent-eval explain --json`.
type explanation struct {
	Source   string             `json:"handlers_from"`
	Tool     string             `json:"tool"`
	Decision intercept.Decision `json:"decision"`
	Match    string             `json:"handler_match,omitempty"`
}

func newExplainCmd(e env) *cobra.Command {
	opts := explainOptions{}
	cmd := &cobra.Command{
		Use:   "explain",
		Short: "Show how the interception hook would decide a tool call, and why",
		Long: `Show how the interception hook would decide one tool call: which handler
matches, which input filter and which sub-command of a Bash line hit it, which
env check fails, and which tier would answer an AskUserQuestion. Nothing is
run and no model is called.

The handlers come from --handlers FILE, else the tool_handlers.yaml beside
eval.yaml, else eval.yaml's inputs.tools compiled in memory. The environment
is this process's, with --env K=V on top.

  agent-eval explain --tool Bash --command 'jira issue create' --env JIRA_SERVER=https://prod.example.com`,
		RunE: func(*cobra.Command, []string) error { return runExplain(e, opts) },
	}
	f := cmd.Flags()
	f.StringVarP(&opts.config, "config", "c", "eval.yaml", "the eval config `FILE`, or the folder holding eval.yaml")
	f.StringVar(&opts.handlers, "handlers", "", "a tool_handlers.yaml `FILE` to use instead")
	f.StringVar(&opts.tool, "tool", "", "the tool name (Bash, AskUserQuestion, mcp__server__tool, ...)")
	f.StringVar(&opts.command, "command", "", "the Bash command (sets the input's command)")
	f.StringVar(&opts.input, "input", "", "the tool input as a JSON object")
	f.StringArrayVar(&opts.env, "env", nil, "an environment variable `K=V` for env_checks (repeatable)")
	f.BoolVar(&opts.json, "json", false, "print one JSON object")
	return cmd
}

// noModel stands in for the LLM tier: explain never calls a model.
type noModel struct{}

func (noModel) Answer(context.Context, intercept.Question) (string, error) {
	return "", errors.New("explain does not call the hook model")
}

func runExplain(e env, opts explainOptions) error {
	if opts.tool == "" {
		return usageErrorf("explain needs --tool")
	}
	input := map[string]any{}
	if opts.input != "" {
		if err := json.Unmarshal([]byte(opts.input), &input); err != nil {
			return usageErrorf("--input is not a JSON object: %v", err)
		}
	}
	if opts.command != "" {
		input["command"] = opts.command
	}
	file, source, err := explainHandlers(opts)
	if err != nil {
		return err
	}
	if file.Root == "" {
		// denied_paths are relative to the handlers file's directory (for
		// handlers compiled in memory, eval.yaml's).
		abs, err := filepath.Abs(strings.TrimSuffix(source, " (inputs.tools, compiled in memory)"))
		if err != nil {
			return err
		}
		file.Root = filepath.Dir(abs)
	}
	policy, err := intercept.Prepare(file)
	if err != nil {
		return fmt.Errorf("%s: %w", source, err)
	}
	environ := hook.EnvMap(os.Environ())
	for _, kv := range opts.env {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return usageErrorf("--env %q is not K=V", kv)
		}
		environ[k] = v
	}
	d := intercept.Decide(context.Background(), policy, intercept.Request{ToolName: opts.tool, ToolInput: input, Env: environ,
		CWD: file.Root, FS: hook.OSFS{}}, noModel{})
	ex := explanation{Source: source, Tool: opts.tool, Decision: d}
	if d.Handler >= 0 {
		ex.Match = strings.Join(strings.Fields(file.Handlers[d.Handler].Match), " ")
	}
	if opts.json {
		enc := json.NewEncoder(e.Out)
		enc.SetIndent("", "  ")
		return enc.Encode(ex)
	}
	w := e.Out
	fmt.Fprintf(w, "handlers: %s\ndecision: %s\n", source, d.Kind)
	if d.Handler >= 0 {
		fmt.Fprintf(w, "handler:  handlers[%d]: %s\n", d.Handler, ex.Match)
	} else if d.Kind == intercept.Deny {
		fmt.Fprintf(w, "handler:  none; the hook's path layer denies it (denied_paths, relative to %s)\n", file.Root)
	} else {
		fmt.Fprintln(w, "handler:  none matches; the call passes through to Claude Code's own permissions")
	}
	if d.Detail != "" {
		fmt.Fprintf(w, "matched:  %s\n", d.Detail)
	}
	if d.Reason != "" {
		fmt.Fprintf(w, "reason:   %s\n", d.Reason)
	}
	for q, tier := range d.Tiers {
		switch tier {
		case intercept.TierFallback:
			fmt.Fprintf(w, "answer:   %q → %q (fallback; when the run can reach the hook model %s, tier 2 asks it first)\n", q, d.Answers[q], policy.HookModel)
		default:
			fmt.Fprintf(w, "answer:   %q → %q (%s)\n", q, d.Answers[q], tier)
		}
	}
	for _, warn := range d.Warnings {
		if !strings.Contains(warn, "explain does not call") && !strings.Contains(warn, "with the fallback") {
			fmt.Fprintf(w, "warning:  %s\n", warn)
		}
	}
	return nil
}

func explainHandlers(opts explainOptions) (intercept.File, string, error) {
	path := opts.handlers
	if path == "" {
		ev, err := config.Load(opts.config)
		if err != nil {
			return intercept.File{}, "", err
		}
		beside := filepath.Join(ev.Dir(), hook.HandlersFile)
		if _, err := os.Stat(beside); err != nil {
			c, err := compileHandlers(ev, "auto")
			return c.file, opts.config + " (inputs.tools, compiled in memory)", err
		}
		path = beside
	}
	f, err := hook.ReadHandlers(path)
	return f, path, err
}
