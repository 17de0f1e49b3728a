package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agent-eval/agent-eval/internal/fakeapi"
	"github.com/agent-eval/agent-eval/internal/testutil/fakemodel"
)

// runCLI runs agent-eval in-process and returns its exit code and streams.
func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	e := env{
		Streams: Streams{In: strings.NewReader(""), Out: &out, Err: &errb},
		Getenv:  func(string) string { return "" },
	}
	code = run(context.Background(), args, e)
	return code, out.String(), errb.String()
}

const corpusDir = "../config/testdata"

// TestValidateCorpus runs `agent-eval validate` on every file of the config
// corpus: invalid files must exit 2 and print exactly their golden errors on
// stderr and nothing on stdout; valid ones exit 0 with a one-line summary.
func TestValidateCorpus(t *testing.T) {
	goldens, err := filepath.Glob(filepath.Join(corpusDir, "invalid", "*.golden"))
	if err != nil || len(goldens) < 30 {
		t.Fatalf("found %d golden files in the invalid corpus (err %v), want at least 30", len(goldens), err)
	}
	for _, g := range goldens {
		t.Run(filepath.Base(g), func(t *testing.T) {
			t.Parallel()
			path := strings.TrimSuffix(g, ".golden") + ".yaml"
			want, err := os.ReadFile(g)
			if err != nil {
				t.Fatal(err)
			}
			code, stdout, stderr := runCLI(t, "validate", "-c", path)
			if code != ExitUsage {
				t.Errorf("validate %s exited %d, want %d", path, code, ExitUsage)
			}
			if stdout != "" {
				t.Errorf("validate %s printed on stdout: %q", path, stdout)
			}
			// The goldens are written from the config package's directory.
			got := strings.ReplaceAll(stderr, "../config/", "")
			if diff := cmp.Diff(string(want), got); diff != "" {
				t.Errorf("validate %s stderr (-want +got):\n%s", path, diff)
			}
		})
	}
	valid, _ := filepath.Glob(filepath.Join(corpusDir, "valid", "*.yaml"))
	for _, path := range valid {
		code, stdout, stderr := runCLI(t, "validate", "-c", path)
		if code == ExitUsage && onlyNotRunnable(stderr) {
			continue // loads, but would not run here
		}
		if code != ExitOK || !strings.HasPrefix(stdout, path+": ok: eval ") || strings.Count(stdout, "\n") != 1 {
			t.Errorf("validate %s = %d, stdout %q, stderr %q; want 0 and a one-line summary", path, code, stdout, stderr)
		}
	}
}

// onlyNotRunnable reports whether every error validate printed says
// that the file, valid as configuration, would not run here (warnings
// aside), and there is at least one: a runner type or judge kind this
// version does not run, a builtin it lacks, a file or program the corpus
// does not ship.
func onlyNotRunnable(stderr string) bool {
	n := 0
	for _, l := range strings.Split(strings.TrimSpace(stderr), "\n") {
		switch {
		case strings.Contains(l, ": warning: "):
		case strings.Contains(l, "is not implemented yet"), strings.Contains(l, "which this version does not support"),
			strings.Contains(l, "unknown builtin"), strings.Contains(l, "which this version cannot run"), strings.Contains(l, "no such file"), strings.Contains(l, "is not found"),
			strings.Contains(l, "so it would error on every case"), strings.Contains(l, "a step of another runner type"),
			// The OpenRouter plan's refusals: its key is not set here, or
			// the file sets what the plan owns.
			strings.Contains(l, "the OpenRouter plan needs its API key"), strings.Contains(l, "is set by the OpenRouter plan"),
			strings.Contains(l, "is not an OpenRouter model, but under the OpenRouter plan"), strings.Contains(l, "names an OpenRouter model: score asks"):
			n++
		default:
			return false
		}
	}
	return n > 0
}

