package otlp

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/proto"

	"github.com/agent-eval/agent-eval/internal/redact"
	"github.com/agent-eval/agent-eval/internal/testutil/golden"
)

// TestWireGolden decodes what Export sends with the official OTLP types
// (a test-only import) and compares every field of every request with a
// golden file: the run's trace and the trace-per-case form, with resource,
// run attributes and a service name. The golden was written by the OTel
// SDK's exporter, before this package encoded the protobuf itself, so it
// proves the hand-written encoder sends the same request.
func TestWireGolden(t *testing.T) {
	for _, perCase := range []bool{false, true} {
		t.Run(fmt.Sprintf("per-case=%v", perCase), func(t *testing.T) {
			d := fixture(t, "PLANTED")
			var mu sync.Mutex
			var out strings.Builder
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				b, _ := io.ReadAll(r.Body)
				var td tracepb.TracesData
				if err := proto.Unmarshal(b, &td); err != nil {
					t.Error(err)
				}
				mu.Lock()
				defer mu.Unlock()
				fmt.Fprintf(&out, "request %s %s\n", r.Method, r.Header.Get("Content-Type"))
				out.WriteString(textOf(&td))
			}))
			defer srv.Close()
			opt := Options{Endpoint: srv.URL + TracesPath, Redactor: redact.New(nil), TracePerCase: perCase, ServiceName: "evals",
				ResourceAttrs: map[string]string{"deployment.environment": "test", "service.name": "ignored", "team": "infra"},
				RunAttrs:      map[string]string{"mlflow.run_id": "abc", AttrEvalName: "overridden"}}
			if err := Export(t.Context(), d, opt); err != nil {
				t.Fatal(err)
			}
			golden.Assert(t, fmt.Sprintf("testdata/wire-per-case-%v.golden", perCase), []byte(out.String()))
		})
	}
}

// textOf is m in protobuf's text format, one field a line, indented; the
// extra spaces the text encoder inserts at random are taken out.
func textOf(m proto.Message) string {
	b := prototext.MarshalOptions{Multiline: true, Indent: "  "}.Format(m)
	var out strings.Builder
	for _, line := range strings.Split(b, "\n") {
		body := strings.TrimLeft(line, " ")
		out.WriteString(line[:len(line)-len(body)])
		out.WriteString(strings.Join(strings.Fields(body), " "))
		out.WriteString("\n")
	}
	return out.String()
}

// TestDedupe: a key keeps its first place and its last value; past the
// limit, new keys are counted as dropped; a key-less attribute is dropped.
func TestDedupe(t *testing.T) {
	in := []keyValue{attrString("a", "1"), attrInt("b", 2), attrString("a", "3"), attrBool("", true), attrFloat("c", 4), attrString("d", "5")}
	got, dropped := dedupe(in, 3)
	var keys []string
	for _, a := range got {
		keys = append(keys, a.Key+"="+a.Value.String())
	}
	if strings.Join(keys, " ") != "a=3 b=2 c=4" || dropped != 2 {
		t.Errorf("dedupe = %q, %d dropped; want a=3 b=2 c=4, 2 dropped", keys, dropped)
	}
}
