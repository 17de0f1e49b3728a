package report

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"
)

type savedVerdict struct{ id, verdict, comment string }

// reviewPage serves a ReviewPage of two cases, one judged with hostile
// text, and records what it saves.
func reviewPage(t *testing.T) (*httptest.Server, *ReviewPage, func() []savedVerdict) {
	t.Helper()
	var mu sync.Mutex
	var saved []savedVerdict
	cases := []ReviewCase{
		{ID: "case-1", Status: "completed", Outputs: []string{`out/<b>bold</b>.md`},
			Verdicts: []ReviewVerdict{{Judge: "quality", Word: "pass", Rationale: `fine <img src=x onerror="document.title='pwned'"><script>document.title='pwned'</script>`}}},
		{ID: "case-2", Status: "failed", Verdict: "pass", Comment: "earlier </textarea><b id=inj>x</b>"},
	}
	p := &ReviewPage{RunID: "r1", Token: "tok123",
		Cases: func() []ReviewCase { return cases },
		Save: func(id, v, c string) error {
			mu.Lock()
			defer mu.Unlock()
			saved = append(saved, savedVerdict{id, v, c})
			for i := range cases {
				if cases[i].ID == id {
					cases[i].Verdict, cases[i].Comment = v, c
				}
			}
			return nil
		}}
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close)
	return srv, p, func() []savedVerdict {
		mu.Lock()
		defer mu.Unlock()
		return append([]savedVerdict(nil), saved...)
	}
}

// TestReviewPageToken: without the token nothing is shown or saved.
func TestReviewPageToken(t *testing.T) {
	srv, _, saved := reviewPage(t)
	for _, r := range []struct {
		method, path string
		form         url.Values
	}{
		{"GET", "/", nil},
		{"GET", "/?token=wrong", nil},
		{"POST", "/verdict", url.Values{"case": {"case-1"}, "verdict": {"fail"}}},
		{"POST", "/verdict", url.Values{"token": {"nope"}, "case": {"case-1"}, "verdict": {"fail"}}},
		{"POST", "/done", nil},
	} {
		req, _ := http.NewRequest(r.method, srv.URL+r.path, strings.NewReader(r.form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("%s %s: status %d, want 403", r.method, r.path, resp.StatusCode)
		}
	}
	if s := saved(); len(s) != 0 {
		t.Fatalf("saved without the token: %v", s)
	}
}

// TestReviewPageInChromium: a person opens the page, sees the judges'
// verdicts with the agent's text escaped (no script of it runs, no element
// of it is made), picks fail and writes a comment for a case, saves; the
// page shows the saved verdict, and logged nothing (no CSP refusal).
func TestReviewPageInChromium(t *testing.T) {
	srv, _, saved := reviewPage(t)
	br := startBrowser(t)
	err := chromedp.Do(br.ctx,
		chromedp.Navigate(srv.URL+"/?token=tok123"),
		chromedp.WaitVisible(`section[data-case="case-1"]`))
	if err != nil {
		t.Fatalf("load the review page: %v", err)
	}
	title, err := chromedp.Run(br.ctx, chromedp.Title())
	if err != nil {
		t.Fatal(err)
	}
	checks := []struct{ what, js string }{
		{"a section per case", `document.querySelectorAll("section[data-case]").length === 2`},
		{"the rationale is text", `document.querySelector('section[data-case="case-1"] pre').textContent.includes("<script>")`},
		{"no element of the agent's made", `document.querySelector("section img, section script, #inj, section b") === null`},
		{"the earlier comment is in its textarea", `document.querySelector('section[data-case="case-2"] textarea').value === "earlier </textarea><b id=inj>x</b>"`},
		{"the earlier verdict is checked", `document.querySelector('section[data-case="case-2"] input[value="pass"]').checked`},
	}
	for _, c := range checks {
		if ok, _ := br.eval(t, c.js).(bool); !ok {
			t.Errorf("%s: %s is false", c.what, c.js)
		}
	}
	if title == "pwned" {
		t.Fatal("the agent's script ran")
	}
	err = chromedp.Do(br.ctx,
		chromedp.Click(`section[data-case="case-1"] input[value="fail"]`),
		chromedp.SendKeys(`section[data-case="case-1"] textarea`, "misses the <edge> case"),
		chromedp.Click(`section[data-case="case-1"] button[type="submit"]`),
		chromedp.WaitVisible(`#saved`))
	if err != nil {
		t.Fatalf("save a verdict: %v", err)
	}
	got := saved()
	if len(got) != 1 || got[0] != (savedVerdict{"case-1", "fail", "misses the <edge> case"}) {
		t.Fatalf("saved %+v, want case-1 fail with the comment", got)
	}
	if ok, _ := br.eval(t, `document.querySelector('section[data-case="case-1"] input[value="fail"]').checked && document.getElementById("saved").textContent.includes("case-1")`).(bool); !ok {
		t.Error("the page does not show the saved verdict")
	}
	if msgs := br.stop(); len(msgs) > 0 {
		t.Errorf("the page logged: %v", msgs)
	}
}
