package runner

import (
	"net/url"
	"strings"

	"github.com/agent-eval/agent-eval/internal/redact"
)

// harnessChannels are the caller's variables through which agent-eval
// reports a verdict or reaches where it logs one: CI's step summary and
// files, the OTLP exporter's headers, MLflow's credentials. They are
// agent-eval's, never the agent's: with them an agent could write its own
// "PASSED" into the job's summary, or log to the tracking server as the
// harness.
var harnessChannels = map[string]bool{
	"GITHUB_STEP_SUMMARY": true, "GITHUB_ENV": true, "GITHUB_OUTPUT": true, "GITHUB_PATH": true, "GITHUB_STATE": true,
	"ACTIONS_RUNTIME_TOKEN": true, "ACTIONS_ID_TOKEN_REQUEST_TOKEN": true, "ACTIONS_ID_TOKEN_REQUEST_URL": true,
	"OTEL_EXPORTER_OTLP_HEADERS": true, "OTEL_EXPORTER_OTLP_TRACES_HEADERS": true,
	"OTEL_EXPORTER_OTLP_METRICS_HEADERS": true, "OTEL_EXPORTER_OTLP_LOGS_HEADERS": true,
	"MLFLOW_TRACKING_TOKEN": true, "MLFLOW_TRACKING_USERNAME": true, "MLFLOW_TRACKING_PASSWORD": true,
}

// WithoutHarnessChannels is environ (KEY=VALUE strings, as os.Environ
// gives them) without the variables agent-eval reports through, and with
// MLFLOW_TRACKING_URI's user information left out: for a runner that
// passes the caller's whole environment to its agent (the cli runner).
// What eval.yaml sets explicitly (runner.env) is laid over it after.
func WithoutHarnessChannels(environ []string) []string {
	out := make([]string, 0, len(environ))
	for _, kv := range environ {
		k, v, _ := strings.Cut(kv, "=")
		switch {
		case harnessChannels[k]:
			continue
		case k == "MLFLOW_TRACKING_URI":
			kv = k + "=" + WithoutUserinfo(v)
		}
		out = append(out, kv)
	}
	return out
}

// WithoutUserinfo is the URL v without its user information (a URL that
// does not parse, with what looks like credentials redacted).
func WithoutUserinfo(v string) string {
	u, err := url.Parse(v)
	if err != nil {
		return redact.URLs(v)
	}
	if u.User == nil {
		return v
	}
	u.User = nil
	return u.String()
}
