package mlflow_test

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v3"

	"github.com/agent-eval/agent-eval/internal/export/mlflow"
	"github.com/agent-eval/agent-eval/internal/rundir"
	"github.com/agent-eval/agent-eval/internal/testutil/mlflowserver"
)

// planted is a secret the run's environment holds and a judge's rationale
// quotes: nothing the server stores may hold it.
const planted = "sk-ant-api03-PLANTEDplantedPLANTED0123456789abcdefXYZ-_AAAA"

// fixture copies testdata/run into a temporary folder; edit changes its
// summary first.
func fixture(t *testing.T, edit func(*rundir.Summary)) rundir.Dir {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "20261201-031500.000-fixture")
	if err := os.CopyFS(dst, os.DirFS("testdata/run")); err != nil {
		t.Fatal(err)
	}
	d, err := rundir.Open(dst)
	if err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		s, err := d.ReadSummary()
		if err != nil {
			t.Fatal(err)
		}
		edit(s)
		b, err := yaml.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(d.Summary(), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return d
}

func logIt(t *testing.T, s *mlflowserver.Server, d rundir.Dir, exp string, tags map[string]string, env map[string]string) *mlflow.Result {
	t.Helper()
	environ := []string{"AGENT_EVAL_TEST_TOKEN=" + planted}
	res, err := mlflow.Log(t.Context(), mlflow.Options{Dir: d, Experiment: exp, TrackingURI: s.URL, Tags: tags,
		Getenv: func(k string) string { return env[k] }, Environ: environ, Version: "v1.0.0-test"})
	if err != nil {
		b, _ := os.ReadFile(s.Log)
		t.Fatalf("Log: %v\nserver log:\n%s", err, b)
	}
	return res
}

