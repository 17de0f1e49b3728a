package cli

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	yaml "go.yaml.in/yaml/v3"

	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/engine"
	"github.com/agent-eval/agent-eval/internal/hook"
	"github.com/agent-eval/agent-eval/internal/intercept"
	"github.com/agent-eval/agent-eval/internal/lazyre"
	"github.com/agent-eval/agent-eval/internal/llm"
	"github.com/agent-eval/agent-eval/internal/permissions"
	"github.com/agent-eval/agent-eval/internal/redact"
	"github.com/agent-eval/agent-eval/internal/runner/claudecode"
)

// BinEnv overrides the executable written into hook settings (default: this
// binary's own path).
const BinEnv = "AGENT_EVAL_BIN"

// HookTimeoutSeconds is the timeout of the generated PreToolUse entries.
const HookTimeoutSeconds = hook.TimeoutSeconds

type compileOptions struct {
	config  string
	resolve string
	output  string
	wire    string
}

func newCompileCmd(e env) *cobra.Command {
	opts := compileOptions{}
	cmd := &cobra.Command{
		Use:   "compile",
		Short: "Compile inputs.tools into tool_handlers.yaml for the interception hook",
		Long: `Compile eval.yaml's inputs.tools handlers into tool_handlers.yaml, which runs use
as it is.

Stage 1 (always) turns the tool names a handler's match text mentions (as whole
words) and its mcp__ tokens into patterns; Bash when it only speaks of scripts
or APIs; * otherwise. Stage 2 adds input_filters and env_checks:
  none     Stage 1 only
  catalog  an offline catalogue of common services (Jira, Confluence, Slack,
           GitHub, GitLab, Linear, PagerDuty, Notion, Kubernetes, AWS, Google
           Cloud, Azure, Salesforce, Sentry, databases)
  llm      the hook model (models.hook), asked for a structured answer that is
           validated (patterns, regexes, variable names) and retried once
  auto     the catalogue, then the model for handlers it left unresolved when
           ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN is set (the default)

The file starts with a header recording how each handler was resolved and a
hash of eval.yaml's inputs; 'agent-eval validate' warns when eval.yaml changed
since. --wire DIR writes the file into DIR and adds the PreToolUse hook to
DIR/.claude/settings.json, as a run does for a workspace.`,
		RunE: func(cmd *cobra.Command, _ []string) error { return runCompile(cmd.Context(), e, opts) },
	}
	f := cmd.Flags()
	f.StringVarP(&opts.config, "config", "c", "eval.yaml", "the eval config `FILE`, or the folder holding eval.yaml")
	f.StringVar(&opts.resolve, "resolve", "auto", "Stage 2: none, catalog, llm or auto")
	f.StringVarP(&opts.output, "output", "o", "", "write to `FILE` (default: tool_handlers.yaml beside eval.yaml; - for stdout)")
	f.StringVar(&opts.wire, "wire", "", "write the handlers and the hook settings into the workspace `DIR`")
	return cmd
}

// compiled is the result of compiling an eval's handlers.
type compiled struct {
	file        intercept.File
	resolutions []intercept.Resolution
	hash        string
}

func compileHandlers(ev *config.Eval, resolve string) (compiled, error) {
	return compileHandlersWith(context.Background(), ev, resolve, nil, nil)
}

