package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/hook"
	"github.com/agent-eval/agent-eval/internal/intercept"
	"github.com/agent-eval/agent-eval/internal/permissions"
	"github.com/agent-eval/agent-eval/internal/workspace"
)

type explainOptions struct {
	config   string
	handlers string
	tool     string
	command  string
	input    string
	env      []string
	caseID   string
	json     bool
}

// explanation is `agent-eval explain --json`.
type explanation struct {
	Source   string             `json:"handlers_from"`
	Tool     string             `json:"tool"`
	Case     string             `json:"case,omitempty"`
	Decision intercept.Decision `json:"decision"`
	Match    string             `json:"handler_match,omitempty"`
	// Rules is the compiled permission rules' verdict on the same call
	// (absent when there is no eval.yaml to take them from).
	Rules *permissions.Verdict `json:"permission_rules,omitempty"`
	// Verdict answers "will this call run?": runs, blocked or
	// mode (the permission mode decides); VerdictWhy gives both reasons.
	Verdict    string `json:"verdict"`
	VerdictWhy string `json:"verdict_reason"`
}

func newExplainCmd(e env) *cobra.Command {
	opts := explainOptions{}
	cmd := &cobra.Command{
		Use:   "explain",
		Short: "Show how the interception hook would decide a tool call, and why",
		Long: `Answer "will this call run?" for one tool call, and why. The interception
hook's decision: which handler matches, which input filter and which
sub-command of a Bash line hit it, which env check fails, what the path layer
says, and which tier would answer an AskUserQuestion. And the verdict of
eval.yaml's permission rules, compiled as run compiles them, on the same call:
deny rules first, then allow rules (an approximation of Claude Code's rule
semantics for Bash(prefix:*), Bash(text), Read/Edit/Write(path globs) (a Read
deny also covers the files cat, head, grep, … name), tool names, mcp__server
and WebFetch(domain:…); other forms are listed as not judged). The verdict
line combines both: a deny by either blocks the call; a hook pass with no rule
matching leaves it to the permission mode. Nothing is run and no model is
called.

The handlers come from --handlers FILE, else the tool_handlers.yaml beside
eval.yaml, else eval.yaml's inputs.tools compiled in memory. With --case ID,
that case's answers.yaml case_overrides are merged in as run does, and the
case folder is shown as what tier 2 would read. The environment is this
process's, with --env K=V on top.

  agent-eval explain --tool Bash --command 'jira issue create' --env JIRA_SERVER=https://prod.example.com
  agent-eval explain --tool Bash --command 'cat secret/key.txt'
  agent-eval explain --case example-001 --tool AskUserQuestion --input '{"questions":[…]}'`,
		RunE: func(*cobra.Command, []string) error { return runExplain(e, opts) },
	}
	f := cmd.Flags()
	f.StringVarP(&opts.config, "config", "c", "eval.yaml", "the eval config `FILE`, or the folder holding eval.yaml")
	f.StringVar(&opts.handlers, "handlers", "", "a tool_handlers.yaml `FILE` to use instead")
	f.StringVar(&opts.tool, "tool", "", "the tool name (Bash, AskUserQuestion, mcp__server__tool, ...)")
	f.StringVar(&opts.command, "command", "", "the Bash command (sets the input's command)")
	f.StringVar(&opts.input, "input", "", "the tool input as a JSON object")
	f.StringArrayVar(&opts.env, "env", nil, "an environment variable `K=V` for env_checks (repeatable)")
	f.StringVar(&opts.caseID, "case", "", "use the case `ID`'s answers.yaml (case_overrides)")
	f.BoolVar(&opts.json, "json", false, "print one JSON object")
	return cmd
}

// noModel stands in for the LLM tier: explain never calls a model.
type noModel struct{}

func (noModel) Answer(context.Context, intercept.Question) (string, error) {
	return "", errors.New("explain does not call the hook model")
}

