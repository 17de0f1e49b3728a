package otlp

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/agent-eval/agent-eval/internal/redact"
	"github.com/agent-eval/agent-eval/internal/rundir"
	"github.com/agent-eval/agent-eval/internal/testutil/golden"
	"github.com/agent-eval/agent-eval/internal/transcript"
)

// fixture copies testdata/run to a temporary run directory with every
// PLANTED replaced by secret.
func fixture(t *testing.T, secret string) rundir.Dir {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "run")
	err := filepath.Walk("testdata/run", func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel("testdata/run", p)
		out := filepath.Join(dst, rel)
		if fi.IsDir() {
			return os.MkdirAll(out, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(out, bytes.ReplaceAll(b, []byte("PLANTED"), []byte(secret)), 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	d, err := rundir.Open(dst)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// render is the span tree as text: each span's name, offsets from the
// run's start, status and attributes, indented under its parent.
func render(root *span) string {
	var b strings.Builder
	var walk func(s *span, depth int)
	walk = func(s *span, depth int) {
		ind := strings.Repeat("  ", depth)
		status := "unset"
		if s.failed {
			status = "error: " + s.errMsg
		}
		fmt.Fprintf(&b, "%s%s [%s +%s] %s (%s)\n", ind, s.name, s.start.Sub(root.start), s.end.Sub(s.start), status, s.key)
		attrs := make([]string, 0, len(s.attrs))
		for _, a := range s.attrs {
			attrs = append(attrs, fmt.Sprintf("%s=%s", a.Key, a.Value.String()))
		}
		sort.Strings(attrs)
		for _, a := range attrs {
			fmt.Fprintf(&b, "%s    %s\n", ind, a)
		}
		for _, c := range s.children {
			walk(c, depth+1)
		}
	}
	walk(root, 0)
	return b.String()
}

func TestBuildGolden(t *testing.T) {
	d := fixture(t, "PLANTED")
	root, _, err := build(d, redact.New(nil))
	if err != nil {
		t.Fatal(err)
	}
	golden.Assert(t, "testdata/spans.golden", []byte(render(root)))
	checkInside(t, root)
}

// checkInside fails when a span is not inside its parent's time.
func checkInside(t *testing.T, s *span) {
	t.Helper()
	if s.end.Before(s.start) {
		t.Errorf("%s ends (%s) before it starts (%s)", s.key, s.end, s.start)
	}
	for _, c := range s.children {
		if c.start.Before(s.start) || c.end.After(s.end) {
			t.Errorf("%s [%s, %s] is not inside %s [%s, %s]", c.key, c.start, c.end, s.key, s.start, s.end)
		}
		checkInside(t, c)
	}
}

// TestCaseTimeFromResultFile: a case whose run_result.json was written
// inside the run ends then and starts its duration earlier.
func TestCaseTimeFromResultFile(t *testing.T) {
	d := fixture(t, "PLANTED")
	end := time.Date(2026, 12, 1, 10, 0, 18, 0, time.UTC)
	if err := os.Chtimes(d.CaseResult("bad"), end, end); err != nil {
		t.Fatal(err)
	}
	root, _, err := build(d, redact.New(nil))
	if err != nil {
		t.Fatal(err)
	}
	var bad *span
	for _, c := range root.children {
		if c.key == "case/bad" {
			bad = c
		}
	}
	if bad == nil {
		t.Fatal("no span of case bad")
	}
	if want := end.Add(-5500 * time.Millisecond); !bad.start.Equal(want) || !bad.end.Equal(end) {
		t.Errorf("case bad spans [%s, %s], want [%s, %s]", bad.start, bad.end, want, end)
	}
	checkInside(t, root)
}

func TestPlace(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(s float64) time.Time { return t0.Add(seconds(s)) }
	ev := func(kind, id string) transcriptEvent { return transcriptEvent{kind, id} }
	tests := []struct {
		name    string
		events  []transcriptEvent
		decided map[string]string
		want    []float64
	}{
		{"none placed: evenly", []transcriptEvent{ev("text", ""), ev("text", ""), ev("text", "")}, nil, []float64{2.5, 5, 7.5}},
		{"a call at its ledger time", []transcriptEvent{ev("text", ""), ev("tool_call", "a"), ev("tool_result", "a")},
			map[string]string{"a": "2026-01-01T00:00:08Z"}, []float64{4, 8, 9}},
		{"a ledger time before the previous one is not used", []transcriptEvent{ev("tool_call", "a"), ev("tool_call", "b")},
			map[string]string{"a": "2026-01-01T00:00:06Z", "b": "2026-01-01T00:00:03Z"}, []float64{6, 8}},
		{"a ledger time outside the case is not used", []transcriptEvent{ev("tool_call", "a")},
			map[string]string{"a": "2026-01-01T00:01:00Z"}, []float64{5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			events, decided := toEvents(tt.events, tt.decided)
			got := place(events, decided, t0, at(10))
			var secs []float64
			for _, g := range got {
				secs = append(secs, g.Sub(t0).Seconds())
			}
			if diff := cmp.Diff(tt.want, secs); diff != "" {
				t.Errorf("place (-want +got):\n%s", diff)
			}
		})
	}
}

// TestExportSendsNoSecret plants a secret the environment names, in a
// prompt, a turn's text, a tool's input and output, and checks that no
// byte of what the client sends holds it.
func TestExportSendsNoSecret(t *testing.T) {
	const secret = "sk-ant-api03-PlantedSecretForTheOtlpTest0123456789"
	t.Setenv("AGENT_EVAL_TEST_TOKEN", secret)
	d := fixture(t, secret)
	var mu sync.Mutex
	var bodies [][]byte
	var contentType, header string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, b)
		contentType, header = r.Header.Get("Content-Type"), r.Header.Get("X-Test")
		mu.Unlock()
	}))
	defer srv.Close()
	err := Export(t.Context(), d, Options{Endpoint: srv.URL + TracesPath, Headers: map[string]string{"X-Test": "yes"},
		ResourceAttrs: map[string]string{"deployment.environment": "test"}, RunAttrs: map[string]string{"mlflow.run_id": "abc"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(bodies) != 1 {
		t.Fatalf("%d requests, want 1", len(bodies))
	}
	if contentType != "application/x-protobuf" || header != "yes" {
		t.Errorf("Content-Type %q, X-Test %q; want application/x-protobuf and yes", contentType, header)
	}
	for _, form := range []string{secret, secret[:20], hex.EncodeToString([]byte(secret))} {
		if bytes.Contains(bodies[0], []byte(form)) {
			t.Errorf("the request holds the secret (%q)", form)
		}
	}
	var td tracepb.TracesData
	if err := proto.Unmarshal(bodies[0], &td); err != nil {
		t.Fatal(err)
	}
	spans := td.ResourceSpans[0].ScopeSpans[0].Spans
	if len(spans) < 8 {
		t.Fatalf("%d spans, want the run, 3 cases, turns and calls", len(spans))
	}
	text := string(bodies[0])
	for _, want := range []string{"[redacted", "mlflow.run_id", "deployment.environment", "agent_eval.hook.decision"} {
		if !strings.Contains(text, want) {
			t.Errorf("the request lacks %q", want)
		}
	}
}

// TestExportIdempotent: the same run exported twice sends the same ids.
func TestExportIdempotent(t *testing.T) {
	d := fixture(t, "PLANTED")
	ids := func() []string {
		var got []string
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			b, _ := io.ReadAll(r.Body)
			var td tracepb.TracesData
			if err := proto.Unmarshal(b, &td); err != nil {
				t.Error(err)
			}
			for _, s := range td.ResourceSpans[0].ScopeSpans[0].Spans {
				got = append(got, hex.EncodeToString(s.TraceId)+"/"+hex.EncodeToString(s.SpanId)+"/"+hex.EncodeToString(s.ParentSpanId))
			}
		}))
		defer srv.Close()
		if err := Export(t.Context(), d, Options{Endpoint: srv.URL + TracesPath}); err != nil {
			t.Fatal(err)
		}
		sort.Strings(got)
		return got
	}
	first, second := ids(), ids()
	if diff := cmp.Diff(first, second); diff != "" {
		t.Errorf("ids differ between exports (-first +second):\n%s", diff)
	}
	if want := SpanID(TraceKey("otel-fixture", "20261201-100000.000-fake"), "run").String(); !strings.Contains(strings.Join(first, " "), "/"+want+"/") {
		t.Errorf("no span has the run's id %s", want)
	}
}

