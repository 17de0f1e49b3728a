package report

import (
	"crypto/subtle"
	"html/template"
	"net/http"
	"net/url"
	"sync"
)

// ReviewCase is what the review page shows of one case.
type ReviewCase struct {
	ID       string
	Status   string
	Verdicts []ReviewVerdict
	Outputs  []string
	// Verdict and Comment are the case's review so far.
	Verdict, Comment string
}

// ReviewVerdict is one judge's verdict, as the page shows it.
type ReviewVerdict struct {
	Judge, Word, Rationale string
}

// ReviewPage is the page `agent-eval review --web` serves on 127.0.0.1:
// one form per case, posting a verdict and a comment. Every request must
// carry Token (the URL's ?token=, a form's hidden field), so no other
// page the browser has open can read the cases or post a verdict.
type ReviewPage struct {
	RunID string
	Token string
	// Cases are read for each page view, so it shows what was saved.
	Cases func() []ReviewCase
	// Save records a verdict ("pass", "fail", or "" to keep the earlier
	// one) and comment for a case; an error is shown on the page.
	Save func(id, verdict, comment string) error
	// Done is called when the reviewer presses Done.
	Done func()

	mu sync.Mutex
}

// reviewCSP: no script at all, the page's own style, forms posting to
// the page only.
const reviewCSP = "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

var reviewTmpl = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("review").Parse(reviewHTML))
})

func (p *ReviewPage) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Security-Policy", reviewCSP)
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Referrer-Policy", "no-referrer")
	w.Header().Set("Cache-Control", "no-store")
	token := r.URL.Query().Get("token")
	if r.Method == http.MethodPost {
		if err := r.ParseForm(); err != nil {
			http.Error(w, "bad form", http.StatusBadRequest)
			return
		}
		token = r.PostForm.Get("token")
	}
	if subtle.ConstantTimeCompare([]byte(token), []byte(p.Token)) != 1 {
		http.Error(w, "forbidden: open the URL agent-eval review printed", http.StatusForbidden)
		return
	}
	switch {
	case r.URL.Path == "/" && r.Method == http.MethodGet:
		p.page(w, r.URL.Query().Get("saved"), r.URL.Query().Get("error"))
	case r.URL.Path == "/verdict" && r.Method == http.MethodPost:
		id, v, c := r.PostForm.Get("case"), r.PostForm.Get("verdict"), r.PostForm.Get("comment")
		q := url.Values{"token": {p.Token}}
		p.mu.Lock()
		err := p.Save(id, v, c)
		p.mu.Unlock()
		if err != nil {
			q.Set("error", err.Error())
		} else {
			q.Set("saved", id)
		}
		http.Redirect(w, r, "/?"+q.Encode()+"#case-"+url.PathEscape(id), http.StatusSeeOther)
	case r.URL.Path == "/done" && r.Method == http.MethodPost:
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte("Review saved. You can close this page.\n"))
		if p.Done != nil {
			p.Done()
		}
	default:
		http.NotFound(w, r)
	}
}

func (p *ReviewPage) page(w http.ResponseWriter, saved, problem string) {
	p.mu.Lock()
	cases := p.Cases()
	p.mu.Unlock()
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	data := map[string]any{"RunID": p.RunID, "Token": p.Token, "Cases": cases, "Saved": saved, "Error": problem}
	if err := reviewTmpl().Execute(w, data); err != nil {
		http.Error(w, "render the review page: "+err.Error(), http.StatusInternalServerError)
	}
}

const reviewHTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Review {{.RunID}}</title>
<style>
body{font:14px system-ui,sans-serif;margin:2em;max-width:70em}
section{border:1px solid #ccc;border-radius:6px;padding:1em;margin:1em 0}
pre{white-space:pre-wrap;background:#f6f6f6;padding:.5em;max-height:12em;overflow:auto}
.pass{color:#176f2c}.fail{color:#b00020}.note{background:#eef;padding:.5em}.err{background:#fee;padding:.5em}
textarea{width:100%;min-height:4em}
</style></head><body>
<h1>Review of {{.RunID}}</h1>
<p>A verdict per case: pass or fail, and a comment. Each Save writes review.yaml in the run directory.</p>
{{with .Saved}}<p class="note" id="saved">Saved {{.}}.</p>{{end}}
{{with .Error}}<p class="err" id="error">Not saved: {{.}}</p>{{end}}
{{range .Cases}}<section id="case-{{.ID}}" data-case="{{.ID}}">
<h2>{{.ID}}{{with .Status}} <small>({{.}})</small>{{end}}</h2>
{{if .Verdicts}}<table><tr><th>judge</th><th>verdict</th><th>rationale</th></tr>
{{range .Verdicts}}<tr><td>{{.Judge}}</td><td class="{{.Word}}">{{.Word}}</td><td><pre>{{.Rationale}}</pre></td></tr>
{{end}}</table>{{else}}<p>Not scored: no judge verdicts.</p>{{end}}
{{with .Outputs}}<p>Outputs: {{range $i, $o := .}}{{if $i}}, {{end}}<code>{{$o}}</code>{{end}}</p>{{end}}
<form method="post" action="/verdict">
<input type="hidden" name="token" value="{{$.Token}}"><input type="hidden" name="case" value="{{.ID}}">
<label><input type="radio" name="verdict" value="pass"{{if eq .Verdict "pass"}} checked{{end}}> pass</label>
<label><input type="radio" name="verdict" value="fail"{{if eq .Verdict "fail"}} checked{{end}}> fail</label>
<p><textarea name="comment" placeholder="comment">{{.Comment}}</textarea></p>
<button type="submit">Save</button>
</form></section>
{{end}}
<form method="post" action="/done"><input type="hidden" name="token" value="{{.Token}}"><button type="submit" id="done">Done</button></form>
</body></html>
`
