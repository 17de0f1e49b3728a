package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	yaml "go.yaml.in/yaml/v3"

	"github.com/agent-eval/agent-eval/internal/agentcall"
	"github.com/agent-eval/agent-eval/internal/clip"
	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/fakeapi"
	"github.com/agent-eval/agent-eval/internal/lifecycle"
	"github.com/agent-eval/agent-eval/internal/report"
	"github.com/agent-eval/agent-eval/internal/results"
	"github.com/agent-eval/agent-eval/internal/rundir"
	"github.com/agent-eval/agent-eval/internal/score"
	"github.com/agent-eval/agent-eval/internal/usd"
)

type scoreOptions struct {
	config      string
	runID       string
	baseline    string
	noCache     bool
	json        bool
	concurrency int
	fakeModel   bool
	noMLflow    bool
	// configSet: -c was given; without it a run is scored with its own
	// copy of eval.yaml (runEval).
	configSet bool
	// otlp is --otlp: the traces endpoint the scored run is exported to.
	otlp string
	// noLLMJudges is --no-llm-judges: the judges that call a model are
	// left out.
	noLLMJudges bool
	// agentBin is the agent CLI of the agent judges (run --agent-bin).
	agentBin string
}

// FakeJudgeScript is the script `score --fake-model` serves at the
// dataset's root: the LLM judges' scripted verdicts.
const FakeJudgeScript = "fake_judge.yaml"

func newScoreCmd(e env) *cobra.Command {
	opts := scoreOptions{}
	cmd := &cobra.Command{
		Use:   "score [RUN_DIR]",
		Short: "Score a finished run with the eval's judges and check the thresholds",
		Long: `Run the judges of eval.yaml over a finished run directory (the agent is never
run again), write summary.yaml into it, compare with --baseline, and check the
thresholds.

RUN_DIR is the run's directory; --run-id names a run under the runs directory
instead; with neither, the latest run is scored. Without -c the run is scored
with its own copy of eval.yaml (RUN_DIR/config/eval.yaml, its relative paths
resolved against the original's folder), and stderr says when eval.yaml has
changed since the run; -c FILE scores with FILE. LLM judge verdicts are cached
in RUN_DIR/judge_cache/, so scoring again calls the model only for prompts
that changed (--no-cache calls it for all). An agent judge (judges[].agent)
is an agent run of its own, inside the harness's boundary, over the case's
collected text files; each is kept in RUN_DIR/judges/<judge>/<case>/ and
runs again on every scoring.

--no-llm-judges leaves out every judge that calls a model (llm and agent
judges, the builtin LLM judges, and a builtin this version does not know):
stderr and summary.yaml say which, their thresholds are skipped (neither
met nor breached), and no model key is needed. A judge of a kind it cannot
classify is an error.

--fake-model answers the LLM judges from the dataset's fake_judge.yaml through
the built-in fake of the Messages API (no API key; the judge model defaults
to claude-fake-judge), to check an eval's scoring offline. Its verdicts are
cached apart from real ones. An agent judge's agent is answered from the
dataset's fake_judge.<judge>.yaml, else fake_judge.yaml, as a case's agent is
(see agent-eval fake-model --help).

With an mlflow: block in eval.yaml the scored run is then logged to MLflow
(see agent-eval mlflow; --no-mlflow skips it): a failure to log is a warning
that leaves the exit status alone.

stderr gets a table per judge and the verdict; stdout gets the summary as JSON
with --json.

Exit status: 0 when every threshold holds, 1 when one does not (one line per
regression on stderr), 2 for a usage or configuration error, 3 when scoring
itself failed.`,
		Args: maxArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.configSet = cmd.Flags().Changed("config")
			return runScore(cmd.Context(), e, opts, optionalArg(args))
		},
	}
	f := cmd.Flags()
	runConfigFlag(f, &opts.config, runConfigHelp)
	f.StringVar(&opts.runID, "run-id", "", "score the run `ID` under the runs directory")
	f.StringVar(&opts.baseline, "baseline", "", "compare with the scored `RUN` (a run directory, or a run id under the runs directory)")
	f.BoolVar(&opts.noCache, "no-cache", false, "call the model for every LLM verdict, ignoring judge_cache/")
	f.BoolVar(&opts.json, "json", false, "print the summary as JSON on stdout")
	f.StringVar(&opts.otlp, "otlp", "", "export the scored run as OpenTelemetry traces, a span per judge verdict under each case, to the OTLP/HTTP `ENDPOINT` (docs/mlflow-otel.md#opentelemetry)")
	f.IntVar(&opts.concurrency, "concurrency", 4, "cases scored, and model calls made, at once")
	f.BoolVar(&opts.fakeModel, "fake-model", false, "answer the LLM judges from the dataset's "+FakeJudgeScript+" through the built-in fake Messages API")
	f.BoolVar(&opts.noMLflow, "no-mlflow", false, "do not log the scored run to MLflow (eval.yaml's mlflow: block)")
	noLLMJudgesFlag(f, &opts.noLLMJudges)
	return cmd
}

