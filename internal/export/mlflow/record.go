package mlflow

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/redact"
	"github.com/agent-eval/agent-eval/internal/results"
	"github.com/agent-eval/agent-eval/internal/rundir"
)

// MLflow's limits on one runs/log-batch request (mlflow/utils/validation.py).
const (
	maxParamsTagsPerBatch = 100
	maxEntitiesPerBatch   = 1000
	maxParamValue         = 6000
	// RationaleLimit bounds the rationale (and error) cells of the
	// per-case table, in characters.
	RationaleLimit = 500
)

// Record is what one scored run logs: the MLflow run's name, its params,
// metrics and tags, every string redacted.
type Record struct {
	RunName string
	Params  []KeyValue
	Metrics []Metric
	Tags    []KeyValue
}

// Input is what a Record is built from.
type Input struct {
	Run     *results.RunResult
	Summary *rundir.Summary
	// RunID is the agent-eval run id (the run directory's name when the
	// run's files do not say).
	RunID string
	// Tags are mlflow.tags, which win over agent-eval's own except
	// mlflow.runName.
	Tags map[string]string
	// Getenv reads the CI's variables.
	Getenv func(string) string
	// Version is the agent-eval that logs (which may not be the one that
	// ran the run: that one is a param).
	Version string
	// Now is the metrics' timestamp, in milliseconds since the epoch.
	Now int64
	Red *redact.Redactor
}

// Build is the record of one scored run.
func Build(in Input) Record {
	red := in.Red
	r, s := in.Run, in.Summary
	rec := Record{RunName: red.String(in.RunID)}
	param := func(k, v string) {
		if v = strings.TrimSpace(red.String(v)); v != "" {
			rec.Params = append(rec.Params, KeyValue{Key: k, Value: truncate(v, maxParamValue)})
		}
	}
	param("run_id", in.RunID)
	param("eval_name", firstOf(s.EvalName, r.EvalName))
	param("model", firstOf(s.Model, r.Model))
	param("runner", r.Agent)
	param("agent_version", r.AgentVersion)
	param("agent_eval_version", r.HarnessVer)
	param("execution_mode", r.ExecutionMode)
	param("repeats", strconv.Itoa(max(r.Repeats, 1)))
	if m := r.Models; m != nil {
		param("judge_model", m.Judge)
	}

	metric := func(k string, v float64) {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return
		}
		rec.Metrics = append(rec.Metrics, Metric{Key: metricKey(red.String(k)), Value: v, Timestamp: in.Now})
	}
	opt := func(k string, v *float64) {
		if v != nil {
			metric(k, *v)
		}
	}
	for _, j := range s.Judges {
		opt(j.Name+"/pass_rate", j.PassRate)
		opt(j.Name+"/mean", j.Mean)
		if iv := j.Interval; iv != nil {
			metric(j.Name+"/interval_low", iv.Low)
			metric(j.Name+"/interval_high", iv.High)
		}
		metric(j.Name+"/error_rate", j.ErrorRate)
		metric(j.Name+"/scored", float64(j.Scored))
		opt(j.Name+"/attempt_pass_rate", j.AttemptPassRate)
	}
	if h := s.Human; h != nil {
		metric("human/reviewed", float64(h.Reviewed))
		opt("human/pass_rate", h.PassRate)
		if a := h.CaseVerdict; a != nil {
			opt("human/agreement", a.Rate)
		}
		for _, a := range h.Judges {
			opt(a.Judge+"/human_agreement", a.Rate)
		}
	}
	metric("cost_usd", s.CostUSD)
	metric("judge_cost_usd", s.JudgeCostUSD)
	metric("duration_s", s.DurationS)
	metric("cases", float64(s.NumCases))
	metric("judged_cases", float64(s.JudgedCases))
	metric("denials", float64(s.Denials))
	opt("reward", s.Reward)
	metric("num_turns", float64(r.NumTurns))
	metric("tokens/input", float64(r.TokenUsage.InputTokens))
	metric("tokens/output", float64(r.TokenUsage.OutputTokens))
	metric("tokens/cache_read", float64(r.TokenUsage.CacheReadTokens))
	metric("tokens/cache_create", float64(r.TokenUsage.CacheCreationTokens))
	if b := s.Baseline; b != nil {
		opt("baseline/win_rate", b.WinRate)
	}

	tags := map[string]string{}
	var order []string
	tag := func(k, v string) {
		if _, ok := tags[k]; !ok {
			order = append(order, k)
		}
		tags[k] = v
	}
	tag("passed", yesNo(s.Passed))
	tag("regressions_detected", yesNo(!s.Passed))
	tag("num_judges", strconv.Itoa(len(s.Judges)))
	tag("eval_run_id", in.RunID)
	tag("agent_eval.logged_by", in.Version)
	tag("mlflow.source.name", "agent-eval")
	tag("mlflow.source.type", "LOCAL")
	if p := r.Project; p != nil && p.Commit != "" {
		tag("mlflow.source.git.commit", p.Commit)
		tag("git_dirty", yesNo(p.Dirty))
	}
	getenv := in.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	for _, kv := range CITags(getenv) {
		tag(kv.Key, kv.Value)
	}
	for _, k := range slices.Sorted(maps.Keys(in.Tags)) {
		if k != "mlflow.runName" {
			tag(k, in.Tags[k])
		}
	}
	for _, k := range order {
		v := truncate(red.String(tags[k]), config.MLflowMaxTagValueLength)
		rec.Tags = append(rec.Tags, KeyValue{Key: red.String(k), Value: v})
	}
	rec.Tags = append(rec.Tags, KeyValue{Key: "mlflow.runName", Value: rec.RunName})
	return rec
}

