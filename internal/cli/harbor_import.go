package cli

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/harbor"
	"github.com/agent-eval/agent-eval/internal/results"
	"github.com/agent-eval/agent-eval/internal/rundir"
)

type harborImportOptions struct {
	config  string
	runID   string
	runsDir string
	tasks   string
	json    bool
}

func newHarborImportCmd(e env) *cobra.Command {
	opts := harborImportOptions{}
	cmd := &cobra.Command{
		Use:   "import JOB_DIR",
		Short: "Map a Harbor job folder into a run directory that score, report and compare read",
		Long: `Read the Harbor job folder JOB_DIR (exactly that one: <jobs>/<job-name>, as
'harbor run -o JOBS --job-name NAME' writes it) and write the run directory a
local run of the same cases writes, under <runs-dir>/<eval-name>/<run-id>/
(the run id defaults to the job's name). Each trial's case is the one its
task's tests/case.json names; the task folders must still be where the job
ran them (config.json's task.path), or under --tasks DIR.

Per case: run_result.json (status, exit code, timeout, duration, cost and
tokens, permission_denials and the questions answered), transcript.jsonl and
stdout.log from the agent's log (claude-code.txt, parsed by the claude-code
runner's parser), hook_decisions.jsonl, outputs/ and _modified/ from what the
verifier collected (links and other non-files refused), and the trial's reward
and per-judge values under "harbor". A trial whose environment, agent setup or
verifier failed (no reward) gets status infra_error, which score never judges
(not a 0). Other attempts of a case (-k N) go to cases/<id>/attempts/<n>/;
score judges attempt 1. Multi-step trials map onto steps/<step>/ in [[steps]]
order. The config copy is -c's eval.yaml, else the tasks' tests/eval.yaml
(which has no dataset: give -c when judges read the cases' inputs).

stdout: the run directory (the run's run_result.json with --json); stderr:
what was refused and the infrastructure errors. Exit 0 when the job was
imported (score then judges it), 2 when JOB_DIR is not an importable job or
the run exists, 3 when writing the run failed.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageErrorf("%s takes one argument, the Harbor job folder JOB_DIR; got %d", cmd.CommandPath(), len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runHarborImport(cmd, e, opts, args[0])
		},
	}
	f := cmd.Flags()
	f.StringVarP(&opts.config, "config", "c", "", "record `FILE` as the run's eval.yaml (default: the tasks' tests/eval.yaml)")
	f.StringVar(&opts.runID, "run-id", "", "the run's `ID` (default: the job folder's name)")
	f.StringVar(&opts.runsDir, "runs-dir", "", "where runs go (default: $AGENT_EVAL_RUNS_DIR or eval/runs)")
	f.StringVar(&opts.tasks, "tasks", "", "the folder `DIR` holding the job's task folders, when they moved since the job ran")
	f.BoolVar(&opts.json, "json", false, "print the run's run_result.json on stdout")
	return cmd
}

func runHarborImport(cmd *cobra.Command, e env, opts harborImportOptions, job string) error {
	evalFile := ""
	if opts.config != "" {
		ev, err := config.Load(opts.config)
		if err != nil {
			return err
		}
		evalFile = ev.Path()
	}
	root := opts.runsDir
	if root == "" {
		root = e.Getenv(config.RunsDirEnv)
	}
	if root == "" {
		root = config.DefaultRunsDir
	}
	imp, err := harbor.Import(cmd.Context(), harbor.ImportOptions{JobDir: job, RunsRoot: root, RunID: opts.runID, EvalFile: evalFile, TasksDir: opts.tasks})
	var jobErr *harbor.JobError
	switch {
	case errors.As(err, &jobErr):
		return inputErrorf("%v", err)
	case errors.Is(err, rundir.ErrExists):
		return inputErrorf("%v; choose another --run-id", err)
	case err != nil:
		return err // a harness failure (3), or interrupted (130)
	}
	reportImport(e, job, imp)
	if opts.json {
		return printJSON(e.Out, imp.Run)
	}
	_, err = fmt.Fprintln(e.Out, imp.Dir.Path)
	return err
}

// reportImport says on stderr what an import refused or could not read,
// each infrastructure error, and the cases' statuses.
func reportImport(e env, job string, imp *harbor.Imported) {
	for _, w := range imp.Warnings {
		fmt.Fprintf(e.Err, "agent-eval: warning: %s\n", w)
	}
	for _, ie := range imp.Run.InfraErrors {
		fmt.Fprintf(e.Err, "agent-eval: infrastructure error: %s\n", infraLabel(ie))
	}
	fmt.Fprintf(e.Err, "agent-eval: imported %s: %s\n", job, statusCounts(imp.Run))
}

func infraLabel(ie results.InfraError) string {
	s := ie.Case
	if ie.Attempt > 1 {
		s += fmt.Sprintf(" (attempt %d)", ie.Attempt)
	}
	if ie.Step != "" {
		s += " step " + ie.Step
	}
	return s + ": " + ie.Reason
}

// statusCounts is "3 cases: 2 completed, 1 infra_error".
func statusCounts(r *results.RunResult) string {
	n := map[string]int{}
	for _, c := range r.PerCase {
		n[string(c.Status)]++
	}
	s := fmt.Sprintf("%d cases:", len(r.PerCase))
	for i, k := range sortedKeys(n) {
		if i > 0 {
			s += ","
		}
		s += fmt.Sprintf(" %d %s", n[k], k)
	}
	return s
}
