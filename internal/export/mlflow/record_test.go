package mlflow

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/redact"
	"github.com/agent-eval/agent-eval/internal/results"
	"github.com/agent-eval/agent-eval/internal/rundir"
)

func ptr[T any](v T) *T { return &v }

func testInput() Input {
	return Input{
		Run: &results.RunResult{RunID: "r1", EvalName: "greet", Model: "claude-sonnet-4-5", Agent: "claude-code",
			AgentVersion: "2.1.0", HarnessVer: "v0.9.0", ExecutionMode: "case", NumTurns: 3},
		Summary: &rundir.Summary{RunID: "r1", EvalName: "greet", NumCases: 2, CostUSD: 0.5, DurationS: 12, Denials: 1,
			JudgedCases: 2, Passed: true, Reward: ptr(0.75),
			Judges: []rundir.JudgeSummary{{Name: "ok", Type: "bool", Scored: 2, PassRate: ptr(0.5), Mean: ptr(0.5), ErrorRate: 0,
				Interval: &rundir.Interval{Low: 0.1, High: 0.9}}}},
		RunID: "r1", Version: "v1.0.0", Now: 1000, Red: redact.New(nil),
	}
}

func toMap(kv []KeyValue) map[string]string {
	m := map[string]string{}
	for _, x := range kv {
		m[x.Key] = x.Value
	}
	return m
}

func TestBuild(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		edit     func(*Input)
		params   map[string]string // a subset
		tags     map[string]string // a subset
		metrics  map[string]float64
		noMetric []string
	}{
		{name: "a passing run",
			params: map[string]string{"run_id": "r1", "eval_name": "greet", "model": "claude-sonnet-4-5", "runner": "claude-code",
				"agent_version": "2.1.0", "agent_eval_version": "v0.9.0", "execution_mode": "case", "repeats": "1"},
			tags: map[string]string{"passed": "yes", "regressions_detected": "no", "num_judges": "1", "mlflow.runName": "r1",
				"agent_eval.logged_by": "v1.0.0"},
			metrics: map[string]float64{"ok/pass_rate": 0.5, "ok/mean": 0.5, "ok/interval_low": 0.1, "ok/interval_high": 0.9,
				"ok/error_rate": 0, "cost_usd": 0.5, "duration_s": 12, "cases": 2, "judged_cases": 2, "denials": 1, "reward": 0.75, "num_turns": 3}},
		{name: "a failed gate is a regression",
			edit: func(in *Input) { in.Summary.Passed = false },
			tags: map[string]string{"passed": "no", "regressions_detected": "yes"}},
		{name: "config tags win, except mlflow.runName",
			edit: func(in *Input) {
				in.Tags = map[string]string{"passed": "mine", "mlflow.runName": "other", "team": "evals"}
			},
			tags: map[string]string{"passed": "mine", "team": "evals", "mlflow.runName": "r1"}},
		{name: "no reward, no pass rate, repeats",
			edit: func(in *Input) {
				in.Summary.Reward = nil
				in.Summary.Judges[0].PassRate = nil
				in.Run.Repeats = 3
			},
			params:   map[string]string{"repeats": "3"},
			noMetric: []string{"reward", "ok/pass_rate"}},
		{name: "empty params are left out",
			edit:     func(in *Input) { in.Run.AgentVersion = ""; in.Summary.Model = ""; in.Run.Model = "" },
			noMetric: nil, params: map[string]string{"agent_version": "", "model": ""}},
		{name: "a judge name MLflow refuses becomes a name it takes",
			edit:    func(in *Input) { in.Summary.Judges[0].Name = "ok!" },
			metrics: map[string]float64{"ok_/mean": 0.5}},
		{name: "secrets are redacted",
			edit: func(in *Input) {
				in.Red = redact.New(map[string]string{"MY_TOKEN": "s3cr3t-value-0123456789"})
				in.Tags = map[string]string{"note": "token s3cr3t-value-0123456789"}
				in.Run.Model = "s3cr3t-value-0123456789"
				in.Summary.Model = ""
			},
			params: map[string]string{"model": "[redacted]"},
			tags:   map[string]string{"note": "token [redacted]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := testInput()
			if tt.edit != nil {
				tt.edit(&in)
			}
			rec := Build(in)
			params, tags := toMap(rec.Params), toMap(rec.Tags)
			for k, v := range tt.params {
				if got, ok := params[k]; got != v || (v == "" && ok) {
					t.Errorf("param %s = %q (set %v), want %q", k, got, ok, v)
				}
			}
			for k, v := range tt.tags {
				if tags[k] != v {
					t.Errorf("tag %s = %q, want %q", k, tags[k], v)
				}
			}
			metrics := map[string]float64{}
			for _, m := range rec.Metrics {
				metrics[m.Key] = m.Value
				if m.Timestamp != 1000 || m.Step != 0 {
					t.Errorf("metric %s at %d step %d, want 1000 step 0", m.Key, m.Timestamp, m.Step)
				}
			}
			for k, v := range tt.metrics {
				if got, ok := metrics[k]; !ok || got != v {
					t.Errorf("metric %s = %v (set %v), want %v", k, got, ok, v)
				}
			}
			for _, k := range tt.noMetric {
				if _, ok := metrics[k]; ok {
					t.Errorf("metric %s logged, want none", k)
				}
			}
		})
	}
}

