package view

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/agent-eval/agent-eval/internal/report"
	"github.com/agent-eval/agent-eval/internal/rundir"
	"github.com/agent-eval/agent-eval/internal/trajdiff"
)

// pages are the viewer's templates, added to a fresh parse of
// report.html's (whose "item" and "hook" blocks render a transcript).
// Parsed on first use: nothing at init.
var pages = sync.OnceValue(func() *template.Template {
	t := report.CaseTemplates()
	t.Funcs(template.FuncMap{
		"cost": func(f float64) string { return "$" + strconv.FormatFloat(f, 'f', 4, 64) },
		"secs": func(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) + "s" },
		"pct":  func(f *float64) string { return pctOf(f) },
	})
	return template.Must(t.New("view").Parse(viewTmpl))
})

func pctOf(f *float64) string {
	if f == nil {
		return "–"
	}
	return strconv.FormatFloat(*f*100, 'f', 1, 64) + "%"
}

// frame is what every page has.
type frame struct {
	Title  string
	Style  template.CSS
	Script template.JS
	Home   string
	Export bool
	// RunHref and RunName are the run the page is of (none on the index).
	RunHref string
	RunName string
	// Problems are what could not be read: shown, never fatal.
	Problems []string
}

func newFrame(title string, l links) frame {
	return frame{Title: title, Style: template.CSS(report.Style() + viewCSS), Script: template.JS(viewJS), Home: l.index(), Export: l.export}
}

// render writes one page, streamed through a buffered writer.
func render(w http.ResponseWriter, name string, data any) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", csp())
	bw := bufio.NewWriterSize(w, 32<<10)
	if err := pages().ExecuteTemplate(bw, name, data); err != nil {
		fmt.Fprintf(bw, "<p class=\"case-error\">%s</p>", template.HTMLEscapeString("render the page: "+err.Error()))
	}
	_ = bw.Flush() // a client gone away: nothing to tell it
}

// ---- the index: evals and their runs ----

type indexPage struct {
	frame
	Evals []evalGroup
	// Compare: the runs the side-by-side form offers (server only).
	Compare []string
}

type evalGroup struct {
	Name   string
	Judges []string
	Runs   []runRow
	// Plots are history.html's plots of the eval's runs (two runs or more).
	Plots []report.Plot
}

type runRow struct {
	report.HistoryRun
	Rel     string
	Href    string
	Word    string
	Class   string
	Cells   []string
	Running bool
}

// evals lists the root's runs: its own (an eval's runs directory) and
// those of each folder under it that is an eval's runs directory.
func (s *Server) evals(l links) ([]evalGroup, []string, error) {
	h, err := report.LoadHistory(s.Root, nil)
	if err != nil {
		return nil, nil, err
	}
	var groups []evalGroup
	var problems []string
	add := func(prefix string, h *report.History) {
		g := evalGroup{Name: prefix, Judges: h.Judges}
		for i := len(h.Runs) - 1; i >= 0; i-- { // newest first
			r := h.Runs[i]
			rel := filepath.Base(r.Dir)
			if prefix != "" {
				rel = prefix + "/" + rel
			}
			row := runRow{HistoryRun: r, Rel: rel, Href: l.run(rel, nil), Word: report.VerdictText(r.Verdict), Running: r.Verdict == report.VerdictIncomplete}
			row.Class = strings.ToLower(r.Verdict)
			for _, j := range h.Judges {
				row.Cells = append(row.Cells, r.Judge(j).Cell())
			}
			g.Runs = append(g.Runs, row)
		}
		if len(h.Runs) > 1 {
			g.Plots = report.HistoryPlots(h)
			for i := range g.Plots {
				g.Plots[i].ID = strconv.Itoa(len(groups)+1) + "-" + g.Plots[i].ID // one page, every eval's plots
			}
		}
		if len(g.Runs) > 0 {
			groups = append(groups, g)
		}
	}
	add("", h)
	if len(groups) == 1 {
		groups[0].Name = filepath.Base(s.Root)
	}
	for _, sub := range h.Skipped {
		st, err := os.Lstat(filepath.Join(s.Root, sub))
		if err != nil || !st.IsDir() || !rundir.SafeSegment(sub) {
			continue
		}
		sh, err := report.LoadHistory(filepath.Join(s.Root, sub), nil)
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		add(sub, sh)
	}
	return groups, problems, nil
}

func (s *Server) index(w http.ResponseWriter, r *http.Request) {
	l := links{}
	p := indexPage{frame: newFrame("agent-eval view", l)}
	groups, problems, err := s.evals(l)
	if err != nil {
		http.Error(w, "list the runs: "+err.Error(), http.StatusInternalServerError)
		return
	}
	p.Evals, p.Problems = groups, problems
	for _, g := range groups {
		for _, r := range g.Runs {
			p.Compare = append(p.Compare, r.Rel)
		}
	}
	render(w, "index", p)
}

