package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/harbor"
	"github.com/agent-eval/agent-eval/internal/intercept"
	"github.com/agent-eval/agent-eval/internal/version"
)

type harborExportOptions struct {
	config, out, image, workdir, binary string
	cases                               []string
	agentTimeout, verifierTimeout       time.Duration
	force                               bool
}

func newHarborExportCmd(e env) *cobra.Command {
	opts := harborExportOptions{}
	cmd := &cobra.Command{
		Use:   "export -o DIR --image IMAGE",
		Short: "Write one Harbor task package per case",
		Long: `Write one Harbor task folder per case of the dataset (or --cases) into DIR:
task.toml, instruction.md (the prompt as a run sends it), environment/ (the
case's workspace, .claude/settings.json with eval.yaml's permissions and the
hook, tool_handlers.yaml, a static agent-eval for the hook) and tests/ (the
verifier: test.sh, agent-eval, the eval, the case's folder). $VAR values of
execution.env and runner.env become Harbor env templates, resolved where
harbor runs: no value is written. The tree is checked against Harbor's rules
(as 'agent-eval harbor check' does) before anything in DIR changes.

Prints one line per task and the harbor run command on stdout. Exits 2 for
what a Harbor task cannot carry (batch mode, repo mode, a runner other than
claude-code, lifecycle hooks, ...).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runHarborExport(cmd, e, opts) },
	}
	f := cmd.Flags()
	f.StringVarP(&opts.config, "config", "c", "eval.yaml", "the eval config `FILE`, or the folder holding eval.yaml")
	f.StringVarP(&opts.out, "output", "o", "", "the `DIR` to write the task folders into (required)")
	f.StringSliceVar(&opts.cases, "cases", nil, "export only these case `IDS` (comma-separated)")
	f.StringVar(&opts.image, "image", "", "the container `IMAGE` the tasks run in (required)")
	f.StringVar(&opts.workdir, "workdir", harbor.Workdir, "the agent's workspace in the container")
	f.StringVar(&opts.binary, "binary", "", "the static linux/amd64 agent-eval the tasks carry (default: this one, when it is)")
	f.DurationVar(&opts.agentTimeout, "agent-timeout", 0, "the agent's time limit (default: execution.timeout)")
	f.DurationVar(&opts.verifierTimeout, "verifier-timeout", harbor.DefaultVerifierTimeout, "the verifier's time limit")
	f.BoolVar(&opts.force, "force", false, "replace the task folders of an earlier export in DIR")
	return cmd
}

func runHarborExport(cmd *cobra.Command, e env, opts harborExportOptions) error {
	if opts.out == "" {
		return usageErrorf("-o DIR is required: the folder to write the tasks into")
	}
	if opts.image == "" {
		return usageErrorf("--image is required: the container image the tasks run in")
	}
	ev, err := config.Load(opts.config)
	if err != nil {
		return err
	}
	for _, w := range ev.Warnings {
		fmt.Fprintln(e.Err, w.Error())
	}
	handlers, err := exportHandlers(cmd.Context(), ev, e.Getenv, func(msg string) { fmt.Fprintln(e.Err, "warning: "+msg) })
	if err != nil {
		return err
	}
	x, err := harbor.Export(cmd.Context(), harbor.Options{Eval: ev, Cases: opts.cases, Out: opts.out, Image: opts.image,
		Workdir: opts.workdir, Binary: opts.binary, AgentTimeout: opts.agentTimeout, VerifierTimeout: opts.verifierTimeout,
		Force: opts.force, Handlers: handlers, ProjectRoot: mustGetwd(), Environ: os.Environ(), Version: version.Get().Version})
	var refusal *harbor.RefusalError
	var problems *harbor.ProblemsError
	switch {
	case errors.As(err, &refusal):
		return &codedError{ExitUsage, err}
	case errors.As(err, &problems):
		return &codedError{ExitFailure, err}
	case err != nil:
		return err
	}
	for _, t := range x.Tasks {
		fmt.Fprintf(e.Out, "%s\t%s\t%s\n", t.CaseID, t.Name, t.Dir)
	}
	fmt.Fprintf(e.Err, "%d task(s) in %s; run them with:\n", len(x.Tasks), x.Dir)
	fmt.Fprintln(e.Out, harborRunCommand(x.Dir, ev))
	return nil
}

// exportHandlers are the compiled inputs.tools a task's hook answers
// (nil without inputs.tools), loaded as a run loads them.
func exportHandlers(ctx context.Context, ev *config.Eval, getenv func(string) string, warn func(string)) (*intercept.File, error) {
	if len(ev.Inputs.Tools) == 0 {
		return nil, nil
	}
	h, err := loadHandlers(ctx, ev, getenv, warn)
	if err != nil {
		return nil, fmt.Errorf("compile inputs.tools: %w", err)
	}
	return h, nil
}

// harborRunCommand is the harbor run command for an export: Harbor's
// claude-code agent given what a local run gives Claude Code (add -e for a
// cloud environment).
func harborRunCommand(dir string, ev *config.Eval) string {
	parts := []string{"harbor", "run", "-p", intercept.ShellQuote(dir)}
	for _, a := range harbor.AgentArgs(ev, ev.Models.Skill) {
		parts = append(parts, intercept.ShellQuote(a))
	}
	return strings.Join(parts, " ")
}
