package report

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/agent-eval/agent-eval/internal/redact"
	"github.com/agent-eval/agent-eval/internal/results"
	"github.com/agent-eval/agent-eval/internal/rundir"
)

// HistoryFile is the history page's usual name, in the eval's runs
// directory beside its runs.
const HistoryFile = "history.html"

// The verdicts of a run in the history.
const (
	VerdictPassed     = "passed"
	VerdictFailed     = "failed"
	VerdictNotScored  = "not_scored"
	VerdictIncomplete = "incomplete" // no run_result.json yet, or interrupted
	VerdictUnreadable = "unreadable" // its files do not read: Why says why
)

// History is an eval's runs over time, oldest first: what `agent-eval
// history` prints and history.html shows. Every text in it is redacted.
type History struct {
	RunsDir string `yaml:"runs_dir"`
	// Judges are the judges any listed run has, in the order they first
	// appear (oldest run first, each run in eval.yaml's order).
	Judges []string     `yaml:"judges"`
	Runs   []HistoryRun `yaml:"runs"`
	// Skipped are the folders under RunsDir that are no run (a matrix's):
	// not listed.
	Skipped []string `yaml:"skipped,omitempty"`
}

// HistoryRun is one run of the history.
type HistoryRun struct {
	RunID string `yaml:"run_id"`
	Dir   string `yaml:"dir"`
	// StartedAt is when the run started (RFC 3339, UTC): run_result.json's
	// started_at, else the time its generated id begins with (TimeFrom
	// says which); empty when neither says.
	StartedAt string         `yaml:"started_at,omitempty"`
	TimeFrom  string         `yaml:"time_from,omitempty"` // started_at or run_id
	Model     string         `yaml:"model,omitempty"`
	Agent     string         `yaml:"agent,omitempty"`
	Cases     int            `yaml:"cases"`
	Judges    []HistoryJudge `yaml:"judges,omitempty"`
	// CostUSD is the agent's cost over the run, JudgeCostUSD the LLM
	// judges'; DurationS the run's wall clock.
	// Each is nil when the run does not say (no run_result.json).
	CostUSD      *float64 `yaml:"cost_usd,omitempty"`
	JudgeCostUSD float64  `yaml:"judge_cost_usd,omitempty"`
	DurationS    *float64 `yaml:"duration_s,omitempty"`
	Verdict      string   `yaml:"verdict"`
	ScoredAt     string   `yaml:"scored_at,omitempty"`
	// Why says why a run is incomplete or unreadable, or why a scored one
	// judged no case.
	Why string `yaml:"why,omitempty"`
	// Report is the run's report.html, when it has one.
	Report string `yaml:"report,omitempty"`

	evalName string
	order    time.Time // StartedAt, else when run_result.json last changed
	readable bool      // Verdict is not unreadable
}

// HistoryJudge is one judge's aggregate over one run's cases.
type HistoryJudge struct {
	Name     string           `yaml:"name"`
	PassRate *float64         `yaml:"pass_rate,omitempty"`
	Mean     *float64         `yaml:"mean,omitempty"`
	Interval *rundir.Interval `yaml:"interval,omitempty"`
}

// Judge is the run's aggregate of the judge called name, nil when the run
// has none.
func (r *HistoryRun) Judge(name string) *HistoryJudge {
	for i := range r.Judges {
		if r.Judges[i].Name == name {
			return &r.Judges[i]
		}
	}
	return nil
}

// Scored: the run has a verdict.
func (r *HistoryRun) Scored() bool {
	return r.Verdict == VerdictPassed || r.Verdict == VerdictFailed
}

// runIDZone is the time zone generated run ids are read in where no other
// is given (report.html's previous run): the local one, as NewID wrote
// them. Tests set it, rather than time.Local, which the runtime reads on
// every time.Now.
var runIDZone = time.Local

// LoadHistory reads every run under runsDir, oldest first. A run whose
// files do not read is listed as unreadable, with why; only a runsDir that
// cannot be listed is an error (fs.ErrNotExist when there is none). The
// secrets of this environment and those every run marked are redacted from
// every text. loc is the time zone the run ids were written in (nil: the
// local one).
func LoadHistory(runsDir string, loc *time.Location) (*History, error) {
	if loc == nil {
		loc = runIDZone
	}
	abs, err := filepath.Abs(runsDir)
	if err != nil {
		return nil, fmt.Errorf("read the runs of %s: %w", runsDir, err)
	}
	runs, skipped, err := listRuns(abs, loc)
	if err != nil {
		return nil, err
	}
	h := &History{RunsDir: abs, Skipped: skipped}
	red := redact.FromEnviron(os.Environ())
	for i := range runs {
		r := &runs[i]
		if r.readable {
			_, _ = rundir.Dir{Path: r.Dir}.HideSecrets(red) // what was found is hidden
			readVerdict(r)
		}
		h.Runs = append(h.Runs, *r)
	}
	// Every run's secrets are hidden in every run's texts.
	for i := range h.Runs {
		h.Runs[i].redact(red)
	}
	for i := range h.Skipped {
		h.Skipped[i] = red.String(h.Skipped[i])
	}
	h.RunsDir = red.String(h.RunsDir)
	h.Judges = judgeNames(h.Runs)
	return h, nil
}

// Last keeps the n most recent runs (all of them for n ≤ 0).
func (h *History) Last(n int) {
	if n > 0 && len(h.Runs) > n {
		h.Runs = h.Runs[len(h.Runs)-n:]
		h.Judges = judgeNames(h.Runs)
	}
}