// noLLMJudgesFlag adds --no-llm-judges to a verb that scores.
func noLLMJudgesFlag(f *pflag.FlagSet, p *bool) {
	f.BoolVar(p, "no-llm-judges", false, "leave out the judges that call a model (llm, agent, builtin LLM judges); their thresholds are skipped")
}

// withoutModelJudges is ev without the judges that call a model, when
// drop is set (--no-llm-judges), saying on w which were left out.
func withoutModelJudges(w io.Writer, ev *config.Eval, drop bool) (*config.Eval, score.Dropped, error) {
	if !drop {
		return ev, score.Dropped{}, nil
	}
	kept, d, err := score.NoModelJudges(ev)
	if err != nil {
		return nil, score.Dropped{}, err
	}
	if len(d.Judges) == 0 {
		fmt.Fprintln(w, "agent-eval: --no-llm-judges: no judge calls a model; every judge runs")
		return kept, d, nil
	}
	names := make([]string, len(d.Judges))
	for i, j := range d.Judges {
		names[i] = fmt.Sprintf("%s (%s)", j.Name, j.Reason)
	}
	fmt.Fprintf(w, "agent-eval: --no-llm-judges: dropped %d judge(s) that call a model: %s; %d judge(s) run\n", len(d.Judges), strings.Join(names, "; "), len(kept.Judges))
	if len(d.Gates) > 0 {
		fmt.Fprintf(w, "agent-eval: --no-llm-judges: %d threshold(s) on them skipped\n", len(d.Gates))
	}
	if d.RewardNote != "" {
		fmt.Fprintf(w, "agent-eval: --no-llm-judges: %s\n", d.RewardNote)
	}
	return kept, d, nil
}

func runScore(ctx context.Context, e env, opts scoreOptions, dirArg string) error {
	if opts.concurrency < 1 {
		return usageErrorf("--concurrency must be at least 1, got %d", opts.concurrency)
	}
	otlpOpts, err := otlpOptions(e, opts.otlp, false)
	if err != nil {
		return err
	}
	// eval.yaml finds the run (--run-id, the latest); with -c it is also
	// what scores it, else the run's own copy is.
	ev, dir, err := locateRun(e, opts.config, opts.configSet, dirArg, opts.runID)
	if err != nil {
		return err
	}
	if dir.Running() {
		return inputErrorf("%s is still running; score it once it has finished", dir.Path)
	}
	runsDir := filepath.Dir(dir.Path)
	if ev != nil {
		runsDir = ev.RunsDir(e.Getenv)
	}
	if !opts.configSet {
		if ev, opts.config, err = runEval(e, dir, opts.config, false, "score"); err != nil {
			return err
		}
		if ev == nil {
			return usageErrorf("%s has no %s/%s (an agent-eval before layout %d made it) and there is no %s here: give -c FILE", dir.Path, rundir.ConfigDir, rundir.EvalCopyFile, rundir.LayoutVersion, opts.config)
		}
	}
	for _, w := range ev.Warnings {
		fmt.Fprintln(e.Err, w.Error())
	}
	var baseline *rundir.Dir
	if opts.baseline != "" {
		b, err := resolveRunDir(nil, e.Getenv, baselinePath(runsDir, opts.baseline), "")
		if err != nil {
			return inputErrorf("--baseline: %v", err)
		}
		if b.Path == dir.Path {
			return inputErrorf("--baseline is the run being scored (%s)", dir.Path)
		}
		if _, err := os.Stat(b.Summary()); err != nil {
			return inputErrorf("--baseline %s is not scored: run agent-eval score %s first", opts.baseline, b.Path)
		}
		baseline = &b
	}
	err = scoreRun(ctx, e, ev, opts, dir, baseline)
	var gate errReported
	if err == nil || errors.As(err, &gate) {
		exportRun(ctx, e, dir, otlpOpts) // a breached threshold is a verdict too
	}
	return err
}

