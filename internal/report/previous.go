package report

import (
	"path/filepath"
	"strings"

	"github.com/agent-eval/agent-eval/internal/redact"
	"github.com/agent-eval/agent-eval/internal/rundir"
)

// previousView is the run before this one in the same runs directory, as
// the report's header links it.
type previousView struct {
	ID      string
	Href    string // its report.html, relative to this run's; "" without one
	Verdict string // as VerdictText says it
	Values  string // each judge's pass rate (else mean), when it was scored
}

// previousRun finds the run before dir among the runs of its runs
// directory (its parent), in the order of `agent-eval history`, scored or
// not: the latest readable one that started before dir (a run of another
// eval, by eval_name, is passed over). history is the runs directory's
// history page, relative to dir, when there is one. What they show goes
// through red, which learns the previous run's own secrets first.
func previousRun(dir rundir.Dir, evalName string, red *redact.Redactor) (prev *previousView, history string) {
	runsDir := filepath.Dir(dir.Path)
	if page := filepath.Join(runsDir, HistoryFile); exists(page) {
		history = rel(dir.Path, page)
	}
	runs, _, err := listRuns(runsDir, runIDZone)
	if err != nil {
		return nil, history
	}
	at := -1
	for i := range runs {
		if runs[i].Dir == dir.Path {
			at = i
		}
	}
	for i := at - 1; i >= 0; i-- {
		r := runs[i]
		if !r.readable || (evalName != "" && r.evalName != "" && r.evalName != evalName) {
			continue
		}
		_, _ = rundir.Dir{Path: r.Dir}.HideSecrets(red) // what was found is hidden
		readVerdict(&r)
		prev = &previousView{ID: red.String(r.RunID), Verdict: VerdictText(r.Verdict)}
		if r.Report != "" {
			prev.Href = red.String(rel(dir.Path, r.Report))
		}
		var vals []string
		for j := range r.Judges {
			vals = append(vals, red.String(r.Judges[j].Name)+" "+r.Judges[j].Value())
		}
		prev.Values = strings.Join(vals, ", ")
		return prev, history
	}
	return nil, history
}
