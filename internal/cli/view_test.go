package cli

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// startView runs agent-eval view with args until the returned stop, and
// returns the URL it printed.
func startView(t *testing.T, args ...string) (url string, stop func() (int, string)) {
	t.Helper()
	var out, errb syncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int)
	go func() {
		done <- run(ctx, append([]string{"view"}, args...), env{Streams: Streams{In: strings.NewReader(""), Out: &out, Err: &errb}, Getenv: func(string) string { return "" }})
	}()
	for i := 0; i < 500 && url == ""; i++ {
		url = strings.TrimSpace(out.String())
		time.Sleep(10 * time.Millisecond)
	}
	if !strings.HasPrefix(url, "http://") {
		cancel()
		t.Fatalf("view printed %q, stderr %q", url, errb.String())
	}
	return url, func() (int, string) { cancel(); return <-done, errb.String() }
}

func getBody(t *testing.T, c *http.Client, u string) (int, string) {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestViewServes: on the loopback the URL has no token and the index
// answers; beyond it, the URL's token is needed; Ctrl-C ends the server
// with exit 130.
func TestViewServes(t *testing.T) {
	runs := t.TempDir()
	if err := os.MkdirAll(filepath.Join(runs, "r1", "cases", "c1"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(runs, "r1", "run_result.json"), []byte(`{"run_id":"r1","eval_name":"e"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	u, stop := startView(t, "--runs-dir", runs)
	if !strings.HasPrefix(u, "http://127.0.0.1:") || strings.Contains(u, "token") {
		t.Errorf("the loopback URL: %s", u)
	}
	if code, body := getBody(t, http.DefaultClient, u); code != http.StatusOK || !strings.Contains(body, `data-run="r1"`) {
		t.Errorf("the index: %d %s", code, body)
	}
	code, stderr := stop()
	if code != ExitInterrupted {
		t.Errorf("interrupted, view exited %d, want %d (stderr %q)", code, ExitInterrupted, stderr)
	}

	// Bound to every address: a token in the URL, nothing without it.
	u, stop = startView(t, "--runs-dir", runs, "--addr", "0.0.0.0:0")
	defer stop()
	base, token, ok := strings.Cut(u, "?token=")
	if !ok || len(token) != 32 {
		t.Fatalf("the URL beyond the loopback has no token: %s", u)
	}
	if code, _ := getBody(t, http.DefaultClient, base); code != http.StatusForbidden {
		t.Errorf("without the token: %d, want 403", code)
	}
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	browser := &http.Client{Jar: jar}
	if code, body := getBody(t, browser, u); code != http.StatusOK || !strings.Contains(body, `data-run="r1"`) {
		t.Errorf("with the token: %d", code)
	}
	// The cookie carries it after the first visit.
	if code, _ := getBody(t, browser, base+"run?r=r1"); code != http.StatusOK {
		t.Errorf("with the cookie: %d", code)
	}
}

func TestViewExitCodes(t *testing.T) {
	runs := t.TempDir()
	blocked := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(blocked, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		code int
		err  string
	}{
		{[]string{"--runs-dir", runs, "--export", filepath.Join(t.TempDir(), "site")}, ExitOK, ""},
		{[]string{"--runs-dir", filepath.Join(runs, "nosuch")}, ExitUsage, "no such file"},
		{[]string{"--runs-dir", runs, "-c", "eval.yaml"}, ExitUsage, "not both"},
		{[]string{"--runs-dir", runs, "--addr", "nonsense"}, ExitUsage, "want HOST:PORT"},
		{[]string{"--runs-dir", runs, "--export", filepath.Join(blocked, "site")}, ExitFailure, "view --export"},
		{[]string{"--runs-dir", runs, "--addr", "256.1.1.1:0"}, ExitFailure, "listen on"},
	} {
		var out, errb syncBuffer
		code := run(context.Background(), append([]string{"view"}, c.args...), env{Streams: Streams{In: strings.NewReader(""), Out: &out, Err: &errb}, Getenv: func(string) string { return "" }})
		if code != c.code || !strings.Contains(errb.String(), c.err) {
			t.Errorf("view %v: exit %d, stderr %q; want %d and %q", c.args, code, errb.String(), c.code, c.err)
		}
	}
}