// scoreRun scores the finished run in dir (before_scoring hooks first),
// writes summary.yaml, report.html and junit.xml, prints the
// table and the verdict on stderr (the summary on stdout with opts.json)
// and returns errReported{ExitGate} when a threshold is breached. run
// --score calls it after the run.
func scoreRun(ctx context.Context, e env, ev *config.Eval, opts scoreOptions, dir rundir.Dir, baseline *rundir.Dir) error {
	if len(ev.Hooks.BeforeScoring) > 0 {
		abs, _ := filepath.Abs(opts.config)
		vars := map[string]string{"AGENT_EVAL_RUN_DIR": dir.Path, "AGENT_EVAL_RUN_ID": filepath.Base(dir.Path), "AGENT_EVAL_CONFIG": abs, "AGENT_EVAL_PROJECT_ROOT": mustGetwd()}
		if _, err := lifecycle.Phase(ctx, "before_scoring", ev.Hooks.BeforeScoring, mustGetwd(), lifecycle.Environ(os.Environ(), vars), e.Err, true); err != nil {
			return fmt.Errorf("before_scoring: %w", err)
		}
	}
	ev, dropped, err := withoutModelJudges(e.Err, ev, opts.noLLMJudges)
	if err != nil {
		return err
	}
	var fake fakeJudge
	if opts.fakeModel {
		// Only a judge that calls a model needs the scripted verdicts.
		if judge := score.ModelJudge(ev, baseline != nil); judge != "" {
			var stop func()
			var err error
			if fake, stop, err = startFakeJudge(ev, dir, judge); err != nil {
				return err
			}
			defer stop()
		}
	}
	agents, err := judgeAgents(e, opts)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.Err, "agent-eval: scoring %s with %d judge(s)\n", dir.Path, len(ev.Judges))
	s, err := score.Score(ctx, score.Options{Dir: dir, Eval: ev, Baseline: baseline, NoCache: opts.noCache,
		Concurrency: opts.concurrency, Getenv: e.Getenv, Observer: scoreProgress{e.Err}, FakeModelURL: fake.url, FakeScript: fake.script, Dropped: dropped,
		Agents: agents, FakeAgents: opts.fakeModel})
	if err != nil {
		var cfg config.Errors
		if errors.As(err, &cfg) || errors.Is(err, context.Canceled) {
			return err
		}
		if errors.Is(err, score.ErrNoCredentials) {
			return inputErrorf("%w; or score offline with --fake-model (the LLM judges answer from the dataset's %s)", err, FakeJudgeScript)
		}
		return fmt.Errorf("score %s: %w", dir.Path, err)
	}
	if err := writeReports(ctx, e, ev, opts.config, dir, s); err != nil {
		return fmt.Errorf("write the report: %w", err)
	}
	if err := appendStepSummary(e.Getenv, dir, s); err != nil {
		// The verdict stands without its copy in the job's summary.
		fmt.Fprintf(e.Err, "agent-eval: warning: $GITHUB_STEP_SUMMARY: %v\n", err)
	}
	printScoreTable(e.Err, s)
	scoreMLflow(ctx, e, ev, opts, dir)
	if opts.json {
		if err := writeSummaryJSON(e.Out, s); err != nil {
			return err
		}
	}
	return verdict(e.Err, s, dir)
}

