package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/lifecycle"
	"github.com/agent-eval/agent-eval/internal/report"
	"github.com/agent-eval/agent-eval/internal/rundir"
)

// reportOptions are `agent-eval report`'s flags.
type reportOptions struct {
	config string
	runID  string
	open   bool
	// format is html (write report.html and junit.xml), markdown or
	// github (print the verdict on stdout, write nothing).
	format string
	// configSet: -c was given, so a config that does not load is an error
	// (without it, a missing eval.yaml only means no before_report hooks).
	configSet bool
}

func newReportCmd(e env) *cobra.Command {
	opts := reportOptions{}
	cmd := &cobra.Command{
		Use:   "report [RUN_DIR]",
		Short: "Rebuild a run's report.html and junit.xml, or print its verdict as Markdown or GitHub annotations",
		Long: `Rebuild report.html and junit.xml in a run directory from what the run
wrote and from summary.yaml, the verdict 'agent-eval score' writes. A run
that was not scored gets a report that says so, with everything the agent
did. Nothing is re-run, no judge is called. The path of report.html is
printed on stdout.

--format markdown prints the verdict as Markdown on stdout instead (for a
pull-request comment: agent-eval report --format markdown RUN_DIR | gh pr
comment --body-file -), --format github as GitHub Actions workflow commands
(an ::error for each breached threshold, broken judge and tampered case, a
::warning for each judge worse than the baseline). Neither writes a file
nor runs the before_report hooks. Links point to $AGENT_EVAL_ARTIFACTS_URL
when set, else to the GitHub Actions run when $GITHUB_RUN_ID is set.

The run is RUN_DIR, else --run-id ID under the eval's runs directory
(-c eval.yaml), else the eval's most recent run. eval.yaml's before_report
hooks run first, in the current folder, with AGENT_EVAL_RUN_DIR and
AGENT_EVAL_RUN_ID set; without -c, those of the run's own copy of eval.yaml
(RUN_DIR/config/eval.yaml).

  agent-eval report runs/my-eval/20261201-101500.000-claude-sonnet-4-5
  agent-eval report --run-id 20261201-101500.000-claude-sonnet-4-5 --open
  agent-eval report --format markdown RUN_DIR | gh pr comment --body-file -`,
		Args: maxArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.configSet = cmd.Flags().Changed("config")
			return runReport(cmd.Context(), e, opts, optionalArg(args))
		},
	}
	f := cmd.Flags()
	runConfigFlag(f, &opts.config, runConfigHelp)
	f.StringVar(&opts.runID, "run-id", "", "the run's `ID` under the eval's runs directory")
	f.BoolVar(&opts.open, "open", false, "open report.html in the default browser")
	f.StringVar(&opts.format, "format", "html", "html (write report.html and junit.xml), markdown or github (print the verdict on stdout, write nothing)")
	return cmd
}

func runReport(ctx context.Context, e env, opts reportOptions, dirArg string) error {
	if dirArg != "" && opts.runID != "" {
		return usageErrorf("give a RUN_DIR or --run-id, not both")
	}
	switch opts.format {
	case "html":
	case "markdown", "github":
		if opts.open {
			return usageErrorf("--open opens report.html: it goes with --format html, not %s", opts.format)
		}
	default:
		return usageErrorf("--format %q: want html, markdown or github", opts.format)
	}
	// eval.yaml finds the run; without -c the run's own copy says which
	// before_report hooks run.
	var ev *config.Eval
	var err error
	if dirArg == "" || opts.configSet {
		if ev, err = reportConfig(opts, dirArg == ""); err != nil {
			return err
		}
	}
	path := dirArg
	if path == "" {
		runsDir := ev.RunsDir(e.Getenv)
		if opts.runID != "" {
			if !rundir.SafeSegment(opts.runID) {
				return usageErrorf("run id %q is not a safe folder name", opts.runID)
			}
			path = filepath.Join(runsDir, opts.runID)
		} else if path, err = latestRun(runsDir); err != nil {
			return err
		}
	}
	dir, err := rundir.Open(path)
	if err != nil {
		return &codedError{ExitUsage, err}
	}
	if opts.format != "html" {
		return printVerdict(e, dir, opts.format)
	}
	cfgFile := opts.config
	if !opts.configSet {
		// The report is the run directory's: an eval that no longer loads
		// only costs its hooks.
		if ev, cfgFile, err = runEval(e, dir, opts.config, false, "report"); err != nil {
			fmt.Fprintf(e.Err, "agent-eval: warning: %v; no before_report hooks run\n", err)
		}
	}
	s, err := scoredSummary(e, dir, "the report says not scored")
	if err != nil {
		return err
	}
	if err := writeReports(ctx, e, ev, cfgFile, dir, s); err != nil {
		return err
	}
	fmt.Fprintln(e.Out, dir.Report())
	if opts.open {
		// The report is written and its path printed; that it could not
		// be shown is still a failure of what was asked.
		if err := openInBrowser(dir.Report(), e.Getenv); err != nil {
			return fmt.Errorf("--open: cannot open the report: %w; open %s yourself", err, dir.Report())
		}
	}
	return nil
}

