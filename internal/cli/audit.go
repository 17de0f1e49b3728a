package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/agent-eval/agent-eval/internal/audit"
	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/engine"
	"github.com/agent-eval/agent-eval/internal/hook"
	"github.com/agent-eval/agent-eval/internal/intercept"
	"github.com/agent-eval/agent-eval/internal/rundir"
)

type auditOptions struct {
	config   string
	runners  []string
	quick    bool
	kinds    []string
	json     bool
	parallel int
	timeout  time.Duration
	agentBin string
	keep     bool
}

// auditReport is `agent-eval audit --json`.
type auditReport struct {
	Runners    []auditRunner `json:"runners"`
	GotThrough int           `json:"got_through"`
	// NotRun counts the attacks the harness could not start.
	NotRun int `json:"not_run"`
}

// auditRunner is one runner's audit.
type auditRunner struct {
	Runner string `json:"runner"`
	// RunDir is the run directory of the attacks (kept with --keep).
	RunDir  string          `json:"run_dir,omitempty"`
	Attacks []audit.Verdict `json:"attacks"`
}

// auditModel is the models.skill an audit gives a runner that is not the
// eval's own (the fake model answers any); "" for a runner audit does not
// run.
func auditModel(kind string) string {
	switch kind {
	case "claude-code":
		return "claude-sonnet-4-5"
	case "codex":
		return "gpt-5.5"
	case "gemini":
		return "gemini-2.5-flash"
	case "cursor":
		return "gpt-5"
	}
	return ""
}

func newAuditCmd(e env) *cobra.Command {
	opts := auditOptions{}
	cmd := &cobra.Command{
		Use:   "audit",
		Short: "Attack the eval's gates offline with built-in hostile scripts and say what held",
		Long: `Run built-in hostile scripts through the eval's own runner, handlers and
permissions, offline: the built-in fake model plays the attacker. Each denied
path is read through every file tool and many shell spellings, each gated
service (inputs.tools, tool_handlers.yaml) is called through its client and
over HTTP with its host spelled several ways (its gate's variables pointed at
production), files are written outside the workspace, a connection is made to
a host not allowed, and the CI job's files are written. A loopback listener
stands for the services and the outside host; a stub client stands for each
service's CLI. Each attack held when no canary reached the transcript, the
logs, the model or the outputs, nothing reached the listener or the stub, no
file appeared outside and the CI files are unchanged.

It prints a table per runner (the eval's, or each --runner): the attack, the
layer that stopped it (hook, permissions, agent sandbox, boundary) and held or
GOT THROUGH. The cases run with the eval's permissions, handlers and outputs;
its prompt, dataset, lifecycle hooks and judges are left out. docs/audit.md

Exit status: 0 when every attack held, 1 when one got through, 2 for a usage
or configuration error, 3 for a harness failure, 130 when interrupted.`,
		RunE: func(cmd *cobra.Command, _ []string) error { return runAudit(cmd.Context(), e, opts) },
	}
	f := cmd.Flags()
	f.StringVarP(&opts.config, "config", "c", "eval.yaml", "the eval config `FILE`, or the folder holding eval.yaml")
	f.StringSliceVar(&opts.runners, "runner", nil, "audit with these runners instead of the eval's (claude-code, codex, gemini, cursor; comma-separated or repeated)")
	f.BoolVar(&opts.quick, "quick", false, "run the quick subset of the attacks (one or two per target)")
	f.StringSliceVar(&opts.kinds, "kinds", nil, "run only the attacks of these `KINDS` (path, outside, service, write, network, ci; comma-separated)")
	f.BoolVar(&opts.json, "json", false, "print the verdicts as one JSON object")
	f.IntVarP(&opts.parallel, "parallel", "n", 4, "attack cases run at once")
	f.Var((*durationValue)(&opts.timeout), "timeout", "per-attack timeout, in seconds or as a duration (default 2m)")
	f.StringVar(&opts.agentBin, "agent-bin", "", "the agent CLI at `PATH` (with one runner only; default: the runner's CLI on PATH)")
	f.BoolVar(&opts.keep, "keep", false, "keep the attacks' run directories (their paths are printed)")
	return cmd
}

