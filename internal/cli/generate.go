package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	yaml "go.yaml.in/yaml/v3"

	"github.com/agent-eval/agent-eval/internal/agentcall"
	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/export/mlflow"
	"github.com/agent-eval/agent-eval/internal/generate"
	"github.com/agent-eval/agent-eval/internal/llm"
	"github.com/agent-eval/agent-eval/internal/results"
)

// generateOptions are `agent-eval generate`'s flags.
type generateOptions struct {
	config      string
	count       int
	model       string
	experiment  string
	trackingURI string
	timeout     time.Duration
	dryRun      bool
	json        bool
	// agentBin is the agent CLI of strategy skill's agent; fakeModel
	// answers that agent from the dataset's fake_generate.yaml.
	agentBin  string
	fakeModel bool
}

// skillAgent gives the skill strategy its agent: one run through the
// engine (internal/agentcall), inside the same boundary as any case's
// agent, on the eval's runner type when it is an agent CLI (else
// claude-code), with the model --model, else models.skill.
func skillAgent(_ context.Context, e env, ev *config.Eval, opts generateOptions) (generate.AgentRunner, error) {
	call, err := agentCaller(e, opts.agentBin)
	if err != nil {
		return nil, err
	}
	model := firstNonEmpty(opts.model, ev.Models.Skill)
	if model == "" {
		return nil, inputErrorf("strategy skill needs the generating agent's model: give --model, or set models.skill")
	}
	var rn *config.Runner
	if t := ev.Runner.Type; t != "" && t != "cli" && t != "fake" {
		rn = &config.Runner{Type: t}
	}
	sc := skillCaller{call: call, runner: rn, model: model}
	if opts.fakeModel {
		sc.fakeScript = filepath.Join(ev.DatasetDir(), fakeGenerateScript)
		if _, err := os.Stat(sc.fakeScript); err != nil {
			return nil, inputErrorf("--fake-model: the generating agent's script: %v", err)
		}
	}
	return sc, nil
}

// fakeGenerateScript is the fake model script, in dataset.path, that
// answers strategy skill's agent under --fake-model.
const fakeGenerateScript = "fake_generate.yaml"

// skillCaller runs the skill strategy's agent through agentcall, in a run
// directory of its own that is removed afterwards.
type skillCaller struct {
	call       agentcall.Caller
	runner     *config.Runner
	model      string
	fakeScript string
}

func (s skillCaller) Run(ctx context.Context, task generate.AgentTask) (generate.AgentResult, error) {
	tmp, err := os.MkdirTemp("", "agent-eval-generate-")
	if err != nil {
		return generate.AgentResult{}, fmt.Errorf("the generating agent's run directory: %w", err)
	}
	defer os.RemoveAll(tmp)
	files := make(map[string][]byte, len(task.Files))
	for p, body := range task.Files {
		files[p] = []byte(body)
	}
	budget := task.BudgetUSD
	if budget <= 0 {
		budget = 2
	}
	// The tools asked for but Write, which it has only under output/
	// (the cases it writes); never those an agent that reads is denied.
	var allow []any
	for _, t := range task.AllowedTools {
		if t != "Write" {
			allow = append(allow, t)
		}
	}
	allow = append(allow, map[string]any{"path": "output/", "tools": []any{"Write"}})
	res, err := s.call.Call(ctx, agentcall.Request{RunsDir: tmp, RunID: "generate", Files: files, Prompt: task.Prompt,
		Runner: s.runner, Model: s.model, Allow: allow, Deny: agentcall.Rules(agentcall.DeniedTools),
		Outputs: []string{"output"}, Timeout: task.Timeout, BudgetUSD: budget, FakeScript: s.fakeScript})
	if err != nil {
		return generate.AgentResult{}, err
	}
	if res.Status != results.StatusCompleted && len(res.Files) == 0 {
		return generate.AgentResult{}, fmt.Errorf("the agent's run ended %s: %s", res.Status, res.Error)
	}
	out := generate.AgentResult{Files: map[string]string{}, Text: res.Text}
	for p, body := range res.Files {
		if rest, ok := strings.CutPrefix(p, "output/"); ok {
			out.Files[rest] = string(body)
		}
	}
	return out, nil
}

