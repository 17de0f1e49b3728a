package mlflow

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/redact"
)

// Client speaks a tracking server's REST API.
type Client struct {
	base *url.URL // without credentials, path without a trailing /
	http *http.Client
	// auth is the Authorization header, "" for none.
	auth string
	// red hides the credentials in what the server answers, which an
	// error quotes (a server may echo the token it refused).
	red *redact.Redactor
}

// NewClient is a client of the tracking server at uri (http or https).
// Credentials come from getenv: MLFLOW_TRACKING_TOKEN (a bearer token), else
// MLFLOW_TRACKING_USERNAME and MLFLOW_TRACKING_PASSWORD (basic), else the
// URI's own user:password; MLFLOW_TRACKING_INSECURE_TLS=true skips the
// verification of the server's certificate. hc nil is a client with a
// 60-second timeout per request.
func NewClient(uri string, getenv func(string) string, hc *http.Client) (*Client, error) {
	if p := config.MLflowURLProblem(uri); p != "" {
		return nil, fmt.Errorf("tracking URI %s %s", RedactURI(uri), p)
	}
	u, _ := url.Parse(uri)
	c := &Client{http: hc, red: redact.New(nil)}
	if tok := getenv("MLFLOW_TRACKING_TOKEN"); tok != "" {
		c.auth = "Bearer " + tok
		c.red.LearnValues(tok)
	} else if user := getenv("MLFLOW_TRACKING_USERNAME"); user != "" {
		c.auth = basic(user, getenv("MLFLOW_TRACKING_PASSWORD"))
		c.red.LearnValues(getenv("MLFLOW_TRACKING_PASSWORD"))
	} else if u.User != nil {
		pw, _ := u.User.Password()
		c.auth = basic(u.User.Username(), pw)
		c.red.LearnValues(pw)
	}
	c.red.LearnValues(strings.TrimPrefix(c.auth, "Basic "))
	u.User = nil
	u.Path = strings.TrimRight(u.Path, "/")
	u.RawPath = ""
	c.base = u
	if c.http == nil {
		t := http.DefaultTransport.(*http.Transport).Clone()
		if strings.EqualFold(getenv("MLFLOW_TRACKING_INSECURE_TLS"), "true") {
			t.TLSClientConfig = &tls.Config{InsecureSkipVerify: true} //nolint:gosec // the user asked for it, as MLflow's own client does
		}
		c.http = &http.Client{Timeout: 60 * time.Second, Transport: t}
	}
	return c, nil
}

func basic(user, pw string) string {
	req := http.Request{Header: http.Header{}}
	req.SetBasicAuth(user, pw)
	return req.Header.Get("Authorization")
}

// URI is the tracking URI without credentials.
func (c *Client) URI() string { return c.base.String() }

// Auth is the Authorization header the client sends ("" for none), for
// another exporter posting to the same server (traces).
func (c *Client) Auth() string { return c.auth }

// RedactURI is uri without its user information (a password, or a user
// name that may be a token), for messages.
func RedactURI(uri string) string {
	u, err := url.Parse(uri)
	if err != nil {
		return "(a tracking URI that does not parse)"
	}
	if u.User != nil {
		// A user name alone may be a token (https://TOKEN@host): it goes too.
		u.User = url.User("xxxxx")
	}
	return u.String()
}

// APIError is the tracking server's refusal of a request.
type APIError struct {
	Method, Path string
	Status       int
	Code         string // MLflow's error_code, e.g. RESOURCE_DOES_NOT_EXIST
	Message      string
}

func (e *APIError) Error() string {
	msg := e.Message
	if len(msg) > 300 {
		msg = msg[:300] + "…"
	}
	if e.Code != "" {
		return fmt.Sprintf("%s %s: %d %s: %s", e.Method, e.Path, e.Status, e.Code, msg)
	}
	return fmt.Sprintf("%s %s: %d %s", e.Method, e.Path, e.Status, msg)
}

