package mlflow

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/agent-eval/agent-eval/internal/redact"
	"github.com/agent-eval/agent-eval/internal/rundir"
)

// Artifact names, at the root of the MLflow run's artifacts.
const (
	TableArtifact = "per_case_results.json"
	EvalArtifact  = "config/eval.yaml"
)

// Options say what to log where.
type Options struct {
	Dir rundir.Dir
	// Experiment is the experiment's name (created when missing).
	Experiment string
	// TrackingURI is the tracking server's http(s) URL, credentials
	// allowed (they are never printed).
	TrackingURI string
	// Tags are mlflow.tags.
	Tags map[string]string
	// Getenv reads credentials (MLFLOW_TRACKING_TOKEN, …) and the CI's
	// variables; Environ is the environment whose secret-looking values
	// are redacted (os.Environ() in the CLI).
	Getenv  func(string) string
	Environ []string
	// Version is the agent-eval that logs.
	Version string
	// HTTPClient nil is NewClient's default.
	HTTPClient *http.Client
	// Now nil is time.Now.
	Now func() time.Time
	// Traces, when set, is called once the run's params, metrics, tags and
	// artifacts are logged and before the run is marked finished: where
	// the OTLP exporter sends each case's trace to the same experiment
	// and links it to the run (internal/export/otlp). Its error is one of
	// the Result's warnings: a tracking server that takes no OTLP (a file
	// store answers 501) still gets the run.
	Traces func(ctx context.Context, t TraceTarget) error
	// CaseTraceID, when set with Traces, is the MLflow trace id of a
	// case's trace: each case's review in review.yaml goes onto it as
	// human feedback (an assessment of source type HUMAN).
	CaseTraceID func(caseID string) string
}

// TraceTarget is where a run's traces go: the tracking server (its OTLP
// endpoint is URI + "/v1/traces", with the header x-mlflow-experiment-id:
// ExperimentID and Authorization when not empty), and the MLflow run to
// link them to (tag mlflow.runId or the run's trace links).
type TraceTarget struct {
	URI           string
	Authorization string
	ExperimentID  string
	RunID         string
	// Red is the redactor every string of a trace goes through.
	Red *redact.Redactor
}

// Result is the MLflow run a run directory was logged to.
type Result struct {
	ExperimentID string
	RunID        string
	// URL is the run's page in the MLflow UI.
	URL string
	// Created: the MLflow run is new (else an earlier logging's was
	// updated).
	Created bool
	// HumanFeedback counts the cases whose review went onto their trace.
	HumanFeedback int
	// Warnings are what was left out (a param whose value changed since
	// the run was first logged: MLflow keeps a param's first value).
	Warnings []string
}

// Log logs the scored run in o.Dir (its summary.yaml must exist) to the
// tracking server: the run named after the agent-eval run id in the
// experiment, created or updated.
func Log(ctx context.Context, o Options) (*Result, error) {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Getenv == nil {
		o.Getenv = func(string) string { return "" }
	}
	s, err := o.Dir.ReadSummary()
	if err != nil {
		return nil, err
	}
	run, err := o.Dir.ReadRun()
	if err != nil {
		return nil, err
	}
	// What could not be found is reason enough to log nothing.
	red, _, err := o.Dir.Redactor(o.Environ)
	if err != nil {
		return nil, fmt.Errorf("find the run's secrets (nothing is logged that might show one): %w", err)
	}
	c, err := NewClient(o.TrackingURI, o.Getenv, o.HTTPClient)
	if err != nil {
		return nil, err
	}
	runID := firstOf(s.RunID, run.RunID, filepath.Base(o.Dir.Path))
	now := o.Now().UnixMilli()
	rec := Build(Input{Run: run, Summary: s, RunID: runID, Tags: o.Tags, Getenv: o.Getenv, Version: o.Version, Now: now, Red: red})
	arts, err := artifacts(o.Dir, s, red)
	if err != nil {
		return nil, err
	}

	exp, err := c.experiment(ctx, red.String(o.Experiment))
	if err != nil {
		return nil, err
	}
	res := &Result{ExperimentID: exp.ID}
	mr, err := c.findRun(ctx, exp.ID, rec.RunName)
	if err != nil {
		return nil, err
	}
	if mr == nil {
		start := now
		if t, err := time.Parse(time.RFC3339, run.StartedAt); err == nil {
			start = t.UnixMilli()
		}
		if mr, err = c.createRun(ctx, exp.ID, rec.RunName, start); err != nil {
			return nil, err
		}
		res.Created = true
	}
	res.RunID = mr.Info.RunID
	res.URL = fmt.Sprintf("%s/#/experiments/%s/runs/%s", c.URI(), exp.ID, res.RunID)
	rec.Params, res.Warnings = newParams(rec.Params, mr.Data.Params)
	if _, err := artifactPath(mr.Info.ArtifactURI, TableArtifact); err != nil {
		res.Warnings = append(res.Warnings, err.Error()+"; no artifact was sent")
		arts = nil
	}
	if err := send(ctx, c, o, mr, rec, arts, red, exp.ID); err != nil {
		// Best effort: the run says it is incomplete.
		_ = c.updateRun(context.WithoutCancel(ctx), res.RunID, "FAILED", o.Now().UnixMilli())
		return res, err
	}
	if o.Traces != nil {
		t := TraceTarget{URI: c.URI(), Authorization: c.Auth(), ExperimentID: exp.ID, RunID: res.RunID, Red: red}
		if err := o.Traces(ctx, t); err != nil {
			res.Warnings = append(res.Warnings, fmt.Sprintf("the cases' traces were not logged (the run's params, metrics and artifacts were): %v", err))
		} else if o.CaseTraceID != nil {
			n, err := humanFeedback(ctx, c, o.Dir, o.CaseTraceID, red)
			res.HumanFeedback = n
			if err != nil {
				res.Warnings = append(res.Warnings, fmt.Sprintf("the human review was not all logged as feedback (%d case(s) were): %v", n, err))
			}
		}
	}
	end := o.Now().UnixMilli()
	if t, err := time.Parse(time.RFC3339, run.EndedAt); err == nil {
		end = t.UnixMilli()
	}
	if err := c.updateRun(ctx, res.RunID, "FINISHED", end); err != nil {
		return res, err
	}
	return res, nil
}

