package config

import (
	"errors"
	"fmt"
	"net/url"
	"path"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MLflow's limits on what a run holds (mlflow/utils/validation.py).
const (
	MLflowMaxKeyLength      = 250
	MLflowMaxTagValueLength = 8000
)

// MLflowKeyProblem says what is wrong with k as the name of an MLflow
// param, metric or tag, "" when nothing is: MLflow allows letters, digits,
// _ - . : / and spaces, at most 250 characters, and a name that stays
// itself as a path (no leading /, no .. or . segments, no //).
func MLflowKeyProblem(k string) string {
	switch {
	case k == "":
		return "is empty"
	case utf8.RuneCountInString(k) > MLflowMaxKeyLength:
		return fmt.Sprintf("is longer than MLflow's %d characters", MLflowMaxKeyLength)
	}
	for _, r := range k {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && !strings.ContainsRune("_-.:/ ", r) {
			return fmt.Sprintf("has %q: MLflow names hold only letters, digits, _ - . : / and spaces", r)
		}
	}
	if c := path.Clean(k); c != k || c == "." || strings.HasPrefix(c, "..") || strings.HasPrefix(c, "/") {
		return "is not a plain path (MLflow refuses a leading /, a trailing /, // and . or .. segments)"
	}
	return ""
}

// MLflowURLProblem says what is wrong with u as a tracking server's URL,
// "" when nothing is: agent-eval speaks the server's REST API, so only an
// http(s) URL with a host will do.
func MLflowURLProblem(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		// Not the *url.Error: it quotes the whole URL, password and all.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return fmt.Sprintf("is not a URL: %v", err)
	}
	if p.Scheme != "http" && p.Scheme != "https" {
		return "is not an http(s) URL: agent-eval speaks the tracking server's REST API, so give the server's URL " +
			"(a file or database store is served by `mlflow server --backend-store-uri ...`)"
	}
	if p.Host == "" {
		return "has no host"
	}
	if p.RawQuery != "" || p.Fragment != "" {
		return "has a query or fragment"
	}
	return ""
}

// mlflow checks the mlflow block: what the tracking server would refuse
// later is refused here.
func (v *validator) mlflow() {
	m := v.e.MLflow
	if m == nil {
		return
	}
	if v.has("mlflow.experiment") && strings.TrimSpace(m.Experiment) == "" {
		v.errf("mlflow.experiment", CodeSemantic, "is empty: leave it out to use the eval's name")
	}
	if m.TrackingURI != "" {
		if p := MLflowURLProblem(m.TrackingURI); p != "" {
			v.errf("mlflow.tracking_uri", CodeSemantic, "%s %s", redactedURL(m.TrackingURI), p)
		}
	}
	keys := make([]string, 0, len(m.Tags))
	for k := range m.Tags {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		p := "mlflow.tags." + k
		if !v.has(p) {
			p = "mlflow.tags"
		}
		if prob := MLflowKeyProblem(k); prob != "" {
			v.errf(p, CodeSemantic, "tag name %q %s", k, prob)
			continue
		}
		if utf8.RuneCountInString(m.Tags[k]) > MLflowMaxTagValueLength {
			v.errf(p, CodeSemantic, "tag %q is longer than MLflow's %d characters", k, MLflowMaxTagValueLength)
		}
		if k == "mlflow.runName" {
			v.warnf(p, "is ignored: the MLflow run's name is always the agent-eval run id (the key that finds the run again)")
		}
	}
}

// redactedURL is u without its password, for messages.
func redactedURL(u string) string {
	p, err := url.Parse(u)
	if err != nil || p.User == nil {
		return u
	}
	return p.Redacted()
}