// call sends body (JSON, or raw bytes for an artifact) to path and decodes
// the answer into out (when not nil).
func (c *Client) call(ctx context.Context, method, path string, query url.Values, body any, out any) error {
	u := *c.base
	u.Path += path
	u.RawQuery = query.Encode()
	var rd io.Reader
	ctype := ""
	switch b := body.(type) {
	case nil:
	case []byte:
		rd, ctype = bytes.NewReader(b), "application/octet-stream"
	default:
		j, err := json.Marshal(b)
		if err != nil {
			return fmt.Errorf("%s %s: %w", method, path, err)
		}
		rd, ctype = bytes.NewReader(j), "application/json"
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), rd)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	if c.auth != "" {
		req.Header.Set("Authorization", c.auth)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		// The method and path say what failed; the *url.Error would say
		// them again with the whole URL.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return fmt.Errorf("%s %s: read the answer: %w", method, path, err)
	}
	if resp.StatusCode/100 != 2 {
		e := &APIError{Method: method, Path: path, Status: resp.StatusCode}
		var m struct {
			Code    string `json:"error_code"`
			Message string `json:"message"`
		}
		if json.Unmarshal(b, &m) == nil && (m.Code != "" || m.Message != "") {
			e.Code, e.Message = m.Code, c.red.String(m.Message)
		} else {
			e.Message = strings.TrimSpace(http.StatusText(resp.StatusCode))
		}
		return e
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("%s %s: the answer is not MLflow's JSON: %w", method, path, err)
	}
	return nil
}

// Experiment is an MLflow experiment.
type Experiment struct {
	ID               string `json:"experiment_id"`
	Name             string `json:"name"`
	ArtifactLocation string `json:"artifact_location"`
	LifecycleStage   string `json:"lifecycle_stage"`
}

// experiment finds the experiment named name, creating it when there is
// none.
func (c *Client) experiment(ctx context.Context, name string) (Experiment, error) {
	for try := 0; ; try++ {
		var got struct {
			Experiment Experiment `json:"experiment"`
		}
		err := c.call(ctx, http.MethodGet, "/api/2.0/mlflow/experiments/get-by-name", url.Values{"experiment_name": {name}}, nil, &got)
		if err == nil {
			if got.Experiment.LifecycleStage == "deleted" {
				return Experiment{}, fmt.Errorf("experiment %q is deleted: restore it (mlflow experiments restore) or name another in mlflow.experiment", name)
			}
			return got.Experiment, nil
		}
		if !isCode(err, "RESOURCE_DOES_NOT_EXIST") || try > 0 {
			return Experiment{}, fmt.Errorf("find experiment %q: %w", name, err)
		}
		var made struct {
			ID string `json:"experiment_id"`
		}
		err = c.call(ctx, http.MethodPost, "/api/2.0/mlflow/experiments/create", nil, map[string]any{"name": name}, &made)
		// Another writer may have made it meanwhile: look again.
		if err != nil && !isCode(err, "RESOURCE_ALREADY_EXISTS") {
			return Experiment{}, fmt.Errorf("create experiment %q: %w", name, err)
		}
	}
}

func isCode(err error, code string) bool {
	var e *APIError
	return errors.As(err, &e) && e.Code == code
}

// Run is the part of an MLflow run that logging needs.
type Run struct {
	Info struct {
		RunID       string `json:"run_id"`
		ArtifactURI string `json:"artifact_uri"`
		Status      string `json:"status"`
	} `json:"info"`
	Data struct {
		Params []KeyValue `json:"params"`
	} `json:"data"`
}

// KeyValue is a param or a tag.
type KeyValue struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// Metric is a metric's value at step 0.
type Metric struct {
	Key       string  `json:"key"`
	Value     float64 `json:"value"`
	Timestamp int64   `json:"timestamp"`
	Step      int64   `json:"step"`
}

// findRun is the active run named runName in the experiment (nil when
// there is none); of several, the one started first.
func (c *Client) findRun(ctx context.Context, expID, runName string) (*Run, error) {
	filter, err := runNameFilter(runName)
	if err != nil {
		return nil, err
	}
	var got struct {
		Runs []Run `json:"runs"`
	}
	body := map[string]any{"experiment_ids": []string{expID}, "filter": filter, "run_view_type": "ACTIVE_ONLY",
		"max_results": 10, "order_by": []string{"attributes.start_time ASC"}}
	if err := c.call(ctx, http.MethodPost, "/api/2.0/mlflow/runs/search", nil, body, &got); err != nil {
		return nil, fmt.Errorf("search for run %q: %w", runName, err)
	}
	if len(got.Runs) == 0 {
		return nil, nil
	}
	return &got.Runs[0], nil
}