// ---- a run: verdict, judges, thresholds, the case table ----

type runPage struct {
	frame
	Rel     string
	Run     *report.RunPage
	Rows    []caseRow
	Matched int
	Page    int
	Pages   int
	Prev    string
	Next    string
	Filter  filter
	Columns []column
	// Statuses are the statuses the filter offers.
	Statuses []string
	// Running: the run has no run_result.json yet; LiveURL is polled for
	// the cases that finish.
	Running bool
	LiveURL string
	Action  string
	// Repeats: the run's cases have several attempts, each judge's
	// columns say how they were reduced and how many disagreed.
	Repeats bool
}

type caseRow struct {
	*report.CaseView
	Href string
}

// column is a sortable column's header link.
type column struct {
	Name  string
	Href  string
	Class string // asc, desc: the current sort
	Num   bool
}

// filter is the case table's query: ?status=&judge=&jv=&denied=1&q=&sort=&desc=1&page=
type filter struct {
	Status string
	Judge  string
	JV     string // pass, fail, err
	Denied bool
	Q      string
	Sort   string
	Desc   bool
	Page   int
}

func parseFilter(q url.Values) filter {
	f := filter{Status: q.Get("status"), Judge: q.Get("judge"), JV: q.Get("jv"), Denied: q.Get("denied") == "1",
		Q: q.Get("q"), Sort: q.Get("sort"), Desc: q.Get("desc") == "1"}
	f.Page, _ = strconv.Atoi(q.Get("page"))
	f.Page = max(f.Page, 1)
	return f
}

// Active: the filter narrows the table (the live rows are then not added).
func (f filter) Active() bool { return f.Status != "" || f.Judge != "" || f.Denied || f.Q != "" }

func (f filter) values() url.Values {
	v := url.Values{}
	set := func(k, x string) {
		if x != "" {
			v.Set(k, x)
		}
	}
	set("status", f.Status)
	set("judge", f.Judge)
	set("jv", f.JV)
	set("q", f.Q)
	set("sort", f.Sort)
	if f.Denied {
		v.Set("denied", "1")
	}
	if f.Desc {
		v.Set("desc", "1")
	}
	if f.Page > 1 {
		v.Set("page", strconv.Itoa(f.Page))
	}
	return v
}

func (f filter) keep(c *report.CaseView) bool {
	if f.Status != "" && c.Status != f.Status {
		return false
	}
	if f.Denied && c.Denials == 0 {
		return false
	}
	if f.Q != "" {
		q := strings.ToLower(f.Q)
		if !strings.Contains(strings.ToLower(c.ID), q) && !strings.Contains(strings.ToLower(c.Error), q) {
			return false
		}
	}
	if f.Judge != "" {
		i := slices.IndexFunc(c.Cells, func(x report.Cell) bool { return x.Judge == f.Judge })
		if i < 0 || (f.JV != "" && c.Cells[i].Class != f.JV) {
			return false
		}
	}
	return true
}

// sortCases sorts the cases by the filter's column (id when none).
func sortCases(cs []*report.CaseView, f filter) {
	key := func(c *report.CaseView) (float64, string) {
		switch f.Sort {
		case "status":
			return 0, c.Status
		case "cost":
			return c.CostUSD, ""
		case "duration":
			return c.DurationS, ""
		case "turns":
			return float64(c.Turns), ""
		case "denials":
			return float64(c.Denials), ""
		}
		if j, ok := strings.CutPrefix(f.Sort, "j:"); ok {
			for _, x := range c.Cells {
				if x.Judge == j {
					n, err := strconv.ParseFloat(x.Sort, 64)
					if err != nil {
						return -3, ""
					}
					return n, ""
				}
			}
			return -3, ""
		}
		return 0, c.ID
	}
	sort.SliceStable(cs, func(i, j int) bool {
		ni, si := key(cs[i])
		nj, sj := key(cs[j])
		less := ni < nj || (ni == nj && si < sj)
		if f.Desc {
			return ni > nj || (ni == nj && si > sj)
		}
		return less
	})
}

// summaryOf is the run's summary.yaml, nil when it was not scored.
func summaryOf(d rundir.Dir) (*rundir.Summary, error) {
	s, err := d.ReadSummary()
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return s, err
}

// running: the run has no run_result.json yet.
func running(d rundir.Dir) bool {
	_, err := os.Stat(d.RunResult())
	return errors.Is(err, fs.ErrNotExist)
}

func (s *Server) run(w http.ResponseWriter, r *http.Request) {
	rel := r.URL.Query().Get("r")
	d, err := s.openRun(rel)
	if err != nil {
		http.NotFound(w, r)
		return
	}
	p, err := buildRun(d, rel, parseFilter(r.URL.Query()), links{})
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	render(w, "run", p)
}

