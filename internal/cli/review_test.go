package cli

import (
	"bytes"
	"context"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agent-eval/agent-eval/internal/rundir"
)

// lockedBuffer is a bytes.Buffer safe for a writer and a reader at once.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestReviewWeb: review --web serves the page on 127.0.0.1 with a token;
// a verdict posted with the token is written to review.yaml at once, one
// for a case the review does not walk is refused, and Done ends the verb.
func TestReviewWeb(t *testing.T) {
	run := filepath.Join(t.TempDir(), "r1")
	for _, id := range []string{"a", "b"} {
		if err := os.MkdirAll(filepath.Join(run, rundir.CasesDir, id), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	var errb lockedBuffer
	var out bytes.Buffer
	e := env{Streams: Streams{In: strings.NewReader(""), Out: &out, Err: &errb}, Getenv: func(string) string { return "" }}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- runReview(ctx, e, reviewOptions{web: true, cases: []string{"a"}, reviewer: "ann"}, run)
	}()
	urlRE := regexp.MustCompile(`open (http://127\.0\.0\.1:\d+)/\?token=([0-9a-f]{32})`)
	var base, token string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if m := urlRE.FindStringSubmatch(errb.String()); m != nil {
			base, token = m[1], m[2]
			break
		}
	}
	if base == "" {
		t.Fatalf("no URL on stderr: %q", errb.String())
	}
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	post := func(path string, form url.Values) *http.Response {
		t.Helper()
		resp, err := noRedirect.PostForm(base+path, form)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	if r := post("/verdict", url.Values{"token": {wrongToken(token)}, "case": {"a"}, "verdict": {"fail"}}); r.StatusCode != http.StatusForbidden {
		t.Fatalf("a wrong token: status %d", r.StatusCode)
	}
	if r := post("/verdict", url.Values{"token": {token}, "case": {"b"}, "verdict": {"fail"}}); !strings.Contains(r.Header.Get("Location"), "error=") {
		t.Fatalf("case b, not walked, was not refused: %v", r.Header)
	}
	if r := post("/verdict", url.Values{"token": {token}, "case": {"a"}, "verdict": {"fail"}, "comment": {" wrong file "}}); !strings.Contains(r.Header.Get("Location"), "saved=a") {
		t.Fatalf("case a not saved: %d %v", r.StatusCode, r.Header)
	}
	rv, err := rundir.Dir{Path: run}.ReadReview()
	if err != nil || rv == nil {
		t.Fatalf("review.yaml after a post: %v, %v", rv, err)
	}
	if c := rv.Cases["a"]; c.Verdict != rundir.HumanFail || c.Comment != "wrong file" || c.Reviewer != "ann" {
		t.Fatalf("case a's review %+v", c)
	}
	if _, ok := rv.Cases["b"]; ok {
		t.Fatal("case b was reviewed")
	}
	post("/done", url.Values{"token": {token}})
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("review --web: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Done did not end review --web")
	}
	if !strings.HasSuffix(strings.TrimSpace(out.String()), rundir.ReviewFile) {
		t.Fatalf("stdout %q, want the path of review.yaml", out.String())
	}
}

// wrongToken is token with its first digit changed (never the token itself).
func wrongToken(token string) string {
	if token[0] == '0' {
		return "1" + token[1:]
	}
	return "0" + token[1:]
}
