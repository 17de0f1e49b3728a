package otlp

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/agent-eval/agent-eval/internal/redact"
)

// DefaultTimeout bounds one export (all its requests and retries) when
// Options.Timeout is zero: OTLP's default of 10 s.
const DefaultTimeout = 10 * time.Second

// TracesPath is appended to a base endpoint (OTEL_EXPORTER_OTLP_ENDPOINT).
const TracesPath = "/v1/traces"

// Options say where and how Export sends a run's spans.
type Options struct {
	// Endpoint is the full URL of the traces endpoint
	// (http://host:4318/v1/traces; MLflow: <tracking uri>/v1/traces).
	Endpoint string
	// Headers are sent with every request (a token; for MLflow ≥ 3.6
	// x-mlflow-experiment-id, and x-mlflow-run-id to link the trace to a
	// run). They are never printed: errors name the endpoint only.
	Headers map[string]string
	// Timeout bounds the whole export (DefaultTimeout when zero).
	Timeout time.Duration
	// Redactor hides secrets in every string sent; Export adds the run's
	// marked secrets to it (rundir.Dir.KnownSecrets). Nil: one for this
	// process's environment (redact.FromEnviron).
	Redactor *redact.Redactor
	// ServiceName is the resource's service.name ("agent-eval" when
	// empty).
	ServiceName string
	// ResourceAttrs are added to the resource (OTEL_RESOURCE_ATTRIBUTES).
	ResourceAttrs map[string]string
	// RunAttrs are added to the run's span (an MLflow run id, say).
	RunAttrs map[string]string
	// TracePerCase sends each case attempt (and a batch) as a trace of its
	// own, rooted at the case's span, which then carries the run's
	// attributes too; no run span is sent. MLflow lists a trace per case
	// that way, as agent-eval-harness logged them. Trace ids are then
	// CaseTraceID's.
	TracePerCase bool
}

// ErrNoEndpoint is FromEnv's error when neither the flag nor the
// environment names an endpoint: nothing is to be exported.
var ErrNoEndpoint = errors.New("no OTLP endpoint: give --otlp or set OTEL_EXPORTER_OTLP_ENDPOINT")

// FromEnv reads the standard OTEL_EXPORTER_OTLP_* variables through
// getenv. flagEndpoint, when set, is the traces endpoint: a URL with a
// path is used as is, one without (http://host:4318) gets /v1/traces.
// Else OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is used as is, else
// OTEL_EXPORTER_OTLP_ENDPOINT gets /v1/traces; neither: ErrNoEndpoint.
//
// Also read: OTEL_EXPORTER_OTLP_[TRACES_]HEADERS (key=value,... with
// URL-encoded values), OTEL_EXPORTER_OTLP_[TRACES_]TIMEOUT (milliseconds),
// OTEL_EXPORTER_OTLP_[TRACES_]PROTOCOL (only http/protobuf; grpc and
// http/json are errors), OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES.
// The TRACES_ variable wins over the general one.
func FromEnv(getenv func(string) string, flagEndpoint string) (Options, error) {
	var o Options
	pick := func(name string) (string, string) {
		if v := strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_TRACES_" + name)); v != "" {
			return v, "OTEL_EXPORTER_OTLP_TRACES_" + name
		}
		return strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_" + name)), "OTEL_EXPORTER_OTLP_" + name
	}
	switch {
	case flagEndpoint != "":
		u, err := parseEndpoint(flagEndpoint, "--otlp")
		if err != nil {
			return o, err
		}
		if u.Path == "" || u.Path == "/" {
			u.Path = TracesPath
		}
		o.Endpoint = u.String()
	case getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != "":
		u, err := parseEndpoint(getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"), "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
		if err != nil {
			return o, err
		}
		o.Endpoint = u.String()
	case getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "":
		u, err := parseEndpoint(getenv("OTEL_EXPORTER_OTLP_ENDPOINT"), "OTEL_EXPORTER_OTLP_ENDPOINT")
		if err != nil {
			return o, err
		}
		u.Path = strings.TrimRight(u.Path, "/") + TracesPath
		o.Endpoint = u.String()
	default:
		return o, ErrNoEndpoint
	}
	if p, name := pick("PROTOCOL"); p != "" && p != "http/protobuf" {
		if p == "grpc" {
			return o, fmt.Errorf("%s=grpc is not supported: agent-eval sends OTLP over HTTP; set it to http/protobuf and point the endpoint at the receiver's HTTP port (4318)", name)
		}
		return o, fmt.Errorf("%s=%s is not supported: use http/protobuf", name, p)
	}
	if h, name := pick("HEADERS"); h != "" {
		hs, err := parseList(h, name)
		if err != nil {
			return o, err
		}
		o.Headers = hs
	}
	if t, name := pick("TIMEOUT"); t != "" {
		ms, err := strconv.Atoi(t)
		if err != nil || ms < 0 {
			return o, fmt.Errorf("%s: %q is not a number of milliseconds", name, t)
		}
		o.Timeout = time.Duration(ms) * time.Millisecond
	}
	o.ServiceName = strings.TrimSpace(getenv("OTEL_SERVICE_NAME"))
	if r := getenv("OTEL_RESOURCE_ATTRIBUTES"); strings.TrimSpace(r) != "" {
		attrs, err := parseList(r, "OTEL_RESOURCE_ATTRIBUTES")
		if err != nil {
			return o, err
		}
		o.ResourceAttrs = attrs
	}
	return o, nil
}

// parseEndpoint checks that s is an http(s) URL with a host. Its error
// never quotes the URL's user information.
func parseEndpoint(s, from string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%s: the OTLP endpoint must be an http:// or https:// URL with a host", from)
	}
	return u, nil
}

// parseList parses OTel's key=value,key=value lists (W3C baggage-like),
// the values URL-decoded. Errors never quote a value (a header's is a
// token).
func parseList(s, from string) (map[string]string, error) {
	out := map[string]string{}
	for _, item := range strings.Split(s, ",") {
		if strings.TrimSpace(item) == "" {
			continue
		}
		k, v, ok := strings.Cut(item, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return nil, fmt.Errorf("%s: an entry is not key=value", from)
		}
		v = strings.TrimSpace(v)
		dv, err := url.PathUnescape(v)
		if err != nil {
			return nil, fmt.Errorf("%s: the value of %s is not URL-encoded", from, k)
		}
		out[k] = dv
	}
	return out, nil
}
