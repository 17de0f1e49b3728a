package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/agent-eval/agent-eval/internal/clip"
	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/report"
	"github.com/agent-eval/agent-eval/internal/usd"
)

// historyOptions are `agent-eval history`'s flags.
type historyOptions struct {
	config string
	json   bool
	limit  int
	html   string
	noHTML bool
}

func newHistoryCmd(e env) *cobra.Command {
	opts := historyOptions{}
	cmd := &cobra.Command{
		Use:   "history [RUNS_DIR]",
		Short: "List an eval's runs over time, oldest first, and write history.html",
		Long: `List the runs of an eval, oldest first: for each run directory under the
eval's runs directory (-c eval.yaml; or RUNS_DIR), its id, when it started
(run_result.json's started_at, else the time its generated id begins with),
model, agent, cases, each judge's pass rate (else mean) with its interval,
the agent's cost, the wall clock and the verdict: passed, FAILED, not scored,
incomplete (no run_result.json yet, or interrupted) or unreadable (and why).
A run that does not read is listed, never the end of the listing. The table
goes to stdout; --json prints the same as one JSON document.

The page RUNS_DIR/history.html (--html FILE elsewhere, --no-html none) shows
the same table, each run linking its report.html, and inline SVG plots of
each judge's pass rate and of the cost over the runs; it loads nothing and
opens offline. Once it exists, score and report bring it up to date, and
the reports they write link it. Secrets are redacted from all of it.

  agent-eval history -c my-eval/eval.yaml --limit 10
  agent-eval history runs/my-eval --json

Exit status: 0 when listed, 2 for a usage or configuration error or no
runs directory, 3 when history.html could not be written.`,
		Args: maxArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := ""
			if len(args) == 1 {
				dir = args[0]
			}
			return runHistory(e, opts, dir, cmd.Flags().Changed("config"))
		},
	}
	f := cmd.Flags()
	runConfigFlag(f, &opts.config, "the eval config `FILE` whose runs are listed when no RUNS_DIR is given")
	f.BoolVar(&opts.json, "json", false, "print the history as JSON on stdout")
	f.IntVar(&opts.limit, "limit", 0, "list only the `N` most recent runs (0: all)")
	f.StringVar(&opts.html, "html", "", "write the history page to `FILE` (default: RUNS_DIR/history.html)")
	f.BoolVar(&opts.noHTML, "no-html", false, "write no history page")
	return cmd
}

func runHistory(e env, opts historyOptions, runsDir string, configSet bool) error {
	switch {
	case opts.limit < 0:
		return usageErrorf("--limit: %d is below 0", opts.limit)
	case opts.noHTML && opts.html != "":
		return usageErrorf("give --html FILE or --no-html, not both")
	case runsDir != "" && configSet:
		return usageErrorf("give a RUNS_DIR or -c eval.yaml, not both")
	}
	if runsDir == "" {
		ev, err := config.Load(opts.config)
		if err != nil {
			return err
		}
		runsDir = ev.RunsDir(e.Getenv)
	}
	h, err := report.LoadHistory(runsDir, zone(e))
	if errors.Is(err, fs.ErrNotExist) {
		return inputErrorf("no runs directory %s: the eval has not run yet (agent-eval run), or give the RUNS_DIR", runsDir)
	}
	if err != nil {
		return err
	}
	h.Last(opts.limit)
	if len(h.Runs) == 0 {
		fmt.Fprintf(e.Err, "agent-eval: no runs under %s\n", runsDir)
	}
	if len(h.Skipped) > 0 {
		fmt.Fprintf(e.Err, "agent-eval: not runs, not listed: %s\n", clip.Line(strings.Join(h.Skipped, ", ")))
	}
	if !opts.noHTML {
		page := opts.html
		if page == "" {
			page = filepath.Join(runsDir, report.HistoryFile)
		}
		if err := report.WriteHistory(page, h); err != nil {
			return err
		}
		fmt.Fprintf(e.Err, "agent-eval: wrote %s\n", page)
	}
	if opts.json {
		return writeSummaryJSON(e.Out, h)
	}
	printHistory(e.Out, h)
	return nil
}

// printHistory is history's table: a row per run, a column per judge.
func printHistory(w io.Writer, h *report.History) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	head := []string{"RUN", "STARTED", "MODEL", "AGENT", "CASES"}
	head = append(head, h.Judges...)
	// Each cell on its line: a folder's or judge's name may hold a tab or
	// a line break (a line of its own is a CI's workflow command).
	cells := func(row []string) string {
		for i := range row {
			row[i] = clip.Line(row[i])
		}
		return strings.Join(row, "\t")
	}
	fmt.Fprintln(tw, cells(append(head, "COST", "DURATION", "VERDICT")))
	for i := range h.Runs {
		r := &h.Runs[i]
		row := []string{r.RunID, orDash(r.StartedAt), orDash(r.Model), orDash(r.Agent), fmt.Sprint(r.Cases)}
		for _, name := range h.Judges {
			row = append(row, r.Judge(name).Cell())
		}
		verdict := report.VerdictText(r.Verdict)
		if r.Why != "" {
			verdict += " (" + r.Why + ")"
		}
		cost, took := "-", "-"
		if r.CostUSD != nil {
			cost = usd.Format(*r.CostUSD)
		}
		if r.DurationS != nil {
			took = time.Duration(*r.DurationS * float64(time.Second)).Round(time.Second).String()
		}
		row = append(row, cost, took, verdict)
		fmt.Fprintln(tw, cells(row))
	}
	_ = tw.Flush()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// refreshHistory rewrites the history page of dir's runs directory, when
// there is one, after score or report changed one of its runs: the page
// stays true to the runs without a history run. It cannot fail the
// command that scored: a page that could not be written is a warning.
func refreshHistory(stderr io.Writer, runDir string) {
	runsDir := filepath.Dir(runDir)
	page := filepath.Join(runsDir, report.HistoryFile)
	if _, err := os.Stat(page); err != nil {
		return
	}
	h, err := report.LoadHistory(runsDir, nil)
	if err == nil {
		err = report.WriteHistory(page, h)
	}
	if err != nil {
		fmt.Fprintf(stderr, "agent-eval: warning: %s not brought up to date: %v\n", page, err)
	}
}

// zone is the time zone generated run ids were written in: $TZ's, as the
// Go runtime reads it into the local zone at start (read through e, so a
// test can set it), else the local one.
func zone(e env) *time.Location {
	tz := e.Getenv("TZ")
	if tz == "" {
		return time.Local
	}
	loc, err := time.LoadLocation(strings.TrimPrefix(tz, ":"))
	if err != nil {
		return time.Local
	}
	return loc
}