func runExplain(e env, opts explainOptions) error {
	input, err := explainInput(opts)
	if err != nil {
		return err
	}
	file, source, err := explainRootedHandlers(opts)
	if err != nil {
		return err
	}
	ev, evErr := config.Load(opts.config)
	var caseDir string
	if opts.caseID != "" {
		if evErr != nil {
			return fmt.Errorf("--case needs the eval config: %w", evErr)
		}
		if file, caseDir, err = withExplainCase(ev, file, opts.caseID); err != nil {
			return err
		}
	}
	policy, err := intercept.Prepare(file)
	if err != nil {
		return fmt.Errorf("%s: %w", source, err)
	}
	environ, err := explainEnviron(opts)
	if err != nil {
		return err
	}
	d := intercept.Decide(context.Background(), policy, intercept.Request{ToolName: opts.tool, ToolInput: input, Env: environ,
		CWD: file.Root, FS: hook.OSFS{}}, noModel{})
	ex := explanation{Source: source, Tool: opts.tool, Case: opts.caseID, Decision: d}
	if d.Handler >= 0 {
		ex.Match = strings.Join(strings.Fields(file.Handlers[d.Handler].Match), " ")
	}
	mode := ""
	if evErr == nil {
		v := explainRules(ev, opts.tool, input, file.Root)
		ex.Rules = &v
		mode = ev.Runner.PermissionMode
	}
	ex.Verdict, ex.VerdictWhy = combinedVerdict(d, ex.Rules, mode)
	if opts.json {
		enc := json.NewEncoder(e.Out)
		enc.SetIndent("", "  ")
		return enc.Encode(ex)
	}
	printExplanation(e.Out, ex, file.Root, evErr, caseDir, policy.HookModel)
	return nil
}

// explainInput is the tool call's input: --input's JSON object, with
// --command as its command.
func explainInput(opts explainOptions) (map[string]any, error) {
	if opts.tool == "" {
		return nil, usageErrorf("explain needs --tool")
	}
	input := map[string]any{}
	if opts.input != "" {
		if err := json.Unmarshal([]byte(opts.input), &input); err != nil {
			return nil, usageErrorf("--input is not a JSON object: %v", err)
		}
	}
	if opts.command != "" {
		input["command"] = opts.command
	}
	return input, nil
}

// explainRootedHandlers are the handlers explain judges with, and where
// they come from; their denied_paths are relative to their file's folder
// (for handlers compiled in memory, eval.yaml's).
func explainRootedHandlers(opts explainOptions) (intercept.File, string, error) {
	file, source, err := explainHandlers(opts)
	if err != nil {
		return file, source, err
	}
	if file.Root == "" {
		abs, err := filepath.Abs(strings.TrimSuffix(source, " (inputs.tools, compiled in memory)"))
		if err != nil {
			return file, source, err
		}
		file.Root = filepath.Dir(abs)
	}
	return file, source, nil
}

// withExplainCase merges case id's answers.yaml case_overrides into file,
// as run does; caseDir is the case's folder.
func withExplainCase(ev *config.Eval, file intercept.File, id string) (_ intercept.File, caseDir string, _ error) {
	if id != filepath.Base(id) || strings.HasPrefix(id, ".") {
		return file, "", usageErrorf("--case %q is not a case folder name", id)
	}
	caseDir = filepath.Join(ev.DatasetDir(), id)
	if fi, err := os.Stat(caseDir); err != nil || !fi.IsDir() {
		return file, "", inputErrorf("--case %s: no case folder %s", id, caseDir)
	}
	overrides, err := workspace.CaseOverrides(caseDir)
	if err != nil {
		return file, "", fmt.Errorf("case %s: %w", id, err)
	}
	return intercept.WithCaseOverrides(file, overrides), caseDir, nil
}

// explainEnviron is this process's environment with --env K=V on top.
func explainEnviron(opts explainOptions) (map[string]string, error) {
	environ := hook.EnvMap(os.Environ())
	for _, kv := range opts.env {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return nil, usageErrorf("--env %q is not K=V", kv)
		}
		environ[k] = v
	}
	return environ, nil
}

// explainRules judges the call with the eval's permission rules as run
// writes them: the harness's own denies, and the rules of
// runner.settings.permissions merged in.
func explainRules(ev *config.Eval, tool string, input map[string]any, cwd string) permissions.Verdict {
	c := evalRules(ev)
	home, _ := os.UserHomeDir()
	return permissions.Match(c.Allow, c.Deny, permissions.Call{Tool: tool, Input: input, CWD: cwd, Home: home})
}

// evalRules are the eval's permission rules as run writes them (explain
// and replay judge calls with them).
func evalRules(ev *config.Eval) permissions.Compiled {
	c := permissions.Compile(ev.Permissions.Allow, ev.Permissions.Deny)
	c.Deny = append(c.Deny, workspace.ProtectedDenies()...)
	if p, ok := ev.Runner.Settings["permissions"].(map[string]any); ok {
		c.Allow, c.Deny = append(c.Allow, anyStrings(p["allow"])...), append(c.Deny, anyStrings(p["deny"])...)
	}
	return c
}