func TestCITags(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		env  map[string]string
		want []KeyValue
	}{
		{"none", nil, nil},
		{"github pull request", map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_REPOSITORY": "o/r", "GITHUB_SHA": "abc",
			"GITHUB_REF_NAME": "12/merge", "GITHUB_REF": "refs/pull/12/merge", "GITHUB_RUN_ID": "9"},
			[]KeyValue{{"forge_platform", "github"}, {"repository_url", "https://github.com/o/r"}, {"commit_sha", "abc"},
				{"ref_name", "12/merge"}, {"change_id", "12"}, {"pipeline_run_id", "9"}, {"pipeline_run_url", "https://github.com/o/r/actions/runs/9"}}},
		{"gitlab", map[string]string{"GITLAB_CI": "true", "CI_PROJECT_URL": "https://gl/o/r", "CI_COMMIT_SHA": "def",
			"CI_COMMIT_REF_NAME": "main", "CI_PIPELINE_ID": "5", "CI_PIPELINE_URL": "https://gl/o/r/-/pipelines/5"},
			[]KeyValue{{"forge_platform", "gitlab"}, {"repository_url", "https://gl/o/r"}, {"commit_sha", "def"},
				{"ref_name", "main"}, {"pipeline_run_id", "5"}, {"pipeline_run_url", "https://gl/o/r/-/pipelines/5"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := CITags(func(k string) string { return tt.env[k] })
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("CITags (-want +got):\n%s", diff)
			}
		})
	}
}

func TestBatches(t *testing.T) {
	t.Parallel()
	kvs := func(n int) []KeyValue {
		out := make([]KeyValue, n)
		for i := range out {
			out[i] = KeyValue{Key: fmt.Sprint("k", i), Value: "v"}
		}
		return out
	}
	tests := []struct {
		name                   string
		params, tags, metrics  int
		wantBatches, wantTotal int
	}{
		{"empty is one empty batch", 0, 0, 0, 1, 0},
		{"small fits one", 9, 12, 40, 1, 61},
		{"150 tags take two", 5, 150, 10, 2, 165},
		{"1500 metrics take two", 9, 12, 1500, 2, 1521},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Record{Params: kvs(tt.params), Tags: kvs(tt.tags), Metrics: make([]Metric, tt.metrics)}
			bs := r.Batches()
			total := 0
			for _, b := range bs {
				if len(b.Params) > 100 || len(b.Tags) > 100 || len(b.Params)+len(b.Tags)+len(b.Metrics) > 1000 {
					t.Errorf("a batch of %d params, %d tags, %d metrics is over MLflow's limits", len(b.Params), len(b.Tags), len(b.Metrics))
				}
				total += len(b.Params) + len(b.Tags) + len(b.Metrics)
			}
			if len(bs) != tt.wantBatches || total != tt.wantTotal {
				t.Errorf("Batches() = %d batches of %d entities, want %d of %d", len(bs), total, tt.wantBatches, tt.wantTotal)
			}
		})
	}
}