// CITags are the tags that say which CI job logged the run (GitHub Actions,
// GitLab CI), upstream's names.
func CITags(getenv func(string) string) []KeyValue {
	var out []KeyValue
	add := func(k, v string) {
		if v != "" {
			out = append(out, KeyValue{Key: k, Value: v})
		}
	}
	switch {
	case getenv("GITHUB_ACTIONS") == "true" || getenv("GITHUB_REPOSITORY") != "":
		server := firstOf(getenv("GITHUB_SERVER_URL"), "https://github.com")
		repo := getenv("GITHUB_REPOSITORY")
		add("forge_platform", "github")
		if repo != "" {
			add("repository_url", server+"/"+repo)
		}
		add("commit_sha", getenv("GITHUB_SHA"))
		add("ref_name", getenv("GITHUB_REF_NAME"))
		if ref := getenv("GITHUB_REF"); strings.HasPrefix(ref, "refs/pull/") {
			add("change_id", strings.Split(strings.TrimPrefix(ref, "refs/pull/"), "/")[0])
		}
		add("pipeline_run_id", getenv("GITHUB_RUN_ID"))
		if repo != "" && getenv("GITHUB_RUN_ID") != "" {
			add("pipeline_run_url", server+"/"+repo+"/actions/runs/"+getenv("GITHUB_RUN_ID"))
		}
	case getenv("GITLAB_CI") == "true" || getenv("CI_PROJECT_URL") != "":
		add("forge_platform", "gitlab")
		add("repository_url", getenv("CI_PROJECT_URL"))
		add("commit_sha", getenv("CI_COMMIT_SHA"))
		add("ref_name", getenv("CI_COMMIT_REF_NAME"))
		add("change_id", getenv("CI_MERGE_REQUEST_IID"))
		add("pipeline_run_id", getenv("CI_PIPELINE_ID"))
		add("pipeline_run_url", getenv("CI_PIPELINE_URL"))
	}
	return out
}

// Batches splits what a record logs into runs/log-batch requests within
// MLflow's limits (100 params, 100 tags, 1000 entities in all).
func (r Record) Batches() []Batch {
	var out []Batch
	params, tags, metrics := r.Params, r.Tags, r.Metrics
	for len(params)+len(tags)+len(metrics) > 0 || out == nil {
		var b Batch
		n := min(len(params), maxParamsTagsPerBatch)
		b.Params, params = params[:n:n], params[n:]
		n = min(len(tags), maxParamsTagsPerBatch)
		b.Tags, tags = tags[:n:n], tags[n:]
		n = min(len(metrics), maxEntitiesPerBatch-len(b.Params)-len(b.Tags))
		b.Metrics, metrics = metrics[:n:n], metrics[n:]
		out = append(out, b)
	}
	return out
}

