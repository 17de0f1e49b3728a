package cli

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/agent-eval/agent-eval/internal/intercept"
	"github.com/agent-eval/agent-eval/internal/lazyre"
	"github.com/agent-eval/agent-eval/internal/llm"
)

// resolveTimeout bounds the Stage-2 resolution of one handler.
const resolveTimeout = 2 * time.Minute

const resolveSystem = `You compile a natural-language tool-interception rule for an evaluation harness into concrete checks. ` +
	`The harness runs a coding agent headless; a PreToolUse hook applies your checks to each tool call. ` +
	`patterns: tool names the rule covers (exact, or a prefix ending in *, e.g. mcp__jira__*; "Bash" for shell commands). ` +
	`input_filters: case-insensitive Go (RE2) regular expressions over a Bash command line that identify the calls the rule is about ` +
	`(required when patterns include Bash; specific enough that unrelated commands such as ls do not match). ` +
	`env_checks: environment variables that point the client at a server, each with must_contain substrings that mark a test instance ` +
	`(e.g. localhost, 127.0.0.1, emulator, test, staging, sandbox). Leave env_checks empty only when every matching call must be denied. ` +
	`case_overrides: only for AskUserQuestion rules, exact question text to answer.`

var resolveSchema = map[string]any{
	"properties": map[string]any{
		"patterns":      map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
		"input_filters": map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
		"env_checks": map[string]any{"type": "object", "additionalProperties": map[string]any{
			"type": "object", "properties": map[string]any{"must_contain": map[string]any{"type": "array", "items": map[string]any{"type": "string"}}},
			"required": []string{"must_contain"}}},
		"case_overrides": map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "string"}},
	},
	"required": []string{"patterns"},
}

var toolPatternRE = lazyre.New(`^(\*|[A-Za-z_][A-Za-z0-9_-]*\*?)$`)

// resolved is the structured answer of the Stage-2 model.
type resolved struct {
	Patterns      []string                      `json:"patterns"`
	InputFilters  []string                      `json:"input_filters"`
	EnvChecks     map[string]intercept.EnvCheck `json:"env_checks"`
	CaseOverrides map[string]string             `json:"case_overrides"`
}

// resolveLLM asks the hook model to resolve one handler, validating its
// answer (patterns well-formed, regexes compile, variable names valid, Bash
// never without filters) and giving it one chance to fix it.
func resolveLLM(ctx context.Context, c *llm.Client, model string, h intercept.Handler) (intercept.Handler, error) {
	user := fmt.Sprintf("Rule to compile.\nmatch: %s\nprompt: %s\nPatterns found by name so far: %s\nCall submit_handler with the compiled checks.",
		strings.TrimSpace(h.Match), strings.TrimSpace(h.Prompt), strings.Join(h.Patterns, ", "))
	var ans resolved
	var out intercept.Handler
	validate := func() error {
		out = h
		out.Patterns, out.InputFilters, out.EnvChecks = ans.Patterns, ans.InputFilters, ans.EnvChecks
		if len(ans.CaseOverrides) > 0 {
			out.CaseOverrides = ans.CaseOverrides
		}
		var problems []string
		for _, p := range ans.Patterns {
			if !toolPatternRE().MatchString(p) {
				problems = append(problems, fmt.Sprintf("pattern %q is not a tool name (optionally ending in *)", p))
			}
		}
		if slices.Contains(ans.Patterns, "Bash") && len(ans.InputFilters) == 0 {
			problems = append(problems, "patterns include Bash but input_filters is empty")
		}
		if _, err := intercept.Prepare(intercept.File{Handlers: []intercept.Handler{out}}); err != nil {
			problems = append(problems, err.Error())
		}
		if len(problems) > 0 {
			return errors.New(strings.Join(problems, "; "))
		}
		return nil
	}
	err := c.Tool(ctx, model, resolveSystem, user, "submit_handler", "Submit the compiled checks of the rule.", resolveSchema, &ans, validate, resolveTimeout)
	return out, err
}
