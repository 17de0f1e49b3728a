package matrix

import (
	"bytes"
	"fmt"
	"html/template"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/agent-eval/agent-eval/internal/results"
)

// HTML renders r as matrix.html: one self-contained page (no script, no
// external resource) with the cells, and per judge its ANOVA table and an
// SVG scatter of cost against score with the Pareto front drawn.
func HTML(r Report) ([]byte, error) {
	type judgeView struct {
		JudgeReport
		Plot template.HTML
	}
	view := struct {
		Report
		FactorNames []string
		Judges      []judgeView
	}{Report: r}
	for _, f := range r.Factors {
		view.FactorNames = append(view.FactorNames, f.Name)
	}
	for _, j := range r.Judges {
		view.Judges = append(view.Judges, judgeView{JudgeReport: j, Plot: scatter(j)})
	}
	var b bytes.Buffer
	if err := pageTmpl().Execute(&b, view); err != nil {
		return nil, fmt.Errorf("render %s: %w", ReportHTML, err)
	}
	return b.Bytes(), nil
}

// pageTmpl is parsed on first use: the binary starts on every hook call.
var pageTmpl = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("matrix").Funcs(template.FuncMap{
		"num": func(p *float64) string {
			if p == nil {
				return "—"
			}
			return strconv.FormatFloat(*p, 'g', 6, 64)
		},
		"f":     func(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) },
		"usd":   func(v float64) string { return fmt.Sprintf("$%.4f", v) },
		"kinds": KindsText,
		"mean": func(m map[string]float64, judge string) string {
			v, ok := m[judge]
			if !ok {
				return "—"
			}
			return strconv.FormatFloat(v, 'g', 4, 64)
		},
	}).Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>agent-eval matrix {{.MatrixID}} — {{.EvalName}}</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222}
