package report

import (
	"html/template"

	"github.com/agent-eval/agent-eval/internal/rundir"
)

// What agent-eval view (internal/view) shows of a run is what report.html
// shows, from the same view model: these names let it read that model and
// render a transcript with the report's own blocks.

// RunPage is a run as report.html shows it: its header, totals and cases.
type RunPage = page

// CaseView is one case of a RunPage.
type CaseView = caseView

// Cell is one judge's verdict on a case, as the case table shows it.
type Cell = cell

// Item is one entry of a case's transcript, as a person reads it.
type Item = item

// Overview is the run's header and case table, read without any
// transcript, ledger or output file: what a listing of a large run needs.
// s is nil for a run that was not scored.
func Overview(dir rundir.Dir, s *rundir.Summary) *RunPage {
	return loadWith(dir, s, loadOptions{light: true})
}

// CaseTemplates is a fresh parse of report.html's templates, whose "item"
// and "hook" blocks render one transcript entry and one hook decision, and
// of history.html's "plot" block, which draws one Plot; a page adds its
// own templates to it.
func CaseTemplates() *template.Template {
	return template.Must(template.New("report").Funcs(funcs).Parse(reportTmpl + plotTmpl))
}

// Style is report.html's style sheet, with history.html's plots'.
func Style() string { return style + "\n" + plotCSS }

// Plot is one of history.html's plots: a value per run, oldest first.
type Plot = plot

// HistoryPlots are history.html's plots of h: each judge's pass rate (or
// mean) with its interval, and the agent's cost, one point per run.
func HistoryPlots(h *History) []Plot { return historyPlots(h) }