func TestCaseTable(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", 600)
	s := &rundir.Summary{Cases: []rundir.CaseSummary{
		{ID: "a", Status: "completed", Verdicts: []rundir.Verdict{{Judge: "ok", Value: ptr(1.0), Passed: ptr(true), Rationale: long}}},
		{ID: "b", Status: "failed", Verdicts: []rundir.Verdict{{Judge: "ok", Error: "boom"}}},
	}}
	got := CaseTable(s, redact.New(nil))
	want := Table{Columns: []string{"case_id", "attempt", "status", "judge", "value", "passed", "rationale", "error"},
		Data: [][]any{{"a", 1, "completed", "ok", 1.0, true, strings.Repeat("é", 499) + "…", ""},
			{"b", 1, "failed", "ok", nil, nil, "", "boom"}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("CaseTable (-want +got):\n%s", diff)
	}

	// With repeats: the reduced verdict (attempt null), then each attempt's.
	s = &rundir.Summary{Cases: []rundir.CaseSummary{{ID: "a", Status: "completed",
		Verdicts: []rundir.Verdict{{Judge: "ok", Value: ptr(1.0), Passed: ptr(true)}},
		Attempts: []rundir.CaseSummary{
			{Attempt: 1, Status: "completed", Verdicts: []rundir.Verdict{{Judge: "ok", Value: ptr(1.0), Passed: ptr(true)}}},
			{Attempt: 2, Status: "timeout", Verdicts: []rundir.Verdict{{Judge: "ok", Value: ptr(0.0), Passed: ptr(false)}}}}}}}
	got = CaseTable(s, redact.New(nil))
	var attempts []any
	for _, r := range got.Data {
		attempts = append(attempts, r[1])
	}
	if diff := cmp.Diff([]any{nil, 1, 2}, attempts); diff != "" {
		t.Errorf("attempt column (-want +got):\n%s", diff)
	}
	if string(CaseTable(&rundir.Summary{}, nil).JSON()) != `{"columns":["case_id","attempt","status","judge","value","passed","rationale","error"],"data":[]}` {
		t.Errorf("an empty table is %s", CaseTable(&rundir.Summary{}, nil).JSON())
	}
}

func TestArtifactPath(t *testing.T) {
	t.Parallel()
	tests := []struct{ uri, want string }{
		{"mlflow-artifacts:/1/abc/artifacts", "/api/2.0/mlflow-artifacts/artifacts/1/abc/artifacts/summary.yaml"},
		{"mlflow-artifacts://host:5000/1/abc/artifacts", "/api/2.0/mlflow-artifacts/artifacts/1/abc/artifacts/summary.yaml"},
		{"http://host/api/2.0/mlflow-artifacts/artifacts/1/abc/artifacts", "/api/2.0/mlflow-artifacts/artifacts/1/abc/artifacts/summary.yaml"},
		{"s3://bucket/1/abc/artifacts", ""},
		{"/tmp/mlruns/1/abc/artifacts", ""},
		{"mlflow-artifacts:/", ""},
	}
	for _, tt := range tests {
		got, err := artifactPath(tt.uri, "summary.yaml")
		if got != tt.want || (err == nil) != (tt.want != "") {
			t.Errorf("artifactPath(%q) = %q, %v; want %q", tt.uri, got, err, tt.want)
		}
	}
}

func TestRunNameFilter(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, want string }{
		{"20261201-101500.000-claude", "tags.`mlflow.runName` = '20261201-101500.000-claude'"},
		{"it's", "tags.`mlflow.runName` = \"it's\""},
		{`a'b"c`, ""},
	}
	for _, tt := range tests {
		got, err := runNameFilter(tt.name)
		if got != tt.want || (err == nil) != (tt.want != "") {
			t.Errorf("runNameFilter(%q) = %q, %v; want %q", tt.name, got, err, tt.want)
		}
	}
}

func TestNewParams(t *testing.T) {
	t.Parallel()
	params := []KeyValue{{"a", "1"}, {"b", "2"}, {"c", "3"}}
	got, warns := newParams(params, []KeyValue{{"a", "1"}, {"b", "old"}})
	if diff := cmp.Diff([]KeyValue{{"c", "3"}}, got); diff != "" {
		t.Errorf("newParams (-want +got):\n%s", diff)
	}
	if len(warns) != 1 || !strings.Contains(warns[0], `param b keeps its first value "old"`) {
		t.Errorf("warnings %q, want one for b", warns)
	}
}