func newGenerateCmd(e env) *cobra.Command {
	opts := generateOptions{}
	cmd := &cobra.Command{
		Use:   "generate",
		Short: "Generate eval cases into dataset.path (generation.strategy)",
		Long: `Write new cases into the eval's dataset.path, one folder per case with
input.yaml and annotations.yaml, as generation.strategy says:

  synthetic    a model writes each of generation.seeds' count cases from the
               seed's prompt (builtin, prompt_file or prompt), with
               generation.context, the seed's description, the eval's
               description and the skill's; every case's
               annotations.category is its seed's category, its id
               <category>-NNN. The model is --model, else models.judge, else
               $EVAL_JUDGE_MODEL; it answers through a forced tool call.
               Builtin prompts: ` + builtinNames() + `.
  from-traces  a case per trace of an MLflow experiment (--experiment, else
               mlflow.experiment, else the eval's name), newest first: the
               root span's inputs become input.yaml, its outputs the
               reference in annotations.yaml, its AskUserQuestion spans
               annotations.tool_interactions; the id is trace-<trace id>.
               The server is --tracking-uri, else mlflow.tracking_uri, else
               $MLFLOW_TRACKING_URI, else http://127.0.0.1:5000. Every
               string taken from a trace is redacted.
  skill        an agent reads the skill and the eval and writes the cases
               (the default strategy): one run of the eval's agent CLI
               (claude-code for a cli runner), model --model else
               models.skill, inside the harness's boundary like any case,
               with Read, Glob and Grep, and Write only under output/; it
               is given eval.yaml, the skill's folder and one existing case
               and writes output/cases/<id>/{input,annotations}.yaml.

--count N overrides the number of cases: N per seed (synthetic, instead of
each seed's count), N traces read (from-traces, default 10), N cases asked
for (skill, default 5).

A case is never written over one already there: a new synthetic or skill
case whose id is taken is renamed (the next free number), a trace already
imported is skipped; stderr says which. Every case is checked as validate
checks the dataset's cases (its input against the eval's prompt and
command templates, per-case workspace files) and one that fails is not
written. Each case folder is written whole in a hidden scratch folder and
moved into place. --dry-run generates and checks the cases and writes
nothing. stdout lists the cases (YAML, or JSON with --json).

Exit status: 0 when every case generated was written (or skipped as already
there), 2 for a usage or configuration error, 3 when the model, the MLflow
server or the agent failed or a generated case was not valid (the valid
ones are written), 130 when interrupted.`,
		RunE: func(cmd *cobra.Command, _ []string) error { return runGenerate(cmd.Context(), e, opts) },
	}
	f := cmd.Flags()
	f.StringVarP(&opts.config, "config", "c", "eval.yaml", "the eval config `FILE`, or the folder holding eval.yaml")
	f.IntVar(&opts.count, "count", 0, "`N` cases per seed, traces, or cases asked of the agent (see above)")
	f.StringVar(&opts.model, "model", "", "the `MODEL`: of strategy synthetic (default: models.judge, else $EVAL_JUDGE_MODEL), of strategy skill's agent (default: models.skill)")
	f.StringVar(&opts.agentBin, "agent-bin", "", "the agent CLI `PATH` strategy skill runs (default: the runner's)")
	f.BoolVar(&opts.fakeModel, "fake-model", false, "strategy skill: answer the agent offline from the built-in fake model, scripted by the dataset's "+fakeGenerateScript)
	f.StringVar(&opts.experiment, "experiment", "", "the MLflow `EXPERIMENT` of strategy from-traces (default: mlflow.experiment, else the eval's name)")
	f.StringVar(&opts.trackingURI, "tracking-uri", "", "the MLflow tracking server `URI` of strategy from-traces")
	f.Var((*durationValue)(&opts.timeout), "timeout", "bound one model call or the agent run (default 5m)")
	f.BoolVar(&opts.dryRun, "dry-run", false, "generate and check the cases, print them, write nothing")
	f.BoolVar(&opts.json, "json", false, "print the cases as JSON")
	return cmd
}

func builtinNames() string {
	var names []string
	for _, b := range generate.Builtins() {
		names = append(names, b.Name)
	}
	return strings.Join(names, ", ")
}

// generateReport is generate's stdout.
type generateReport struct {
	Strategy string             `json:"strategy" yaml:"strategy"`
	Dataset  string             `json:"dataset" yaml:"dataset"`
	DryRun   bool               `json:"dry_run" yaml:"dry_run"`
	Cases    []generate.Outcome `json:"cases" yaml:"cases"`
	Failed   []string           `json:"failed" yaml:"failed"`
}