// TestLogToServer logs a scored run to a real tracking server and reads
// everything back through the server's API.
func TestLogToServer(t *testing.T) {
	s := mlflowserver.Start(t)
	const runName = "20261201-031500.000-fixture"
	d := fixture(t, func(sum *rundir.Summary) {
		sum.Cases[0].Verdicts[1].Rationale = "the agent printed " + planted + " to the log"
	})
	gh := map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_REPOSITORY": "acme/evals", "GITHUB_SHA": "abc123",
		"GITHUB_REF_NAME": "main", "GITHUB_RUN_ID": "42", "GITHUB_SERVER_URL": "https://github.com"}
	res := logIt(t, s, d, "greetings", map[string]string{"team": "evals", "passed": "overridden", "mlflow.runName": "hijack"}, gh)

	expID, err := s.ExperimentID("greetings")
	if err != nil {
		t.Fatal(err)
	}
	if res.ExperimentID != expID || !res.Created {
		t.Fatalf("Log = %+v, want experiment %s, created", res, expID)
	}
	if want := s.URL + "/#/experiments/" + expID + "/runs/" + res.RunID; res.URL != want {
		t.Errorf("URL = %s, want %s", res.URL, want)
	}
	r := oneRun(t, s, "greetings", runName)
	if r.Info.RunID != res.RunID || r.Info.Status != "FINISHED" {
		t.Errorf("run %s status %s, want %s FINISHED", r.Info.RunID, r.Info.Status, res.RunID)
	}
	wantParams := map[string]string{"run_id": runName, "eval_name": "fixture-eval", "model": "claude-sonnet-4-5",
		"runner": "claude-code", "agent_version": "2.1.332", "agent_eval_version": "v0.9.0", "execution_mode": "case", "repeats": "1"}
	for k, v := range wantParams {
		if got := r.Params()[k]; got != v {
			t.Errorf("param %s = %q, want %q", k, got, v)
		}
	}
	wantMetrics := map[string]float64{"tests_pass/pass_rate": 0.5, "tests_pass/mean": 0.5, "tests_pass/interval_low": 0.0945,
		"tests_pass/interval_high": 0.9055, "tests_pass/error_rate": 0, "quality/mean": 4, "quality/error_rate": 0.5,
		"cost_usd": 0.1348, "duration_s": 30.5, "cases": 2, "judged_cases": 2, "denials": 1, "reward": 0.55, "tokens/input": 1200}
	for k, v := range wantMetrics {
		if got, ok := r.Metrics()[k]; !ok || got != v {
			t.Errorf("metric %s = %v (%v), want %v", k, got, ok, v)
		}
	}
	if _, ok := r.Metrics()["quality/pass_rate"]; ok {
		t.Errorf("metric quality/pass_rate logged for a judge without a pass rate")
	}
	wantTags := map[string]string{"passed": "overridden", "regressions_detected": "no", "team": "evals", "mlflow.runName": runName,
		"forge_platform": "github", "repository_url": "https://github.com/acme/evals", "commit_sha": "abc123", "ref_name": "main",
		"pipeline_run_url": "https://github.com/acme/evals/actions/runs/42", "mlflow.source.git.commit": "0123456789abcdef0123456789abcdef01234567"}
	for k, v := range wantTags {
		if got := r.Tags()[k]; got != v {
			t.Errorf("tag %s = %q, want %q", k, got, v)
		}
	}
	arts := r.Artifacts
	for _, name := range []string{"summary.yaml", "report.html", "junit.xml", "run_result.json", "config/eval.yaml", "per_case_results.json"} {
		if _, ok := arts[name]; !ok {
			t.Errorf("artifact %s missing; have %v", name, keys(arts))
		}
	}
	var table struct {
		Columns []string `json:"columns"`
		Data    [][]any  `json:"data"`
	}
	if err := json.Unmarshal([]byte(arts["per_case_results.json"]), &table); err != nil {
		t.Fatal(err)
	}
	if len(table.Data) != 4 || table.Columns[0] != "case_id" || table.Data[0][0] != "deploy-001" || table.Data[0][3] != "tests_pass" {
		t.Errorf("per_case_results.json = %+v", table)
	}
	if !strings.Contains(arts["summary.yaml"], "[redacted] to the log") {
		t.Errorf("summary.yaml's rationale is not redacted:\n%s", arts["summary.yaml"])
	}

	// Logged again, with another tag and a failed gate: the same run,
	// updated.
	d2 := fixture(t, func(sum *rundir.Summary) { sum.Passed = false; sum.Thresholds[0].OK = false })
	res2 := logIt(t, s, d2, "greetings", map[string]string{"team": "platform"}, nil)
	if res2.RunID != res.RunID || res2.Created {
		t.Errorf("logged again: %+v, want run %s updated", res2, res.RunID)
	}
	if len(res2.Warnings) != 0 {
		t.Errorf("warnings %v, want none (the params did not change)", res2.Warnings)
	}
	r2 := oneRun(t, s, "greetings", runName)
	tags := r2.Tags()
	if tags["regressions_detected"] != "yes" || tags["passed"] != "no" || tags["team"] != "platform" {
		t.Errorf("after a failed gate: tags %v, want regressions_detected yes, passed no, team platform", tags)
	}

	// Nothing the server stored holds the planted secret: not its answers,
	// not its artifact store, not its database.
	for name, b := range r2.Artifacts {
		if strings.Contains(b, planted) {
			t.Errorf("artifact %s holds the secret", name)
		}
	}
	stored, _ := json.Marshal([]mlflowserver.Run{r, r2})
	if bytes.Contains(stored, []byte(planted)) {
		t.Errorf("the run's params, metrics or tags hold the secret")
	}
	for _, root := range []string{s.Artifacts, filepath.Dir(s.DB)} {
		_ = filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() {
				return err
			}
			if b, _ := os.ReadFile(p); bytes.Contains(b, []byte(planted)) {
				t.Errorf("%s holds the secret", p)
			}
			return nil
		})
	}
	if b, err := os.ReadFile(s.DB); err != nil || len(b) == 0 {
		t.Errorf("the store %s was not searched: %v", s.DB, err)
	}
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// oneRun is the one run named name in the experiment.
func oneRun(t *testing.T, s *mlflowserver.Server, exp, name string) mlflowserver.Run {
	t.Helper()
	runs, err := s.Runs(exp, name)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 1 {
		t.Fatalf("%d runs named %s, want 1", len(runs), name)
	}
	return runs[0]
}

// TestLogWithoutArtifactProxy: a server that does not serve artifacts gets
// the params, metrics and tags, and a warning that no artifact was sent.
func TestLogWithoutArtifactProxy(t *testing.T) {
	s := mlflowserver.StartWithoutProxy(t)
	res := logIt(t, s, fixture(t, nil), "plain", nil, nil)
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "not served by the tracking server") {
		t.Errorf("warnings %q, want one saying the artifacts were not sent", res.Warnings)
	}
	r := oneRun(t, s, "plain", "20261201-031500.000-fixture")
	if r.Info.Status != "FINISHED" || r.Params()["eval_name"] != "fixture-eval" || r.Tags()["passed"] != "yes" || r.Metrics()["cases"] != 2 {
		t.Errorf("run %s: params %v, tags %v, metrics %v", r.Info.Status, r.Params(), r.Tags(), r.Metrics())
	}
	if r.Info.ArtifactURI == "" || strings.HasPrefix(r.Info.ArtifactURI, "mlflow-artifacts:") {
		t.Errorf("artifact_uri %q, want the server's folder", r.Info.ArtifactURI)
	}
}
