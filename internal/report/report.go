// Package report writes what a person and CI read after a run: report.html
// (one self-contained page: overview, a table of cases, each case's
// transcript with denials and hook answers highlighted, judge rationales),
// junit.xml (one testcase per case and judge) and the side-by-side page of
// a comparison. It reads the run directory only through internal/rundir
// and never calls a model.
package report

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"fmt"
	"html/template"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agent-eval/agent-eval/internal/atomicfile"
	"github.com/agent-eval/agent-eval/internal/rundir"
	"github.com/agent-eval/agent-eval/internal/usd"
)

var (
	//go:embed assets/report.tmpl
	reportTmpl string
	//go:embed assets/compare.tmpl
	compareTmpl string
	//go:embed assets/style.css
	style string
	//go:embed assets/app.js
	script string
)

// csp allows the page's own inline style and script (by hash) and nothing
// else: no network, and no script an agent's output could smuggle in.
// It is computed on first use, as the templates are parsed: every start of
// the binary (the hook's, once per tool call) would pay for it otherwise.
var csp = sync.OnceValue(func() string {
	return "default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src 'sha256-" + hash(script) + "'"
})

func hash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return base64.StdEncoding.EncodeToString(sum[:])
}

var funcs = template.FuncMap{
	"num":   num,
	"numP":  numP,
	"pct":   pct,
	"usd":   usd.Format,
	"dur":   dur,
	"bytes": humanBytes,
	"ptr":   func(f float64) *float64 { return &f },
	"pct1":  func(f float64) string { return strconv.FormatFloat(f*100, 'f', 0, 64) + "%" },
	"pct2": func(a, b *float64) string {
		if a == nil || b == nil {
			return "–"
		}
		d := (*b - *a) * 100
		s := strconv.FormatFloat(d, 'f', 1, 64) + " pt"
		if d > 0 {
			s = "+" + s
		}
		return s
	},
	"deref": func(b *bool) bool { return b != nil && *b },
	"metric": func(m string) string {
		if s, ok := map[string]string{"min_mean": "mean ≥", "min_pass_rate": "pass rate ≥", "min_win_rate": "win rate ≥", "max_error_rate": "error rate ≤", "max_regression": "fall vs the baseline ≤"}[m]; ok {
			return s
		}
		return m
	},
	"isRate": func(m string) bool { return strings.HasSuffix(m, "_rate") },
}

var (
	reportT  = parseOnce("report", reportTmpl)
	compareT = parseOnce("compare", compareTmpl)
)

// parseOnce parses an embedded template the first time it is executed.
func parseOnce(name, text string) func() *template.Template {
	return sync.OnceValue(func() *template.Template { return template.Must(template.New(name).Funcs(funcs).Parse(text)) })
}

// Write writes dir's report.html from the run directory and its summary; s
// is nil for a run that was not scored, which the page says.
func Write(dir rundir.Dir, s *rundir.Summary) error {
	b, err := Render(dir, s)
	if err != nil {
		return err
	}
	if err := atomicfile.Write(dir.Report(), b, 0o644); err != nil {
		return fmt.Errorf("write the report: %w", err)
	}
	return nil
}

// Render is report.html's content.
func Render(dir rundir.Dir, s *rundir.Summary) ([]byte, error) {
	p := load(dir, s)
	p.Style, p.Script, p.CSP = template.CSS(style), template.JS(script), csp()
	var b bytes.Buffer
	if err := reportT().Execute(&b, p); err != nil {
		return nil, fmt.Errorf("render the report: %w", err)
	}
	return b.Bytes(), nil
}

func num(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	s := strconv.FormatFloat(f, 'f', 3, 64)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	if s == "-0" {
		s = "0"
	}
	return s
}

func numP(f *float64) string {
	if f == nil {
		return "–"
	}
	return num(*f)
}

func pct(f *float64) string {
	if f == nil {
		return "–"
	}
	return strconv.FormatFloat(*f*100, 'f', 1, 64) + "%"
}

func dur(s float64) string {
	d := time.Duration(s * float64(time.Second))
	switch {
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	case d < time.Minute:
		return d.Round(100 * time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}

func humanBytes(n int64) string {
	switch {
	case n < 1<<10:
		return strconv.FormatInt(n, 10) + " B"
	case n < 1<<20:
		return strconv.FormatFloat(float64(n)/(1<<10), 'f', 1, 64) + " KiB"
	}
	return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) + " MiB"
}