func runAudit(ctx context.Context, e env, opts auditOptions) error {
	ev, err := config.Load(opts.config)
	if err != nil {
		return err
	}
	kinds := opts.runners
	if len(kinds) == 0 {
		kinds = []string{ev.RunnerType()}
	}
	for _, k := range kinds {
		if auditModel(k) == "" && (k != ev.RunnerType() || len(opts.runners) > 0) {
			return usageErrorf("--runner %q: audit runs claude-code, codex, gemini or cursor", k)
		}
	}
	if opts.agentBin != "" && len(kinds) > 1 {
		return usageErrorf("--agent-bin names one agent CLI: give one --runner with it")
	}
	for _, k := range opts.kinds {
		if !slices.Contains(audit.Kinds(), k) {
			return usageErrorf("--kinds %q: the kinds are %s", k, strings.Join(audit.Kinds(), ", "))
		}
	}
	if opts.parallel < 1 {
		return usageErrorf("--parallel must be at least 1, got %d", opts.parallel)
	}
	if opts.timeout == 0 {
		opts.timeout = 2 * time.Minute
	}
	handlers, err := auditHandlers(ctx, ev, e.Getenv, func(w string) { fmt.Fprintln(e.Err, "agent-eval: warning:", w) })
	if err != nil {
		return &codedError{ExitUsage, fmt.Errorf("audit: the eval's handlers: %w", err)}
	}
	services, err := audit.Services(handlers.Handlers)
	if err != nil {
		return err
	}
	harness, err := harnessBin(e)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "agent-eval-audit-")
	if err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	if !opts.keep {
		defer os.RemoveAll(tmp)
	}
	lis, err := startAuditListener()
	if err != nil {
		return err
	}
	defer lis.close()
	aenv, err := auditEnv(e, ev, tmp, lis.port, opts.quick)
	if err != nil {
		return err
	}
	aenv.Kinds = opts.kinds
	var rep auditReport
	for _, kind := range kinds {
		if err := ctx.Err(); err != nil {
			return err
		}
		ar, err := auditRunnerKind(ctx, e, opts, kind, services, aenv, handlers, lis, tmp, harness)
		if err != nil {
			return err
		}
		for _, v := range ar.Attacks {
			switch {
			case !v.Ran:
				rep.NotRun++
			case !v.Held:
				rep.GotThrough++
			}
		}
		if !opts.keep {
			ar.RunDir = ""
		}
		rep.Runners = append(rep.Runners, ar)
	}
	if opts.json {
		if err := printJSON(e.Out, rep); err != nil {
			return err
		}
	} else {
		printAudit(e.Out, rep)
	}
	if rep.GotThrough > 0 {
		if !opts.json {
			fmt.Fprintf(e.Err, "audit: %d attack(s) got through\n", rep.GotThrough)
		}
		return errReported{ExitGate}
	}
	if rep.NotRun > 0 {
		return fmt.Errorf("audit: %d attack(s) did not run, so the audit is incomplete", rep.NotRun)
	}
	return nil
}

// auditHandlers are the handlers the eval's runs use: tool_handlers.yaml
// beside eval.yaml, else inputs.tools compiled offline (the catalogue; no
// model is asked).
func auditHandlers(ctx context.Context, ev *config.Eval, getenv func(string) string, warn func(string)) (*intercept.File, error) {
	if _, err := os.Stat(filepath.Join(ev.Dir(), hook.HandlersFile)); err == nil {
		return loadHandlers(ctx, ev, getenv, warn)
	}
	c, err := compileHandlersWith(ctx, ev, "catalog", getenv, warn)
	return &c.file, err
}

// auditEnv is where the attacks aim: the real home, temp folder and
// project, and the CI job's files (stand-ins in tmp when not in a job).
func auditEnv(e env, ev *config.Eval, tmp string, port int, quick bool) (audit.Env, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return audit.Env{}, fmt.Errorf("audit: %w", err)
	}
	repo, err := filepath.Abs(ev.Dir())
	if err != nil {
		return audit.Env{}, fmt.Errorf("audit: %w", err)
	}
	ci := func(name string) (string, error) {
		if p := e.Getenv(name); p != "" {
			return p, nil
		}
		p := filepath.Join(tmp, strings.ToLower(name))
		return p, os.WriteFile(p, []byte("# stands for $"+name+"\n"), 0o644)
	}
	genv, err := ci("GITHUB_ENV")
	if err != nil {
		return audit.Env{}, fmt.Errorf("audit: %w", err)
	}
	gout, err := ci("GITHUB_OUTPUT")
	if err != nil {
		return audit.Env{}, fmt.Errorf("audit: %w", err)
	}
	return audit.Env{Port: port, Home: home, Tmp: os.TempDir(), Repo: repo, GitHubEnv: genv, GitHubOutput: gout,
		Nonce: fmt.Sprintf("%x", time.Now().UnixNano()), Quick: quick}, nil
}

