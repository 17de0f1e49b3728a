package report

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"math"
	"path/filepath"
	"strconv"

	"github.com/agent-eval/agent-eval/internal/atomicfile"
	"github.com/agent-eval/agent-eval/internal/rundir"
	"github.com/agent-eval/agent-eval/internal/usd"
)

//go:embed assets/history.tmpl
var historyTmpl string

// plotTmpl defines "plot", one of history.html's plots (agent-eval view
// draws them too); plotCSS is its style.
var (
	//go:embed assets/plot.tmpl
	plotTmpl string
	//go:embed assets/plot.css
	plotCSS string
)

var historyT = parseOnce("history", historyTmpl+plotTmpl)

// historyCSP lets the page's inline style in and nothing else: the page
// has no script, loads nothing and opens offline.
const historyCSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"

type historyPage struct {
	Title   string
	RunsDir string
	Judges  []string
	Rows    []historyRow
	Plots   []plot
	Skipped []string
	Cols    int // the table's columns
	Style   any
	CSP     string
}

type historyRow struct {
	N int
	HistoryRun
	Href  string // its report.html, relative to the page
	Cells []string
	Class string // the verdict's: v-pass, v-fail, v-none, v-err
	Word  string // the verdict as a person reads it
}

// plot is an inline SVG chart of one value per run, a series per judge
// (or one of the cost), the runs oldest first from left to right.
type plot struct {
	ID, Title string
	W, H      float64
	Left      float64 // where the plotting area begins and ends
	Right     float64
	Grid      []tick // the value axis: a line and a label per tick
	Runs      []tick // the run axis: each run's number
	Series    []series
}

type tick struct {
	X, Y  float64
	Label string
}

type series struct {
	Name, Color string
	Line        string // the polyline's points
	Points      []point
}

type point struct {
	X, Y      float64
	Low, High float64 // the interval's ends, as y (equal to Y without one)
	HasIV     bool
	Run       string
	Title     string
}

// palette colours the series, one judge after another.
var palette = []string{"#0969da", "#cf222e", "#1a7f37", "#8250df", "#bc4c00", "#1b7c83", "#6e7781", "#bf3989"}

// WriteHistory writes h as one self-contained page at path (usually the
// runs directory's history.html): a table of the runs, each linking its
// report.html, and inline SVG plots of each judge's pass rate (or mean)
// and of the cost over the runs.
func WriteHistory(path string, h *History) error {
	b, err := RenderHistory(path, h)
	if err != nil {
		return err
	}
	if err := atomicfile.Write(path, b, 0o644); err != nil {
		return fmt.Errorf("write the history page: %w", err)
	}
	return nil
}

// RenderHistory is the history page's content, its links relative to
// path's folder.
func RenderHistory(path string, h *History) ([]byte, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("render the history page: %w", err)
	}
	base := filepath.Dir(abs)
	p := &historyPage{Title: "agent-eval history: " + historyName(h), RunsDir: h.RunsDir, Judges: h.Judges, Skipped: h.Skipped,
		Cols: len(h.Judges) + 11, Style: template.CSS(style + "\n" + plotCSS), CSP: historyCSP}
	for i, r := range h.Runs {
		row := historyRow{N: i + 1, HistoryRun: r, Class: verdictClass(r.Verdict), Word: VerdictText(r.Verdict)}
		if r.Report != "" {
			row.Href = rel(base, r.Report)
		}
		for _, name := range h.Judges {
			row.Cells = append(row.Cells, r.Judge(name).Cell())
		}
		p.Rows = append(p.Rows, row)
	}
	p.Plots = historyPlots(h)
	var b bytes.Buffer
	if err := historyT().Execute(&b, p); err != nil {
		return nil, fmt.Errorf("render the history page: %w", err)
	}
	return b.Bytes(), nil
}

// historyName is the eval's name when the runs say it, else the runs
// directory's name.
func historyName(h *History) string {
	for i := len(h.Runs) - 1; i >= 0; i-- {
		if n := h.Runs[i].evalName; n != "" {
			return n
		}
	}
	return filepath.Base(h.RunsDir)
}

func verdictClass(v string) string {
	switch v {
	case VerdictPassed:
		return "v-pass"
	case VerdictFailed:
		return "v-fail"
	case VerdictUnreadable:
		return "v-err"
	}
	return "v-none"
}

// VerdictText is how a person reads a verdict: passed, FAILED, not scored,
// incomplete, unreadable.
func VerdictText(v string) string {
	switch v {
	case VerdictFailed:
		return "FAILED"
	case VerdictNotScored:
		return "not scored"
	}
	return v
}

// Cell is the judge's pass rate with its interval ("80% [52–94%]"), else
// its mean ("0.72 [0.60, 0.80]"); "-" for no judge or no value.
func (j *HistoryJudge) Cell() string {
	s := j.Value()
	if j == nil || j.Interval == nil || s == "-" {
		return s
	}
	if iv := j.Interval; j.PassRate != nil {
		return s + fmt.Sprintf(" [%.0f–%.0f%%]", iv.Low*100, iv.High*100)
	}
	return s + fmt.Sprintf(" [%.2f, %.2f]", j.Interval.Low, j.Interval.High)
}

// Value is the judge's pass rate ("80%"), else its mean ("0.72"); "-" for
// no judge or no value.
func (j *HistoryJudge) Value() string {
	switch {
	case j == nil:
		return "-"
	case j.PassRate != nil:
		return strconv.FormatFloat(*j.PassRate*100, 'f', 0, 64) + "%"
	case j.Mean != nil:
		return strconv.FormatFloat(*j.Mean, 'f', 2, 64)
	}
	return "-"
}

