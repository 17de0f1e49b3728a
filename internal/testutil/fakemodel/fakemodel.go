// Package fakemodel starts the fake Messages API for a test and points the
// Anthropic client's environment at it. It is imported by tests only.
package fakemodel

import (
	"testing"

	"github.com/agent-eval/agent-eval/internal/fakeapi"
)

// Serve starts srv on 127.0.0.1, closes it when the test ends, and sets
// ANTHROPIC_BASE_URL to it with a test key (and no auth token) for the
// rest of the test. It returns the URL.
func Serve(t testing.TB, srv *fakeapi.Server) string {
	t.Helper()
	url, err := srv.Start("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	t.Setenv("ANTHROPIC_BASE_URL", url)
	t.Setenv("ANTHROPIC_API_KEY", "sk-test")
	t.Setenv("ANTHROPIC_AUTH_TOKEN", "")
	return url
}
