package view

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/agent-eval/agent-eval/internal/rundir"
)

// get asks h for target (Host 127.0.0.1) and returns the status and body.
func get(t *testing.T, h http.Handler, target string, mod ...func(*http.Request)) (int, string, http.Header) {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, target, nil)
	req.Host = "127.0.0.1:8080"
	for _, m := range mod {
		m(req)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	b, _ := io.ReadAll(rec.Result().Body)
	return rec.Code, string(b), rec.Result().Header
}

func server(t *testing.T, root string) *Server {
	t.Helper()
	s, err := New(root, "", true)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestPages(t *testing.T) {
	s := server(t, root(t, false))
	q := func(kv ...string) string {
		v := url.Values{}
		for i := 0; i < len(kv); i += 2 {
			v.Set(kv[i], kv[i+1])
		}
		return v.Encode()
	}
	for _, c := range []struct {
		name, target string
		want         []string
	}{
		{"the index lists every run, newest first", "/", []string{runScored, runHostile, runLive, `data-run="` + runLive + `"`, ">live<"}},
		{"the index draws history.html's plots of an eval's runs", "/", []string{`<figure id="plot-1-pass-rate">`, `<figure id="plot-1-cost">`, `<svg class="plot"`, `<circle class="pt"`}},
		{"a scored run: verdict, thresholds, judges, cases", "/run?" + q("r", runScored), []string{"FAILED", "Thresholds", "tests_pass", `data-id="deploy-001"`, `data-id="docs-002"`, "3 of 3 cases"}},
		{"the status filter", "/run?" + q("r", runScored, "status", "error"), []string{"0 of 3 cases"}},
		{"the text search", "/run?" + q("r", runScored, "q", "docs"), []string{"1 of 3 cases", `data-id="docs-002"`}},
		{"a judge's failures", "/run?" + q("r", runScored, "judge", "tests_pass", "jv", "fail"), []string{"1 of 3 cases", `data-id="docs-002"`}},
		{"with denials", "/run?" + q("r", runScored, "denied", "1"), []string{`data-id="deploy-001"`}},
		{"a run in progress polls", "/run?" + q("r", runLive), []string{`data-live="/live?r=` + runLive + `"`, "running"}},
		{"a case: transcript, hook decision, verdicts, files", "/case?" + q("r", runScored, "id", "deploy-001"), []string{"Transcript", "DENIED", "Verdicts", "report.md", "transcript.jsonl"}},
		{"the live JSON", "/live?" + q("r", runLive), []string{`"running":true`, `"id":"live-000"`, `"id":"live-001"`}},
		{"two runs side by side", "/compare?" + q("a", runScored, "b", runHostile), []string{"agent-eval diff"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, body, h := get(t, s, c.target)
			if code != http.StatusOK {
				t.Fatalf("GET %s: %d %s", c.target, code, body)
			}
			for _, w := range c.want {
				if !strings.Contains(body, w) {
					t.Errorf("GET %s: no %q in\n%s", c.target, w, body)
				}
			}
			if strings.HasPrefix(h.Get("Content-Type"), "text/html") && !strings.Contains(h.Get("Content-Security-Policy"), "default-src 'none'") {
				t.Errorf("GET %s: CSP %q", c.target, h.Get("Content-Security-Policy"))
			}
		})
	}
}

// TestNothingOutsideTheRoot: no parameter reaches past the runs root or
// out of a run directory, by "..", an absolute path or a symlink.
func TestNothingOutsideTheRoot(t *testing.T) {
	dir := root(t, false)
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("the secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A run that is a symlink to a run outside, and a case file that is a
	// symlink out.
	if err := os.CopyFS(filepath.Join(outside, "run"), os.DirFS(filepath.Join(dir, runScored))); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "run"), filepath.Join(dir, "20261209-000000.000-linked")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(dir, runScored, "cases", "deploy-001", "outputs", "leak.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, runScored, "cases", "escape")); err != nil {
		t.Fatal(err)
	}
	s := server(t, dir)
	code, body, _ := get(t, s, "/raw?"+url.Values{"r": {runScored}, "f": {"cases/deploy-001/transcript.jsonl"}}.Encode())
	if code != http.StatusOK || !strings.Contains(body, "prompt") {
		t.Fatalf("a run's own file is served: %d %s", code, body)
	}
	for _, target := range []string{
		"/run?r=..", "/run?r=../" + filepath.Base(outside), "/run?r=" + url.QueryEscape(outside), "/run?r=" + url.QueryEscape(runScored+"/.."),
		"/run?r=20261209-000000.000-linked", "/case?r=20261209-000000.000-linked&id=deploy-001",
		"/case?r=" + runScored + "&id=..", "/case?r=" + runScored + "&id=" + url.QueryEscape("../../"+runHostile+"/cases/evil-001"),
		"/case?r=" + runScored + "&id=escape", "/case?r=" + runScored + "&id=nosuch",
		"/raw?" + url.Values{"r": {runScored}, "f": {"../" + runHostile + "/run_result.json"}}.Encode(),
		"/raw?" + url.Values{"r": {runScored}, "f": {"cases/../../x"}}.Encode(),
		"/raw?" + url.Values{"r": {runScored}, "f": {filepath.Join(outside, "secret.txt")}}.Encode(),
		"/raw?" + url.Values{"r": {runScored}, "f": {"cases/deploy-001/outputs/leak.txt"}}.Encode(),
		"/raw?" + url.Values{"r": {runScored}, "f": {"cases/escape/secret.txt"}}.Encode(),
		"/raw?" + url.Values{"r": {runScored}, "f": {"cases"}}.Encode(),
		"/live?r=..", "/compare?a=" + runScored + "&b=..",
		"/nosuch",
	} {
		code, body, _ := get(t, s, target)
		if code != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404", target, code)
		}
		if strings.Contains(body, "the secret") {
			t.Errorf("GET %s: served the file outside the root", target)
		}
	}
	if _, body, _ := get(t, s, "/"); strings.Contains(body, "linked") {
		t.Errorf("the index lists the symlinked run")
	}
}

