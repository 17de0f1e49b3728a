package mlflowserver

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestStart: the server answers its REST API (the Default experiment
// exists in a new backend store).
func TestStart(t *testing.T) {
	s := Start(t)
	resp, err := http.Get(s.URL + "/api/2.0/mlflow/experiments/get-by-name?experiment_name=Default")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(b), `"experiment_id": "0"`) && !strings.Contains(string(b), `"experiment_id":"0"`) {
		t.Fatalf("get-by-name Default: %s %s", resp.Status, b)
	}
}