// Batch is one runs/log-batch request's params, metrics and tags.
type Batch struct {
	Params  []KeyValue
	Metrics []Metric
	Tags    []KeyValue
}

// Table is a table in MLflow's JSON table format (mlflow.log_table).
type Table struct {
	Columns []string `json:"columns"`
	Data    [][]any  `json:"data"`
}

// CaseTable is the per-case results table (per_case_results.json): one row
// per case and judge, and with repeats one per attempt and judge as well
// (attempt null for the case's reduced verdict). Rationales and errors are
// bounded to RationaleLimit characters; every string is redacted.
func CaseTable(s *rundir.Summary, red *redact.Redactor) Table {
	t := Table{Columns: []string{"case_id", "attempt", "status", "judge", "value", "passed", "rationale", "error"}}
	repeats := s.Attempts() > 1
	row := func(c rundir.CaseSummary, attempt any, v rundir.Verdict) {
		var value, passed any
		if v.Value != nil && !math.IsNaN(*v.Value) && !math.IsInf(*v.Value, 0) {
			value = *v.Value
		}
		if v.Passed != nil {
			passed = *v.Passed
		}
		t.Data = append(t.Data, []any{red.String(c.ID), attempt, c.Status, red.String(v.Judge), value, passed,
			truncate(red.String(v.Rationale), RationaleLimit), truncate(red.String(v.Error), RationaleLimit)})
	}
	for _, c := range s.Cases {
		var attempt any = 1
		if repeats {
			attempt = nil
		}
		for _, v := range c.Verdicts {
			row(c, attempt, v)
		}
		if !repeats {
			continue
		}
		for _, a := range c.Attempts {
			a.ID = c.ID
			for _, v := range a.Verdicts {
				row(a, a.Attempt, v)
			}
		}
	}
	if t.Data == nil {
		t.Data = [][]any{}
	}
	return t
}

// JSON is the table as MLflow's table artifact.
func (t Table) JSON() []byte {
	b, err := json.Marshal(t)
	if err != nil {
		// Only strings, numbers, bools and nil go in: this cannot fail.
		panic(fmt.Sprintf("encode the table: %v", err))
	}
	return b
}

// metricKey makes k a name MLflow takes: a character it refuses becomes
// _, and a name longer than MLflow's length is cut (cutKey).
func metricKey(k string) string {
	k = strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("_-.:/ ", r) {
			return r
		}
		return '_'
	}, k)
	k = cutKey(k)
	if config.MLflowKeyProblem(k) != "" {
		// A leading /, a .. segment: keep the characters, lose the path.
		k = strings.ReplaceAll(k, "/", "_")
		if k == "." || k == ".." {
			k = "_"
		}
	}
	return k
}

// cutKey cuts a metric name longer than MLflow's length in its judge's
// part (before the last /), keeping the metric's (/pass_rate), with a hash
// of the whole name in its place: two judges whose names begin alike keep
// metrics of their own, and a judge's metrics stay apart. No … mark: MLflow
// refuses the character in a name.
func cutKey(k string) string {
	if utf8.RuneCountInString(k) <= config.MLflowMaxKeyLength {
		return k
	}
	name, metric := k, ""
	if i := strings.LastIndexByte(k, '/'); i >= 0 {
		name, metric = k[:i], k[i:]
	}
	sum := sha256.Sum256([]byte(k))
	mark := "_" + hex.EncodeToString(sum[:4])
	keep := config.MLflowMaxKeyLength - utf8.RuneCountInString(metric) - len(mark)
	if keep < 1 {
		name, metric, keep = k, "", config.MLflowMaxKeyLength-len(mark)
	}
	return string([]rune(name)[:keep]) + mark + metric
}

// truncate cuts s to n characters, the last being … when it was cut.
func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func firstOf(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}