// historyPlots are the pass rates of the judges that have one, each judge
// with a mean only on its own scale, and the agent's cost.
func historyPlots(h *History) []plot {
	if len(h.Runs) == 0 {
		return nil
	}
	var rates []string
	var means []string
	for _, name := range h.Judges {
		hasRate := false
		for i := range h.Runs {
			if j := h.Runs[i].Judge(name); j != nil && j.PassRate != nil {
				hasRate = true
			}
		}
		if hasRate {
			rates = append(rates, name)
		} else {
			means = append(means, name)
		}
	}
	var plots []plot
	pctLabel := func(v float64) string { return strconv.FormatFloat(v*100, 'f', 0, 64) + "%" }
	if len(rates) > 0 {
		plots = append(plots, newPlot(h, "pass-rate", "Pass rate per judge", rates, 0, 1, pctLabel, func(r *HistoryRun, name string) (float64, *rundir.Interval, bool) {
			j := r.Judge(name)
			if j == nil || j.PassRate == nil {
				return 0, nil, false
			}
			return *j.PassRate, j.Interval, true
		}))
	}
	for i, name := range means {
		value := func(r *HistoryRun, name string) (float64, *rundir.Interval, bool) {
			j := r.Judge(name)
			if j == nil || j.Mean == nil {
				return 0, nil, false
			}
			return *j.Mean, j.Interval, true
		}
		lo, hi := valueRange(h, name, value)
		plots = append(plots, newPlot(h, fmt.Sprintf("mean-%d", i+1), "Mean of "+name, []string{name}, lo, hi, func(v float64) string { return strconv.FormatFloat(v, 'g', 3, 64) }, value))
	}
	maxCost := 0.0
	for _, r := range h.Runs {
		if r.CostUSD != nil {
			maxCost = math.Max(maxCost, *r.CostUSD)
		}
	}
	if maxCost == 0 {
		maxCost = 1
	}
	plots = append(plots, newPlot(h, "cost", "Agent cost per run", []string{"agent cost"}, 0, maxCost, usd.Format, func(r *HistoryRun, _ string) (float64, *rundir.Interval, bool) {
		if r.CostUSD == nil {
			return 0, nil, false
		}
		return *r.CostUSD, nil, true
	}))
	return plots
}

type valueOf func(r *HistoryRun, series string) (v float64, iv *rundir.Interval, ok bool)

// valueRange is the range of the series' values and intervals over the
// runs, widened when it is one value.
func valueRange(h *History, name string, value valueOf) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for i := range h.Runs {
		v, iv, ok := value(&h.Runs[i], name)
		if !ok {
			continue
		}
		lo, hi = math.Min(lo, v), math.Max(hi, v)
		if iv != nil {
			lo, hi = math.Min(lo, iv.Low), math.Max(hi, iv.High)
		}
	}
	if hi-lo < 1e-9 {
		return lo - 0.5, hi + 0.5
	}
	return lo, hi
}

// newPlot lays the series out: the runs evenly from left to right, the
// values from lo (bottom) to hi (top), five labelled grid lines.
func newPlot(h *History, id, title string, names []string, lo, hi float64, label func(float64) string, value valueOf) plot {
	const w, ht, left, right, top, bottom = 560.0, 220.0, 64.0, 16.0, 12.0, 28.0
	p := plot{ID: id, Title: title, W: w, H: ht, Left: left, Right: w - right}
	n := float64(len(h.Runs))
	x := func(i int) float64 { return round1(left + (float64(i)+0.5)*(w-left-right)/n) }
	y := func(v float64) float64 { return round1(ht - bottom - (v-lo)/(hi-lo)*(ht-top-bottom)) }
	for k := 0; k <= 4; k++ {
		v := lo + float64(k)*(hi-lo)/4
		p.Grid = append(p.Grid, tick{X: left - 6, Y: y(v), Label: label(v)})
	}
	every := max(1, len(h.Runs)/20)
	for i := range h.Runs {
		if i%every == 0 || i == len(h.Runs)-1 {
			p.Runs = append(p.Runs, tick{X: x(i), Y: ht - bottom + 16, Label: strconv.Itoa(i + 1)})
		}
	}
	for si, name := range names {
		s := series{Name: name, Color: palette[si%len(palette)]}
		var line bytes.Buffer
		for i := range h.Runs {
			r := &h.Runs[i]
			v, iv, ok := value(r, name)
			if !ok {
				continue
			}
			pt := point{X: x(i), Y: y(v), Low: y(v), High: y(v), Run: r.RunID, Title: fmt.Sprintf("#%d %s: %s %s", i+1, r.RunID, name, label(v))}
			if iv != nil {
				pt.HasIV, pt.Low, pt.High = true, y(iv.Low), y(iv.High)
				pt.Title += fmt.Sprintf(" [%s, %s]", label(iv.Low), label(iv.High))
			}
			if line.Len() > 0 {
				line.WriteByte(' ')
			}
			fmt.Fprintf(&line, "%g,%g", pt.X, pt.Y)
			s.Points = append(s.Points, pt)
		}
		s.Line = line.String()
		p.Series = append(p.Series, s)
	}
	return p
}

func round1(v float64) float64 { return math.Round(v*10) / 10 }