func TestClientRetries(t *testing.T) {
	tests := []struct {
		name     string
		statuses []int
		wantErr  string
		wantReqs int
		wantWait []time.Duration
	}{
		{"ok", []int{200}, "", 1, nil},
		{"503 then ok, Retry-After honoured", []int{503, 200}, "", 2, []time.Duration{2 * time.Second}},
		{"429 every time: gives up", []int{429, 429, 429, 429, 429, 429}, "429 Too Many Requests", maxTries, []time.Duration{2 * time.Second, 2 * time.Second, 2 * time.Second, 2 * time.Second}},
		{"400 is not retried", []int{400}, "400 Bad Request: bad span", 1, nil},
		{"401 that echoes the token", []int{401}, "401 Unauthorized: invalid token [redacted]", 1, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := 0
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				st := tt.statuses[min(n, len(tt.statuses)-1)]
				n++
				if st != 200 {
					w.Header().Set("Retry-After", "2")
				}
				w.WriteHeader(st)
				switch st {
				case 400:
					_, _ = w.Write([]byte("bad span"))
				case 401:
					_, _ = w.Write([]byte("invalid token " + strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")))
				}
			}))
			defer srv.Close()
			c := newClient(srv.URL+TracesPath, map[string]string{"Authorization": "Bearer hidden-token-value"})
			var waits []time.Duration
			c.sleep = func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }
			err := c.upload(t.Context(), nil)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("upload: %v", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("upload = %v, want an error with %q", err, tt.wantErr)
			case err != nil && (strings.Contains(err.Error(), "hidden-token-value") || !strings.Contains(err.Error(), srv.URL+TracesPath)):
				t.Errorf("error %q: want the endpoint named and no header", err)
			}
			if n != tt.wantReqs {
				t.Errorf("%d requests, want %d", n, tt.wantReqs)
			}
			if diff := cmp.Diff(tt.wantWait, waits); diff != "" {
				t.Errorf("waits (-want +got):\n%s", diff)
			}
		})
	}
}