func runGenerate(ctx context.Context, e env, opts generateOptions) error {
	if opts.count < 0 {
		return usageErrorf("--count must be at least 1, got %d", opts.count)
	}
	ev, err := config.Load(opts.config)
	if err != nil && !onlyMissingDataset(ev, err) {
		return err
	}
	for _, w := range ev.Warnings {
		fmt.Fprintln(e.Err, w.Error())
	}
	dir := ev.DatasetDir()
	if dir == "" {
		return inputErrorf("%s: dataset.path is not set: generate has nowhere to write the cases", ev.Path())
	}
	name := ev.Generation.Strategy
	if name == "" {
		name = "skill"
	}
	strategy, err := generate.Lookup(name)
	if err != nil {
		return inputErrorf("%s: generation.strategy: %v", ev.Path(), err)
	}
	existing, err := ev.CaseIDs()
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return inputErrorf("read the dataset %s: %v", dir, err)
	}
	req := generate.Request{Eval: ev, Count: opts.count, Experiment: opts.experiment, Existing: existing,
		Timeout: opts.timeout, Progress: redactingWriter{e.Err}}
	var deps generate.Deps
	if opts.fakeModel && name != "skill" {
		return usageErrorf("--fake-model answers strategy skill's agent; strategy %s asks the model at ANTHROPIC_BASE_URL (point it at agent-eval fake-model to run offline)", name)
	}
	root := mustGetwd()
	skillDir := findSkillDir(root, ev.Execution.Skill)
	switch name {
	case "synthetic":
		req.Model = firstNonEmpty(opts.model, ev.Models.Judge, e.Getenv("EVAL_JUDGE_MODEL"))
		if req.Model == "" {
			return inputErrorf("strategy synthetic needs a model: give --model, or set models.judge or $EVAL_JUDGE_MODEL")
		}
		if strings.HasPrefix(req.Model, "openrouter:") {
			return inputErrorf("%s is an OpenRouter model, which generate cannot call (it asks the Anthropic API): give --model", req.Model)
		}
		if opts.count > 0 {
			fmt.Fprintf(e.Err, "agent-eval: generate: --count %d overrides the seeds' counts: %d case(s) per seed\n", opts.count, opts.count)
		}
		req.SkillDescription = skillDescription(skillDir)
		deps.Model = llm.NewFromEnv(2, e.Getenv)
	case "from-traces":
		uri := firstNonEmpty(opts.trackingURI, ev.MLflowTrackingURI(e.Getenv))
		c, err := mlflow.NewClient(uri, e.Getenv, nil)
		if err != nil {
			return inputErrorf("mlflow: %v", err)
		}
		deps.Traces = traceSource{c}
	case "skill":
		req.SkillFiles = readTree(skillDir)
		if len(existing) > 0 {
			req.ExampleCase = readTree(filepath.Join(dir, existing[0]))
		}
		if deps.Agent, err = skillAgent(ctx, e, ev, opts); err != nil {
			return err
		}
	}
	cases, failed, err := strategy.Generate(ctx, req, deps)
	var missing *generate.ErrMissing
	switch {
	case errors.As(err, &missing):
		return inputErrorf("generate: %v", err)
	case err != nil && ctx.Err() != nil:
		return ctx.Err()
	case err != nil:
		return &codedError{ExitFailure, fmt.Errorf("generate (%s): %w", name, err)}
	}
	outcomes, err := generate.Write(dir, cases, generate.WriteOptions{DryRun: opts.dryRun, Progress: redactingWriter{e.Err},
		Validate: func(root, id string) []string { return generatedCaseProblems(ev, root, id) }})
	if err != nil {
		return &codedError{ExitFailure, err}
	}
	rep := generateReport{Strategy: name, Dataset: dir, DryRun: opts.dryRun, Cases: outcomes, Failed: failed}
	if rep.Failed == nil {
		rep.Failed = []string{}
	}
	if err := printGenerateReport(e, rep, opts.json); err != nil {
		return err
	}
	counts := map[string]int{}
	for _, o := range outcomes {
		counts[o.Status]++
	}
	verb, n := "wrote", counts[generate.Written]
	if opts.dryRun {
		verb, n = "would write", counts[generate.WouldWrite]
	}
	fmt.Fprintf(e.Err, "agent-eval: generate: %s %d case(s) into %s (%d skipped as already there, %d not valid, %d failed)\n",
		verb, n, dir, counts[generate.Skipped], counts[generate.Invalid], len(failed))
	if bad := counts[generate.Invalid] + len(failed); bad > 0 {
		// The report is on stdout already (one JSON document with --json).
		fmt.Fprintf(e.Err, "agent-eval: error: generate: %d generated case(s) or part(s) failed; the valid cases were written\n", bad)
		return errReported{ExitFailure}
	}
	return nil
}