func send(ctx context.Context, c *Client, o Options, mr *Run, rec Record, arts []artifact, red *redact.Redactor, expID string) error {
	for _, b := range rec.Batches() {
		if err := c.logBatch(ctx, mr.Info.RunID, b); err != nil {
			return err
		}
	}
	for _, a := range arts {
		if err := c.upload(ctx, mr.Info.ArtifactURI, a.name, a.data); err != nil {
			return err
		}
	}
	return nil
}

// newParams leaves out the params the MLflow run already has: MLflow
// refuses to change a param, so one whose value differs is a warning.
func newParams(params, have []KeyValue) ([]KeyValue, []string) {
	old := map[string]string{}
	for _, p := range have {
		old[p.Key] = p.Value
	}
	var out []KeyValue
	var warns []string
	for _, p := range params {
		v, ok := old[p.Key]
		switch {
		case !ok:
			out = append(out, p)
		case v != p.Value:
			warns = append(warns, fmt.Sprintf("param %s keeps its first value %q (MLflow does not change a param; now %q)", p.Key, v, p.Value))
		}
	}
	return out, warns
}

type artifact struct {
	name string
	data []byte
}

// artifacts are the files logged with the run, redacted: summary.yaml,
// report.html (which report.Write redacted as it wrote it), junit.xml,
// run_result.json, the eval's copy and the per-case table. A missing
// report, junit.xml or eval copy is left out.
func artifacts(d rundir.Dir, s *rundir.Summary, red *redact.Redactor) ([]artifact, error) {
	files := []struct {
		name, path string
		kind       int // 0 text, 1 JSON
		optional   bool
	}{
		{rundir.SummaryFile, d.Summary(), 0, false},
		{rundir.ReportFile, d.Report(), 0, true},
		{rundir.JUnitFile, d.JUnit(), 0, true},
		{rundir.RunResultFile, d.RunResult(), 1, false},
		{EvalArtifact, d.EvalCopy(), 0, true},
	}
	var out []artifact
	for _, f := range files {
		b, err := os.ReadFile(f.path)
		if errors.Is(err, fs.ErrNotExist) && f.optional {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", f.name, err)
		}
		if f.kind == 1 {
			b = red.JSON(b)
		} else {
			b = hideText(b, red)
		}
		out = append(out, artifact{f.name, b})
	}
	return append(out, artifact{TableArtifact, CaseTable(s, red).JSON()}), nil
}

// hideText replaces the known values in b, and what is shaped like a
// credential (a token of a known format, a URL's password), with
// redact.Mark. Unlike redact.String it leaves NAME: value pairs alone, so
// summary.yaml's pass_rate and eval.yaml's min_pass_rate survive, and so
// do report.html's embedded assets.
func hideText(b []byte, red *redact.Redactor) []byte {
	spans := append(red.Find(b), redact.FindShapes(b)...)
	slices.SortFunc(spans, func(x, y [2]int) int { return cmp.Compare(x[0], y[0]) })
	var out []byte
	last := 0
	for _, sp := range spans {
		if sp[1] <= last {
			continue
		}
		out = append(append(out, b[last:max(sp[0], last)]...), redact.Mark...)
		last = sp[1]
	}
	return append(out, b[last:]...)
}