// runNameFilter is MLflow's search filter for the run named name.
func runNameFilter(name string) (string, error) {
	switch {
	case !strings.Contains(name, "'"):
		return "tags.`mlflow.runName` = '" + name + "'", nil
	case !strings.Contains(name, `"`):
		return "tags.`mlflow.runName` = \"" + name + "\"", nil
	}
	return "", fmt.Errorf("run id %q has both kinds of quotes: MLflow cannot search for it", name)
}

func (c *Client) createRun(ctx context.Context, expID, runName string, start int64) (*Run, error) {
	var got struct {
		Run Run `json:"run"`
	}
	body := map[string]any{"experiment_id": expID, "run_name": runName, "start_time": start,
		"tags": []KeyValue{{Key: "mlflow.runName", Value: runName}}}
	if err := c.call(ctx, http.MethodPost, "/api/2.0/mlflow/runs/create", nil, body, &got); err != nil {
		return nil, fmt.Errorf("create run %q: %w", runName, err)
	}
	return &got.Run, nil
}

func (c *Client) logBatch(ctx context.Context, runID string, b Batch) error {
	body := map[string]any{"run_id": runID, "params": nonNil(b.Params), "tags": nonNil(b.Tags), "metrics": nonNilM(b.Metrics)}
	if err := c.call(ctx, http.MethodPost, "/api/2.0/mlflow/runs/log-batch", nil, body, nil); err != nil {
		return fmt.Errorf("log params, metrics and tags: %w", err)
	}
	return nil
}

func nonNil(kv []KeyValue) []KeyValue {
	if kv == nil {
		return []KeyValue{}
	}
	return kv
}

func nonNilM(m []Metric) []Metric {
	if m == nil {
		return []Metric{}
	}
	return m
}

func (c *Client) updateRun(ctx context.Context, runID, status string, end int64) error {
	body := map[string]any{"run_id": runID, "status": status, "end_time": end}
	if err := c.call(ctx, http.MethodPost, "/api/2.0/mlflow/runs/update", nil, body, nil); err != nil {
		return fmt.Errorf("mark the run %s: %w", status, err)
	}
	return nil
}

// artifactPath is where the proxied artifact API keeps name for a run
// whose artifact_uri is uri (mlflow-artifacts:/<exp>/<run>/artifacts, or
// the mlflow-artifacts://host/... and http(s)://.../api/2.0/mlflow-artifacts/artifacts/...
// forms the server also resolves).
func artifactPath(uri, name string) (string, error) {
	const route = "/api/2.0/mlflow-artifacts/artifacts/"
	u, err := url.Parse(uri)
	if err != nil {
		return "", fmt.Errorf("the run's artifact_uri %q does not parse: %w", uri, err)
	}
	var p string
	switch u.Scheme {
	case "mlflow-artifacts":
		p = u.Path
		if p == "" {
			p = u.Opaque
		}
	case "http", "https":
		i := strings.Index(u.Path, route)
		if i < 0 {
			return "", fmt.Errorf("the run's artifact_uri %s is not the server's artifact proxy", uri)
		}
		p = u.Path[i+len(route):]
	default:
		return "", fmt.Errorf("the run's artifact_uri %s is not served by the tracking server (start it with --serve-artifacts, the default, to take artifacts over its API)", uri)
	}
	p = strings.Trim(p, "/")
	if p == "" {
		return "", fmt.Errorf("the run's artifact_uri %s has no path", uri)
	}
	return route + p + "/" + name, nil
}

func (c *Client) upload(ctx context.Context, artifactURI, name string, data []byte) error {
	p, err := artifactPath(artifactURI, name)
	if err != nil {
		return err
	}
	if err := c.call(ctx, http.MethodPut, p, nil, data, nil); err != nil {
		return fmt.Errorf("upload %s: %w", name, err)
	}
	return nil
}
