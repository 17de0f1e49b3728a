package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/engine"
	"github.com/agent-eval/agent-eval/internal/score"
)

type validateOptions struct {
	config string
	json   bool
}

// validateReport is the --json output of validate.
type validateReport struct {
	File     string    `json:"file"`
	OK       bool      `json:"ok"`
	EvalName string    `json:"eval_name,omitempty"`
	RunsDir  string    `json:"runs_dir,omitempty"`
	Mode     string    `json:"mode,omitempty"`
	Runner   string    `json:"runner,omitempty"`
	Cases    int       `json:"cases"`
	Handlers int       `json:"handlers"`
	Judges   int       `json:"judges"`
	Errors   []problem `json:"errors"`
	Warnings []problem `json:"warnings"`
	// Error is set when the file is not valid, in the shape every --json
	// command prints on failure.
	Error *jsonErrorBody `json:"error,omitempty"`
}

type problem struct {
	Line    int    `json:"line,omitempty"`
	Col     int    `json:"col,omitempty"`
	Field   string `json:"field,omitempty"`
	Code    string `json:"code"`
	Message string `json:"message"`
}

func newValidateCmd(e env) *cobra.Command {
	opts := validateOptions{}
	cmd := &cobra.Command{
		Use:   "validate [PATH]",
		Short: "Check eval.yaml without running anything",
		Long: `Load eval.yaml strictly and report every problem at once, one line each, as
file:line:col: field: message. Unknown keys, wrong types, bad values, path
rules and conflicting keys are all caught here, before any agent starts, and so
is what run or score would refuse later: the judges are built as score builds
them (unknown builtins, agent judges, missing prompt, context and module files,
exec programs not found) and each cli command's program is looked up.

PATH (or -c) is the eval.yaml, or the folder holding it (default: ./eval.yaml).

Exit status: 0 when the file is valid (warnings do not fail it), 2 when it is not.`,
		Args: maxArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				if cmd.Flags().Changed("config") {
					return usageErrorf("validate: give the config as PATH or with -c, not both")
				}
				opts.config = configPath(args[0])
			}
			return runValidate(e, opts)
		},
	}
	cmd.Flags().StringVarP(&opts.config, "config", "c", "eval.yaml", "the eval config `FILE`, or the folder holding eval.yaml")
	cmd.Flags().BoolVar(&opts.json, "json", false, "print the result as JSON on stdout")
	return cmd
}

func runValidate(e env, opts validateOptions) error {
	ev, err := config.Load(opts.config)
	var problems config.Errors
	if err != nil && !errors.As(err, &problems) {
		return err
	}
	if err == nil {
		for _, p := range permissionProblems(ev) {
			if p.Warning {
				ev.Warnings = append(ev.Warnings, p)
			} else {
				problems = append(problems, p)
			}
		}
		warns, errs := handlerProblems(ev)
		line, col := ev.Position("inputs")
		for _, msg := range warns {
			ev.Warnings = append(ev.Warnings, config.Error{File: ev.Path(), Line: line, Col: col, Field: "inputs.tools", Warning: true, Msg: msg})
		}
		for _, msg := range errs {
			problems = append(problems, config.Error{File: ev.Path(), Line: line, Col: col, Field: "inputs.tools", Code: config.CodeSemantic, Msg: msg})
		}
		cw, ce := caseProblems(ev, e.Getenv)
		ev.Warnings = append(ev.Warnings, cw...)
		problems = append(problems, ce...)
		problems = append(problems, sharedFileProblems(ev, mustGetwd())...)
		// What score refuses, or would error on for every case; a field
		// already reported keeps its first problem.
		for _, p := range score.Check(ev, e.Getenv) {
			if !slices.ContainsFunc(problems, func(q config.Error) bool { return q.Field == p.Field }) {
				problems = append(problems, p)
			}
		}
		if len(problems) > 0 {
			err = problems
		}
	}
	rep := validateReport{File: opts.config, OK: err == nil, Errors: toProblems(problems), Warnings: []problem{}}
	var caseErr error
	if ev != nil {
		rep.Warnings = toProblems(ev.Warnings)
		rep.Mode, rep.Runner = ev.Mode(), ev.RunnerType()
		rep.Handlers, rep.Judges = len(ev.Inputs.Tools), len(ev.Judges)
		rep.EvalName, rep.RunsDir = ev.EvalName(), ev.RunsDir(e.Getenv)
		var ids []string
		ids, caseErr = ev.CaseIDs()
		rep.Cases = len(ids)
	}
	all := append(append(config.Errors{}, problems...), warningsOf(ev)...)
	all.Sort()
	for _, p := range all {
		fmt.Fprintln(e.Err, p.Error())
	}
	noConfigNote(e.Err, problems)
	if opts.json {
		if !rep.OK {
			rep.Error = &jsonErrorBody{Code: ExitUsage, Message: fmt.Sprintf("%s has %s", opts.config, engine.Plural(len(rep.Errors), "problem")), Problems: rep.Errors}
		}
		enc := json.NewEncoder(e.Out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return err
		}
		if !rep.OK {
			return errReported{ExitUsage}
		}
		return nil
	}
	if !rep.OK {
		return errReported{ExitUsage}
	}
	fmt.Fprintln(e.Out, summary(ev, rep, caseErr))
	return nil
}

func warningsOf(ev *config.Eval) config.Errors {
	if ev == nil {
		return nil
	}
	return ev.Warnings
}

func toProblems(es config.Errors) []problem {
	out := make([]problem, 0, len(es))
	for _, p := range es {
		out = append(out, problem{Line: p.Line, Col: p.Col, Field: p.Field, Code: string(p.Code), Message: p.Msg})
	}
	return out
}

func summary(ev *config.Eval, rep validateReport, caseErr error) string {
	what := "prompt"
	switch {
	case len(ev.Execution.Steps) > 0:
		what = engine.Plural(len(ev.Execution.Steps), "step")
	case strings.TrimSpace(ev.Execution.Skill) != "":
		what = "skill " + ev.Execution.Skill
	}
	cases := engine.Plural(rep.Cases, "case")
	switch {
	case ev.Dataset.Path == "":
		cases = "no dataset.path"
	case caseErr != nil:
		cases = "cases unreadable: " + caseErr.Error()
	}
	return fmt.Sprintf("%s: ok: eval %s, mode %s, %s, runner %s, %s, %s, %s",
		rep.File, rep.EvalName, rep.Mode, what, rep.Runner, cases,
		engine.Plural(rep.Handlers, "tool handler"), engine.Plural(rep.Judges, "judge"))
}
