package hook

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	yaml "go.yaml.in/yaml/v3"

	"github.com/agent-eval/agent-eval/internal/intercept"
	"github.com/agent-eval/agent-eval/internal/rundir"
	"github.com/agent-eval/agent-eval/internal/testutil"
	"github.com/agent-eval/agent-eval/internal/testutil/decisions"
)

type result struct {
	code   int
	out    map[string]any
	raw    string
	stderr string
}

func runHook(t *testing.T, stdin string, opts Options) result {
	t.Helper()
	var out, errb bytes.Buffer
	code := Run(testutil.Context(t, time.Minute), strings.NewReader(stdin), &out, &errb, opts)
	r := result{code: code, raw: out.String(), stderr: errb.String()}
	if out.Len() > 0 {
		if err := json.Unmarshal(out.Bytes(), &r.out); err != nil {
			t.Fatalf("stdout is not one JSON document: %q", out.String())
		}
	}
	return r
}

func (r result) decision() string {
	hso, _ := r.out["hookSpecificOutput"].(map[string]any)
	if hso == nil {
		return "pass"
	}
	d, _ := hso["permissionDecision"].(string)
	return d
}

func (r result) reason() string {
	hso, _ := r.out["hookSpecificOutput"].(map[string]any)
	s, _ := hso["permissionDecisionReason"].(string)
	return s
}

func input(tool string, in map[string]any, cwd string) string {
	b, _ := json.Marshal(map[string]any{"hook_event_name": "PreToolUse", "tool_name": tool, "tool_input": in,
		"tool_use_id": "toolu_1", "cwd": cwd, "session_id": "s"})
	return string(b)
}

func writeHandlers(t testing.TB, dir string, f intercept.File) string {
	t.Helper()
	b, err := yaml.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, HandlersFile)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// corpusCase lays out a corpus case in a fresh folder: its handlers file
// and workspace fixture (beside the handlers file, whose directory is the
// root of denied_paths); it returns the folder and the case's environment.
func corpusCase(t *testing.T, corpus *decisions.Corpus, c decisions.Case) (string, []string) {
	t.Helper()
	dir := t.TempDir()
	writeHandlers(t, dir, corpus.HandlerSets[c.Handlers])
	if c.Workspace != "" {
		if err := corpus.Workspaces[c.Workspace].Build(dir); err != nil {
			t.Fatal(err)
		}
	}
	var environ []string
	for k, v := range c.Env {
		environ = append(environ, k+"="+v)
	}
	return dir, environ
}