// printExplanation prints ex for a reader: the handler, the rules, the
// answers and the verdict. root is the handlers' folder, evErr why the
// rules were not judged, caseDir the case's folder, hookModel the model
// tier 2 asks.
func printExplanation(w io.Writer, ex explanation, root string, evErr error, caseDir, hookModel string) {
	d := ex.Decision
	fmt.Fprintf(w, "handlers: %s\ndecision: %s\n", ex.Source, d.Kind)
	if d.Handler >= 0 {
		fmt.Fprintf(w, "handler:  %d (handlers[%d]): %s\n", d.Handler+1, d.Handler, ex.Match)
	} else if d.Kind == intercept.Deny {
		fmt.Fprintf(w, "handler:  none; the hook's path layer denies it (denied_paths, relative to %s)\n", root)
	} else {
		fmt.Fprintln(w, "handler:  none matches; the call passes through to Claude Code's own permissions")
	}
	if d.Detail != "" {
		fmt.Fprintf(w, "matched:  %s\n", d.Detail)
	}
	if d.Reason != "" {
		fmt.Fprintf(w, "reason:   %s\n", d.Reason)
	}
	if ex.Rules != nil {
		fmt.Fprintf(w, "rules:    %s: %s\n", ex.Rules.Decision, ex.Rules.Reason)
		for _, r := range ex.Rules.Unjudged {
			fmt.Fprintf(w, "rules:    not judged (a form explain does not know; it may still apply): %s\n", r)
		}
	} else {
		fmt.Fprintf(w, "rules:    not judged: %v\n", evErr)
	}
	for q, tier := range d.Tiers {
		switch tier {
		case intercept.TierFallback:
			from := "the case's input.yaml and answers.yaml"
			if caseDir != "" {
				from = "input.yaml and answers.yaml in " + caseDir
			}
			fmt.Fprintf(w, "answer:   %q → %q (fallback; when the run can reach the hook model %s, tier 2 asks it first, sending %s)\n", q, d.Answers[q], hookModel, from)
		default:
			fmt.Fprintf(w, "answer:   %q → %q (%s)\n", q, d.Answers[q], tier)
		}
	}
	for _, warn := range d.Warnings {
		if !strings.Contains(warn, "explain does not call") && !strings.Contains(warn, "with the fallback") {
			fmt.Fprintf(w, "warning:  %s\n", warn)
		}
	}
	fmt.Fprintf(w, "verdict:  %s — %s\n", ex.Verdict, ex.VerdictWhy)
}

// combinedVerdict is explain's one answer: a deny by the hook or by a
// permission rule blocks the call (a rule's deny wins over the hook's allow
// in Claude Code); a hook allow, or a pass with an allow rule, runs it;
// otherwise the permission mode decides.
func combinedVerdict(d intercept.Decision, rules *permissions.Verdict, mode string) (string, string) {
	hookWhy := "hook: " + string(d.Kind)
	switch {
	case d.Kind == intercept.Deny:
		hookWhy += " (" + oneLineText(d.Reason) + ")"
	case d.Kind == intercept.Allow:
		hookWhy += " (" + oneLineText(d.Reason) + ")"
	case d.Handler >= 0:
		hookWhy += " (handler " + fmt.Sprint(d.Handler+1) + "'s checks pass)"
	default:
		hookWhy += " (no handler matches)"
	}
	rulesWhy := "permission rules: not judged (no eval.yaml)"
	if rules != nil {
		rulesWhy = "permission rules: " + rules.Decision
		if rules.Rule != "" {
			rulesWhy += " (" + rules.Rule + ")"
		}
		if rules.Decision != "deny" && len(rules.Unjudged) > 0 {
			rulesWhy += fmt.Sprintf("; %d rule(s) not judged", len(rules.Unjudged))
		}
	}
	why := hookWhy + "; " + rulesWhy
	switch {
	case d.Kind == intercept.Deny, rules != nil && rules.Decision == "deny":
		return "blocked", why
	case d.Kind == intercept.Allow, rules != nil && rules.Decision == "allow":
		return "runs", why
	case mode == "bypassPermissions":
		return "runs", why + "; permission mode bypassPermissions"
	}
	if mode == "" {
		mode = "default"
	}
	return "mode", why + "; the permission mode (" + mode + ") decides: read-only tools and commands run, anything needing approval is denied in a headless run"
}

func oneLineText(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 160 {
		s = s[:157] + "..."
	}
	return s
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

func anyStrings(v any) []string {
	list, _ := v.([]any)
	var out []string
	for _, x := range list {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}