// printVerdict prints dir's verdict on e.Out as Markdown or GitHub
// workflow commands (format), from its summary.yaml (none: not scored).
func printVerdict(e env, dir rundir.Dir, format string) error {
	s, err := scoredSummary(e, dir, "not scored")
	if err != nil {
		return err
	}
	var out []byte
	if format == "github" {
		out = report.RenderGitHub(dir, s)
	} else {
		out = report.RenderMarkdown(dir, s, report.ArtifactsFromEnv(e.Getenv, shownPath(dir.Path)))
	}
	if _, err := e.Out.Write(out); err != nil {
		return fmt.Errorf("print the verdict: %w", err)
	}
	return nil
}

// scoredSummary reads dir's summary.yaml; nil when the run was not scored,
// which it says on stderr, ending with what.
func scoredSummary(e env, dir rundir.Dir, what string) (*rundir.Summary, error) {
	s, err := dir.ReadSummary()
	switch {
	case errors.Is(err, fs.ErrNotExist):
		fmt.Fprintf(e.Err, "%s has no %s: %s (agent-eval score scores it)\n", dir.Path, rundir.SummaryFile, what)
		return nil, nil
	case err != nil:
		return nil, err
	}
	return s, nil
}

// shownPath is path relative to the working folder when it is below it.
func shownPath(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return path
	}
	if rel, err := filepath.Rel(mustGetwd(), abs); err == nil && filepath.IsLocal(rel) {
		return filepath.ToSlash(rel)
	}
	return abs
}

// writeReports runs eval.yaml's before_report hooks (ev may be nil: no
// config, no hooks) and writes dir's report.html and junit.xml from s (nil:
// not scored). score calls it after writing summary.yaml.
func writeReports(ctx context.Context, e env, ev *config.Eval, configFile string, dir rundir.Dir, s *rundir.Summary) error {
	if ev != nil && len(ev.Hooks.BeforeReport) > 0 {
		runID := filepath.Base(dir.Path)
		if s != nil && s.RunID != "" {
			runID = s.RunID
		}
		cfg, _ := filepath.Abs(configFile)
		env := lifecycle.Environ(os.Environ(), map[string]string{"AGENT_EVAL_RUN_DIR": dir.Path, "AGENT_EVAL_RUN_ID": runID,
			"AGENT_EVAL_CONFIG": cfg, "AGENT_EVAL_PROJECT_ROOT": mustGetwd()})
		// The hooks' output is progress: stderr, redacted.
		if _, err := lifecycle.Phase(ctx, "before_report", ev.Hooks.BeforeReport, mustGetwd(), env, redactingWriter{e.Err}, true); err != nil {
			return err
		}
	}
	if err := report.Write(dir, s); err != nil {
		return err
	}
	refreshHistory(e.Err, dir.Path)
	return report.WriteJUnit(dir, s)
}

// reportConfig loads eval.yaml when it is needed (to find the run) or
// there: its before_report hooks run. Without -c, a missing eval.yaml is no
// error when a RUN_DIR is given.
func reportConfig(opts reportOptions, needed bool) (*config.Eval, error) {
	if _, err := os.Stat(opts.config); errors.Is(err, fs.ErrNotExist) && !opts.configSet {
		if !needed {
			return nil, nil
		}
		return nil, inputErrorf("no %s here: give the RUN_DIR, or -c eval.yaml to find the eval's runs", opts.config)
	}
	return config.Load(opts.config)
}

// latestRun is the most recently changed run directory under runsDir.
func latestRun(runsDir string) (string, error) {
	entries, err := os.ReadDir(runsDir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("list the runs: %w", err)
	}
	best, bestTime := "", int64(0)
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		p := filepath.Join(runsDir, e.Name())
		fi, err := os.Stat(filepath.Join(p, rundir.RunResultFile))
		if err != nil {
			continue
		}
		// Ties (a coarse clock) go to the later name: generated ids sort by
		// start time.
		if t := fi.ModTime().UnixNano(); best == "" || t > bestTime || (t == bestTime && p > best) {
			best, bestTime = p, t
		}
	}
	if best == "" {
		return "", inputErrorf("no finished run under %s; give the RUN_DIR or --run-id", runsDir)
	}
	return best, nil
}

// openerWait is how long openInBrowser waits to hear that the opener
// failed; one still running then is taken to be showing the page.
const openerWait = 3 * time.Second

// openInBrowser hands path to the desktop's opener. Off macOS and Windows
// it needs a display ($DISPLAY or $WAYLAND_DISPLAY); an opener that fails
// within openerWait is an error, one still running is left to run.
func openInBrowser(path string, getenv func(string) string) error {
	name, args := "xdg-open", []string{path}
	switch runtime.GOOS {
	case "darwin":
		name = "open"
	case "windows":
		name, args = "rundll32", []string{"url.dll,FileProtocolHandler", path}
	default:
		if getenv("DISPLAY") == "" && getenv("WAYLAND_DISPLAY") == "" {
			return errors.New("no display to show a browser on ($DISPLAY and $WAYLAND_DISPLAY are unset)")
		}
	}
	bin, err := exec.LookPath(name)
	if err != nil {
		return fmt.Errorf("%s is not installed", name)
	}
	var out bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", name, err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			if msg := strings.TrimSpace(out.String()); msg != "" {
				return fmt.Errorf("%s: %w: %s", name, err, msg)
			}
			return fmt.Errorf("%s: %w", name, err)
		}
		return nil
	case <-time.After(openerWait):
		return nil // still opening; its exit is not waited for
	}
}