func TestValidateJSON(t *testing.T) {
	t.Parallel()
	code, stdout, _ := runCLI(t, "validate", "--json", "-c", "../../examples/quickstart/eval.yaml")
	if code != ExitOK {
		t.Fatalf("exit %d", code)
	}
	var rep validateReport
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, stdout)
	}
	want := validateReport{File: "../../examples/quickstart/eval.yaml", OK: true, EvalName: "quickstart", RunsDir: "eval/runs/quickstart", Mode: "case",
		Runner: "claude-code", Cases: 2, Handlers: 2, Judges: 3, Errors: []problem{}, Warnings: []problem{{Line: 23, Col: 18, Field: "execution.env.JIRA_SERVER",
			Message: "JIRA_SERVER refers to $JIRA_SERVER, which is not set (or empty) here, so run leaves JIRA_SERVER out"}}}
	if diff := cmp.Diff(want, rep); diff != "" {
		t.Errorf("validate --json (-want +got):\n%s", diff)
	}

	code, stdout, _ = runCLI(t, "validate", "--json", "-c", filepath.Join(t.TempDir(), "nope.yaml"))
	if code != ExitUsage || !strings.Contains(stdout, `"code": "file"`) {
		t.Errorf("validate --json on a missing file = %d, %s", code, stdout)
	}
}

// TestInitMatchesQuickstart keeps examples/quickstart what `agent-eval init`
// writes, and checks that init never overwrites without --force.
func TestInitMatchesQuickstart(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "quickstart") // init names the eval after its folder
	code, stdout, stderr := runCLI(t, "init", dir)
	if code != ExitOK {
		t.Fatalf("init exited %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "is ready") {
		t.Errorf("init stdout = %q", stdout)
	}
	got, want := tree(t, dir), tree(t, "../../examples/quickstart")
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("init output differs from examples/quickstart (-want +got); regenerate it with 'agent-eval init --force examples/quickstart':\n%s", diff)
	}
	if code, _, _ := runCLI(t, "validate", "-c", filepath.Join(dir, "eval.yaml")); code != ExitOK {
		t.Errorf("validate on the starter exited %d", code)
	}
	code, _, stderr = runCLI(t, "init", dir)
	if code != ExitUsage || !strings.Contains(stderr, "already exist(s)") {
		t.Errorf("init over existing files = %d, %q; want 2 and 'already exist(s)'", code, stderr)
	}
	if code, _, stderr = runCLI(t, "init", "--force", dir); code != ExitOK {
		t.Errorf("init --force = %d: %s", code, stderr)
	}
}

func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[rel] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestSchemaCommand(t *testing.T) {
	t.Parallel()
	code, stdout, _ := runCLI(t, "schema")
	if code != ExitOK {
		t.Fatalf("schema exited %d", code)
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("schema output is not JSON: %v", err)
	}
	if doc["$schema"] != "https://json-schema.org/draft/2020-12/schema" {
		t.Errorf("$schema = %v", doc["$schema"])
	}
	props, _ := doc["properties"].(map[string]any)
	var keys []string
	for k := range props {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	want := []string{"dataset", "description", "execution", "generation", "hooks", "inputs", "judges", "matrix", "mlflow", "models",
		"name", "outputs", "permissions", "reward", "runner", "skill", "thresholds", "title", "traces", "version"}
	if diff := cmp.Diff(want, keys); diff != "" {
		t.Errorf("top-level schema keys (-want +got):\n%s", diff)
	}
	out := filepath.Join(t.TempDir(), "s.json")
	if code, _, _ := runCLI(t, "schema", "-o", out); code != ExitOK {
		t.Fatalf("schema -o exited %d", code)
	}
	if b, _ := os.ReadFile(out); string(b) != stdout {
		t.Error("schema -o wrote something other than what schema prints")
	}
}

func TestUsageErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"validate", "--bogus"}, "unknown flag: --bogus"},
		{[]string{"validate", "a", "b"}, "at most 1 argument"},
		{[]string{"version", "extra"}, "takes no arguments"},
		{[]string{"init", "a", "b"}, "at most 1 argument"},
		{[]string{"nosuchcommand"}, "unknown command"},
	}
	for _, tt := range tests {
		code, stdout, stderr := runCLI(t, tt.args...)
		if code != ExitUsage || !strings.Contains(stderr, tt.want) || stdout != "" {
			t.Errorf("agent-eval %v = %d, stdout %q, stderr %q; want exit 2 and %q on stderr", tt.args, code, stdout, stderr, tt.want)
		}
	}
}

func TestVersion(t *testing.T) {
	t.Parallel()
	code, stdout, _ := runCLI(t, "version", "--json")
	var info map[string]any
	if code != ExitOK || json.Unmarshal([]byte(stdout), &info) != nil || info["go_version"] == nil || info["version"] == nil {
		t.Errorf("version --json = %d, %q", code, stdout)
	}
}