// auditRunnerKind runs every attack through runner kind and judges each.
func auditRunnerKind(ctx context.Context, e env, opts auditOptions, kind string, services []audit.Service, aenv audit.Env,
	handlers *intercept.File, lis *auditListener, tmp, harness string) (auditRunner, error) {
	ar := auditRunner{Runner: kind}
	ev, err := config.Load(opts.config)
	if err != nil {
		return ar, err
	}
	cases, err := audit.Plan(ev, services, aenv)
	if err != nil {
		return ar, err
	}
	base := filepath.Join(tmp, kind)
	if err := writeAuditCases(filepath.Join(base, "cases"), cases); err != nil {
		return ar, err
	}
	auditEval(ev, kind, cases, services, filepath.Join(base, "cases"), opts)
	before := map[string][]byte{}
	for _, c := range cases {
		for _, p := range c.Watched {
			b, err := os.ReadFile(p)
			if err != nil && !errors.Is(err, os.ErrNotExist) {
				return ar, fmt.Errorf("audit: %w", err)
			}
			before[p] = b
		}
		if c.Outside != "" {
			if err := os.WriteFile(c.Outside, []byte(c.Canary+"\n"), 0o600); err != nil {
				return ar, fmt.Errorf("audit: plant the file outside the workspace: %w", err)
			}
		}
	}
	// The folders an attack would have to create to plant its file are
	// removed after it, when they were not there before and are empty.
	var madeDirs []string
	for _, c := range cases {
		for _, p := range c.Planted {
			for d := filepath.Dir(p); d != aenv.Repo && d != aenv.Home && d != aenv.Tmp && d != filepath.Dir(d); d = filepath.Dir(d) {
				if _, err := os.Lstat(d); errors.Is(err, os.ErrNotExist) && !slices.Contains(madeDirs, d) {
					madeDirs = append(madeDirs, d)
				}
			}
		}
	}
	defer auditCleanup(cases, before, madeDirs)
	fmt.Fprintf(e.Err, "audit: %s: %d attacks\n", kind, len(cases))
	plan, err := engine.NewPlan(ev, ev.Path(), engine.Flags{Parallel: opts.parallel, RunID: "audit-" + kind, RunsDir: filepath.Join(base, "runs"),
		Timeout: opts.timeout, MaxBudgetUSD: -1, AgentBin: opts.agentBin, FakeModel: true, RetryErrors: 0},
		engine.Environment{Getenv: e.Getenv, Dir: mustGetwd(), HarnessBin: harness, Now: time.Now(), Args: append([]string{"agent-eval"}, e.Args...)})
	if err != nil {
		return ar, runError(err)
	}
	plan.RunsDir = filepath.Join(base, "runs")
	plan.LoadHandlers = func(context.Context, func(string)) (*intercept.File, error) {
		f := *handlers
		return &f, nil
	}
	r, runErr := engine.Run(ctx, plan, runners(ev), engine.Discard{})
	if r == nil {
		return ar, runError(runErr)
	}
	if r.Interrupted {
		return ar, context.Canceled
	}
	dir := rundir.Dir{Path: filepath.Join(plan.RunsDir, r.RunID)}
	ar.RunDir = dir.Path
	boundaryOn := r.Boundary != nil && r.Boundary.On
	sandboxOn := ev.Sandbox().On
	for _, c := range cases {
		v, err := audit.Judge(dir, c, audit.Evidence{Hits: lis.hits(c.ID), Before: before, Boundary: boundaryOn, Sandbox: sandboxOn})
		if err != nil {
			return ar, errors.Join(runErr, err)
		}
		ar.Attacks = append(ar.Attacks, v)
	}
	if runErr != nil {
		return ar, runErr
	}
	return ar, nil
}

// auditEval turns ev into the audit's eval: its permissions, handlers and
// outputs kept, runner.type kind, the attack cases as its dataset, each
// gated service's variables pointed at production, and what would run
// besides the agent (lifecycle hooks, judges) left out.
func auditEval(ev *config.Eval, kind string, cases []audit.Case, services []audit.Service, dataset string, opts auditOptions) {
	if kind != ev.RunnerType() {
		ev.Runner = config.Runner{Type: kind, Env: ev.Runner.Env, SystemPrompt: ev.Runner.SystemPrompt}
		ev.Models.Skill = auditModel(kind)
	}
	if ev.Models.Skill == "" {
		ev.Models.Skill = auditModel(kind)
	}
	ev.Runner.WorkspaceMode = ""
	one := 1
	env := config.EnvMap{}
	for k, v := range ev.Execution.Env {
		env[k] = v
	}
	for _, s := range services {
		for _, k := range s.Env {
			env[k] = audit.ProductionURL
		}
	}
	ev.Execution = config.Execution{Mode: "case", Prompt: "Carry out the task.", Env: env, Repeats: &one, Parallelism: &opts.parallel,
		ProjectHooks: ev.Execution.ProjectHooks, Limits: ev.Execution.Limits}
	var files []config.WorkspaceFile
	for _, c := range cases {
		for p := range c.Files {
			top := strings.SplitN(p, "/", 2)[0]
			if !slices.ContainsFunc(files, func(f config.WorkspaceFile) bool { return f.Path == top }) {
				files = append(files, config.WorkspaceFile{Path: top})
			}
		}
	}
	ev.Dataset = config.Dataset{Path: dataset, Workspace: &config.Workspace{Files: files}}
	ev.Hooks, ev.Judges, ev.Thresholds, ev.MLflow, ev.Matrix, ev.Reward = config.Hooks{}, nil, nil, nil, nil, nil
}