// TestCorpusThroughHook replays the decision corpus through the hook's
// stdin/stdout protocol.
func TestCorpusThroughHook(t *testing.T) {
	t.Parallel()
	corpus, err := decisions.Load("../intercept/testdata/decisions.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range corpus.Cases {
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			dir, environ := corpusCase(t, corpus, c)
			r := runHook(t, input(c.Tool, c.Input, filepath.Join(dir, c.CWD)), Options{Environ: environ, HandlersPath: filepath.Join(dir, HandlersFile),
				NewAnswerer: func(string, func(string) string) intercept.Answerer { return c.Answerer() }})
			if r.code != ExitOK || r.decision() != string(c.Want) {
				t.Fatalf("exit %d, decision %q (%s), want %s", r.code, r.decision(), r.raw, c.Want)
			}
			if c.Want == intercept.Pass && r.raw != "" {
				t.Errorf("a pass-through printed %q", r.raw)
			}
			ledger, err := os.ReadFile(filepath.Join(dir, LedgerFile))
			if err != nil {
				t.Fatal(err)
			}
			var logged rundir.Decision
			if err := json.Unmarshal(ledger, &logged); err != nil {
				t.Fatalf("ledger %q: %v", ledger, err)
			}
			if c.Want == intercept.Pass {
				// A pass prints nothing: the ledger alone says why (a checked
				// pass names its handler).
				if !strings.Contains(logged.Reason, c.Reason) {
					t.Errorf("ledger reason %q lacks %q", logged.Reason, c.Reason)
				}
			} else if !strings.Contains(r.reason(), c.Reason) {
				t.Errorf("reason %q lacks %q", r.reason(), c.Reason)
			}
			if c.Handler != nil && logged.Handler != *c.Handler {
				t.Errorf("ledger handler = %d, want %d", logged.Handler, *c.Handler)
			}
			if c.NotReason != "" && (strings.Contains(string(ledger), c.NotReason) || strings.Contains(r.raw, c.NotReason) || strings.Contains(r.stderr, c.NotReason)) {
				t.Errorf("%q leaked into the output or the ledger", c.NotReason)
			}
			if c.Want == intercept.Deny && r.out["reason"] != r.reason() {
				t.Errorf("deny carries reason %v, want it equal to permissionDecisionReason", r.out["reason"])
			}
			if c.Answers != nil {
				hso := r.out["hookSpecificOutput"].(map[string]any)
				ui, _ := hso["updatedInput"].(map[string]any)
				answers, _ := ui["answers"].(map[string]any)
				for q, a := range c.Answers {
					if answers[q] != a {
						t.Errorf("updatedInput.answers[%q] = %v, want %q", q, answers[q], a)
					}
				}
			}
			if c.Warning != "" && !strings.Contains(r.stderr, c.Warning) {
				t.Errorf("stderr %q lacks %q", r.stderr, c.Warning)
			}
			if logged.Decision != string(c.Want) {
				t.Errorf("ledger = %q, want decision %s", ledger, c.Want)
			}
		})
	}
}

// TestFailsClosed: nothing that goes wrong lets a call through.
func TestFailsClosed(t *testing.T) {
	t.Parallel()
	good := intercept.File{Handlers: []intercept.Handler{{Match: "m", Patterns: []string{"mcp__x__*"}}}}
	tests := []struct {
		name   string
		stdin  string
		setup  func(dir string) Options
		reason string
	}{
		{"garbage on stdin", "not json", func(string) Options { return Options{} }, "could not read its input"},
		{"empty stdin", "", func(string) Options { return Options{} }, "could not read its input"},
		{"no tool_name", `{"cwd":"/x"}`, func(string) Options { return Options{} }, "no tool_name"},
		{"no handlers anywhere", `{"tool_name":"Bash","tool_input":{"command":"ls"}}`, func(string) Options { return Options{} }, "no --handlers"},
		{"a missing handlers file", input("Bash", map[string]any{"command": "ls"}, "CWD"), func(string) Options { return Options{} }, "cannot read the handlers file"},
		{"a corrupt handlers file", input("Bash", map[string]any{"command": "ls"}, "CWD"), func(dir string) Options {
			_ = os.WriteFile(filepath.Join(dir, HandlersFile), []byte("handlers: [\n"), 0o644)
			return Options{}
		}, "invalid handlers file"},
		{"an unknown key in the handlers file", input("Bash", map[string]any{"command": "ls"}, "CWD"), func(dir string) Options {
			_ = os.WriteFile(filepath.Join(dir, HandlersFile), []byte("handlers:\n  - match: x\n    patern: [Bash]\n"), 0o644)
			return Options{}
		}, "invalid handlers file"},
		{"a bad regex", input("Bash", map[string]any{"command": "ls"}, "CWD"), func(dir string) Options {
			_ = os.WriteFile(filepath.Join(dir, HandlersFile), []byte("handlers:\n  - match: x\n    patterns: [Bash]\n    input_filters: ['(']\n"), 0o644)
			return Options{}
		}, "input_filters"},
		{"a handlers file changed since it was pinned", input("Bash", map[string]any{"command": "ls"}, "CWD"), func(dir string) Options {
			path := writeHandlers(t, dir, intercept.File{Handlers: []intercept.Handler{}})
			return Options{HandlersPath: path, HandlersSHA256: strings.Repeat("ab", 32)}
		}, "was changed after the run wrote it"},
		{"a panic in the LLM tier", input("AskUserQuestion", map[string]any{"questions": []any{map[string]any{"question": "q?", "options": []any{map[string]any{"label": "a"}}}}}, "CWD"), func(dir string) Options {
			writeHandlers(t, dir, intercept.File{Handlers: []intercept.Handler{{Match: "q", Patterns: []string{"AskUserQuestion"}}}})
			return Options{NewAnswerer: func(string, func(string) string) intercept.Answerer { panic("boom") }}
		}, "crashed (boom)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			opts := tt.setup(dir)
			r := runHook(t, strings.ReplaceAll(tt.stdin, "CWD", dir), opts)
			if r.code != ExitOK || r.decision() != "deny" || !strings.Contains(r.reason(), tt.reason) {
				t.Errorf("exit %d, %q; want a deny mentioning %q", r.code, r.raw, tt.reason)
			}
		})
	}
	// --handlers wins over $AGENT_EVAL_HANDLERS, which wins over the cwd.
	dir := t.TempDir()
	path := writeHandlers(t, dir, good)
	r := runHook(t, input("mcp__x__y", nil, "/nonexistent"), Options{Environ: []string{HandlersEnv + "=" + path}})
	if r.decision() != "deny" || !strings.Contains(r.reason(), "no env_checks") {
		t.Errorf("via $%s: %q", HandlersEnv, r.raw)
	}
	r = runHook(t, input("mcp__x__y", nil, "/nonexistent"), Options{HandlersPath: path, Environ: []string{HandlersEnv + "=/nope"}})
	if r.decision() != "deny" || !strings.Contains(r.reason(), "no env_checks") {
		t.Errorf("via --handlers: %q", r.raw)
	}
}