// judgeAgents runs the agent judges: each an agent run through the
// engine, inside the same boundary as the agents under test.
func judgeAgents(e env, opts scoreOptions) (agentcall.Caller, error) {
	return agentCaller(e, opts.agentBin)
}

// agentCaller runs one agent through the engine (agent judges, generate's
// skill strategy), with the agent CLI agentBin ("" for the runner's).
func agentCaller(e env, agentBin string) (agentcall.Engine, error) {
	harness, err := harnessBin(e)
	if err != nil {
		return agentcall.Engine{}, err
	}
	return agentcall.Engine{HarnessBin: harness, Runners: runners, Getenv: e.Getenv, AgentBin: agentBin}, nil
}

// appendStepSummary appends s's Markdown to the file $GITHUB_STEP_SUMMARY
// names, when it is set (GitHub Actions shows it on the job's page); it
// never truncates what earlier steps wrote there.
func appendStepSummary(getenv func(string) string, dir rundir.Dir, s *rundir.Summary) error {
	path := getenv("GITHUB_STEP_SUMMARY")
	if path == "" {
		return nil
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("open: %w", err)
	}
	md := report.RenderMarkdown(dir, s, report.ArtifactsFromEnv(getenv, shownPath(dir.Path)))
	// A blank line keeps it apart from what was there (which may not end
	// its last line: the verdict's heading would join it as plain text)
	// and from what comes after.
	_, err = f.Write(append(append(blankLineAfter(path), md...), '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write: %w", err)
	}
	return nil
}

// blankLineAfter is what to write after the end of the file at path for
// a blank line to follow its last line: nothing for an empty or missing
// file, or one that ends in a blank line.
func blankLineAfter(path string) []byte {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || fi.Size() == 0 {
		return nil
	}
	tail := make([]byte, min(fi.Size(), 2))
	if _, err := f.ReadAt(tail, fi.Size()-int64(len(tail))); err != nil {
		return []byte("\n\n")
	}
	switch {
	case string(tail) == "\n\n" || (len(tail) == 1 && tail[0] == '\n'):
		return nil
	case tail[len(tail)-1] == '\n':
		return []byte("\n")
	}
	return []byte("\n\n")
}

// passedEvery reports whether some judge gave c a value and none failed or
// erred on it.
func passedEvery(c rundir.CaseSummary) bool {
	valued := false
	for _, v := range c.Verdicts {
		if v.Error != "" || (v.Passed != nil && !*v.Passed) {
			return false
		}
		valued = valued || v.Value != nil
	}
	return valued
}

// verdict prints the verdict line and, for breached thresholds, one line
// per regression; a breach is exit 1.
func verdict(w io.Writer, s *rundir.Summary, dir rundir.Dir) error {
	// The cases lost to the infrastructure are judged by none of the
	// numbers: the verdict says how many.
	lost := 0
	for _, c := range s.Cases {
		if c.Status == string(results.StatusInfraError) {
			lost++
		}
	}
	if lost > 0 {
		fmt.Fprintf(w, "agent-eval: %d of %d case(s) lost to infrastructure errors (status infra_error): not judged, never a 0; max_error_rate gates them\n", lost, len(s.Cases))
	}
	regs := score.Regressions(s)
	if len(regs) == 0 {
		if len(s.Thresholds) == 0 {
			// Nothing gates the run: PASS says only that nothing regressed,
			// so the line says how the cases fared and how to gate them.
			passed := 0
			for _, c := range s.Cases {
				if passedEvery(c) {
					passed++
				}
			}
			fmt.Fprintf(w, "agent-eval: PASS: %d case(s), no thresholds set, so nothing gates this run (%d of %d case(s) passed every judge; add thresholds: to fail on the judges' results); summary: %s, report: %s\n",
				s.NumCases, passed, len(s.Cases), dir.Summary(), dir.Report())
			return nil
		}
		met, skipped := s.GateCounts()
		gates := fmt.Sprintf("%d threshold(s) met", met)
		if skipped > 0 {
			gates += fmt.Sprintf(", %d skipped (their judges were dropped)", skipped)
		}
		fmt.Fprintf(w, "agent-eval: PASS: %d case(s), %s; summary: %s, report: %s\n", s.NumCases, gates, dir.Summary(), dir.Report())
		return nil
	}
	for _, r := range regs {
		fmt.Fprintf(w, "agent-eval: regression: %s\n", r)
	}
	broken := ""
	if n := len(s.BrokenJudges); n > 0 {
		broken = fmt.Sprintf(", %d judge(s) judged no case", n)
	}
	if s.NotJudged != "" {
		broken += ", no case judged"
	}
	if n := len(s.Tampered); n > 0 {
		broken += fmt.Sprintf(", %d case(s) tampered", n)
	}
	breached := 0
	for _, t := range s.Thresholds {
		if t.Breached() {
			breached++
		}
	}
	fmt.Fprintf(w, "agent-eval: FAIL: %d of %d threshold(s) breached%s; summary: %s, report: %s\n", breached, len(s.Thresholds), broken, dir.Summary(), dir.Report())
	return errReported{ExitGate}
}

// locateRun finds the run a verb reads: RUN_DIR, --run-id or the latest
// run; eval.yaml (configFile) is loaded when it is needed to find the run
// or was given with -c (configSet), else ev is nil.
func locateRun(e env, configFile string, configSet bool, dirArg, runID string) (*config.Eval, rundir.Dir, error) {
	var ev *config.Eval
	if dirArg == "" || configSet {
		var err error
		if ev, err = config.Load(configFile); err != nil {
			return nil, rundir.Dir{}, err
		}
	}
	dir, err := resolveRunDir(ev, e.Getenv, dirArg, runID)
	return ev, dir, err
}

// resolveRunDir finds the run to score: RUN_DIR, --run-id under the runs
// directory, or the latest run there (ev, which says where the runs are,
// may be nil with a RUN_DIR).
func resolveRunDir(ev *config.Eval, getenv func(string) string, dirArg, runID string) (rundir.Dir, error) {
	switch {
	case dirArg != "" && runID != "":
		return rundir.Dir{}, usageErrorf("give the run as RUN_DIR or with --run-id, not both")
	case runID != "":
		if !rundir.SafeSegment(runID) {
			return rundir.Dir{}, usageErrorf("--run-id %q is not a single path segment", runID)
		}
		dirArg = filepath.Join(ev.RunsDir(getenv), runID)
	case dirArg == "":
		latest, err := latestRun(ev.RunsDir(getenv))
		if err != nil {
			return rundir.Dir{}, err
		}
		dirArg = latest
	}
	if _, err := os.Stat(dirArg); err != nil {
		return rundir.Dir{}, inputErrorf("no run directory %s", dirArg)
	}
	d, err := rundir.Open(dirArg)
	if err != nil {
		return rundir.Dir{}, &codedError{ExitUsage, err}
	}
	return d, nil
}

// baselinePath is a --baseline value as a path: itself when it names a
// folder, else a run id under runsDir.
func baselinePath(runsDir, v string) string {
	if fi, err := os.Stat(v); err == nil && fi.IsDir() {
		return v
	}
	if rundir.SafeSegment(v) {
		return filepath.Join(runsDir, v)
	}
	return v
}

type scoreProgress struct{ w io.Writer }

func (p scoreProgress) CaseScored(id string, done, total int) {
	if total >= 20 && done%10 != 0 && done != total {
		return
	}
	fmt.Fprintf(p.w, "agent-eval: scored %d/%d (%s)\n", done, total, id)
}

func (p scoreProgress) Warn(msg string) { fmt.Fprintln(p.w, "agent-eval: warning:", clip.Line(msg)) }

// printScoreTable prints one row per judge.
func printScoreTable(w io.Writer, s *rundir.Summary) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "JUDGE\tKIND\tSCORED\tSKIPPED\tERRORS\tPASS RATE\tMEAN\tTHRESHOLD")
	for _, j := range s.Judges {
		rate, m := pct(j.PassRate), mean(j.Mean)
		if iv := j.Interval; iv != nil && j.PassRate != nil {
			rate += fmt.Sprintf(" [%.0f–%.0f%%]", iv.Low*100, iv.High*100)
		} else if iv != nil && j.Mean != nil {
			m += fmt.Sprintf(" [%.2f, %.2f]", iv.Low, iv.High)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%s\t%s\t%s\n", j.Name, j.Kind, j.Scored, j.Skipped, j.Errors, rate, m, thresholdCell(s, j.Name))
	}
	_ = tw.Flush()
	for _, d := range s.DroppedJudges {
		fmt.Fprintf(w, "%s: not run (--no-llm-judges): %s\n", d.Name, d.Reason)
	}
	if lvl := intervalLevel(s); lvl > 0 {
		fmt.Fprintf(w, "[…]: %g%% confidence intervals over the cases\n", lvl*100)
	}
	for _, j := range s.Judges {
		if j.Reduce == "" {
			continue
		}
		line := fmt.Sprintf("%s: each case's %d attempts reduced by %s", j.Name, s.Attempts(), j.Reduce)
		if j.AttemptPassRate != nil {
			line += fmt.Sprintf("; %.0f%% of all attempts passed", *j.AttemptPassRate*100)
		}
		if j.Flaky > 0 {
			line += fmt.Sprintf("; flaky (attempts disagree): %s", strings.Join(flakyCases(s, j.Name), ", "))
		}
		fmt.Fprintln(w, line)
	}
	printHuman(w, s.Human)
	if s.Reward != nil {
		fmt.Fprintf(w, "reward %.3f · %d denial(s) · agent cost %s · LLM calls %d made, %d cached", *s.Reward, s.Denials, usd.Format(s.CostUSD), s.LLM.Made, s.LLM.Cached)
		if s.LLM.Failed > 0 {
			fmt.Fprintf(w, ", %d failed", s.LLM.Failed)
		}
		fmt.Fprintln(w)
	}
	if a := s.JudgeAgents; a != nil {
		fmt.Fprintf(w, "judge agents %d run(s), cost %s", a.Runs, usd.Format(a.CostUSD))
		if a.Failed > 0 {
			fmt.Fprintf(w, ", %d failed", a.Failed)
		}
		fmt.Fprintln(w)
	}
	if b := s.Baseline; b != nil {
		fmt.Fprintf(w, "vs %s: %d better, %d worse", b.RunID, len(b.Better), len(b.Worse))
		if b.WinRate != nil {
			fmt.Fprintf(w, ", win rate %.2f", *b.WinRate)
		}
		if p := b.Pairwise; p != nil {
			fmt.Fprintf(w, "; pairwise: %d won, %d lost, %d tied, %d errors", p.WinsA, p.WinsB, p.Ties, p.Errors)
		}
		fmt.Fprintln(w)
		for _, d := range b.Judges {
			if d.Change != "" {
				fmt.Fprintf(w, "  %s: %s\n", d.Judge, changeCell(d))
			}
		}
	}
}