// compileHandlersWith compiles with Stage 2 through the model when resolve
// asks for it (llm, or auto with credentials); warn gets what could not be
// resolved.
func compileHandlersWith(ctx context.Context, ev *config.Eval, resolve string, getenv func(string) string, warn func(string)) (compiled, error) {
	c := compiled{file: intercept.File{HookModel: ev.HookModel()}}
	var client *llm.Client
	useLLM := func() bool {
		switch resolve {
		case "llm":
			return true
		case "auto":
			return getenv != nil && (getenv("ANTHROPIC_API_KEY") != "" || getenv("ANTHROPIC_AUTH_TOKEN") != "")
		}
		return false
	}
	for i, t := range ev.Inputs.Tools {
		h := intercept.Handler{Match: strings.TrimSpace(t.Match), Prompt: strings.TrimSpace(t.Prompt), PromptFile: t.PromptFile}
		if t.PromptFile != "" {
			b, err := os.ReadFile(filepath.Join(ev.Dir(), t.PromptFile))
			if err != nil {
				return c, fmt.Errorf("inputs.tools[%d].prompt_file: %w", i, err)
			}
			h.Prompt = strings.TrimSpace(string(b))
		}
		h.Patterns = intercept.ExtractPatterns(h.Match)
		res := intercept.Resolution{Method: "none"}
		switch resolve {
		case "none", "llm":
		case "catalog", "auto":
			if r, rr, ok := intercept.ResolveCatalog(h); ok {
				h, res = r, rr
			}
		default:
			return c, usageErrorf("--resolve must be none, catalog, llm or auto, got %q", resolve)
		}
		askOnly := slices.Equal(h.Patterns, []string{"AskUserQuestion"})
		if res.Method == "none" && !askOnly && useLLM() {
			if client == nil {
				client = llm.New(2)
			}
			r, err := resolveLLM(ctx, client, ev.HookModel(), h)
			switch {
			case err == nil:
				h, res = r, intercept.Resolution{Method: "llm"}
			case resolve == "llm":
				return c, fmt.Errorf("inputs.tools[%d]: resolve with %s: %w", i, ev.HookModel(), err)
			case warn != nil:
				warn(fmt.Sprintf("inputs.tools[%d]: the model could not resolve it (%v); left at Stage 1", i, err))
			}
		}
		c.file.Handlers = append(c.file.Handlers, h)
		c.resolutions = append(c.resolutions, res)
	}
	// The hook's path layer: paths the eval denies stay denied in Bash.
	perms := permissions.Compile(ev.Permissions.Allow, ev.Permissions.Deny)
	c.file.DeniedPaths = permissions.HookDeniedPaths(perms.Deny)
	c.file.DeniedPathReasons = redact.Map(permissions.HookDeniedPathReasons(perms, c.file.DeniedPaths))
	c.hash = inputsHash(ev, c.file)
	return c, nil
}

// inputsHash fingerprints what the handlers are compiled from.
func inputsHash(ev *config.Eval, f intercept.File) string {
	type in struct {
		Match, Prompt, PromptFile string
	}
	var ins []in
	for i, t := range ev.Inputs.Tools {
		prompt := t.Prompt
		if i < len(f.Handlers) && t.PromptFile != "" {
			prompt = f.Handlers[i].Prompt
		}
		ins = append(ins, in{t.Match, prompt, t.PromptFile})
	}
	var b []byte
	if len(f.DeniedPaths) == 0 {
		b, _ = json.Marshal(struct {
			Tools []in
			Model string
		}{ins, ev.HookModel()})
	} else if len(f.DeniedPathReasons) == 0 {
		b, _ = json.Marshal(struct {
			Tools       []in
			Model       string
			DeniedPaths []string
		}{ins, ev.HookModel(), f.DeniedPaths})
	} else {
		b, _ = json.Marshal(struct {
			Tools       []in
			Model       string
			DeniedPaths []string
			Reasons     map[string]string
		}{ins, ev.HookModel(), f.DeniedPaths, f.DeniedPathReasons})
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func (c compiled) render(evalPath string) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# Generated by agent-eval compile from %s. Runs use this file as it is:\n", filepath.Base(evalPath))
	b.WriteString("# review it, edit it by hand if needed, and re-run compile when inputs.tools changes.\n")
	fmt.Fprintf(&b, "# inputs-sha256: %s\n", c.hash)
	for i, r := range c.resolutions {
		how := r.Method
		if len(r.Services) > 0 {
			how += " (" + strings.Join(r.Services, ", ") + ")"
		}
		fmt.Fprintf(&b, "# handlers[%d]: resolved by %s\n", i, how)
	}
	body, _ := yaml.Marshal(c.file)
	b.Write(body)
	return b.Bytes()
}

var hashLineRE = lazyre.New(`(?m)^# inputs-sha256: ([0-9a-f]{64})$`)

// handlerProblems checks the tool_handlers.yaml beside eval.yaml, which runs
// use as it is: stale (compiled from other inputs), invalid (the hook would
// deny every call), or holding Bash handlers without input_filters (the hook
// skips them).
func handlerProblems(ev *config.Eval) (warnings, errs []string) {
	path := filepath.Join(ev.Dir(), hook.HandlersFile)
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, nil
	}
	f, err := hook.ReadHandlers(path)
	if err != nil {
		return nil, []string{err.Error() + "; the hook would deny every call"}
	}
	if _, err := intercept.Prepare(f); err != nil {
		return nil, []string{path + ": " + err.Error() + "; the hook would deny every call"}
	}
	for _, i := range intercept.Misconfigured(f) {
		warnings = append(warnings, fmt.Sprintf("%s: handlers[%d] gates Bash but has no input_filters; the hook skips it, so it gates nothing", path, i))
	}
	for _, w := range intercept.WeakChecks(f) {
		warnings = append(warnings, path+": "+w)
	}
	if intercept.UnusedCaseOverrides(f) {
		warnings = append(warnings, path+": case_overrides answer nothing: no handler's patterns cover AskUserQuestion")
	}
	if m := hashLineRE().FindSubmatch(b); m != nil {
		if c, err := compileHandlers(ev, "none"); err == nil && string(m[1]) != c.hash {
			warnings = append(warnings, path+" was compiled from a different inputs.tools or models.hook; run 'agent-eval compile' again")
		}
	}
	return warnings, errs
}

