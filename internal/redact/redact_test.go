package redact

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestURLs(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"JIRA_SERVER=https://bot:PASSWORD@prod.atlassian.net/rest", "JIRA_SERVER=https://[redacted]@prod.atlassian.net/rest"},
		{"https://ghp_abcdef123456@github.com/o/r.git", "https://[redacted]@github.com/o/r.git"},
		{"postgres://u:p%40ss@db:5432/x and redis://:pw@cache", "postgres://[redacted]@db:5432/x and redis://[redacted]@cache"},
		{"mail me at a@b.c, see https://example.com/@user", "mail me at a@b.c, see https://example.com/@user"},
		{`"url":"https://x:y@h"`, `"url":"https://[redacted]@h"`},
		{"no url here", "no url here"},
	} {
		if got := URLs(tc.in); got != tc.want {
			t.Errorf("URLs(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestSecretName(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]bool{
		"ANTHROPIC_API_KEY": true, "ANTHROPIC_AUTH_TOKEN": true, "GITHUB_TOKEN": true, "AWS_SECRET_ACCESS_KEY": true,
		"DB_PASSWORD": true, "JIRA_PASSWD": true, "SSH_KEY": true, "SENTRY_DSN": true, "CLAUDE_CODE_OAUTH_TOKEN": true,
		"PWD": false, "OLDPWD": false, "HOME": false, "PATH": false, "JIRA_SERVER": false, "MONKEY": false, "KUBECONFIG": false,
		"DISABLE_AUTOUPDATER": false,
	} {
		if got := SecretName(name); got != want {
			t.Errorf("SecretName(%s) = %v, want %v", name, got, want)
		}
	}
}

func TestString(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"GITHUB_TOKEN=ghp_123456789 gh pr create", "GITHUB_TOKEN=[redacted] gh pr create"},
		{`API_KEY="sk-abc def" curl`, `API_KEY="[redacted]" curl`},
		{"JIRA_SERVER=https://a:b@h jira", "JIRA_SERVER=https://[redacted]@h jira"},
		{"curl -H 'Authorization: Bearer abcdefghijklmnop1234' x", "curl -H 'Authorization: Bearer [redacted]' x"},
		{"Basic authentication is off", "Basic authentication is off"},
		{"TOKEN= empty", "TOKEN= empty"},
		{"MODE=fast run", "MODE=fast run"},
		// Credentials an agent types on the command line itself (issue 10
		// hostile review): they reached the hook's detail and the ledger.
		{"curl -H 'Authorization: token ghp_abcdef1234567890abcd' x", "curl -H 'Authorization: token [redacted]' x"},
		{`curl -H "X-API-Key: k-live-abcdef1234567890" x`, `curl -H "X-API-Key: [redacted]" x`},
		{"curl -H 'PRIVATE-TOKEN: abc123456' x", "curl -H 'PRIVATE-TOKEN: [redacted]' x"},
		{"curl -u admin:hunter2hunter2 https://x", "curl -u admin:[redacted] https://x"},
		{"jira --token abcdef1234567890 issue", "jira --token [redacted] issue"},
		{"aws --secret-access-key 'wJalrXUtnFEMI' s3 ls", "aws --secret-access-key '[redacted]' s3 ls"},
		{"docker login --password hunter2hunter2 reg", "docker login --password [redacted] reg"},
		{"echo ghp_abcdef1234567890abcdef1234567890abcd", "echo [redacted]"},
		{"slack xoxb-1234567890-abcdefghij", "slack [redacted]"},
		{"use key AKIAIOSFODNN7EXAMPLE now", "use key [redacted] now"},
		{"git log --author x -n 5", "git log --author x -n 5"},
		// A path to a credential is not one.
		{"kubectl --token-file /x apply", "kubectl --token-file /x apply"},
		{"grep -r --exclude-dir=secret TOKEN .", "grep -r --exclude-dir=secret TOKEN ."},
		{"read the passwords file", "read the passwords file"},
	} {
		if got := String(tc.in); got != tc.want {
			t.Errorf("String(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestRedactorHidesKnownValues(t *testing.T) {
	t.Parallel()
	r := New(map[string]string{
		"ANTHROPIC_API_KEY": "sk-ant-REALKEY-0001",
		"JIRA_SERVER":       "https://bot:hunter2pw@prod.example.com",
		"SHORT_TOKEN":       "abc", // too short to hide everywhere
		"HOME":              "/root",
	})
	if r.Known() != 3 { // the key, bot:hunter2pw, hunter2pw
		t.Fatalf("Known() = %d, want 3", r.Known())
	}
	in := `{"content":"ANTHROPIC_API_KEY is sk-ant-REALKEY-0001; pw hunter2pw; home /root; abc"}`
	got := r.String(in)
	for _, leak := range []string{"REALKEY", "hunter2pw"} {
		if strings.Contains(got, leak) {
			t.Errorf("%q leaks %q", got, leak)
		}
	}
	for _, kept := range []string{"/root", "abc", "ANTHROPIC_API_KEY is"} {
		if !strings.Contains(got, kept) {
			t.Errorf("%q lost %q", got, kept)
		}
	}
	var nilR *Redactor
	if nilR.String("https://u:p@h") != "https://[redacted]@h" || nilR.Known() != 0 {
		t.Error("a nil Redactor must still redact URLs")
	}
}

func TestWriterFindsSecretsSplitAcrossWrites(t *testing.T) {
	t.Parallel()
	r := New(map[string]string{"GITHUB_TOKEN": "ghp_SPLITSECRET99"})
	var out bytes.Buffer
	w := r.Writer(&out)
	for _, part := range []string{"line one ghp_SPL", "ITSECRET99 end\nsecond ", "line ghp_SPLITSECRET99"} {
		if _, err := w.Write([]byte(part)); err != nil {
			t.Fatal(err)
		}
	}
	if strings.Contains(out.String(), "second") {
		t.Errorf("an unfinished line was written before its newline: %q", out.String())
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	want := "line one [redacted] end\nsecond line [redacted]"
	if out.String() != want {
		t.Errorf("wrote %q, want %q", out.String(), want)
	}
}

func FuzzString(f *testing.F) {
	f.Add("https://user:pass@host/x", "pass")
	f.Add("TOKEN=abcdefgh run", "abcdefgh")
	f.Fuzz(func(t *testing.T, s, secret string) {
		if len(secret) < MinSecretLen {
			return
		}
		got := New(map[string]string{"X_TOKEN": secret}).String(s)
		if strings.Contains(got, secret) && !strings.Contains(Mark, secret) {
			t.Fatalf("%q still contains the secret %q", got, secret)
		}
	})
}

// TestJSON: a stream-json line keeps parsing after redaction, also when a
// text match would have eaten an escape (TOKEN=abc\" inside a string).
func TestJSON(t *testing.T) {
	t.Parallel()
	r := New(map[string]string{"GITHUB_TOKEN": "ghp_SECRETVALUE1", "JIRA_SERVER": "https://bot:PASSWORD@prod.example"})
	for _, in := range []string{
		`{"type":"user","content":"ghp_SECRETVALUE1\n"}` + "\n",
		`{"type":"assistant","input":{"command":"echo \"TOKEN=abc\" \"API_KEY=x\\\\\""}}` + "\n",
		`{"a":["JIRA_SERVER=https://bot:PASSWORD@prod.example","PASSWORD"],"n":1.50}`,
		`{"PASSWORD":"key named like a secret value"}`,
	} {
		got := r.JSON([]byte(in))
		if !json.Valid(got) {
			t.Errorf("JSON(%s) = %s: not valid JSON", in, got)
		}
		for _, leak := range []string{"ghp_SECRETVALUE1", "PASSWORD", "TOKEN=abc", "API_KEY=x"} {
			if strings.Contains(string(got), leak) {
				t.Errorf("JSON(%s) = %s: %s leaked", in, got, leak)
			}
		}
		if strings.HasSuffix(in, "\n") != strings.HasSuffix(string(got), "\n") {
			t.Errorf("JSON(%q) = %q: the line ending changed", in, got)
		}
	}
	// A secret with characters JSON escapes is found in its escaped form.
	q := New(map[string]string{"DB_PASSWORD": `pa"ss\word`})
	if got := string(q.JSON([]byte(`{"out":"pw is pa\"ss\\word!"}`))); strings.Contains(got, "ss") || !json.Valid([]byte(got)) {
		t.Errorf("escaped secret: %s", got)
	}
	if got := string(r.JSON([]byte(`{"plain":"nothing here"}`))); got != `{"plain":"nothing here"}` {
		t.Errorf("a line without secrets changed: %s", got)
	}
	var buf bytes.Buffer
	w := r.JSONWriter(&buf)
	_, _ = w.Write([]byte(`{"x":"echo \"TOKEN=ab`))
	_, _ = w.Write([]byte(`c\""}` + "\n" + `{"y":1}` + "\n"))
	_ = w.Close()
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		if !json.Valid([]byte(line)) || strings.Contains(line, "TOKEN=abc") {
			t.Errorf("JSONWriter line %s: invalid or leaking", line)
		}
	}
}