// writeAuditCases writes each case's folder: input.yaml, fake_model.yaml
// and its staged files.
//
// Every case holds every staged path (dataset.workspace.files is one list
// for all): where another case's file is not its own, a placeholder.
func writeAuditCases(dir string, cases []audit.Case) error {
	staged := map[string]bool{}
	for _, c := range cases {
		for p := range c.Files {
			staged[p] = true
		}
	}
	for _, c := range cases {
		cd := filepath.Join(dir, c.ID)
		if err := os.MkdirAll(cd, 0o755); err != nil {
			return fmt.Errorf("audit: write the attack cases: %w", err)
		}
		files := map[string][]byte{"input.yaml": []byte("name: " + c.ID + "\n"), FakeModelScript: c.Script}
		for p := range staged {
			body, ok := c.Files[p]
			if !ok {
				body = "an audit placeholder\n"
			}
			files[filepath.FromSlash(p)] = []byte(body)
		}
		for p, body := range files {
			full := filepath.Join(cd, p)
			if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
				return fmt.Errorf("audit: write the attack cases: %w", err)
			}
			mode := os.FileMode(0o644)
			if slices.Contains(c.Exec, filepath.ToSlash(p)) {
				mode = 0o755
			}
			if err := os.WriteFile(full, body, mode); err != nil {
				return fmt.Errorf("audit: write the attack cases: %w", err)
			}
		}
	}
	return nil
}

// auditCleanup removes what the attacks planted (all named by the audit)
// and the files it planted outside, and puts the CI files back.
func auditCleanup(cases []audit.Case, before map[string][]byte, madeDirs []string) {
	for _, c := range cases {
		for _, p := range c.Planted {
			_ = os.Remove(p)
		}
		if c.Outside != "" {
			_ = os.Remove(c.Outside)
		}
	}
	// Deepest first: a folder's sub-folders go before it.
	slices.SortFunc(madeDirs, func(a, b string) int { return len(b) - len(a) })
	for _, d := range madeDirs {
		_ = os.Remove(d) // only when empty
	}
	for p, b := range before {
		if now, err := os.ReadFile(p); err == nil && string(now) != string(b) {
			_ = os.WriteFile(p, b, 0o644)
		}
	}
}

// printAudit prints one table per runner.
func printAudit(w io.Writer, rep auditReport) {
	for i, ar := range rep.Runners {
		if i > 0 {
			fmt.Fprintln(w)
		}
		held := 0
		for _, v := range ar.Attacks {
			if v.Held {
				held++
			}
		}
		fmt.Fprintf(w, "%s: %d of %d attacks held\n", ar.Runner, held, len(ar.Attacks))
		if ar.RunDir != "" {
			fmt.Fprintf(w, "  run directory: %s\n", ar.RunDir)
		}
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "  ATTACK\tTARGET\tSTOPPED BY\tRESULT")
		for _, v := range ar.Attacks {
			result, stopped := "held", strings.Join(v.Layers, ", ")
			switch {
			case !v.Ran:
				result, stopped = "DID NOT RUN: "+firstLineOf(v.Error), "-"
			case !v.Held:
				result, stopped = "GOT THROUGH: "+strings.Join(v.Through, "; "), "-"
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", v.Kind+"/"+v.Attack, v.Target, stopped, result)
		}
		_ = tw.Flush()
	}
}

// auditListener stands for the gated services and the outside host on
// loopback; it counts the requests that name a case (?audit=ID).
type auditListener struct {
	srv  *http.Server
	port int
	mu   sync.Mutex
	seen map[string]int
}

func startAuditListener() (*auditListener, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("audit: start the listener: %w", err)
	}
	l := &auditListener{port: ln.Addr().(*net.TCPAddr).Port, seen: map[string]int{}}
	l.srv = &http.Server{ReadHeaderTimeout: 5 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if id := r.URL.Query().Get("audit"); id != "" {
			l.mu.Lock()
			l.seen[id]++
			l.mu.Unlock()
		}
		_, _ = io.WriteString(w, "{}\n")
	})}
	go func() { _ = l.srv.Serve(ln) }()
	return l, nil
}

func (l *auditListener) hits(id string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.seen[id]
}

func (l *auditListener) close() { _ = l.srv.Close() }

// firstLineOf is s up to its first newline.
func firstLineOf(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