// TestClientAuth: the credentials go in the Authorization header, never in
// the URI the client names.
func TestClientAuth(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, uri string
		env       map[string]string
		want      string
	}{
		{"none", "http://HOST", nil, ""},
		{"token", "http://HOST", map[string]string{"MLFLOW_TRACKING_TOKEN": "tok"}, "Bearer tok"},
		{"basic", "http://HOST", map[string]string{"MLFLOW_TRACKING_USERNAME": "u", "MLFLOW_TRACKING_PASSWORD": "p"}, "Basic dTpw"},
		{"token wins", "http://HOST", map[string]string{"MLFLOW_TRACKING_TOKEN": "tok", "MLFLOW_TRACKING_USERNAME": "u"}, "Bearer tok"},
		{"from the URI", "http://u:p@HOST", nil, "Basic dTpw"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				got = r.Header.Get("Authorization")
				_, _ = w.Write([]byte(`{"experiment": {"experiment_id": "7", "name": "x"}}`))
			}))
			defer srv.Close()
			uri := strings.Replace(tt.uri, "HOST", strings.TrimPrefix(srv.URL, "http://"), 1)
			c, err := NewClient(uri, func(k string) string { return tt.env[k] }, nil)
			if err != nil {
				t.Fatal(err)
			}
			exp, err := c.experiment(t.Context(), "x")
			if err != nil || exp.ID != "7" {
				t.Fatalf("experiment = %+v, %v", exp, err)
			}
			if got != tt.want {
				t.Errorf("Authorization = %q, want %q", got, tt.want)
			}
			if strings.Contains(c.URI(), "p@") {
				t.Errorf("URI() = %s holds the password", c.URI())
			}
		})
	}
}

// TestAPIError: the server's error_code and message make the error.
func TestAPIError(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusForbidden)
		_, _ = w.Write([]byte(`{"error_code": "PERMISSION_DENIED", "message": "no access to experiment"}`))
	}))
	defer srv.Close()
	c, err := NewClient(srv.URL, func(string) string { return "" }, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.experiment(t.Context(), "x")
	want := `find experiment "x": GET /api/2.0/mlflow/experiments/get-by-name: 403 PERMISSION_DENIED: no access to experiment`
	if err == nil || err.Error() != want {
		t.Errorf("err = %v, want %s", err, want)
	}
	// A server that echoes the token it refused: the error does not.
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = fmt.Fprintf(w, `{"error_code": "UNAUTHENTICATED", "message": "bad token %s"}`, strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "))
	}))
	defer echo.Close()
	c, err = NewClient(echo.URL, func(k string) string { return map[string]string{"MLFLOW_TRACKING_TOKEN": "tok-0123456789abcdef"}[k] }, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err = c.experiment(t.Context(), "x"); err == nil || strings.Contains(err.Error(), "tok-0123456789abcdef") || !strings.Contains(err.Error(), "bad token [redacted]") {
		t.Errorf("err = %v, want the echoed token hidden", err)
	}
	if _, err := NewClient("sqlite:///x.db", func(string) string { return "" }, nil); err == nil {
		t.Errorf("NewClient(sqlite) = nil error")
	}
}

func TestHideText(t *testing.T) {
	t.Parallel()
	red := redact.New(map[string]string{"MY_TOKEN": "s3cr3t-value-0123456789"})
	in := "min_pass_rate: 1\npassword: s3cr3t-value-0123456789\nkey sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGH\n"
	got := string(hideText([]byte(in), red))
	want := "min_pass_rate: 1\npassword: [redacted]\nkey [redacted]\n"
	if got != want {
		t.Errorf("hideText = %q, want %q", got, want)
	}
}

// A judge's name makes its metrics' names: whatever it is, MLflow takes
// them (a name too long is cut without MLflow's forbidden …), and the
// metrics of two judges, or of one judge, stay apart.
func TestMetricKeyOfAnyJudge(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("j", 300)
	tests := []struct {
		name, judge string
	}{
		{"plain", "tests_pass"},
		{"slashes and dots", "a/../b/"},
		{"leading slash", "/abs"},
		{"spaces and symbols", "my judge (v2) #1 ✓"},
		{"too long", long},
		{"too long, another ending", long + "x"},
		{"too long with slashes", strings.Repeat("ab/", 120)},
	}
	seen := map[string]string{}
	for _, tt := range tests {
		for _, m := range []string{"pass_rate", "mean", "error_rate"} {
			k := metricKey(tt.judge + "/" + m)
			if p := config.MLflowKeyProblem(k); p != "" {
				t.Errorf("%s: metricKey(%q) = %q, which MLflow refuses: it %s", tt.name, tt.judge+"/"+m, k, p)
			}
			if other, ok := seen[k]; ok {
				t.Errorf("%s: %s/%s has the key %q of %s", tt.name, tt.judge, m, k, other)
			}
			seen[k] = tt.judge + "/" + m
		}
	}
}