// listRuns lists the runs under runsDir, oldest first, from their
// run_result.json (a started run without one is incomplete; one that does
// not read, unreadable). Folders that are no run are skipped.
func listRuns(runsDir string, loc *time.Location) (runs []HistoryRun, skipped []string, err error) {
	entries, err := os.ReadDir(runsDir)
	if err != nil {
		return nil, nil, fmt.Errorf("list the runs: %w", err)
	}
	for _, e := range entries {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		r, ok := readRun(filepath.Join(runsDir, e.Name()), loc)
		if !ok {
			skipped = append(skipped, e.Name())
			continue
		}
		runs = append(runs, r)
	}
	sort.SliceStable(runs, func(i, j int) bool {
		if !runs[i].order.Equal(runs[j].order) {
			return runs[i].order.Before(runs[j].order)
		}
		return runs[i].RunID < runs[j].RunID
	})
	return runs, skipped, nil
}

// readRun reads what the run's run_result.json says of the run at path;
// false for a folder that is no run at all.
func readRun(path string, loc *time.Location) (HistoryRun, bool) {
	id := filepath.Base(path)
	r := HistoryRun{RunID: id, Dir: path, readable: true}
	if fi, err := os.Stat(path); err == nil {
		r.order = fi.ModTime()
	}
	if t, ok := rundir.IDTimeIn(id, loc); ok {
		r.setStart(t, "run_id")
	}
	probe := rundir.Dir{Path: path}
	if !exists(probe.RunResult()) && !exists(filepath.Join(path, rundir.CasesDir)) {
		// A run writes config/ and selection.json before its first case.
		if !exists(probe.ConfigDir()) && !exists(filepath.Join(path, rundir.SelectionFile)) {
			return r, false
		}
		r.Verdict, r.Why = VerdictIncomplete, "no case has run yet: the run is starting, or stopped before its first case"
		return r, true
	}
	d, err := rundir.Open(path)
	if err != nil {
		r.unreadable(err)
		return r, true
	}
	run, err := d.ReadRun()
	switch {
	case errors.Is(err, fs.ErrNotExist):
		r.Verdict, r.Why = VerdictIncomplete, "no "+rundir.RunResultFile+": the run is running, or stopped before its end"
		if ids, err := d.CaseIDs(); err == nil {
			r.Cases = len(ids)
		}
		return r, true
	case err != nil:
		r.unreadable(err)
		return r, true
	}
	if fi, err := os.Stat(d.RunResult()); err == nil {
		r.order = fi.ModTime()
	}
	r.fromRun(run)
	return r, true
}

// unreadable marks the run unreadable for err, said with the run's own
// paths relative to it.
func (r *HistoryRun) unreadable(err error) {
	r.Verdict, r.readable = VerdictUnreadable, false
	r.Why = strings.ReplaceAll(err.Error(), r.Dir+string(filepath.Separator), "")
}

func (r *HistoryRun) setStart(t time.Time, from string) {
	r.StartedAt, r.TimeFrom, r.order = t.UTC().Format(time.RFC3339), from, t
}

func (r *HistoryRun) fromRun(run *results.RunResult) {
	if run.RunID != "" {
		r.RunID = run.RunID
	}
	if t, err := time.Parse(time.RFC3339, run.StartedAt); err == nil {
		r.setStart(t, "started_at")
	}
	r.evalName, r.Model, r.Agent, r.Cases = run.EvalName, run.Model, run.Agent, run.NumCases
	wall := run.WallClockS
	if wall == 0 {
		wall = run.DurationS
	}
	r.CostUSD, r.DurationS = &run.CostUSD, &wall
	r.Verdict = VerdictNotScored
	if run.Interrupted {
		r.Verdict, r.Why = VerdictIncomplete, "interrupted"
	}
}

// readVerdict adds the run's summary.yaml, when it has one, to r.
func readVerdict(r *HistoryRun) {
	d := rundir.Dir{Path: r.Dir}
	if exists(d.Report()) {
		r.Report = d.Report()
	}
	s, err := d.ReadSummary()
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return
	case err != nil:
		r.unreadable(err)
		return
	}
	r.Verdict, r.ScoredAt, r.JudgeCostUSD = VerdictFailed, s.ScoredAt, s.JudgeCostUSD
	if s.Passed {
		r.Verdict = VerdictPassed
	}
	if s.NotJudged != "" {
		r.Why = "no case was judged: " + s.NotJudged
	}
	if r.Model == "" {
		r.Model = s.Model
	}
	if r.Cases == 0 {
		r.Cases = s.NumCases
	}
	if r.CostUSD == nil || *r.CostUSD == 0 {
		r.CostUSD = &s.CostUSD
	}
	if r.DurationS == nil || *r.DurationS == 0 {
		r.DurationS = &s.DurationS
	}
	for _, j := range s.Judges {
		r.Judges = append(r.Judges, HistoryJudge{Name: j.Name, PassRate: j.PassRate, Mean: j.Mean, Interval: j.Interval})
	}
}

// redact hides red's secrets, and what looks like one, in r's texts.
func (r *HistoryRun) redact(red *redact.Redactor) {
	for _, s := range []*string{&r.RunID, &r.Dir, &r.Model, &r.Agent, &r.Why, &r.Report, &r.ScoredAt} {
		*s = red.String(*s)
	}
	for i := range r.Judges {
		r.Judges[i].Name = red.String(r.Judges[i].Name)
	}
}

func judgeNames(runs []HistoryRun) []string {
	var names []string
	seen := map[string]bool{}
	for _, r := range runs {
		for _, j := range r.Judges {
			if !seen[j.Name] {
				seen[j.Name] = true
				names = append(names, j.Name)
			}
		}
	}
	return names
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