func TestTokenAndHost(t *testing.T) {
	dir := root(t, false)
	s, err := New(dir, "s3cret", false)
	if err != nil {
		t.Fatal(err)
	}
	if code, _, _ := get(t, s, "/"); code != http.StatusForbidden {
		t.Errorf("without the token: %d, want 403", code)
	}
	if code, _, _ := get(t, s, "/?token=wrong"); code != http.StatusForbidden {
		t.Errorf("a wrong token: %d, want 403", code)
	}
	code, _, h := get(t, s, "/run?r="+runScored+"&token=s3cret")
	if code != http.StatusSeeOther || h.Get("Location") != "/run?r="+runScored {
		t.Fatalf("with the token: %d to %q, want 303 to the URL without it", code, h.Get("Location"))
	}
	cookie := h.Get("Set-Cookie")
	if !strings.Contains(cookie, tokenCookie+"=s3cret") || !strings.Contains(cookie, "HttpOnly") || !strings.Contains(cookie, "SameSite=Strict") {
		t.Fatalf("the cookie: %q", cookie)
	}
	withCookie := func(r *http.Request) { r.AddCookie(&http.Cookie{Name: tokenCookie, Value: "s3cret"}) }
	if code, _, _ := get(t, s, "/run?r="+runScored, withCookie); code != http.StatusOK {
		t.Errorf("with the cookie: %d", code)
	}
	if code, _, _ := get(t, s, "/run?r="+runScored, func(r *http.Request) { r.AddCookie(&http.Cookie{Name: tokenCookie, Value: "nope"}) }); code != http.StatusForbidden {
		t.Errorf("a wrong cookie: %d, want 403", code)
	}
	// On the loopback, a request for another host name (DNS rebinding) is
	// refused.
	lo := server(t, dir)
	if code, _, _ := get(t, lo, "/", func(r *http.Request) { r.Host = "evil.example:8080" }); code != http.StatusForbidden {
		t.Errorf("a foreign Host on the loopback: %d, want 403", code)
	}
	for _, host := range []string{"localhost:1", "[::1]:1", "127.0.0.1"} {
		if code, _, _ := get(t, lo, "/", func(r *http.Request) { r.Host = host }); code != http.StatusOK {
			t.Errorf("Host %s: %d", host, code)
		}
	}
	if code, _, _ := get(t, lo, "/", func(r *http.Request) { r.Method = http.MethodPost }); code != http.StatusMethodNotAllowed {
		t.Errorf("a POST: %d, want 405", code)
	}
}

// TestHostileEscaped: the attack is in the page only as text.
func TestHostileEscaped(t *testing.T) {
	s := server(t, root(t, false))
	for _, target := range []string{"/", "/run?r=" + runHostile, "/case?r=" + runHostile + "&id=evil-001"} {
		code, body, _ := get(t, s, target)
		if code != http.StatusOK {
			t.Fatalf("GET %s: %d", target, code)
		}
		for _, bad := range []string{"<script>window", "<img src=x", `<b id="injected">`, "<svg onload"} {
			if strings.Contains(body, bad) {
				t.Errorf("GET %s: %q is in the page unescaped", target, bad)
			}
		}
		if target != "/" && !strings.Contains(body, "&lt;script&gt;window.pwned=1&lt;/script&gt;") {
			t.Errorf("GET %s: the attack is not shown as text", target)
		}
	}
}

