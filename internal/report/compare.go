package report

import (
	"bytes"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"path/filepath"
	"sort"

	"github.com/agent-eval/agent-eval/internal/atomicfile"
	"github.com/agent-eval/agent-eval/internal/rundir"
)

// CompareFile is the side-by-side page's usual name, in the later run's
// directory.
const CompareFile = rundir.CompareHTMLFile

type comparePage struct {
	Title         string
	A, B          runRef
	Cmp           *rundir.Comparison
	Judges        []judgeRow
	Cases         []compareRow
	JudgeNames    []string
	Better        int
	Worse         int
	Style, Script any
	CSP           string
}

type runRef struct {
	ID     string
	Dir    string
	Report string // link to its report.html, relative to the page
	Scored bool
	Passed bool
}

type judgeRow struct {
	rundir.JudgeDelta
	MeanDelta, PassDelta string
	Class                string // better, worse, same: the row
	MeanClass, PassClass string // the same, for each delta
}

type compareRow struct {
	ID               string
	StatusA, StatusB string
	LinkA, LinkB     string
	Cells            []compareCell
	Changed          bool
}

type compareCell struct {
	Before, Now string
	Class       string // better, worse, same, none
}

// WriteCompare writes the side-by-side page of run a (before) against run b
// (now) to path (usually b's compare.html): per-judge deltas, each case's
// verdicts before and now, and the win rate. It reads each run's
// summary.yaml when there is one; cmp is the comparison compare or score
// --baseline computed, and says what got better and worse.
func WriteCompare(path string, a, b rundir.Dir, cmp *rundir.Comparison) error {
	if cmp == nil {
		return errors.New("write the comparison page: no comparison")
	}
	sa, err := optionalSummary(a)
	if err != nil {
		return err
	}
	sb, err := optionalSummary(b)
	if err != nil {
		return err
	}
	p := &comparePage{Cmp: cmp, Style: template.CSS(style), Script: template.JS(script), CSP: csp()}
	base := filepath.Dir(path)
	p.A, p.B = ref(a, sa, base), ref(b, sb, base)
	if cmp.RunID != "" {
		p.A.ID = cmp.RunID
	}
	p.Title = "agent-eval: " + p.A.ID + " → " + p.B.ID
	for _, d := range cmp.Judges {
		r := judgeRow{JudgeDelta: d, MeanDelta: delta(d.MeanBefore, d.MeanNow), PassDelta: delta(d.PassBefore, d.PassNow), Class: "same",
			MeanClass: direction(d.MeanBefore, d.MeanNow), PassClass: direction(d.PassBefore, d.PassNow)}
		switch {
		case d.Regression || less(d.PassNow, d.PassBefore) || (d.PassNow == nil && less(d.MeanNow, d.MeanBefore)):
			r.Class = "worse"
		case less(d.PassBefore, d.PassNow) || (d.PassNow == nil && less(d.MeanBefore, d.MeanNow)):
			r.Class = "better"
		}
		p.Judges = append(p.Judges, r)
		p.JudgeNames = append(p.JudgeNames, d.Judge)
	}
	p.Cases = compareCases(p, sa, sb, a, b, base)
	var buf bytes.Buffer
	if err := compareT().Execute(&buf, p); err != nil {
		return fmt.Errorf("render the comparison page: %w", err)
	}
	if err := atomicfile.Write(path, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("write the comparison page: %w", err)
	}
	return nil
}

func optionalSummary(d rundir.Dir) (*rundir.Summary, error) {
	s, err := d.ReadSummary()
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return s, err
}

func ref(d rundir.Dir, s *rundir.Summary, base string) runRef {
	r := runRef{ID: filepath.Base(d.Path), Dir: d.Path, Report: rel(base, d.Report())}
	if s != nil {
		r.Scored, r.Passed = true, s.Passed
		if s.RunID != "" {
			r.ID = s.RunID
		}
	} else if run, err := d.ReadRun(); err == nil && run.RunID != "" {
		r.ID = run.RunID
	}
	return r
}

func compareCases(p *comparePage, sa, sb *rundir.Summary, a, b rundir.Dir, base string) []compareRow {
	type key struct{ c, j string }
	marked := map[key]string{}
	for _, d := range p.Cmp.Better {
		marked[key{d.Case, d.Judge}] = "better"
	}
	for _, d := range p.Cmp.Worse {
		marked[key{d.Case, d.Judge}] = "worse"
	}
	before, now := casesOf(sa), casesOf(sb)
	ids := map[string]bool{}
	for id := range before {
		ids[id] = true
	}
	for id := range now {
		ids[id] = true
	}
	for _, d := range append(append([]rundir.CaseDelta{}, p.Cmp.Better...), p.Cmp.Worse...) {
		ids[d.Case] = true
	}
	sorted := make([]string, 0, len(ids))
	for id := range ids {
		sorted = append(sorted, id)
	}
	sort.Strings(sorted)
	var rows []compareRow
	for _, id := range sorted {
		r := compareRow{ID: id, LinkA: rel(base, a.Report()) + "#case-" + id, LinkB: rel(base, b.Report()) + "#case-" + id}
		ca, cb := before[id], now[id]
		if ca != nil {
			r.StatusA = ca.Status
		}
		if cb != nil {
			r.StatusB = cb.Status
		}
		for _, j := range p.JudgeNames {
			va, vb := verdictOf(ca, j), verdictOf(cb, j)
			c := compareCell{Before: verdictWord(va), Now: verdictWord(vb), Class: "same"}
			if m, ok := marked[key{id, j}]; ok {
				c.Class = m
			} else if va == nil && vb == nil {
				c.Class = "none"
			}
			if c.Class == "better" || c.Class == "worse" {
				r.Changed = true
				if c.Class == "better" {
					p.Better++
				} else {
					p.Worse++
				}
			}
			r.Cells = append(r.Cells, c)
		}
		rows = append(rows, r)
	}
	return rows
}

func casesOf(s *rundir.Summary) map[string]*rundir.CaseSummary {
	out := map[string]*rundir.CaseSummary{}
	if s == nil {
		return out
	}
	for i := range s.Cases {
		out[s.Cases[i].ID] = &s.Cases[i]
	}
	return out
}

func verdictOf(c *rundir.CaseSummary, judge string) *rundir.Verdict {
	if c == nil {
		return nil
	}
	return findVerdict(c.Verdicts, judge)
}

func verdictWord(v *rundir.Verdict) string {
	switch {
	case v == nil:
		return "–"
	case v.Error != "":
		return "error"
	case v.Skipped:
		return "skipped"
	case v.Value != nil && v.Passed != nil && (*v.Value == 0 || *v.Value == 1):
		return map[bool]string{true: "pass", false: "fail"}[*v.Passed]
	case v.Value != nil:
		return num(*v.Value)
	case v.Passed != nil:
		return map[bool]string{true: "pass", false: "fail"}[*v.Passed]
	}
	return "–"
}

func delta(before, now *float64) string {
	if before == nil || now == nil {
		return "–"
	}
	d := *now - *before
	if d > 0 {
		return "+" + num(d)
	}
	return num(d)
}

// direction is better, worse or same for a value that should go up.
func direction(before, now *float64) string {
	switch {
	case less(before, now):
		return "better"
	case less(now, before):
		return "worse"
	}
	return "same"
}

// less: both are set and x < y.
func less(x, y *float64) bool { return x != nil && y != nil && *x < *y }

func rel(base, target string) string {
	r, err := filepath.Rel(base, target)
	if err != nil {
		return filepath.ToSlash(target)
	}
	return filepath.ToSlash(r)
}
