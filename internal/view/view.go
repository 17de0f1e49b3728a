// Package view is agent-eval view: a local web viewer over a runs root —
// the evals and their runs, a run's case table (sorted, filtered and
// paginated on the server), a case's transcript with the hook's decisions
// inline, two runs side by side, and a run in progress whose cases appear
// as they finish. It reads the run directories only through
// internal/rundir, renders them with internal/report's view model and
// internal/trajdiff's diff, and serves nothing outside the root.
//
// Every text of a run is the agent's, so hostile: html/template escapes
// it, and a strict Content-Security-Policy lets only the page's own
// script (by hash) run.
package view

import (
	"crypto/sha256"
	"crypto/subtle"
	_ "embed"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"

	"github.com/agent-eval/agent-eval/internal/rundir"
)

// PageSize is how many cases one page of a run's table shows.
const PageSize = 100

// MaxItems is how many transcript entries one page of a case shows; the
// rest are on the next pages, and the raw transcript is linked.
const MaxItems = 500

// tokenCookie carries the token after the first visit with ?token=.
const tokenCookie = "agent_eval_view"

// Server serves the runs under Root.
type Server struct {
	// Root is the runs root: an eval's runs directory (its runs one level
	// down) or a folder of such directories (two levels).
	Root string
	// Token, when set, must be in the URL (?token=) of the first request,
	// then in the cookie that request sets: a server bound beyond the
	// loopback is no one else's.
	Token string
	// Loopback: the server listens on the loopback only, so it answers
	// only requests whose Host is a loopback name (DNS rebinding).
	Loopback bool
}

// New is the handler of the runs under root.
func New(root, token string, loopback bool) (*Server, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("open the runs root %s: %w", root, err)
	}
	st, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("open the runs root: %w", err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("the runs root %s is not a directory", root)
	}
	return &Server{Root: abs, Token: token, Loopback: loopback}, nil
}

var (
	//go:embed assets/view.tmpl
	viewTmpl string
	//go:embed assets/view.css
	viewCSS string
	//go:embed assets/view.js
	viewJS string
)

// csp lets the page's own script run (by its hash) and fetch from this
// server, and nothing else: no script an agent's text could smuggle in.
// Computed on first use (the hook links this binary).
var metaCSP = sync.OnceValue(func() string {
	sum := sha256.Sum256([]byte(viewJS))
	return "default-src 'none'; style-src 'unsafe-inline'; img-src data:; connect-src 'self'; form-action 'self'; base-uri 'none'; script-src 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
})

// csp is the served pages' policy: an exported page's (metaCSP), and no
// framing, which only a header can say.
func csp() string { return metaCSP() + "; frame-ancestors 'none'" }

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Cache-Control", "no-store")
	if s.Loopback && !loopbackHost(r.Host) {
		http.Error(w, "this viewer answers on the loopback only", http.StatusForbidden)
		return
	}
	switch s.authorized(w, r) {
	case tokenMissing:
		http.Error(w, "a token is needed: open the URL agent-eval view printed", http.StatusForbidden)
		return
	case tokenInURL:
		// The cookie carries it from now on: the address bar and the
		// browser's history keep no token.
		q := r.URL.Query()
		q.Del("token")
		u := *r.URL
		u.RawQuery = q.Encode()
		http.Redirect(w, r, u.RequestURI(), http.StatusSeeOther)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		http.Error(w, "read-only", http.StatusMethodNotAllowed)
		return
	}
	switch r.URL.Path {
	case "/", "/index.html":
		s.index(w, r)
	case "/run":
		s.run(w, r)
	case "/case":
		s.caseP(w, r)
	case "/compare":
		s.compare(w, r)
	case "/live":
		s.live(w, r)
	case "/raw":
		s.raw(w, r)
	default:
		http.NotFound(w, r)
	}
}

// How a request stands with the token.
const (
	tokenOK      = iota // none is needed, or the cookie has it
	tokenInURL          // the URL has it: the cookie is set
	tokenMissing        // neither has it
)

// authorized checks the token (none needed without one), and sets the
// cookie on the visit that brought it in the URL.
func (s *Server) authorized(w http.ResponseWriter, r *http.Request) int {
	if s.Token == "" {
		return tokenOK
	}
	if c, err := r.Cookie(tokenCookie); err == nil && same(c.Value, s.Token) {
		return tokenOK
	}
	if q := r.URL.Query().Get("token"); q != "" && same(q, s.Token) {
		http.SetCookie(w, &http.Cookie{Name: tokenCookie, Value: s.Token, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
		return tokenInURL
	}
	return tokenMissing
}

func same(a, b string) bool { return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1 }

func loopbackHost(hostport string) bool {
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		host = hostport
	}
	host = strings.Trim(host, "[]")
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// errNoRun is a run parameter that names no run under the root.
var errNoRun = errors.New("no such run under the runs root")

// openRun resolves rel, a run's path under the root ("RUN" or
// "EVAL/RUN"), to its run directory. Each segment is a plain folder name
// (no "..", no separator, no symlink): nothing outside the root is
// reachable.
func (s *Server) openRun(rel string) (rundir.Dir, error) {
	segs := strings.Split(rel, "/")
	if rel == "" || len(segs) > 2 {
		return rundir.Dir{}, errNoRun
	}
	p := s.Root
	for _, seg := range segs {
		if !rundir.SafeSegment(seg) {
			return rundir.Dir{}, errNoRun
		}
		p = filepath.Join(p, seg)
		st, err := os.Lstat(p)
		if err != nil || !st.IsDir() {
			return rundir.Dir{}, errNoRun
		}
	}
	d, err := rundir.Open(p)
	if err != nil {
		return rundir.Dir{}, errNoRun
	}
	return d, nil
}

// caseKey checks key is a case of d: a case id or an attempt key whose
// folder the run has.
func caseKey(d rundir.Dir, key string) bool {
	id, _ := rundir.SplitAttempt(key)
	return rundir.SafeSegment(id) && d.HasCase(key)
}

// raw serves one file of a run as plain text (a transcript, a log, an
// output file): opened through os.Root, so neither ".." nor a symlink
// leaves the run directory.
func (s *Server) raw(w http.ResponseWriter, r *http.Request) {
	d, err := s.openRun(r.URL.Query().Get("r"))
	if err != nil {
		http.NotFound(w, r)
		return
	}
	f := r.URL.Query().Get("f")
	if f == "" || !filepath.IsLocal(filepath.FromSlash(f)) || path.Clean(f) != f {
		http.NotFound(w, r)
		return
	}
	root, err := os.OpenRoot(d.Path)
	if err != nil {
		http.Error(w, "open the run: "+err.Error(), http.StatusInternalServerError)
		return
	}
	defer root.Close()
	file, err := root.Open(filepath.FromSlash(f))
	if err != nil {
		http.NotFound(w, r)
		return
	}
	defer file.Close()
	st, err := file.Stat()
	if err != nil || !st.Mode().IsRegular() {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Content-Security-Policy", "sandbox; default-src 'none'")
	if _, err := io.Copy(w, file); err != nil && !errors.Is(err, fs.ErrClosed) {
		return // the client went away: nothing left to tell it
	}
}
