package clirunner

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/agent-eval/agent-eval/internal/clip"
	"github.com/agent-eval/agent-eval/internal/config"
)

// Vars are the built-in placeholders' values for one invocation
// (config.BuiltinPlaceholders).
type Vars struct {
	Agent         string // {agent}: the skill (execution.skill or the step's), "" in prompt mode
	Workspace     string // {workspace}: the workspace, absolute (the agent's cwd)
	OutputDir     string // {output_dir}: <workspace>/output, absolute
	Model         string // {model}: models.skill or --model
	SubagentModel string // {subagent_model}: models.subagent, else the model
	// Timeout is {timeout}, in whole seconds ("" when 0).
	Timeout time.Duration
	// MaxBudgetUSD is {max_budget_usd} ("" when nil).
	MaxBudgetUSD *float64
	Effort       string // {effort}: runner.effort
	SystemPrompt string // {system_prompt}: runner.system_prompt
	ConfigDir    string // {config_dir}: eval.yaml's folder, absolute
	// Args is {args}: the rendered execution.arguments in skill mode, the
	// rendered prompt otherwise (a step's prompt in a pipeline).
	Args string
}

// Map returns the built-ins by name.
func (v Vars) Map() map[string]string {
	m := map[string]string{
		"agent": v.Agent, "workspace": v.Workspace, "output_dir": v.OutputDir, "model": v.Model,
		"subagent_model": v.SubagentModel, "timeout": "", "max_budget_usd": "", "effort": v.Effort,
		"system_prompt": v.SystemPrompt, "config_dir": v.ConfigDir, "args": v.Args,
	}
	if v.Timeout > 0 {
		m["timeout"] = strconv.FormatInt(int64(v.Timeout.Round(time.Second)/time.Second), 10)
	}
	if v.MaxBudgetUSD != nil {
		m["max_budget_usd"] = strconv.FormatFloat(*v.MaxBudgetUSD, 'f', -1, 64)
	}
	return m
}

// Expand fills cmd's placeholders, argument by argument: built-ins from
// vars, other names from the case's input (which never overrides a
// built-in). Each value lands inside its one argument, whatever it holds
// (spaces, quotes, `; rm -rf ~`, `$(id)`): nothing is split or run by a
// shell. A name that is neither is an error (config.CheckPlaceholders).
func Expand(cmd config.StringList, vars Vars, input map[string]any) ([]string, error) {
	if len(cmd) == 0 {
		return nil, fmt.Errorf("runner.command is empty")
	}
	if err := config.CheckPlaceholders(cmd, input); err != nil {
		return nil, err
	}
	builtins := vars.Map()
	if err := optionProblem(cmd, builtins, input); err != nil {
		return nil, err
	}
	out := make([]string, 0, len(cmd))
	for i, arg := range cmd {
		pieces, err := config.ParseArg(arg)
		if err != nil {
			return nil, fmt.Errorf("runner.command[%d]: %w", i, err)
		}
		var b strings.Builder
		for _, p := range pieces {
			switch v, ok := builtins[p.Placeholder]; {
			case p.Placeholder == "":
				b.WriteString(p.Text)
			case ok:
				b.WriteString(v)
			default:
				b.WriteString(inputText(input[p.Placeholder]))
			}
		}
		out = append(out, b.String())
	}
	return out, nil
}

// OptionProblem is the error Expand would give cmd for a case whose
// prompt (or arguments) is args and whose input is input when the case's
// text would reach the program as an option, or nil: validate checks every
// case with it before anything runs.
func OptionProblem(cmd config.StringList, args string, input map[string]any) error {
	return optionProblem(cmd, Vars{Args: args}.Map(), input)
}

// optionProblem applies optionInjection to each argument of cmd before
// the options end (a "--", or the script of a shell's -c).
func optionProblem(cmd config.StringList, builtins map[string]string, input map[string]any) error {
	optionsEnded, script, shell := false, config.ScriptIndex(cmd), len(cmd) > 0 && config.IsShell(cmd[0])
	safeScript := script >= 0 && config.PositionalSafe(cmd[script])
	for i, arg := range cmd {
		pieces, err := config.ParseArg(arg)
		if err != nil {
			return fmt.Errorf("runner.command[%d]: %w", i, err)
		}
		if err := optionInjection(pieces, builtins, input, optionsEnded); err != nil {
			if shell && script >= 0 && i > script {
				err = fmt.Errorf("%w (after the script of %s -c, it is a positional parameter the script hands to a program where it can be an option; write -- before it there: agent -- \"$1\")", err, cmd[0])
			}
			return fmt.Errorf("runner.command[%d]: %w", i, err)
		}
		// A shell hands what follows its script, "--" included, to the
		// script as $1, …: only a script that passes them on after a "--"
		// of its own (PositionalSafe) ends their options.
		optionsEnded = optionsEnded || (arg == "--" && !shell) || (safeScript && i >= script)
	}
	return nil
}

// optionInjection refuses an argument that the case's text (the prompt
// {args} or an input field) begins and that begins with "-" before any
// "--": the program would read it as an option (`claude -p {args}` given
// the prompt "--permission-mode=bypassPermissions", or "{args} please"). A
// plain decimal number is a value (config.CaseOption).
func optionInjection(pieces []config.Piece, builtins map[string]string, input map[string]any, optionsEnded bool) error {
	if optionsEnded {
		return nil
	}
	value := func(name string) string {
		if v, ok := builtins[name]; ok {
			return v
		}
		return inputText(input[name])
	}
	fromCase := func(name string) bool {
		_, builtin := builtins[name]
		return !builtin || name == "args"
	}
	name, arg := config.CaseOption(pieces, value, fromCase)
	if name == "" {
		return nil
	}
	return &OptionError{Placeholder: name, Arg: arg}
}

// OptionError is Expand's refusal of an argument that a case's text (the
// placeholder {args}, or an input field's) begins and that begins with
// "-" before the options end: the case's data, not the machine, stops it.
type OptionError struct {
	Placeholder string // "args", or the input field's name
	Arg         string // the argument as it would be
}

func (e *OptionError) Error() string {
	return fmt.Sprintf("{%s} makes the argument begin with %q, which the program would read as an option: put \"--\" before it in runner.command (`[claude, -p, --, \"{args}\"]`), or give it as --flag={%s}; only a plain decimal number (-5, -2.5) passes as a value", e.Placeholder, clip.String(e.Arg, 40), e.Placeholder)
}

// inputText is an input field as a command argument: a string as is, a
// number or boolean as YAML writes it, null as "", a list or map as JSON.
func inputText(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case bool, int, int64, uint64, float64:
		return fmt.Sprint(x)
	default:
		b, err := json.Marshal(jsonable(x))
		if err != nil {
			return fmt.Sprint(x)
		}
		return string(b)
	}
}

// jsonable turns YAML's map[any]any (older decoders) into map[string]any.
func jsonable(v any) any {
	switch x := v.(type) {
	case map[any]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[fmt.Sprint(k)] = jsonable(e)
		}
		return m
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = jsonable(e)
		}
		return m
	case []any:
		l := make([]any, len(x))
		for i, e := range x {
			l[i] = jsonable(e)
		}
		return l
	}
	return v
}