table{border-collapse:collapse;margin:0.5em 0 1.5em}
th,td{border:1px solid #ccc;padding:3px 8px;text-align:right}
th:first-child,td:first-child{text-align:left}
th{background:#f3f3f3}
.front{font-weight:bold}
svg{border:1px solid #ddd;background:#fff}
</style></head><body>
<h1>Matrix {{.MatrixID}} — {{.EvalName}}</h1>
<p>{{len .Cells}} scored cell(s); {{.Replications}} replication(s) of each combination.{{if .Unscored}} Not scored: {{range $i, $c := .Unscored}}{{if $i}}, {{end}}{{$c}}{{end}}.{{end}}</p>
<h2>Cells</h2>
<table><tr><th>cell</th>{{range .FactorNames}}<th>{{.}}</th>{{end}}<th>rep</th><th>cost</th><th>violations</th>{{range .Judges}}<th>{{.Judge}}</th>{{end}}</tr>
{{range $c := .Cells}}<tr><td>{{$c.Name}}</td>{{range $.FactorNames}}<td>{{index $c.Levels .}}</td>{{end}}<td>{{$c.Replication}}</td><td>{{usd $c.CostUSD}}</td><td>{{$c.Violations.Total}}</td>{{range $.Judges}}<td>{{mean $c.Means .Judge}}</td>{{end}}</tr>
{{end}}</table>
<h2>By level</h2>
<p>Each factor's levels side by side: their cells, summed cost and each judge's mean over the cells' cases.</p>
<table><tr><th>factor</th><th>level</th><th>cells</th><th>cost</th>{{range .Judges}}<th>{{.Judge}}</th>{{end}}</tr>
{{range $l := .ByLevel}}<tr><td>{{$l.Factor}}</td><td>{{$l.Level}}</td><td>{{$l.Cells}}</td><td>{{usd $l.CostUSD}}</td>{{range $.Judges}}<td>{{mean $l.Means .Judge}}</td>{{end}}</tr>
{{end}}</table>
<h2>Violations</h2>
<p>What the agents tried that their world refused (denied calls, hidden paths, refused connections, quota hits, tampering), by each factor's level.</p>
<table><tr><th>factor</th><th>level</th><th>cells</th><th>cases</th><th>cases with any</th><th>violations</th><th>by kind</th></tr>
{{range .Violations}}<tr><td>{{.Factor}}</td><td>{{.Level}}</td><td>{{.Cells}}</td><td>{{.Cases}}</td><td>{{.CasesWith}}</td><td>{{.Total}}</td><td>{{kinds .ByKind}}</td></tr>
{{end}}</table>
{{range .Judges}}<h2>{{.Judge}}</h2>
<p>ANOVA (Type II) over {{.Observations}} per-case value(s){{if .ANOVAFactors}}, factors {{range $i, $f := .ANOVAFactors}}{{if $i}} × {{end}}{{$f}}{{end}}{{end}}.{{if .ANOVANote}} {{.ANOVANote}}.{{end}}</p>
{{if .ANOVA}}<table><tr><th>term</th><th>SS</th><th>DF</th><th>MS</th><th>F</th><th>P</th><th>η²</th><th>partial η²</th></tr>
{{range .ANOVA}}<tr><td>{{.Term}}</td><td>{{f .SS}}</td><td>{{f .DF}}</td><td>{{num .MS}}</td><td>{{num .F}}</td><td>{{num .P}}</td><td>{{num .EtaSq}}</td><td>{{num .PartialEtaSq}}</td></tr>
{{end}}</table>{{end}}
<p>Cost against mean score per cell; the Pareto front (no cell cheaper and at least as good) is joined by the line: {{range $i, $c := .Pareto}}{{if $i}}, {{end}}{{$c}}{{end}}.</p>
{{.Plot}}
{{end}}</body></html>
`))
})

// scatter is the judge's cost-versus-score plot as inline SVG.
func scatter(j JudgeReport) template.HTML {
	const w, h, pad = 560.0, 320.0, 48.0
	if len(j.Points) == 0 {
		return ""
	}
	minC, maxC, minS, maxS := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, p := range j.Points {
		minC, maxC = math.Min(minC, p.CostUSD), math.Max(maxC, p.CostUSD)
		minS, maxS = math.Min(minS, p.Score), math.Max(maxS, p.Score)
	}
	span := func(lo, hi float64) (float64, float64) {
		if hi-lo < 1e-12 {
			return lo - 0.5, hi + 0.5
		}
		return lo, hi
	}
	minC, maxC = span(minC, maxC)
	minS, maxS = span(minS, maxS)
	x := func(c float64) float64 { return pad + (c-minC)/(maxC-minC)*(w-2*pad) }
	y := func(s float64) float64 { return h - pad - (s-minS)/(maxS-minS)*(h-2*pad) }
	var b bytes.Buffer
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%g" height="%g" viewBox="0 0 %g %g" role="img" aria-label="cost against score">`, w, h, w, h)
	fmt.Fprintf(&b, `<line x1="%g" y1="%g" x2="%g" y2="%g" stroke="#888"/><line x1="%g" y1="%g" x2="%g" y2="%g" stroke="#888"/>`, pad, h-pad, w-pad, h-pad, pad, pad, pad, h-pad)
	fmt.Fprintf(&b, `<text x="%g" y="%g" text-anchor="middle" font-size="12">cost (USD) %s – %s</text>`, w/2, h-12, fmtNum(minC), fmtNum(maxC))
	fmt.Fprintf(&b, `<text x="14" y="%g" font-size="12" transform="rotate(-90 14 %g)" text-anchor="middle">%s %s – %s</text>`, h/2, h/2, template.HTMLEscapeString(j.Judge), fmtNum(minS), fmtNum(maxS))
	byCell := map[string]Point{}
	for _, p := range j.Points {
		byCell[p.Cell] = p
	}
	if len(j.Pareto) > 1 {
		b.WriteString(`<polyline fill="none" stroke="#c33" stroke-width="2" points="`)
		for i, name := range j.Pareto {
			if i > 0 {
				b.WriteByte(' ')
			}
			p := byCell[name]
			fmt.Fprintf(&b, "%.1f,%.1f", x(p.CostUSD), y(p.Score))
		}
		b.WriteString(`"/>`)
	}
	for _, p := range j.Points {
		fill := "#36c"
		if slices.Contains(j.Pareto, p.Cell) {
			fill = "#c33"
		}
		fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="5" fill="%s"><title>%s: $%s, %s</title></circle>`, x(p.CostUSD), y(p.Score), fill,
			template.HTMLEscapeString(p.Cell), fmtNum(p.CostUSD), fmtNum(p.Score))
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String()) // #nosec: every text in it is escaped above
}

func fmtNum(v float64) string { return strconv.FormatFloat(v, 'g', 4, 64) }

// KindsText is counts by kind in one line ("2 denied_call, 1 quota"), in
// the kinds' order; "—" for none.
func KindsText(byKind map[string]int) string {
	var parts []string
	for _, k := range results.ViolationKinds() {
		if n := byKind[string(k)]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, k))
		}
	}
	if len(parts) == 0 {
		return "—"
	}
	return strings.Join(parts, ", ")
}
