package mlflowserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// Run is an MLflow run as the server returns it, with its artifacts.
type Run struct {
	Info struct {
		RunID       string `json:"run_id"`
		RunName     string `json:"run_name"`
		Status      string `json:"status"`
		ArtifactURI string `json:"artifact_uri"`
	} `json:"info"`
	Data struct {
		Params  []KeyValue `json:"params"`
		Tags    []KeyValue `json:"tags"`
		Metrics []struct {
			Key   string  `json:"key"`
			Value float64 `json:"value"`
		} `json:"metrics"`
	} `json:"data"`
	// Artifacts holds every artifact's content by its path.
	Artifacts map[string]string `json:"artifacts"`
}

// KeyValue is a param or a tag.
type KeyValue struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// Params are the run's params by key.
func (r Run) Params() map[string]string { return byKey(r.Data.Params) }

// Tags are the run's tags by key.
func (r Run) Tags() map[string]string { return byKey(r.Data.Tags) }

// Metrics are the run's latest metric values by key.
func (r Run) Metrics() map[string]float64 {
	m := map[string]float64{}
	for _, x := range r.Data.Metrics {
		m[x.Key] = x.Value
	}
	return m
}

func byKey(l []KeyValue) map[string]string {
	m := map[string]string{}
	for _, x := range l {
		m[x.Key] = x.Value
	}
	return m
}

// ExperimentID is the id of the experiment named name.
func (s *Server) ExperimentID(name string) (string, error) {
	var e struct {
		Experiment struct {
			ID string `json:"experiment_id"`
		} `json:"experiment"`
	}
	err := s.call(http.MethodGet, "/api/2.0/mlflow/experiments/get-by-name", url.Values{"experiment_name": {name}}, nil, &e)
	return e.Experiment.ID, err
}

// RunName is the name of the run whose id is id.
func (s *Server) RunName(id string) (string, error) {
	var r struct {
		Run struct {
			Info struct {
				RunName string `json:"run_name"`
			} `json:"info"`
		} `json:"run"`
	}
	err := s.call(http.MethodGet, "/api/2.0/mlflow/runs/get", url.Values{"run_id": {id}}, nil, &r)
	return r.Run.Info.RunName, err
}

// Runs are the runs named name in the experiment named experiment, read
// back through the API with their artifacts (none when NoProxy).
func (s *Server) Runs(experiment, name string) ([]Run, error) {
	id, err := s.ExperimentID(experiment)
	if err != nil {
		return nil, err
	}
	var got struct {
		Runs []Run `json:"runs"`
	}
	body := map[string]any{"experiment_ids": []string{id}, "filter": "attributes.run_name = '" + name + "'"}
	if err := s.call(http.MethodPost, "/api/2.0/mlflow/runs/search", nil, body, &got); err != nil {
		return nil, err
	}
	for i := range got.Runs {
		r := &got.Runs[i]
		r.Artifacts = map[string]string{}
		if s.NoProxy {
			continue
		}
		if err := s.walk(strings.TrimPrefix(r.Info.ArtifactURI, "mlflow-artifacts:/"), "", r.Artifacts); err != nil {
			return nil, err
		}
	}
	return got.Runs, nil
}

// walk reads the artifacts under root/dir into out.
func (s *Server) walk(root, dir string, out map[string]string) error {
	var l struct {
		Files []struct {
			Path  string `json:"path"`
			IsDir bool   `json:"is_dir"`
		} `json:"files"`
	}
	if err := s.call(http.MethodGet, "/api/2.0/mlflow-artifacts/artifacts", url.Values{"path": {root + dir}}, nil, &l); err != nil {
		return err
	}
	for _, f := range l.Files {
		name := strings.TrimPrefix(dir+"/"+f.Path, "/")
		if f.IsDir {
			if err := s.walk(root, "/"+name, out); err != nil {
				return err
			}
			continue
		}
		var b []byte
		if err := s.call(http.MethodGet, "/api/2.0/mlflow-artifacts/artifacts/"+root+"/"+name, nil, nil, &b); err != nil {
			return err
		}
		out[name] = string(b)
	}
	return nil
}

// call sends body as JSON and decodes the answer into out (a *[]byte
// takes it as it is).
func (s *Server) call(method, path string, q url.Values, body, out any) error {
	var rd io.Reader
	if body != nil {
		j, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(j)
	}
	req, err := http.NewRequest(method, s.URL+path+"?"+q.Encode(), rd)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s %s: %s %s", method, path, resp.Status, b)
	}
	if raw, ok := out.(*[]byte); ok {
		*raw = b
		return nil
	}
	return json.Unmarshal(b, out)
}
