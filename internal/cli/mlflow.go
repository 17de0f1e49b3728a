package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/export/mlflow"
	"github.com/agent-eval/agent-eval/internal/export/otlp"
	"github.com/agent-eval/agent-eval/internal/rundir"
	"github.com/agent-eval/agent-eval/internal/version"
)

// mlflowOptions are `agent-eval mlflow`'s flags.
type mlflowOptions struct {
	config string
	runID  string
	// configSet: -c was given (else the run's own copy of eval.yaml says
	// where to log).
	configSet bool
}

func newMLflowCmd(e env) *cobra.Command {
	opts := mlflowOptions{}
	cmd := &cobra.Command{
		Use:   "mlflow [RUN_DIR]",
		Short: "Log a scored run to an MLflow tracking server",
		Long: `Log a scored run directory to MLflow: params, metrics, tags, and summary.yaml,
report.html, junit.xml, run_result.json, the eval's copy and a per-case
table (per_case_results.json) as artifacts. score does this itself when
eval.yaml has an mlflow: block; this logs any scored run, again or for the
first time, with or without the block.

The MLflow run is named after the run id: logging the same run again
updates that MLflow run. The experiment is mlflow.experiment (default: the
eval's name), created when missing; the server is mlflow.tracking_uri, else
$MLFLOW_TRACKING_URI, else http://127.0.0.1:5000. Credentials:
MLFLOW_TRACKING_TOKEN (bearer), or MLFLOW_TRACKING_USERNAME and
MLFLOW_TRACKING_PASSWORD (basic); MLFLOW_TRACKING_INSECURE_TLS=true skips
the check of the server's certificate. Everything logged is redacted.

The run is RUN_DIR, else --run-id ID under the eval's runs directory, else
the eval's latest run; without -c its own copy of eval.yaml says where to
log. The MLflow run's URL is printed on stderr.

Exit status: 0 when logged, 2 for a usage or configuration error (a run
not scored), 3 when the tracking server could not be reached or refused.`,
		Args: maxArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.configSet = cmd.Flags().Changed("config")
			return runMLflow(cmd.Context(), e, opts, optionalArg(args))
		},
	}
	f := cmd.Flags()
	runConfigFlag(f, &opts.config, runConfigHelp)
	f.StringVar(&opts.runID, "run-id", "", "log the run `ID` under the runs directory")
	return cmd
}

func runMLflow(ctx context.Context, e env, opts mlflowOptions, dirArg string) error {
	ev, dir, err := locateRun(e, opts.config, opts.configSet, dirArg, opts.runID)
	if err != nil {
		return err
	}
	if !opts.configSet {
		if ev, _, err = runEval(e, dir, opts.config, false, "mlflow"); err != nil {
			return err
		}
		if ev == nil {
			return usageErrorf("%s has no %s/%s and there is no %s here: give -c FILE", dir.Path, rundir.ConfigDir, rundir.EvalCopyFile, opts.config)
		}
	}
	if _, err := os.Stat(dir.Summary()); errors.Is(err, fs.ErrNotExist) {
		return inputErrorf("%s is not scored: run agent-eval score %s first", dir.Path, dir.Path)
	}
	uri := ev.MLflowTrackingURI(e.Getenv)
	if p := config.MLflowURLProblem(uri); p != "" {
		return inputErrorf("mlflow: tracking URI %s %s", mlflow.RedactURI(uri), p)
	}
	if _, err := logMLflow(ctx, e, ev, dir); err != nil {
		return &codedError{ExitFailure, fmt.Errorf("mlflow: log %s to %s: %w", dir.Path, mlflow.RedactURI(uri), err)}
	}
	return nil
}

// logMLflow logs the scored run in dir where ev's mlflow block says (its
// defaults without one) and prints the MLflow run's URL on stderr.
func logMLflow(ctx context.Context, e env, ev *config.Eval, dir rundir.Dir) (*mlflow.Result, error) {
	exp := ev.DisplayName()
	var tags map[string]string
	if m := ev.MLflow; m != nil {
		exp, tags = ev.MLflowExperiment(), m.Tags
	}
	res, err := mlflow.Log(ctx, mlflow.Options{Dir: dir, Experiment: exp, TrackingURI: ev.MLflowTrackingURI(e.Getenv),
		Tags: tags, Getenv: e.Getenv, Environ: os.Environ(), Version: version.Get().Version, Traces: mlflowTraces(dir),
		CaseTraceID: func(id string) string { return "tr-" + otlp.CaseTraceID(otlp.TraceKeyOf(dir), "case/"+id).String() }})
	if err != nil {
		return nil, err
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(e.Err, "agent-eval: warning: mlflow: %s\n", w)
	}
	verb := "updated"
	if res.Created {
		verb = "logged"
	}
	fmt.Fprintf(e.Err, "agent-eval: mlflow: %s run %s in experiment %q: %s\n", verb, res.RunID, exp, res.URL)
	if res.HumanFeedback > 0 {
		fmt.Fprintf(e.Err, "agent-eval: mlflow: %d case(s)' human review logged as feedback on their traces\n", res.HumanFeedback)
	}
	return res, nil
}

// mlflowTraces sends each case's trace to the MLflow run's experiment
// through the tracking server's OTLP endpoint (MLflow 3.6 or later), linked
// to the run.
func mlflowTraces(dir rundir.Dir) func(context.Context, mlflow.TraceTarget) error {
	return func(ctx context.Context, t mlflow.TraceTarget) error {
		h := map[string]string{"x-mlflow-experiment-id": t.ExperimentID, "x-mlflow-run-id": t.RunID}
		if t.Authorization != "" {
			h["Authorization"] = t.Authorization
		}
		return otlp.Export(ctx, dir, otlp.Options{Endpoint: strings.TrimRight(t.URI, "/") + otlp.TracesPath, Headers: h,
			Redactor: t.Red, TracePerCase: true})
	}
}

// scoreMLflow logs a run score just scored when the eval has an mlflow
// block (and --no-mlflow was not given): a failure is a warning, and
// score's exit code stays the verdict's.
func scoreMLflow(ctx context.Context, e env, ev *config.Eval, opts scoreOptions, dir rundir.Dir) {
	if ev.MLflow == nil || opts.noMLflow {
		return
	}
	uri := mlflow.RedactURI(ev.MLflowTrackingURI(e.Getenv))
	if _, err := logMLflow(ctx, e, ev, dir); err != nil {
		fmt.Fprintf(redactingWriter{e.Err}, "agent-eval: warning: mlflow: the run was not logged to %s: %v (agent-eval mlflow %s logs it again)\n", uri, err, dir.Path)
	}
}