// TestPinnedHandlers: with the digest of the file as written, the hook
// decides as usual (a pass-through here); after any change to the file,
// even one that keeps it valid, it denies.
func TestPinnedHandlers(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := writeHandlers(t, dir, intercept.File{Handlers: []intercept.Handler{{Match: "j", Patterns: []string{"Bash"}, InputFilters: []string{`\bjira\b`}}}})
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	opts := Options{HandlersPath: path, HandlersSHA256: hex.EncodeToString(sum[:])}
	if r := runHook(t, input("Bash", map[string]any{"command": "ls"}, dir), opts); r.decision() != "pass" {
		t.Fatalf("pinned and unchanged: %q, want a pass-through", r.raw)
	}
	if err := os.WriteFile(path, []byte("handlers: []\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runHook(t, input("Bash", map[string]any{"command": "ls"}, dir), opts)
	if r.decision() != "deny" || !strings.Contains(r.reason(), "was changed after the run wrote it") {
		t.Fatalf("after a rewrite: %q, want a deny naming the change", r.raw)
	}
	if r := runHook(t, input("Bash", map[string]any{"command": "ls"}, dir), Options{HandlersPath: path}); r.decision() != "pass" {
		t.Errorf("unpinned, the rewritten file is used as it is: %q", r.raw)
	}
}

// failingWriter makes writing the decision fail.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, os.ErrClosed }

func TestBlocksByExitCodeWhenStdoutFails(t *testing.T) {
	t.Parallel()
	var errb bytes.Buffer
	code := Run(testutil.Context(t, time.Minute), strings.NewReader("garbage"), failingWriter{}, &errb, Options{})
	if code != ExitBlock || !strings.Contains(errb.String(), "could not read its input") {
		t.Errorf("exit %d, stderr %q; want %d and the reason", code, errb.String(), ExitBlock)
	}
}

// FuzzHookInput: whatever arrives on stdin, the hook never panics and never
// allows a call whose input it could not read.
func FuzzHookInput(f *testing.F) {
	f.Add(input("Bash", map[string]any{"command": "jira issue create"}, "/tmp"))
	f.Add(`{"tool_name":1}`)
	f.Add(`{"tool_name":"Bash","tool_input":"x"}`)
	f.Add("")
	dir := f.TempDir()
	writeHandlers(f, dir, intercept.File{Handlers: []intercept.Handler{{Match: "j", Patterns: []string{"Bash"}, InputFilters: []string{"jira"},
		EnvChecks: map[string]intercept.EnvCheck{"JIRA_SERVER": {MustContain: []string{"localhost"}}}}}})
	f.Fuzz(func(t *testing.T, stdin string) {
		var out, errb bytes.Buffer
		Run(context.Background(), strings.NewReader(stdin), &out, &errb, Options{HandlersPath: filepath.Join(dir, HandlersFile)})
		var in struct {
			ToolName string `json:"tool_name"`
		}
		if json.Unmarshal([]byte(stdin), &in) != nil || in.ToolName == "" {
			if !strings.Contains(out.String(), `"permissionDecision":"deny"`) {
				t.Fatalf("unreadable input %q was not denied: %q", stdin, out.String())
			}
		}
		if strings.Contains(out.String(), `"allow"`) {
			t.Fatalf("allowed %q without JIRA_SERVER set", stdin)
		}
	})
}

// TestRedactsSecrets: a deny reason that quotes a credential-bearing
// variable, or a command holding a secret value of the hook's environment,
// reaches neither the model (stdout), stderr nor the ledger.
func TestRedactsSecrets(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := writeHandlers(t, dir, intercept.File{Handlers: []intercept.Handler{{Match: "jira", Patterns: []string{"Bash"},
		InputFilters: []string{`\bjira\b`}, EnvChecks: map[string]intercept.EnvCheck{"JIRA_SERVER": {MustContain: []string{"test"}}}}}})
	env := []string{"JIRA_SERVER=https://bot:PASSWORD1@prod.atlassian.net", "GITHUB_TOKEN=ghp_0123456789abcdef"}
	for _, cmd := range []string{"jira issue list", "JIRA_SERVER=https://bot:PASSWORD1@prod.atlassian.net jira issue list --token ghp_0123456789abcdef"} {
		r := runHook(t, input("Bash", map[string]any{"command": cmd}, dir), Options{HandlersPath: path, Environ: env})
		if r.decision() != "deny" {
			t.Fatalf("%s: %q, want a deny", cmd, r.raw)
		}
		if !strings.Contains(r.reason(), "JIRA_SERVER") {
			t.Errorf("%s: reason %q does not name the variable", cmd, r.reason())
		}
		ledger, _ := os.ReadFile(filepath.Join(dir, LedgerFile))
		for _, s := range []string{r.raw, r.stderr, string(ledger)} {
			if strings.Contains(s, "PASSWORD1") || strings.Contains(s, "ghp_0123456789abcdef") {
				t.Errorf("%s: a secret leaked: %s", cmd, s)
			}
		}
	}
}

// TestUpstreamTopLevelCaseOverrides loads tool_handlers.yaml as upstream's
// /eval-run agent writes it, with case_overrides at the top level next to
// hook_model: the hook must not fail closed on it (it used to deny every
// call, even ls), and its answers must be used.
func TestUpstreamTopLevelCaseOverrides(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const file = `handlers:
  - match: Questions asked to the user via AskUserQuestion.
    patterns: [AskUserQuestion]
    prompt: Answer based on the test case context.
hook_model: claude-haiku-4-5-20251001
case_overrides:
  "Proceed with the release?": "no"
`
	path := filepath.Join(dir, HandlersFile)
	if err := os.WriteFile(path, []byte(file), 0o644); err != nil {
		t.Fatal(err)
	}
	opts := Options{HandlersPath: path, NewAnswerer: func(string, func(string) string) intercept.Answerer { return nil }}
	if r := runHook(t, input("Bash", map[string]any{"command": "ls"}, dir), opts); r.code != ExitOK || r.decision() != "pass" {
		t.Fatalf("ls: exit %d, decision %q (%s %s), want a pass", r.code, r.decision(), r.raw, r.stderr)
	}
	q := map[string]any{"questions": []any{map[string]any{"question": "Proceed with the release?",
		"options": []any{map[string]any{"label": "yes"}, map[string]any{"label": "no"}}}}}
	r := runHook(t, input("AskUserQuestion", q, dir), opts)
	hso, _ := r.out["hookSpecificOutput"].(map[string]any)
	ui, _ := hso["updatedInput"].(map[string]any)
	answers, _ := ui["answers"].(map[string]any)
	if r.decision() != "allow" || answers["Proceed with the release?"] != "no" {
		t.Fatalf("question: decision %q, answers %v (%s), want allow with the top-level override", r.decision(), answers, r.raw)
	}
}

// keyAnswerer answers with the first option when the API key it saw when it
// was made is want.
type keyAnswerer struct{ key, want string }

func (a keyAnswerer) Answer(_ context.Context, q intercept.Question) (string, error) {
	if a.key != a.want {
		return "", fmt.Errorf("no credentials (saw %q)", a.key)
	}
	return q.Options[0], nil
}

// TestCredentialsFile: the hook model gets the credentials Claude Code's
// scrub took from the hook from --credentials, read only when a question
// reaches tier 2; a variable the environment has wins; lines for other
// variables are ignored; the process environment is left as it was.
func TestCredentialsFile(t *testing.T) { // not parallel: it watches the process environment
	t.Setenv("ANTHROPIC_API_KEY", "")
	os.Unsetenv("ANTHROPIC_API_KEY")
	dir := t.TempDir()
	path := writeHandlers(t, dir, intercept.File{Handlers: []intercept.Handler{{Match: "questions", Patterns: []string{"AskUserQuestion"}}}})
	creds := filepath.Join(dir, "hook.env")
	content := FormatCredentials(func(n string) (string, bool) {
		return map[string]string{"ANTHROPIC_API_KEY": "sk-from-file", "ANTHROPIC_CUSTOM_HEADERS": "A: 1\nB: 2"}[n], n != "ANTHROPIC_AUTH_TOKEN"
	}) + "AGENT_EVAL_TEST_OTHER=x\n"
	if err := os.WriteFile(creds, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	q := map[string]any{"questions": []any{map[string]any{"question": "Which env?",
		"options": []any{map[string]any{"label": "staging"}, map[string]any{"label": "production"}}}}}
	made := 0
	var seen func(string) string
	newAnswerer := func(_ string, getenv func(string) string) intercept.Answerer {
		made++
		seen = getenv
		return keyAnswerer{key: getenv("ANTHROPIC_API_KEY"), want: "sk-from-file"}
	}
	opts := Options{HandlersPath: path, CredentialsFile: creds, NewAnswerer: newAnswerer, Environ: []string{"PATH=/bin"}}
	r := runHook(t, input("Bash", map[string]any{"command": "ls"}, dir), opts)
	if r.decision() != "pass" || made != 0 {
		t.Fatalf("a call without a question read the credentials (made %d)", made)
	}
	r = runHook(t, input("AskUserQuestion", q, dir), opts)
	if !strings.Contains(r.raw, `"Which env?":"staging"`) || strings.Contains(r.stderr, "fallback") {
		t.Fatalf("tier 2 did not answer with the file's key: %s %s", r.raw, r.stderr)
	}
	if got := seen("ANTHROPIC_CUSTOM_HEADERS"); got != "A: 1\nB: 2" {
		t.Errorf("ANTHROPIC_CUSTOM_HEADERS = %q, want its two lines back", got)
	}
	if seen("AGENT_EVAL_TEST_OTHER") != "" || seen("PATH") != "/bin" {
		t.Errorf("the answerer's environment: other %q, PATH %q; want no other, the hook's PATH", seen("AGENT_EVAL_TEST_OTHER"), seen("PATH"))
	}
	if _, set := os.LookupEnv("ANTHROPIC_API_KEY"); set {
		t.Error("the hook set ANTHROPIC_API_KEY in its process environment")
	}
	opts.Environ = append(opts.Environ, "ANTHROPIC_API_KEY=sk-from-env")
	_ = runHook(t, input("AskUserQuestion", q, dir), opts)
	if got := seen("ANTHROPIC_API_KEY"); got != "sk-from-env" {
		t.Errorf("ANTHROPIC_API_KEY = %q: the file overrode a key the environment had", got)
	}
}

// TestHookDeadline: a command the analysis is slow on is denied when the
// hook's own deadline passes, well before Claude Code's timeout, and the
// ledger still gets its line; 12,000 levels of $( (which once took the
// hook past the CLI's 60 s) are denied at once, before parsing.
func TestHookDeadline(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		command  string
		deadline time.Duration
		reason   string
		within   time.Duration
	}{
		{"slow command past a short deadline", strings.Repeat("echo a; ", 32000), 50 * time.Millisecond, "deadline of 50ms", time.Second},
		{"12,000 nested $(", strings.Repeat("echo $(", 12000) + "jira" + strings.Repeat(")", 12000), 0, "nests brackets more than", DecideDeadline},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			path := writeHandlers(t, dir, intercept.File{Handlers: []intercept.Handler{{Match: "Jira", Patterns: []string{"Bash"}, InputFilters: []string{`\bjira\b`},
				EnvChecks: map[string]intercept.EnvCheck{"JIRA_SERVER": {MustContain: []string{"localhost"}}}}}})
			start := time.Now()
			r := runHook(t, input("Bash", map[string]any{"command": tt.command}, dir), Options{HandlersPath: path, Deadline: tt.deadline})
			if took := time.Since(start); took > tt.within {
				t.Errorf("the hook answered after %s, want within %s", took, tt.within)
			}
			if r.decision() != "deny" || !strings.Contains(r.reason(), tt.reason) {
				t.Fatalf("decision = %s (%s), want deny naming %q", r.decision(), r.reason(), tt.reason)
			}
			ledger, err := os.ReadFile(filepath.Join(dir, LedgerFile))
			if err != nil {
				t.Fatal(err)
			}
			var logged rundir.Decision
			if err := json.Unmarshal(ledger, &logged); err != nil || logged.Decision != "deny" || !strings.Contains(logged.Reason, tt.reason) {
				t.Fatalf("ledger = %q (%v), want one deny naming %q", ledger, err, tt.reason)
			}
		})
	}
}

