package engine

import (
	"net/http"
	"strings"
	"testing"

	"github.com/agent-eval/agent-eval/internal/runner"
	"github.com/google/go-cmp/cmp"
)

// TestRecordUpstream: where run --record forwards each runner's requests
// and with which of the harness's credentials; a runner without its key
// is a usage error naming the variables.
func TestRecordUpstream(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		rt    runner.Type
		env   map[string]string
		url   string
		strip string
		auth  http.Header
		err   string
	}{
		{name: "claude key", rt: runner.TypeClaudeCode, env: map[string]string{"ANTHROPIC_API_KEY": "k"},
			url: DefaultAnthropicURL, auth: http.Header{"X-Api-Key": {"k"}}},
		{name: "claude token", rt: runner.TypeClaudeCode, env: map[string]string{"ANTHROPIC_AUTH_TOKEN": "t", "ANTHROPIC_BASE_URL": "http://gw"},
			url: "http://gw", auth: http.Header{"Authorization": {"Bearer t"}}},
		{name: "claude without", rt: runner.TypeClaudeCode, err: "neither ANTHROPIC_API_KEY nor ANTHROPIC_AUTH_TOKEN is set"},
		{name: "codex", rt: runner.TypeCodex, env: map[string]string{"OPENAI_API_KEY": "sk", "OPENAI_PROJECT": "p"},
			url: DefaultOpenAIURL, strip: "/v1", auth: http.Header{"Authorization": {"Bearer sk"}, "Openai-Project": {"p"}}},
		{name: "codex key and base url", rt: runner.TypeCodex, env: map[string]string{"CODEX_API_KEY": "ck", "OPENAI_BASE_URL": "http://proxy/v1"},
			url: "http://proxy/v1", strip: "/v1", auth: http.Header{"Authorization": {"Bearer ck"}}},
		{name: "codex without", rt: runner.TypeCodex, err: "neither OPENAI_API_KEY nor CODEX_API_KEY is set"},
		{name: "gemini", rt: runner.TypeGemini, env: map[string]string{"GEMINI_API_KEY": "g"},
			url: DefaultGeminiURL, auth: http.Header{"X-Goog-Api-Key": {"g"}}},
		{name: "gemini google key", rt: runner.TypeGemini, env: map[string]string{"GOOGLE_API_KEY": "gg", "GOOGLE_GEMINI_BASE_URL": "http://g"},
			url: "http://g", auth: http.Header{"X-Goog-Api-Key": {"gg"}}},
		{name: "gemini without", rt: runner.TypeGemini, err: "neither GEMINI_API_KEY nor GOOGLE_API_KEY is set"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			up, err := recordUpstream(tc.rt, func(k string) string { return tc.env[k] })
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want one holding %q", err, tc.err)
				}
				if _, ok := err.(*UsageError); !ok {
					t.Errorf("err is a %T, want a usage error", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if up.url != tc.url || up.strip != tc.strip {
				t.Errorf("upstream %q strip %q, want %q strip %q", up.url, up.strip, tc.url, tc.strip)
			}
			h := http.Header{}
			up.auth(h)
			if diff := cmp.Diff(tc.auth, h); diff != "" {
				t.Errorf("auth headers (-want +got):\n%s", diff)
			}
		})
	}
}
