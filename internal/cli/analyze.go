package cli

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/spf13/cobra"

	"github.com/agent-eval/agent-eval/internal/analyze"
	"github.com/agent-eval/agent-eval/internal/llm"
	"github.com/agent-eval/agent-eval/internal/report"
	"github.com/agent-eval/agent-eval/internal/score"
)

// analyzeOptions are `agent-eval analyze`'s flags.
type analyzeOptions struct {
	config    string
	configSet bool
	runID     string
	model     string
	json      bool
}

func newAnalyzeCmd(e env) *cobra.Command {
	opts := analyzeOptions{}
	cmd := &cobra.Command{
		Use:   "analyze [RUN_DIR]",
		Short: "Ask a model why a scored run's cases failed, and write analysis.md",
		Long: `Read a scored run's failed and errored cases — each judge's verdict and
rationale, the permission denials, the end of the tool trace, the final
answer — and ask a model for the failure patterns, the cases that show
each, and what to change in the skill, the prompt, the tools or the eval.
The answer is written to RUN_DIR/analysis.md (report.html links it, and is
rebuilt when the run has one); stdout gets its path, or with --json the
analysis as JSON.

What the model reads comes from the run directory (redacted when the run
wrote it, and again for this environment's secrets), at most 6 KB a case
and 60 KB in all (the cases past that are named, not sent), and is marked
as untrusted data: the agent's text is never taken as instructions. A run
with no failed or errored case gets a short analysis.md saying so, and no
model is asked.

The model is --model, else the eval's models.judge (the run's own copy of
eval.yaml, or -c FILE), else $EVAL_JUDGE_MODEL; the API key and
ANTHROPIC_BASE_URL as for the judges.

The run is RUN_DIR, else --run-id under the eval's runs directory, else the
latest run. Exit status: 0 when analysis.md was written, 2 for a usage
error or a run that is not scored, 3 when the model call failed.`,
		Args: maxArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.configSet = cmd.Flags().Changed("config")
			return runAnalyze(cmd.Context(), e, opts, optionalArg(args))
		},
	}
	f := cmd.Flags()
	runConfigFlag(f, &opts.config, runConfigHelp)
	f.StringVar(&opts.runID, "run-id", "", "analyze the run `ID` under the runs directory")
	f.StringVar(&opts.model, "model", "", "the `MODEL` to ask (default: models.judge, else $EVAL_JUDGE_MODEL)")
	f.BoolVar(&opts.json, "json", false, "print the analysis as JSON on stdout")
	return cmd
}

func runAnalyze(ctx context.Context, e env, opts analyzeOptions, dirArg string) error {
	_, dir, err := locateRun(e, opts.config, opts.configSet, dirArg, opts.runID)
	if err != nil {
		return err
	}
	if dir.Running() {
		return inputErrorf("%s is still running; analyze it once it is scored", dir.Path)
	}
	s, err := dir.ReadSummary()
	if errors.Is(err, fs.ErrNotExist) {
		return inputErrorf("%s is not scored: run agent-eval score %s first", dir.Path, dir.Path)
	}
	if err != nil {
		return fmt.Errorf("read the run's summary: %w", err)
	}
	// The eval is read for models.judge only: one that no longer loads
	// leaves --model and $EVAL_JUDGE_MODEL.
	ev, _, err := runEval(e, dir, opts.config, opts.configSet, "analyze")
	if err != nil {
		fmt.Fprintf(e.Err, "agent-eval: warning: %v; the model is --model or $EVAL_JUDGE_MODEL\n", err)
		ev = nil
	}
	model := cmp.Or(opts.model, score.JudgeModel(ev, e.Getenv))
	red, _, err := dir.Redactor(os.Environ())
	if err != nil {
		return err
	}
	aopts := analyze.Options{Dir: dir, Summary: s, Model: model, Redactor: red}
	if analyze.AnyFailing(s) {
		if err := analyzeReady(e, model); err != nil {
			return err
		}
		aopts.Client = llm.NewFromEnv(2, e.Getenv)
		fmt.Fprintf(e.Err, "agent-eval: analyzing the failed cases of %s with %s\n", dir.Path, model)
	}
	a, err := analyze.Run(ctx, aopts)
	if err != nil {
		return fmt.Errorf("analyze %s: %w", dir.Path, err)
	}
	if err := dir.WriteAnalysis(a.Markdown()); err != nil {
		return err
	}
	if a.ModelCalled {
		fmt.Fprintf(e.Err, "agent-eval: %d failed case(s), %d pattern(s): %s\n", len(a.Failing), len(a.Patterns), dir.Analysis())
	} else {
		fmt.Fprintf(e.Err, "agent-eval: no case failed or errored: %s says so, and no model was asked\n", dir.Analysis())
	}
	if _, err := os.Stat(dir.Report()); err == nil {
		// The report links analysis.md: rebuilt, it shows the link.
		if err := report.Write(dir, s); err != nil {
			return fmt.Errorf("rebuild the report: %w", err)
		}
	}
	if opts.json {
		enc := json.NewEncoder(e.Out)
		enc.SetIndent("", "  ")
		return enc.Encode(a)
	}
	fmt.Fprintln(e.Out, dir.Analysis())
	return nil
}

// analyzeReady refuses, before any call, what the model call would fail
// on: no model, no credentials.
func analyzeReady(e env, model string) error {
	if model == "" {
		return usageErrorf("no model to analyze with: give --model, or set models.judge in eval.yaml or $EVAL_JUDGE_MODEL")
	}
	if e.Getenv("ANTHROPIC_API_KEY") == "" && e.Getenv("ANTHROPIC_AUTH_TOKEN") == "" {
		return inputErrorf("analyze asks %s, and needs ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN (and ANTHROPIC_BASE_URL for a gateway)", model)
	}
	return nil
}