func TestClientErrorHidesUserInfo(t *testing.T) {
	c := newClient("http://user:pa55word@127.0.0.1:1/v1/traces?token=abc", nil)
	c.sleep = func(context.Context, time.Duration) error { return nil }
	err := c.upload(t.Context(), nil)
	if err == nil || strings.Contains(err.Error(), "pa55word") || strings.Contains(err.Error(), "abc") {
		t.Fatalf("upload = %v, want an error without the URL's secrets", err)
	}
}

func TestFromEnv(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		flag    string
		want    Options
		wantErr string
	}{
		{name: "nothing", wantErr: "no OTLP endpoint"},
		{name: "flag with path", flag: "http://mlflow:5000/v1/traces", want: Options{Endpoint: "http://mlflow:5000/v1/traces"}},
		{name: "flag without path", flag: "http://collector:4318", want: Options{Endpoint: "http://collector:4318/v1/traces"}},
		{name: "flag wins", flag: "http://a:1/x", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://b:2"}, want: Options{Endpoint: "http://a:1/x"}},
		{name: "base endpoint gets /v1/traces", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://b:4318/"}, want: Options{Endpoint: "http://b:4318/v1/traces"}},
		{name: "base endpoint with a path", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "https://b/otlp"}, want: Options{Endpoint: "https://b/otlp/v1/traces"}},
		{name: "traces endpoint as is", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://b:4318", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://c:9/t"}, want: Options{Endpoint: "http://c:9/t"}},
		{name: "headers decoded, traces ones win", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://b:1",
			"OTEL_EXPORTER_OTLP_HEADERS": "a=1", "OTEL_EXPORTER_OTLP_TRACES_HEADERS": "x-mlflow-experiment-id=42, authorization=Bearer%20tok"}},
		{name: "timeout in ms", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://b:1", "OTEL_EXPORTER_OTLP_TIMEOUT": "2500"},
			want: Options{Endpoint: "http://b:1/v1/traces", Timeout: 2500 * time.Millisecond}},
		{name: "traces timeout wins", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://b:1", "OTEL_EXPORTER_OTLP_TIMEOUT": "2500", "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT": "100"},
			want: Options{Endpoint: "http://b:1/v1/traces", Timeout: 100 * time.Millisecond}},
		{name: "bad timeout", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://b:1", "OTEL_EXPORTER_OTLP_TIMEOUT": "10s"}, wantErr: "OTEL_EXPORTER_OTLP_TIMEOUT"},
		{name: "http/protobuf", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://b:1", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf"}, want: Options{Endpoint: "http://b:1/v1/traces"}},
		{name: "grpc", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://b:1", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, wantErr: "set it to http/protobuf"},
		{name: "traces grpc", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://b:1", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "grpc"}, wantErr: "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=grpc"},
		{name: "http/json", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://b:1", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"}, wantErr: "use http/protobuf"},
		{name: "service and resource", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://b:1", "OTEL_SERVICE_NAME": "evals",
			"OTEL_RESOURCE_ATTRIBUTES": "team=infra,deployment.environment=ci%2Fmain"},
			want: Options{Endpoint: "http://b:1/v1/traces", ServiceName: "evals", ResourceAttrs: map[string]string{"team": "infra", "deployment.environment": "ci/main"}}},
		{name: "bad resource", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://b:1", "OTEL_RESOURCE_ATTRIBUTES": "novalue"}, wantErr: "OTEL_RESOURCE_ATTRIBUTES"},
		{name: "not a URL", flag: "collector:4318", wantErr: "--otlp: the OTLP endpoint must be"},
	}
	tests[7].want = Options{Endpoint: "http://b:1/v1/traces", Headers: map[string]string{"x-mlflow-experiment-id": "42", "authorization": "Bearer tok"}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := FromEnv(func(k string) string { return tt.env[k] }, tt.flag)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("FromEnv = %v, want an error with %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(redact.Redactor{})); diff != "" {
				t.Errorf("FromEnv (-want +got):\n%s", diff)
			}
		})
	}
}

type transcriptEvent struct{ kind, id string }

func toEvents(in []transcriptEvent, decided map[string]string) ([]transcript.Event, map[string]rundir.Decision) {
	var events []transcript.Event
	for _, e := range in {
		events = append(events, transcript.Event{Kind: transcript.Kind(e.kind), ToolUseID: e.id})
	}
	d := map[string]rundir.Decision{}
	for id, ts := range decided {
		d[id] = rundir.Decision{ToolUseID: id, Time: ts}
	}
	return events, d
}

// TestRepeatsAndBatch: a run with repeats has a span per attempt
// ("case <id>@<n>", its attempt attribute n); a batch run's own agent run
// is a span beside the cases.
func TestRepeatsAndBatch(t *testing.T) {
	d := fixture(t, "PLANTED")
	write := func(rel, s string) {
		t.Helper()
		p := filepath.Join(d.Path, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("selection.json", `{"cases": ["bad", "crashed", "good"], "repeats": 2}`)
	write("cases/good/attempts/2/run_result.json", `{"case_id": "good", "attempt": 2, "status": "timeout", "error": "timed out after 30s", "duration_s": 30, "permission_denials": []}`)
	run, err := os.ReadFile(d.RunResult())
	if err != nil {
		t.Fatal(err)
	}
	write("run_result.json", strings.Replace(string(run), `"execution_mode": "case",`,
		`"execution_mode": "case", "batch": {"case_id": "batch", "status": "completed", "duration_s": 2, "permission_denials": []},`, 1))
	write("transcript.jsonl", `{"kind": "text", "text": "Doing the batch.", "model": "m"}`+"\n")
	root, _, err := build(d, redact.New(nil))
	if err != nil {
		t.Fatal(err)
	}
	checkInside(t, root)
	got := map[string]*span{}
	for _, c := range root.children {
		got[c.name] = c
	}
	attempt := got["case good@2"]
	if attempt == nil || !attempt.failed || attemptOf(attempt) != 2 {
		t.Fatalf("spans %v: want case good@2, attempt 2, an error", keysOf(got))
	}
	if got["case bad@2"] != nil {
		t.Error("a span of case bad@2, which has no folder")
	}
	b := got["batch"]
	if b == nil || len(b.children) != 1 || b.children[0].name != "chat m" {
		t.Fatalf("spans %v: want a batch span with its turn", keysOf(got))
	}
}

func attemptOf(s *span) int64 {
	for _, a := range s.attrs {
		if a.Key == AttrCaseAttempt {
			return a.Value.AsInt64()
		}
	}
	return 0
}

func keysOf(m map[string]*span) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TestTracePerCase: each case is the root of a trace of its own, with the
// run's attributes; no run span is sent; the case's spans keep their ids.
func TestTracePerCase(t *testing.T) {
	d := fixture(t, "PLANTED")
	var spans []*tracepb.Span
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var td tracepb.TracesData
		if err := proto.Unmarshal(b, &td); err != nil {
			t.Error(err)
		}
		spans = append(spans, td.ResourceSpans[0].ScopeSpans[0].Spans...)
	}))
	defer srv.Close()
	if err := Export(t.Context(), d, Options{Endpoint: srv.URL + TracesPath, TracePerCase: true}); err != nil {
		t.Fatal(err)
	}
	runID := TraceKey("otel-fixture", "20261201-100000.000-fake")
	roots := map[string]*tracepb.Span{}
	byTrace := map[string]int{}
	for _, s := range spans {
		byTrace[hex.EncodeToString(s.TraceId)]++
		if len(s.ParentSpanId) == 0 {
			roots[s.Name] = s
		}
		if hex.EncodeToString(s.SpanId) == SpanID(runID, "run").String() {
			t.Errorf("the run's span %q was sent", s.Name)
		}
	}
	if len(roots) < 3 || len(roots) != len(byTrace) {
		t.Fatalf("%d roots in %d traces, want one root per case's trace (3 cases or more)", len(roots), len(byTrace))
	}
	for name, s := range roots {
		if !strings.HasPrefix(name, "case ") && name != "batch" {
			t.Errorf("root %q is not a case", name)
		}
		key := "case/" + strings.TrimPrefix(name, "case ")
		if got, want := hex.EncodeToString(s.TraceId), CaseTraceID(runID, key).String(); got != want {
			t.Errorf("%s: trace id %s, want CaseTraceID %s", name, got, want)
		}
		if got, want := hex.EncodeToString(s.SpanId), SpanID(runID, key).String(); got != want {
			t.Errorf("%s: span id %s, want %s (as in the run's trace)", name, got, want)
		}
		run := false
		for _, a := range s.Attributes {
			run = run || a.Key == AttrRunID && a.Value.GetStringValue() == "20261201-100000.000-fake"
		}
		if !run {
			t.Errorf("%s lacks the run's %s", name, AttrRunID)
		}
	}
}

// TestChunks: requests hold at most size spans of at most traces traces.
func TestChunks(t *testing.T) {
	var spans []outSpan
	for i := range 250 {
		for range 3 {
			spans = append(spans, outSpan{trace: traceID{byte(i / 250), byte(i%250) + 1}})
		}
	}
	got := chunks(spans, 1000, 100)
	if len(got) != 3 {
		t.Fatalf("%d requests, want 3", len(got))
	}
	total := 0
	for _, c := range got {
		seen := map[traceID]bool{}
		for _, s := range c {
			seen[s.trace] = true
		}
		if len(seen) > 100 || len(c) > 1000 {
			t.Errorf("a request of %d spans in %d traces", len(c), len(seen))
		}
		total += len(c)
	}
	if total != len(spans) {
		t.Errorf("%d spans sent, want %d", total, len(spans))
	}
	if got := chunks(spans[:30], 7, 100); len(got) != 5 || len(got[4]) != 2 {
		t.Errorf("30 spans by 7: %d requests", len(got))
	}
}