func thresholdCell(s *rundir.Summary, judge string) string {
	var parts []string
	for _, t := range s.Thresholds {
		if t.Judge != judge {
			continue
		}
		mark := "ok"
		switch {
		case t.Skipped:
			mark = "skipped"
		case !t.OK:
			mark = "FAIL"
		}
		if t.Interval != nil {
			parts = append(parts, fmt.Sprintf("%s %g (lower %g%% bound %.2f) %s", t.Metric, t.Want, t.Interval.Level*100, t.Interval.Low, mark))
			continue
		}
		parts = append(parts, fmt.Sprintf("%s %g %s", t.Metric, t.Want, mark))
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, ", ")
}

// intervalLevel is the level of the judges' intervals when they share one
// (0 when none has one).
func intervalLevel(s *rundir.Summary) float64 {
	lvl := 0.0
	for _, j := range s.Judges {
		if j.Interval != nil {
			if lvl != 0 && lvl != j.Interval.Level {
				return -1
			}
			lvl = j.Interval.Level
		}
	}
	if lvl < 0 {
		return 0
	}
	return lvl
}

// flakyCases lists the cases whose attempts the judge saw disagree.
func flakyCases(s *rundir.Summary, judge string) []string {
	var out []string
	for _, c := range s.Cases {
		for _, v := range c.Verdicts {
			if v.Judge == judge && v.Flaky {
				passed := ""
				if v.AttemptsPassed != nil {
					passed = fmt.Sprintf(" (%d/%d passed)", *v.AttemptsPassed, v.AttemptsScored)
				}
				out = append(out, c.ID+passed)
			}
		}
	}
	return out
}