func buildRun(d rundir.Dir, rel string, f filter, l links) (*runPage, error) {
	sum, err := summaryOf(d)
	problems := []string(nil)
	if err != nil {
		problems = append(problems, err.Error())
	}
	run := report.Overview(d, sum)
	p := &runPage{frame: newFrame(run.Title, l), Rel: rel, Run: run, Filter: f, Running: running(d), Action: l.runAction()}
	p.Problems = append(problems, run.Problems...)
	p.RunHref, p.RunName = l.run(rel, nil), rel
	p.Repeats = sum != nil && sum.Attempts() > 1
	if p.Running && !l.export {
		p.LiveURL = "/live?" + url.Values{"r": {rel}}.Encode()
	}
	seen := map[string]bool{}
	var kept []*report.CaseView
	for _, c := range run.Cases {
		if !seen[c.Status] {
			seen[c.Status] = true
			p.Statuses = append(p.Statuses, c.Status)
		}
		if f.keep(c) {
			kept = append(kept, c)
		}
	}
	sort.Strings(p.Statuses)
	sortCases(kept, f)
	p.Matched = len(kept)
	p.Pages = max(1, (len(kept)+PageSize-1)/PageSize)
	p.Page = min(f.Page, p.Pages)
	lo, hi := (p.Page-1)*PageSize, min(p.Page*PageSize, len(kept))
	for _, c := range kept[lo:hi] {
		p.Rows = append(p.Rows, caseRow{CaseView: c, Href: l.caseP(rel, c.ID, 0)})
	}
	at := func(n int) string { g := f; g.Page = n; return l.run(rel, g.values()) }
	if p.Page > 1 {
		p.Prev = at(p.Page - 1)
	}
	if p.Page < p.Pages {
		p.Next = at(p.Page + 1)
	}
	cols := []column{{Name: "case"}, {Name: "status"}}
	for _, j := range run.Judges {
		cols = append(cols, column{Name: j.Name, Num: true})
	}
	cols = append(cols, column{Name: "cost", Num: true}, column{Name: "duration", Num: true}, column{Name: "turns", Num: true}, column{Name: "denials", Num: true})
	for i := range cols {
		key := cols[i].Name
		if i == 0 {
			key = ""
		} else if i >= 2 && i < 2+len(run.Judges) {
			key = "j:" + key
		}
		g := f
		g.Page, g.Sort, g.Desc = 1, key, false
		if f.Sort == key {
			cols[i].Class = "asc"
			if f.Desc {
				cols[i].Class = "desc"
			} else {
				g.Desc = true
			}
		}
		if !l.export {
			cols[i].Href = l.run(rel, g.values())
		}
	}
	p.Columns = cols
	return p, nil
}

// ---- live: the cases of a run in progress ----

type liveCase struct {
	ID       string `json:"id"`
	Status   string `json:"status"`
	Cost     string `json:"cost"`
	Duration string `json:"duration"`
	Turns    int    `json:"turns"`
	Denials  int    `json:"denials"`
	Href     string `json:"href"`
}

type liveState struct {
	Running bool       `json:"running"`
	Cases   []liveCase `json:"cases"`
}