// TestLedgerEntryThatDoesNotEncode: an entry the encoder refuses still
// leaves its line, with the decision and the error as its warning, and the
// warning on stderr; before, the call vanished from the ledger.
func TestLedgerEntryThatDoesNotEncode(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), LedgerFile)
	var stderr bytes.Buffer
	refuse := func(any) ([]byte, error) { return nil, fmt.Errorf("unsupported value") }
	writeLedger(path, rundir.Decision{Time: "t", Tool: "Bash", Decision: "deny", Handler: -1, Reason: "r"}, refuse, &stderr)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var lines []rundir.Decision
	for l := range strings.Lines(string(b)) {
		var d rundir.Decision
		if err := json.Unmarshal([]byte(l), &d); err != nil {
			t.Fatalf("ledger line %q: %v", l, err)
		}
		lines = append(lines, d)
	}
	if len(lines) != 1 || lines[0].Decision != "deny" || lines[0].Tool != "Bash" ||
		len(lines[0].Warnings) != 1 || !strings.Contains(lines[0].Warnings[0], "unsupported value") {
		t.Errorf("ledger %+v, want one deny of Bash warning of the encode error", lines)
	}
	if !strings.Contains(stderr.String(), "unsupported value") {
		t.Errorf("stderr %q, want the encode error", stderr.String())
	}
}
