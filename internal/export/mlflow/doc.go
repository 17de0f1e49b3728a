// Package mlflow logs a scored run directory to an MLflow tracking server
// through its REST API (2.0): the experiment found or created by name, one
// MLflow run per agent-eval run (its run name is the agent-eval run id, so
// logging the run again updates it), params, metrics, tags, and the
// summary, reports, run_result.json, the eval's copy and a per-case table as
// artifacts through the server's proxied artifact API. Every string it
// sends is redacted first.
//
// It reads the run directory through rundir and nothing else of the run;
// it never writes into it, and it does not build traces (Options.Traces is
// where an OTLP exporter plugs in).
package mlflow
