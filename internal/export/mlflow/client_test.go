package mlflow

import "testing"

func TestRedactURI(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"https://bot:pw@mlflow.example/x": "https://xxxxx@mlflow.example/x",
		"https://tok3n@mlflow.example":    "https://xxxxx@mlflow.example",
		"http://127.0.0.1:5000":           "http://127.0.0.1:5000",
	} {
		if got := RedactURI(in); got != want {
			t.Errorf("RedactURI(%q) = %q, want %q", in, got, want)
		}
	}
}