// syncBuffer is a bytes.Buffer safe for a command writing in one goroutine
// while the test reads in another.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestFakeModel serves a script, answers a request through it, and stops
// cleanly (exit 0) when interrupted.
func TestFakeModel(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	script := filepath.Join(dir, "s.yaml")
	if err := os.WriteFile(script, []byte("turns: [{text: from the fake}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	logFile := filepath.Join(dir, "requests.jsonl")
	var out, errb syncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int)
	go func() {
		done <- run(ctx, []string{"fake-model", "--script", script, "--log", logFile}, env{Streams: Streams{In: strings.NewReader(""), Out: &out, Err: &errb}, Getenv: func(string) string { return "" }})
	}()
	var url string
	for i := 0; i < 500 && url == ""; i++ {
		url = strings.TrimSpace(out.String())
		time.Sleep(10 * time.Millisecond)
	}
	if !strings.HasPrefix(url, "http://127.0.0.1:") {
		cancel()
		t.Fatalf("fake-model printed %q, stderr %q", url, errb.String())
	}
	body := `{"model":"m","max_tokens":5,"tools":[{"name":"Bash"}],"messages":[{"role":"user","content":"hi"}]}`
	resp, err := http.Post(url+"/v1/messages", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(b), `"text":"from the fake"`) {
		t.Errorf("answer = %s", b)
	}
	// What it received is read back from the log.
	if resp, err = http.Get(url + "/_fake/requests"); err != nil {
		t.Fatal(err)
	}
	b, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.HasPrefix(string(b), "[") || !strings.Contains(string(b), `"kind":"main"`) || !strings.Contains(string(b), `"last":"hi"`) {
		t.Errorf("/_fake/requests = %s", b)
	}
	cancel()
	if code := <-done; code != ExitOK {
		t.Errorf("fake-model exited %d after an interrupt, want 0", code)
	}
	if logged, _ := os.ReadFile(logFile); !strings.Contains(string(logged), `"kind":"main"`) {
		t.Errorf("request log = %q", logged)
	}
	if code, _, stderr := runCLI(t, "fake-model"); code != ExitUsage || !strings.Contains(stderr, "--script") {
		t.Errorf("fake-model without a script = %d, %q", code, stderr)
	}
}

func TestPermissionsCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	evalPath := filepath.Join(dir, "eval.yaml")
	src := `execution: {prompt: hi}
permissions:
  allow: [Skill, "mcp__*", "Bash(python3 scripts/foo.py *)"]
  deny:
    - { path: eval/, tools: [Read, Bash] }
`
	if err := os.WriteFile(evalPath, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	if err := os.MkdirAll(filepath.Join(ws, "scripts"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "scripts", "foo.py"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI(t, "permissions", "-c", evalPath, "--workspace", ws, "--json")
	if code != ExitOK {
		t.Fatalf("permissions exited %d: %s", code, stderr)
	}
	var rep permissionsReport
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Form != "path" || rep.SettingsFile == nil || *rep.SettingsFile != ".claude/.eval-permissions.json" {
		t.Errorf("form %q, settings file %v", rep.Form, rep.SettingsFile)
	}
	if diff := cmp.Diff([]string{"--settings", ".claude/.eval-permissions.json"}, rep.CLIArgs); diff != "" {
		t.Errorf("cli_args (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"Bash(python3 " + ws + "/scripts/foo.py *)"}, rep.Twins); diff != "" {
		t.Errorf("twins (-want +got):\n%s", diff)
	}
	if len(rep.Lint) != 1 || rep.Lint[0].Line != 3 || rep.Lint[0].Index != 1 {
		t.Errorf("lint = %+v, want the mcp__* allow glob on line 3", rep.Lint)
	}
	// eval/ denied for Bash turns the sandbox on; the block lands in the
	// settings file the run passes with --settings.
	if !rep.Sandbox.On || rep.Sandbox.Settings["enabled"] != true || rep.Sandbox.Settings["failIfUnavailable"] != true {
		t.Errorf("sandbox = %+v, want on with enabled and failIfUnavailable", rep.Sandbox)
	}
	if sb, _ := rep.Settings["sandbox"].(map[string]any); sb["enabled"] != true {
		t.Errorf("the settings file has no enabled sandbox: %v", rep.Settings["sandbox"])
	}

	code, _, stderr = runCLI(t, "validate", "-c", evalPath)
	if code != ExitOK || !strings.Contains(stderr, "eval.yaml:3:") || !strings.Contains(stderr, "permissions.allow[1]: warning: Claude Code skips an allow glob") {
		t.Errorf("validate = %d, stderr %q; want exit 0 and the lint warning", code, stderr)
	}
	code, _, stderr = runCLI(t, "permissions", "-c", evalPath, "--runner", "cursor")
	if code != ExitUsage || !strings.Contains(stderr, `eval.yaml:3:11: permissions.allow[0]: allow rule "Skill": no Cursor equivalent of Skill`) {
		t.Errorf("permissions --runner cursor = %d, %q", code, stderr)
	}
	for _, args := range [][]string{{"--runner", "bogus"}, {"--write"}} {
		if code, _, _ := runCLI(t, append([]string{"permissions", "-c", evalPath}, args...)...); code != ExitUsage {
			t.Errorf("permissions %v exited %d, want 2", args, code)
		}
	}
}

func TestCompileAndExplain(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	evalPath := filepath.Join(dir, "eval.yaml")
	src := `execution: {prompt: hi}
inputs:
  tools:
    - match: Questions asked to the user via AskUserQuestion.
      prompt: Pick the first option.
    - match: Any interaction with Jira via Bash scripts calling the Jira API.
`
	if err := os.WriteFile(evalPath, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(t, "compile", "-c", evalPath)
	if code != ExitOK {
		t.Fatalf("compile = %d: %s", code, stderr)
	}
	b, err := os.ReadFile(filepath.Join(dir, "tool_handlers.yaml"))
	if err != nil || !strings.Contains(string(b), "# handlers[1]: resolved by catalog (Jira)") || !strings.Contains(string(b), "JIRA_SERVER") {
		t.Fatalf("tool_handlers.yaml = %s (%v)", b, err)
	}
	code, stdout, _ := runCLI(t, "explain", "-c", evalPath, "--tool", "Bash", "--command", "ls && jira issue create", "--env", "JIRA_SERVER=https://prod.example.com", "--json")
	var ex explanation
	if code != ExitOK || json.Unmarshal([]byte(stdout), &ex) != nil {
		t.Fatalf("explain = %d, %s", code, stdout)
	}
	if ex.Decision.Kind != "deny" || ex.Decision.Handler != 1 || !strings.Contains(ex.Decision.Detail, `"jira issue create"`) || !strings.HasSuffix(ex.Source, "tool_handlers.yaml") {
		t.Errorf("explain = %+v", ex)
	}
	code, stdout, _ = runCLI(t, "explain", "-c", evalPath, "--tool", "Bash", "--command", "jira issue create", "--env", "JIRA_SERVER=http://localhost:8080")
	if code != ExitOK || !strings.Contains(stdout, "decision: pass") || !strings.Contains(stdout, "handler:  2 (handlers[1]): ") || !strings.Contains(stdout, "(handler 2's checks pass)") || !strings.Contains(stdout, "env_checks passed") {
		t.Errorf("explain against localhost = %d, %s", code, stdout)
	}
	// A changed inputs.tools makes validate warn that the file is stale.
	if err := os.WriteFile(evalPath, []byte(strings.Replace(src, "first", "last", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCLI(t, "validate", "-c", evalPath); code != ExitOK || !strings.Contains(stderr, "run 'agent-eval compile' again") {
		t.Errorf("validate after a change = %d, %q", code, stderr)
	}
	if code, _, _ := runCLI(t, "explain", "-c", evalPath); code != ExitUsage {
		t.Errorf("explain without --tool = %d, want 2", code)
	}
}

// TestCompileResolveLLM resolves a handler the catalogue does not know
// through the fake Messages API: the first answer is invalid (a regex that
// does not compile), goes back with the error, and the corrected one is kept.
func TestCompileResolveLLM(t *testing.T) {
	script := `turns:
  - tool_use: {name: submit_handler, input: {patterns: [Bash], input_filters: ["("], env_checks: {}}}
  - tool_use: {name: submit_handler, input: {patterns: [Bash], input_filters: ['\bbilling-cli\b'], env_checks: {BILLING_URL: {must_contain: [sandbox]}}}}
`
	srv := fakeapi.New(fakeapi.Options{Script: mustScript(t, script)})
	fakemodel.Serve(t, srv)
	dir := t.TempDir()
	evalPath := filepath.Join(dir, "eval.yaml")
	src := "execution: {prompt: hi}\ninputs:\n  tools:\n    - match: Any script that charges customers through the billing system.\n      prompt: Only against the sandbox.\n"
	if err := os.WriteFile(evalPath, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(t, "compile", "-c", evalPath, "--resolve", "llm")
	if code != ExitOK {
		t.Fatalf("compile --resolve llm = %d: %s", code, stderr)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "tool_handlers.yaml"))
	for _, want := range []string{"# handlers[0]: resolved by llm", `\bbilling-cli\b`, "BILLING_URL", "sandbox"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("tool_handlers.yaml lacks %q:\n%s", want, b)
		}
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || len(reqs[1].ToolResults) != 1 || !reqs[1].ToolResults[0].IsError || !strings.Contains(reqs[1].ToolResults[0].Content, "Invalid answer") {
		t.Errorf("requests = %+v; want the invalid answer sent back once with its error", reqs)
	}
	if reqs[0].Model != "claude-haiku-4-5-20251001" {
		t.Errorf("model = %q, want the hook model", reqs[0].Model)
	}
}

func mustScript(t *testing.T, src string) *fakeapi.Script {
	t.Helper()
	s, err := fakeapi.ParseScript([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestValidateReadsHandlersLikeTheHook: a tool_handlers.yaml the hook would
// refuse (an unknown key) is an error for validate too, not a silent pass.
// TestWeakMustContainWarns: validate accepts a seed-era must_contain
// handlers file, and warns about the short words in it that production
// host names contain; a host_in check draws no warning.
func TestWeakMustContainWarns(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, checks string
		warn         bool
	}{
		{"short words", `{must_contain: [localhost, test, stag, jira.test.example.com]}`, true},
		{"full hosts only", `{must_contain: [localhost, 127.0.0.1, jira.staging.example.com]}`, false},
		{"host_in", `{host_in: [localhost, test]}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			evalPath := filepath.Join(dir, "eval.yaml")
			if err := os.WriteFile(evalPath, []byte("execution: {prompt: hi}\ninputs:\n  tools:\n    - match: Jira via Bash.\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			f := "handlers:\n  - match: x\n    patterns: [Bash]\n    input_filters: ['jira']\n    env_checks:\n      JIRA_SERVER: " + tc.checks + "\n"
			if err := os.WriteFile(filepath.Join(dir, "tool_handlers.yaml"), []byte(f), 0o644); err != nil {
				t.Fatal(err)
			}
			code, _, stderr := runCLI(t, "validate", "-c", evalPath)
			warned := strings.Contains(stderr, "short words that production host names contain")
			if code != ExitOK || warned != tc.warn {
				t.Fatalf("validate = %d, %q; want exit 0, warning %v", code, stderr, tc.warn)
			}
			if tc.warn && (!strings.Contains(stderr, `"test", "stag" are`) || strings.Contains(stderr, `"localhost"`) || !strings.Contains(stderr, "use host_in")) {
				t.Errorf("warning %q should name test and stag, not localhost, and point at host_in", stderr)
			}
		})
	}
}

func TestValidateReadsHandlersLikeTheHook(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	evalPath := filepath.Join(dir, "eval.yaml")
	if err := os.WriteFile(evalPath, []byte("execution: {prompt: hi}\ninputs:\n  tools:\n    - match: Jira via Bash.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := "handlers:\n  - match: x\n    patterns: [Bash]\n    input_filter: ['jira']\n"
	if err := os.WriteFile(filepath.Join(dir, "tool_handlers.yaml"), []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(t, "validate", "-c", evalPath)
	if code != ExitUsage || !strings.Contains(stderr, "field input_filter not found") || !strings.Contains(stderr, "the hook would deny every call") {
		t.Errorf("validate = %d, %q; want exit 2 naming the unknown key", code, stderr)
	}
	if code, _, stderr := runCLI(t, "explain", "-c", evalPath, "--tool", "Bash", "--command", "ls"); code == ExitOK {
		t.Errorf("explain accepted a handlers file the hook refuses: %q", stderr)
	}
}