// TestLargeRunPaginated: a 1,000-case run's page has PageSize rows, and
// the pages between them every case once.
func TestLargeRunPaginated(t *testing.T) {
	s := server(t, root(t, true))
	seen := map[string]bool{}
	for page := 1; page <= 10; page++ {
		code, body, _ := get(t, s, "/run?r="+runBig+"&page="+strconv.Itoa(page))
		if code != http.StatusOK {
			t.Fatalf("page %d: %d", page, code)
		}
		rows := strings.Count(body, `<tr class="case-row`)
		if rows != PageSize {
			t.Errorf("page %d has %d rows, want %d", page, rows, PageSize)
		}
		for _, part := range strings.Split(body, `data-id="`)[1:] {
			seen[part[:strings.IndexByte(part, '"')]] = true
		}
		if page < 10 && !strings.Contains(body, `id="next"`) {
			t.Errorf("page %d has no next link", page)
		}
	}
	if len(seen) != 1000 {
		t.Errorf("the pages show %d distinct cases, want 1000", len(seen))
	}
	// Sorted by cost, most expensive first: the first row costs the most.
	_, body, _ := get(t, s, "/run?r="+runBig+"&sort=cost&desc=1")
	if i := strings.Index(body, `<tr class="case-row`); i < 0 || !strings.Contains(body[i:i+400], "$0.1600") {
		t.Errorf("sorted by cost, the first row is not the most expensive")
	}
	_, body, _ = get(t, s, "/run?r="+runBig+"&status=failed")
	if !strings.Contains(body, "100 of 1000 cases") {
		t.Errorf("the status filter over the whole run: %s", between(body, `id="shown">`, "</p>"))
	}
}

func between(s, a, b string) string {
	i := strings.Index(s, a)
	if i < 0 {
		return ""
	}
	s = s[i+len(a):]
	if j := strings.Index(s, b); j >= 0 {
		return s[:j]
	}
	return s
}

// TestExport: the exported pages link each other, every relative link
// leads to a file written, and the pages carry the policy.
func TestExport(t *testing.T) {
	s := server(t, root(t, false))
	out := t.TempDir()
	n, err := s.Export(t.Context(), out)
	if err != nil {
		t.Fatal(err)
	}
	if n < 5 {
		t.Fatalf("exported %d pages", n)
	}
	checked := 0
	err = filepath.WalkDir(out, func(p string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		page := string(b)
		if !strings.Contains(page, `http-equiv="Content-Security-Policy"`) {
			t.Errorf("%s has no CSP", p)
		}
		for _, part := range strings.Split(page, `href="`)[1:] {
			href := part[:strings.IndexByte(part, '"')]
			if strings.HasPrefix(href, "/") || strings.Contains(href, "?") {
				t.Errorf("%s links the server: %s", p, href)
				continue
			}
			u, err := url.PathUnescape(href)
			if err != nil {
				t.Errorf("%s: %v", href, err)
				continue
			}
			if _, err := os.Stat(filepath.Join(filepath.Dir(p), filepath.FromSlash(u))); err != nil {
				t.Errorf("%s links %s, which is not there", p, href)
			}
			checked++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 10 {
		t.Errorf("only %d links checked", checked)
	}
	if _, err := os.Stat(filepath.Join(out, "runs", runScored, "cases", "deploy-001.html")); err != nil {
		t.Error(err)
	}
	// A case id in summary.yaml that is a path names no exported file.
	d, err := rundir.Open(filepath.Join(s.Root, runScored))
	if err != nil {
		t.Fatal(err)
	}
	sum, err := d.ReadSummary()
	if err != nil {
		t.Fatal(err)
	}
	sum.Cases = append(sum.Cases, rundir.CaseSummary{ID: "../../../../../../escaped"})
	if err := d.WriteSummary(sum); err != nil {
		t.Fatal(err)
	}
	out2 := filepath.Join(t.TempDir(), "a", "b", "c")
	if _, err := s.Export(t.Context(), out2); err != nil {
		t.Fatal(err)
	}
	if matches, _ := filepath.Glob(filepath.Join(out2, "..", "..", "..", "escaped*")); len(matches) > 0 {
		t.Errorf("the export wrote %v, outside its folder", matches)
	}
	if _, err := s.Export(t.Context(), filepath.Join(s.Root, "site")); err == nil {
		t.Error("an export into the runs root is accepted")
	}
}

// TestRepeatsShown: a run with repeats shows, per judge, how the attempts
// were reduced, the attempts' pass rate and the flaky cases.
func TestRepeatsShown(t *testing.T) {
	dir := root(t, false)
	d, err := rundir.Open(filepath.Join(dir, runScored))
	if err != nil {
		t.Fatal(err)
	}
	s, err := d.ReadSummary()
	if err != nil {
		t.Fatal(err)
	}
	s.Cases[0].Attempts = []rundir.CaseSummary{{ID: s.Cases[0].ID, Attempt: 1}, {ID: s.Cases[0].ID, Attempt: 2}}
	rate := 0.25
	s.Judges[0].Reduce, s.Judges[0].AttemptPassRate, s.Judges[0].Flaky = "majority", &rate, 1
	if err := d.WriteSummary(s); err != nil {
		t.Fatal(err)
	}
	_, body, _ := get(t, server(t, dir), "/run?r="+runScored)
	row := between(body, `<tr data-judge="`+s.Judges[0].Name+`">`, "</tr>")
	for _, want := range []string{"<td>majority</td>", "<td>25.0%</td>", "<td>1</td>"} {
		if !strings.Contains(row, want) {
			t.Errorf("the judge's row has no %q: %s", want, row)
		}
	}
	if _, body, _ := get(t, server(t, root(t, false)), "/run?r="+runScored); strings.Contains(body, "attempt pass rate") {
		t.Error("a run without repeats has the repeats' columns")
	}
}