func printGenerateReport(e env, rep generateReport, asJSON bool) error {
	if asJSON {
		return printJSON(e.Out, rep)
	}
	b, err := yaml.Marshal(rep)
	if err != nil {
		return fmt.Errorf("print the cases: %w", err)
	}
	_, err = e.Out.Write(b)
	return err
}

// onlyMissingDataset: the config's one problem is that dataset.path does
// not exist yet, which generate creates.
func onlyMissingDataset(ev *config.Eval, err error) bool {
	var es config.Errors
	if ev == nil || !errors.As(err, &es) || len(es) == 0 {
		return false
	}
	for _, e := range es {
		if e.Field != "dataset.path" || !strings.Contains(e.Msg, "no such directory") {
			return false
		}
	}
	return true
}

// generatedCaseProblems checks the generated case folder root/id as
// validate checks a case of the dataset; only errors count.
func generatedCaseProblems(ev *config.Eval, root, id string) []string {
	var out []string
	perCaseProblems(ev, root, []string{id}, func(field string, warning bool, format string, args ...any) {
		if !warning {
			out = append(out, field+": "+fmt.Sprintf(format, args...))
		}
	})
	return out
}

// traceSource reads traces through the MLflow client.
type traceSource struct{ c *mlflow.Client }

func (t traceSource) Traces(ctx context.Context, experiment string, max int) ([]generate.Trace, bool, error) {
	id, ok, err := t.c.ExperimentID(ctx, experiment)
	if err != nil || !ok {
		return nil, ok, err
	}
	got, err := t.c.Traces(ctx, id, max)
	if err != nil {
		return nil, true, err
	}
	out := make([]generate.Trace, len(got))
	for i, tr := range got {
		out[i] = generate.Trace{ID: tr.ID, Tags: tr.Tags, Inputs: tr.Inputs, Outputs: tr.Outputs}
		for _, q := range tr.Questions {
			out[i].Questions = append(out[i].Questions, map[string]any{"input": q.Input, "output": q.Output})
		}
	}
	return out, true, nil
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if strings.TrimSpace(x) != "" {
			return strings.TrimSpace(x)
		}
	}
	return ""
}

// findSkillDir is the folder of the skill under test in the project root,
// as run finds it ("" when there is none).
func findSkillDir(root, skill string) string {
	skill = strings.TrimSpace(skill)
	if skill == "" || strings.Contains(skill, ":") {
		return ""
	}
	for _, d := range []string{"skills", ".agents/skills", ".claude/skills"} {
		p := filepath.Join(root, d, skill)
		if exists(filepath.Join(p, "SKILL.md")) {
			return p
		}
	}
	return ""
}

// skillDescription is the description: of dir's SKILL.md front matter.
func skillDescription(dir string) string {
	if dir == "" {
		return ""
	}
	b, err := os.ReadFile(filepath.Join(dir, "SKILL.md"))
	if err != nil {
		return ""
	}
	rest, ok := strings.CutPrefix(string(b), "---\n")
	if !ok {
		return ""
	}
	front, _, ok := strings.Cut(rest, "\n---")
	if !ok {
		return ""
	}
	var m struct {
		Description string `yaml:"description"`
	}
	if yaml.Unmarshal([]byte(front), &m) != nil {
		return ""
	}
	return m.Description
}

// readTree reads the regular files under dir (not following links), by
// slash-separated relative path, up to 1 MiB in all.
func readTree(dir string) map[string]string {
	if dir == "" {
		return nil
	}
	out := map[string]string{}
	total := 0
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil || total+len(b) > 1<<20 {
			return nil
		}
		total += len(b)
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = string(b)
		return nil
	})
	return out
}
