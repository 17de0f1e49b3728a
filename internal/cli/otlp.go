package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/agent-eval/agent-eval/internal/export/otlp"
	"github.com/agent-eval/agent-eval/internal/rundir"
)

// otlpOptions are the export's options for run and score: from --otlp
// (flagEndpoint) or, when always is set (run), the OTEL_EXPORTER_OTLP_*
// variables; nil when neither names an endpoint. A bad setting is a usage
// error, said before anything runs.
func otlpOptions(e env, flagEndpoint string, always bool) (*otlp.Options, error) {
	if flagEndpoint == "" && !always {
		return nil, nil
	}
	o, err := otlp.FromEnv(e.Getenv, flagEndpoint)
	if errors.Is(err, otlp.ErrNoEndpoint) {
		return nil, nil
	}
	if err != nil {
		return nil, usageErrorf("%v", err)
	}
	return &o, nil
}

// agentOTLPBase is the base URL (without /v1/traces) the agent's own
// export goes to, for --otlp-agent. It lands in the agent's environment,
// which the agent reads: like the headers, whatever of the endpoint may
// carry a credential (user information, query, fragment) is left out, as
// otlp.DisplayEndpoint leaves it out; dropped says something was.
func agentOTLPBase(o *otlp.Options) (base string, dropped bool) {
	shown := otlp.DisplayEndpoint(o.Endpoint)
	return strings.TrimSuffix(shown, otlp.TracesPath), shown != o.Endpoint
}

// exportRun sends the run in dir to the OTLP endpoint of o (nil: none). A
// failure is a warning: the run's result and exit status stand. It runs
// after an interrupt too, so it is not cancelled with ctx (o.Timeout
// bounds it).
func exportRun(ctx context.Context, e env, dir rundir.Dir, o *otlp.Options) {
	if o == nil {
		return
	}
	if err := otlp.Export(context.WithoutCancel(ctx), dir, *o); err != nil {
		fmt.Fprintf(e.Err, "agent-eval: warning: the run's OpenTelemetry trace was not exported: %v\n", err)
		return
	}
	fmt.Fprintf(e.Err, "exported the run's OpenTelemetry trace (trace id %s) to %s\n", otlp.TraceID(otlp.TraceKeyOf(dir)), otlp.DisplayEndpoint(o.Endpoint))
}
