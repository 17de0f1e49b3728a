package main

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/agent-eval/agent-eval/internal/export/otlp"
	"github.com/agent-eval/agent-eval/internal/testutil/mlflowserver"
)

// otlpSecret is a secret agent-eval's environment names
// (AGENT_EVAL_TEST_TOKEN) that a script plants in a case's input, prompt and
// tool call: no request to the endpoint may hold it.
const otlpSecret = "sk-ant-api03-e2eOtlpPlantedSecret0123456789abcdef"

// TestE2EOTLP runs testdata/otlp/*.txtar: agent-eval run --otlp with the
// real Claude Code against the fake model, its trace sent to a real MLflow
// tracking server through a proxy that records every request (so that
// what Claude Code's own export sends with --otlp-agent is seen too).
//
// Commands: otlp-spans RUN_ID prints the run's trace as MLflow stores it,
// one span a line, indented under its parent ("name status=... key=value"
// for the attributes the scripts check), failing unless the spans form
// one tree with each inside its parent's time; otlp-requests prints each
// request the endpoint got ("METHOD PATH CONTENT-TYPE", and "with
// agent_eval.case_id" when the body names that resource attribute, "LEAKED
// THE SECRET" when it holds otlpSecret), sorted, unique.
func TestE2EOTLP(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end tests run the real Claude Code CLI and MLflow")
	}
	claude := claudeCLI(t)
	srv := mlflowserver.Start(t)
	exp := srv.NewExperiment(t, "agent-eval-e2e")
	target, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	seen := map[string]bool{}
	proxy := httputil.NewSingleHostReverseProxy(target)
	rec := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		line := fmt.Sprintf("%s %s %s", r.Method, r.URL.Path, r.Header.Get("Content-Type"))
		if bytes.Contains(body, []byte(otlpSecret)) || bytes.Contains(body, []byte(otlpSecret[:24])) {
			line += " LEAKED THE SECRET"
		}
		if bytes.Contains(body, []byte("agent_eval.case_id")) {
			line += " with agent_eval.case_id" // Claude Code's resource, as --otlp-agent set it
		}
		mu.Lock()
		seen[line] = true
		mu.Unlock()
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(rec.Close) // the scripts run in parallel, after this function returns
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/otlp",
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		Setup: func(env *testscript.Env) error {
			if _, err := claudeScriptEnv(env, claude); err != nil {
				return err
			}
			env.Setenv("ANTHROPIC_API_KEY", "fake-key-for-tests")
			env.Setenv("CLAUDE_CODE_MAX_RETRIES", "1")
			env.Setenv("AGENT_EVAL_BIN", "agent-eval")
			env.Setenv("OTLP_URL", rec.URL)
			env.Setenv("MLFLOW_EXPERIMENT", exp)
			env.Setenv("AGENT_EVAL_TEST_TOKEN", otlpSecret)
			// For the mlflow: blocks and mlflow-secret-free.
			env.Setenv("MLFLOW_TRACKING_URI", srv.URL)
			env.Setenv("MLFLOW_TEST_ARTIFACTS", srv.Artifacts)
			env.Setenv("MLFLOW_TEST_DB", srv.DB)
			return shortWorkspaces(env)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"mlflow-secret-free": cmdMLflowSecretFree,
			"mlflow-traces":      cmdMLflowTraces,
			"otlp-spans": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) != 1 {
					ts.Fatalf("usage: otlp-spans RUN_ID (of the eval named demo)")
				}
				spans, err := srv.Spans(t.Context(), "tr-"+otlp.TraceID(otlp.TraceKey("demo", args[0])).String())
				if err != nil {
					ts.Fatalf("%v", err)
				}
				kids, problems := mlflowserver.Tree(spans)
				if len(problems) > 0 {
					ts.Fatalf("the trace is no tree of nested spans:\n%s", strings.Join(problems, "\n"))
				}
				var walk func(id string, depth int)
				walk = func(id string, depth int) {
					cs := kids[id]
					sort.Slice(cs, func(i, j int) bool {
						if cs[i].Start != cs[j].Start {
							return cs[i].Start < cs[j].Start
						}
						return cs[i].Name < cs[j].Name
					})
					for _, s := range cs {
						ts.Logf("%s%s %v", strings.Repeat("  ", depth), s.Name, s.Attrs)
						status := strings.TrimPrefix(s.StatusCode, "STATUS_CODE_")
						if status == "" {
							status = "UNSET"
						}
						line := strings.Repeat("  ", depth) + s.Name + " status=" + status
						for _, k := range []string{"agent_eval.case.status", "gen_ai.tool.name", "gen_ai.tool.call.id", "agent_eval.hook.decision",
							"agent_eval.hook.reason", "agent_eval.tool.permission_denied", "agent_eval.tool.input"} {
							if v, ok := s.Attrs[k]; ok {
								line += fmt.Sprintf(" %s=%v", k, v)
							}
						}
						fmt.Fprintln(ts.Stdout(), line)
						walk(s.SpanID, depth+1)
					}
				}
				walk("", 0)
			},
			"otlp-requests": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) != 0 {
					ts.Fatalf("usage: otlp-requests")
				}
				mu.Lock()
				var lines []string
				for l := range seen {
					lines = append(lines, l)
				}
				mu.Unlock()
				sort.Strings(lines)
				for _, l := range lines {
					fmt.Fprintln(ts.Stdout(), l)
				}
			},
		},
	})
}
