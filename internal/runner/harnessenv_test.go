package runner

import (
	"slices"
	"testing"
)

func TestWithoutHarnessChannels(t *testing.T) {
	t.Parallel()
	in := []string{
		"PATH=/bin", "GITHUB_STEP_SUMMARY=/tmp/s.md", "GITHUB_ENV=/tmp/e", "GITHUB_REPOSITORY=acme/x",
		"OTEL_EXPORTER_OTLP_HEADERS=authorization=Bearer x", "OTEL_SERVICE_NAME=svc",
		"MLFLOW_TRACKING_TOKEN=tok", "MLFLOW_TRACKING_PASSWORD=pw", "MLFLOW_EXPERIMENT_NAME=e",
		"MLFLOW_TRACKING_URI=https://bot:pw@mlflow.example/x", "EMPTY=",
	}
	want := []string{"PATH=/bin", "GITHUB_REPOSITORY=acme/x", "OTEL_SERVICE_NAME=svc", "MLFLOW_EXPERIMENT_NAME=e",
		"MLFLOW_TRACKING_URI=https://mlflow.example/x", "EMPTY="}
	if got := WithoutHarnessChannels(in); !slices.Equal(got, want) {
		t.Errorf("WithoutHarnessChannels =\n%q\nwant\n%q", got, want)
	}
}