func pct(f *float64) string {
	if f == nil {
		return "-"
	}
	return fmt.Sprintf("%.0f%%", *f*100)
}

func mean(f *float64) string {
	if f == nil {
		return "-"
	}
	return fmt.Sprintf("%.2f", *f)
}

// writeSummaryJSON prints the summary as JSON with summary.yaml's keys.
func writeSummaryJSON(w io.Writer, v any) error {
	b, err := yaml.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode the summary: %w", err)
	}
	var generic any
	if err := yaml.Unmarshal(b, &generic); err != nil {
		return fmt.Errorf("encode the summary: %w", err)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(generic)
}

// fakeJudge is the fake model the LLM judges ask under --fake-model, and
// the script it answers from.
type fakeJudge struct {
	url    string
	script []byte
}

// missingFakeJudge is the error of --fake-model scoring without the
// judges' scripted verdicts when judge calls a model.
func missingFakeJudge(ev *config.Eval, judge string) error {
	return inputErrorf("--fake-model: there is no %s: judge %q calls a model, and its verdicts under --fake-model are scripted there (see agent-eval fake-model --help)", filepath.Join(ev.DatasetDir(), FakeJudgeScript), judge)
}

// startFakeJudge serves the dataset's fake_judge.yaml on 127.0.0.1 for the
// LLM judges (judge names the first); what they sent is kept in the run
// directory.
func startFakeJudge(ev *config.Eval, dir rundir.Dir, judge string) (fakeJudge, func(), error) {
	path := filepath.Join(ev.DatasetDir(), FakeJudgeScript)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return fakeJudge{}, nil, missingFakeJudge(ev, judge)
	}
	if err != nil {
		return fakeJudge{}, nil, inputErrorf("--fake-model: the LLM judges' scripted verdicts: %v", err)
	}
	script, err := fakeapi.ParseScript(b)
	if err != nil {
		return fakeJudge{}, nil, inputErrorf("--fake-model: the LLM judges' scripted verdicts: %s: %v", path, err)
	}
	log, err := os.Create(dir.FakeJudgeLog())
	if err != nil {
		return fakeJudge{}, nil, fmt.Errorf("--fake-model: %w", err)
	}
	srv := fakeapi.New(fakeapi.Options{Script: script, Log: log})
	url, err := srv.Start("")
	if err != nil {
		_ = log.Close()
		return fakeJudge{}, nil, fmt.Errorf("--fake-model: start the fake model: %w", err)
	}
	return fakeJudge{url: url, script: b}, func() { srv.Close(); _ = log.Close() }, nil
}
