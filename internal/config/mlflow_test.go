package config

import (
	"strings"
	"testing"
)

func TestMLflowTrackingURI(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		m    *MLflow
		env  string
		want string
	}{
		{"eval.yaml wins", &MLflow{TrackingURI: "https://mlflow.example"}, "http://env:5000", "https://mlflow.example"},
		{"then the environment", &MLflow{}, "http://env:5000", "http://env:5000"},
		{"then the default", &MLflow{}, "", DefaultMLflowTrackingURI},
		{"no block", nil, "", DefaultMLflowTrackingURI},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := &Eval{MLflow: tt.m}
			getenv := func(k string) string {
				if k == "MLFLOW_TRACKING_URI" {
					return tt.env
				}
				return ""
			}
			if got := e.MLflowTrackingURI(getenv); got != tt.want {
				t.Errorf("MLflowTrackingURI() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestMLflowKeyProblem(t *testing.T) {
	t.Parallel()
	tests := []struct {
		key string
		ok  bool
	}{
		{"team", true}, {"judge/pass_rate", true}, {"mlflow.note.content", true}, {"a b:c-d", true}, {"é", true},
		{"", false}, {"a!", false}, {"/a", false}, {"a/", false}, {"a//b", false}, {"../a", false}, {"a/./b", false}, {".", false},
	}
	for _, tt := range tests {
		if got := MLflowKeyProblem(tt.key); (got == "") != tt.ok {
			t.Errorf("MLflowKeyProblem(%q) = %q, want ok %v", tt.key, got, tt.ok)
		}
	}
}

func TestMLflowURLProblem(t *testing.T) {
	t.Parallel()
	for u, ok := range map[string]bool{"http://127.0.0.1:5000": true, "https://u:p@mlflow.example/prefix": true,
		"sqlite:///mlflow.db": false, "databricks": false, "http://": false, "file:///tmp/mlruns": false, "http://h/?a=b": false} {
		if got := MLflowURLProblem(u); (got == "") != ok {
			t.Errorf("MLflowURLProblem(%q) = %q, want ok %v", u, got, ok)
		}
	}
	// A URL that does not parse: the problem never quotes it (its password).
	for _, u := range []string{"https://bot:hunter2 topsecret@mlflow.example", "https://bot:hunter2\x7ftopsecret@mlflow.example", "https://bot:topsecret%zz@mlflow.example"} {
		if got := MLflowURLProblem(u); got == "" || strings.Contains(got, "topsecret") || strings.Contains(got, "hunter2") {
			t.Errorf("MLflowURLProblem(%q) = %q, want a problem that does not quote the URL", u, got)
		}
	}
}