// live is the JSON the run page polls: whether the run still runs, and
// every case that has a result.
func (s *Server) live(w http.ResponseWriter, r *http.Request) {
	rel := r.URL.Query().Get("r")
	d, err := s.openRun(rel)
	if err != nil {
		http.NotFound(w, r)
		return
	}
	st := liveState{Running: running(d), Cases: []liveCase{}}
	for _, c := range report.Overview(d, nil).Cases {
		if c.Status == "no result" {
			continue
		}
		st.Cases = append(st.Cases, liveCase{ID: c.ID, Status: c.Status, Cost: "$" + strconv.FormatFloat(c.CostUSD, 'f', 4, 64),
			Duration: strconv.FormatFloat(c.DurationS, 'f', 1, 64) + "s", Turns: c.Turns, Denials: c.Denials, Href: links{}.caseP(rel, c.ID, 0)})
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(st) // a client gone away: nothing to tell it
}

// ---- a case: its transcript, decisions, verdicts, review, files ----

type casePage struct {
	frame
	Rel  string
	Run  *report.RunPage
	Case *report.CaseView
	// Items are this page's transcript entries: From+1 to From+len.
	Items []report.Item
	From  int
	// Total is how many entries the transcript has, known on its last
	// page (0 elsewhere); More: there are entries past this page.
	Total int
	More  bool
	// First and Last number the entries shown, from 1.
	First int
	Last  int
	Prev  string
	Next  string
	// Raw links the case's own files (server only).
	Raw []rawLink
}

type rawLink struct{ Name, Href string }

func (s *Server) caseP(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	rel, key := q.Get("r"), q.Get("id")
	d, err := s.openRun(rel)
	if err != nil || !caseKey(d, key) {
		http.NotFound(w, r)
		return
	}
	from, _ := strconv.Atoi(q.Get("from"))
	p, ok := buildCase(d, rel, key, max(from, 0), links{})
	if !ok {
		http.NotFound(w, r)
		return
	}
	render(w, "case", p)
}

func buildCase(d rundir.Dir, rel, key string, from int, l links) (*casePage, bool) {
	sum, err := summaryOf(d)
	run, pg := report.CasePage(d, sum, key, from, MaxItems)
	if len(run.Cases) == 0 {
		return nil, false
	}
	c := run.Cases[0]
	p := &casePage{frame: newFrame(run.Title+" / "+key, l), Rel: rel, Run: run, Case: c, Items: c.Items, From: pg.From, Total: pg.Total, More: pg.More}
	p.RunHref, p.RunName = l.run(rel, nil), rel
	if err != nil {
		p.Problems = append(p.Problems, err.Error())
	}
	p.Problems = append(p.Problems, run.Problems...)
	p.First, p.Last = p.From+1, p.From+len(p.Items)
	if p.From > 0 {
		p.Prev = l.caseP(rel, key, max(p.From-MaxItems, 0))
	}
	if pg.More {
		p.Next = l.caseP(rel, key, p.From+MaxItems)
	}
	caseRel, _ := filepath.Rel(d.Path, d.Case(key))
	caseRel = filepath.ToSlash(caseRel)
	for i := range c.Outputs {
		if c.Outputs[i].Href != "" {
			c.Outputs[i].Href = l.raw(rel, caseRel+"/"+rundir.OutputsDir+"/"+c.Outputs[i].Path)
		}
	}
	for _, name := range []string{rundir.TranscriptFile, rundir.LedgerFile, rundir.StdoutFile, rundir.StderrFile, rundir.RunResultFile} {
		if st, err := os.Lstat(filepath.Join(d.Case(key), name)); err == nil && st.Mode().IsRegular() {
			if h := l.raw(rel, caseRel+"/"+name); h != "" {
				p.Raw = append(p.Raw, rawLink{name, h})
			}
		}
	}
	return p, true
}

// ---- two runs side by side: agent-eval diff's page ----

func (s *Server) compare(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	a, errA := s.openRun(q.Get("a"))
	b, errB := s.openRun(q.Get("b"))
	if errA != nil || errB != nil {
		http.NotFound(w, r)
		return
	}
	hide := func(s string) string { return s }
	if red, _, _ := a.Redactor(os.Environ()); red != nil { // what was found is hidden even when not all could be
		hide = red.String
	}
	rep, err := trajdiff.Diff(a, b, trajdiff.Options{Redact: hide})
	if err != nil {
		http.Error(w, "compare the runs: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'")
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "<p><a href=\"/\">← all runs</a></p>\n")
	if err := rep.WriteHTML(bw); err != nil {
		fmt.Fprintf(bw, "<p>%s</p>", template.HTMLEscapeString(err.Error()))
	}
	_ = bw.Flush() // a client gone away: nothing to tell it
}

// ---- links: the server's, or the exported files' ----

// links makes the pages' links: the server's URLs, or, exporting, the
// relative paths of the exported files (up leads from the page to the
// export's root).
type links struct {
	export bool
	up     string
}

func (l links) index() string {
	if l.export {
		return l.up + "index.html"
	}
	return "/"
}

func (l links) run(rel string, q url.Values) string {
	if l.export {
		name := "index.html"
		if n, _ := strconv.Atoi(q.Get("page")); n > 1 {
			name = "page-" + strconv.Itoa(n) + ".html"
		}
		return l.up + "runs/" + escapePath(rel) + "/" + name
	}
	v := url.Values{"r": {rel}}
	for k, x := range q {
		v[k] = x
	}
	return "/run?" + v.Encode()
}

// runAction is where the filter form goes ("" exporting: no server).
func (l links) runAction() string {
	if l.export {
		return ""
	}
	return "/run"
}

func (l links) caseP(rel, key string, from int) string {
	if l.export {
		if from > 0 {
			return "" // an export shows a case's first page
		}
		return l.up + "runs/" + escapePath(rel) + "/cases/" + url.PathEscape(key) + ".html"
	}
	v := url.Values{"r": {rel}, "id": {key}}
	if from > 0 {
		v.Set("from", strconv.Itoa(from))
	}
	return "/case?" + v.Encode()
}

func (l links) raw(rel, f string) string {
	if l.export {
		return ""
	}
	return "/raw?" + url.Values{"r": {rel}, "f": {f}}.Encode()
}

func escapePath(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
}