func runCompile(ctx context.Context, e env, opts compileOptions) error {
	ev, err := config.Load(opts.config)
	if err != nil {
		return err
	}
	c, err := compileHandlersWith(ctx, ev, opts.resolve, e.Getenv, func(msg string) { fmt.Fprintln(e.Err, "agent-eval: warning:", msg) })
	if err != nil {
		return err
	}
	if _, err := intercept.Prepare(c.file); err != nil {
		return fmt.Errorf("compile: %w", err)
	}
	for _, i := range intercept.Misconfigured(c.file) {
		fmt.Fprintf(e.Err, "agent-eval: warning: inputs.tools[%d] gates Bash but has no input_filters: the hook skips it; name the service or command in match, or add input_filters by hand\n", i)
	}
	for _, w := range intercept.WeakChecks(c.file) {
		fmt.Fprintln(e.Err, "agent-eval: warning:", w)
	}
	out := c.render(opts.config)
	target := opts.output
	if opts.wire != "" {
		target = filepath.Join(opts.wire, hook.HandlersFile)
		if len(c.file.DeniedPaths) > 0 {
			// denied_paths are relative to the project being wired.
			if c.file.Root, err = filepath.Abs(opts.wire); err != nil {
				return fmt.Errorf("compile: %w", err)
			}
			out = c.render(opts.config)
		}
	}
	if target == "" {
		target = filepath.Join(ev.Dir(), hook.HandlersFile)
	}
	if target == "-" {
		_, err := e.Out.Write(out)
		return err
	}
	if err := os.WriteFile(target, out, 0o644); err != nil {
		return fmt.Errorf("compile: %w", err)
	}
	fmt.Fprintf(e.Err, "wrote %s (%s", target, engine.Plural(len(c.file.Handlers), "handler"))
	if n := len(c.file.DeniedPaths); n > 0 {
		fmt.Fprintf(e.Err, ", %s for Bash", engine.Plural(n, "denied path"))
	}
	fmt.Fprintln(e.Err, ")")
	if opts.wire == "" {
		return nil
	}
	return wireHook(e, opts.wire, target, c.file)
}

// wireHook adds the PreToolUse entries that run this binary's hook to
// dir/.claude/settings.json, keeping everything else in it.
func wireHook(e env, dir, handlers string, f intercept.File) error {
	bin := e.Getenv(BinEnv)
	if bin == "" {
		exe, err := os.Executable()
		if err != nil {
			return err
		}
		bin = exe
	}
	abs, err := filepath.Abs(handlers)
	if err != nil {
		return err
	}
	command := intercept.ShellQuote(bin) + " hook --handlers " + intercept.ShellQuote(abs)
	settingsPath := filepath.Join(dir, ".claude", "settings.json")
	settings, err := readJSONFile(settingsPath)
	if err != nil {
		return err
	}
	if settings == nil {
		settings = map[string]any{}
	}
	hooks, _ := settings["hooks"].(map[string]any)
	if hooks == nil {
		hooks = map[string]any{}
	}
	existing, _ := hooks["PreToolUse"].([]any)
	hooks["PreToolUse"] = append(claudecode.HookEntries(f, command, HookTimeoutSeconds), existing...) // the harness's hook runs first
	settings["hooks"] = hooks
	if settings["disableAllHooks"] == true {
		delete(settings, "disableAllHooks") // it would switch the hook off
		fmt.Fprintf(e.Err, "agent-eval: warning: removed disableAllHooks: true from %s; it switches off the hook\n", settingsPath)
	}
	local := filepath.Join(dir, ".claude", "settings.local.json")
	if l, err := readJSONFile(local); err == nil && l["disableAllHooks"] == true {
		fmt.Fprintf(e.Err, "agent-eval: warning: %s sets disableAllHooks: true, which outranks %s: Claude Code will run no hook there, so nothing is intercepted\n", local, settingsPath)
	}
	if err := os.MkdirAll(filepath.Dir(settingsPath), 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(settings, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(settingsPath, append(b, '\n'), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(e.Err, "wired the PreToolUse hook into %s\n", settingsPath)
	return nil
}
