package trajdiff

import (
	"fmt"
	"html/template"
	"io"
	"sync"
)

// The page has no script and loads nothing: its CSP says so, and every
// text from the runs goes through html/template's escaping.
var page = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("diff").Funcs(template.FuncMap{
		"verdict": verdictWord,
		"value":   value,
		"step":    stepLine,
		"line":    func(s *Significance) string { return s.line() },
		"differs": func(c *Case) bool { return c.differs() },
	}).Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="referrer" content="no-referrer">
<title>agent-eval diff: {{.A.Name}} → {{.B.Name}}</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:.2em .5em;text-align:left;vertical-align:top}
code,pre{font:12px/1.35 ui-monospace,monospace;white-space:pre-wrap;word-break:break-all}
.same{color:#777}.added{background:#e6ffec}.removed{background:#ffebe9}.changed{background:#fff8c5}
.first{outline:2px solid #d29922}pre.diff{background:#f6f8fa;padding:.5em}
</style></head><body>
<h1>agent-eval diff</h1>
<p>A: <code>{{.A.Name}}</code>{{if .A.Runner}} ({{.A.Runner}}){{end}}, B: <code>{{.B.Name}}</code>{{if .B.Runner}} ({{.B.Runner}}){{end}}</p>
<p id="headline">{{.Headline}}</p>
{{with .PassRate}}<p id="pass-rate">Pass rate: {{line .}}</p>{{end}}
{{range .PerCase}}<p class="per-case">Pass rate of <code>{{.Case}}</code>: {{line .}}</p>{{end}}
{{$r := .}}
{{range .Cases}}{{if differs .}}
<section class="case" id="case-{{.Key}}">
<h2><code>{{.Key}}</code>{{if eq .Only "a"}}: in A only{{else if eq .Only "b"}}: in B only{{end}}</h2>
{{if not .Only}}
<p class="verdict">Verdict: {{verdict .A.Passed $r.A.Scored}} → {{verdict .B.Passed $r.B.Scored}}{{if .StatusChanged}} (status {{.A.Status}} → {{.B.Status}}){{end}}</p>
{{if .Judges}}<table class="judges"><tr><th>judge</th><th>A</th><th>B</th></tr>{{range .Judges}}<tr><td>{{.Judge}}</td><td>{{value .A}}</td><td>{{value .B}}</td></tr>{{end}}</table>{{end}}
<p>Calls {{.A.Calls}} → {{.B.Calls}}: added {{.Added}}, removed {{.Removed}}, changed {{.Changed}}.{{with .FirstDivergence}} First divergence: <code class="first-divergence">{{step .}}</code>{{end}}</p>
<table class="steps"><tr><th></th><th>#</th><th>A</th><th>#</th><th>B</th></tr>
{{range $s := .Steps}}<tr class="{{$s.Op}}{{if $s.First}} first{{end}}"><td>{{$s.Op}}</td><td>{{if $s.IndexA}}{{$s.IndexA}}{{end}}</td><td>{{with $s.A}}<code>{{.}}</code>{{end}}</td><td>{{if $s.IndexB}}{{$s.IndexB}}{{end}}</td><td>{{with $s.B}}<code>{{.}}</code>{{end}}</td></tr>
{{end}}</table>
{{if .AnswerChanged}}<h3>Answer</h3><table class="answer"><tr><th>A</th><th>B</th></tr><tr><td><pre>{{.A.Answer}}</pre></td><td><pre>{{.B.Answer}}</pre></td></tr></table>{{end}}
{{if .Files}}<h3>Files</h3><ul class="files">{{range .Files}}<li>{{.Change}}: <code>{{.Path}}</code>{{if .Diff}}<pre class="diff">{{.Diff}}</pre>{{end}}</li>{{end}}</ul>{{end}}
{{end}}
</section>
{{end}}{{end}}
{{if not .Changed}}<p id="none">No differences.</p>{{end}}
</body></html>
`))
})

// WriteHTML writes the report as one HTML page with no script.
func (r *Report) WriteHTML(w io.Writer) error {
	data := struct {
		*Report
		Headline string
	}{r, r.headline()}
	if err := page().Execute(w, data); err != nil {
		return fmt.Errorf("write the diff page: %w", err)
	}
	return nil
}
