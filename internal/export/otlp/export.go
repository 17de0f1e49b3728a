package otlp

import (
	"context"
	"crypto/sha256"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agent-eval/agent-eval/internal/redact"
	"github.com/agent-eval/agent-eval/internal/rundir"
	"github.com/agent-eval/agent-eval/internal/version"
)

// batchSize is the most spans one request carries, and
// maxTracesPerRequest the most traces (MLflow links at most 100 traces of
// a request to a run). maxAttrs is the most attributes a span carries
// (more are counted as dropped).
const (
	batchSize           = 1000
	maxTracesPerRequest = 100
	maxAttrs            = 256
)

// scopeName is the instrumentation scope the spans are sent under.
const scopeName = "github.com/agent-eval/agent-eval/internal/export/otlp"

// outSpan is a span as sent: its ids given, its attributes final.
type outSpan struct {
	trace      traceID
	id, parent spanID
	name       string
	start, end time.Time
	attrs      []keyValue
	dropped    int
	failed     bool
	errMsg     string
}

// chunks cuts spans into requests of at most size spans of at most traces
// traces each.
func chunks(spans []outSpan, size, traces int) [][]outSpan {
	var out [][]outSpan
	var cur []outSpan
	seen := map[traceID]bool{}
	for _, sp := range spans {
		id := sp.trace
		if len(cur) == size || !seen[id] && len(seen) == traces {
			out, cur, seen = append(out, cur), nil, map[traceID]bool{}
		}
		seen[id] = true
		cur = append(cur, sp)
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

// Export sends the run in dir as one trace to opt.Endpoint. What of the run
// directory could not be read is left out (the rest is sent); the error
// is the first request's that failed, or the run directory's when it
// holds nothing to send.
func Export(ctx context.Context, dir rundir.Dir, opt Options) error {
	if opt.Endpoint == "" {
		return ErrNoEndpoint
	}
	timeout := opt.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	root, red, err := build(dir, opt.Redactor)
	if err != nil {
		return err
	}
	for _, k := range slices.Sorted(maps.Keys(opt.RunAttrs)) {
		root.attrs = append(root.attrs, attrString(k, red.String(opt.RunAttrs[k])))
	}
	spans := record(root, opt.TracePerCase)
	res := resourceOf(opt, red)
	sc := scope{name: scopeName, version: version.Get().Version}
	c := newClient(opt.Endpoint, opt.Headers)
	for _, chunk := range chunks(spans, batchSize, maxTracesPerRequest) {
		if err := c.upload(ctx, encodeTraces(chunk, res, sc)); err != nil {
			return err // the client's own words: the endpoint, never a header
		}
	}
	return nil
}

// build reads dir into its span tree with the redactor the spans are
// redacted with: red (or this environment's) plus the run's marked
// secrets.
func build(dir rundir.Dir, red *redact.Redactor) (*span, *redact.Redactor, error) {
	if red == nil {
		red = redact.FromEnviron(os.Environ())
	}
	_, err := dir.HideSecrets(red) // what was found is hidden all the same
	b := &builder{dir: dir, red: red}
	b.note(err)
	root, berr := b.build()
	return root, red, berr
}

// resourceOf is the resource's attributes, sorted by key, each key once
// (the last value given wins).
func resourceOf(opt Options, red *redact.Redactor) []keyValue {
	attrs := []keyValue{}
	for _, k := range slices.Sorted(maps.Keys(opt.ResourceAttrs)) {
		if k != "service.name" {
			attrs = append(attrs, attrString(k, red.String(opt.ResourceAttrs[k])))
		}
	}
	name := opt.ServiceName
	if name == "" {
		name = opt.ResourceAttrs["service.name"]
	}
	attrs = append(attrs,
		attrString("service.name", red.String(orDefault(name, "agent-eval"))),
		attrString("service.version", version.Get().Version))
	attrs, _ = dedupe(attrs, len(attrs))
	slices.SortStableFunc(attrs, func(a, b keyValue) int { return strings.Compare(a.Key, b.Key) })
	return attrs
}

// dedupe keeps each key of attrs once, where it first appears, with the
// last value given it, and at most limit of them; it returns how many
// were dropped beyond the limit. Attributes without a key are dropped.
func dedupe(attrs []keyValue, limit int) ([]keyValue, int) {
	out := make([]keyValue, 0, len(attrs))
	at := make(map[string]int, len(attrs))
	dropped := 0
	for _, a := range attrs {
		if a.Key == "" {
			dropped++
			continue
		}
		if i, ok := at[a.Key]; ok {
			out[i] = a
			continue
		}
		if len(out) == limit {
			dropped++
			continue
		}
		at[a.Key] = len(out)
		out = append(out, a)
	}
	return out, dropped
}

// TraceKeyOf is what the trace of dir derives its ids from (TraceID,
// SpanID): TraceKey of run_result.json's eval name and run id, else of
// the folder's name.
func TraceKeyOf(dir rundir.Dir) string {
	if r, err := dir.ReadRun(); err == nil && r.RunID != "" {
		return TraceKey(r.EvalName, r.RunID)
	}
	return filepath.Base(dir.Path)
}

// TraceKey is the key a run's trace and span ids derive from: the eval's
// name and the run id, since an explicit run id (r1, ci-42) repeats from
// one eval to the next, and their traces must not land in one.
func TraceKey(evalName, runID string) string {
	if evalName == "" {
		return runID
	}
	return evalName + "/" + runID
}

// record gives the tree's spans their ids, derived from the run id and
// each span's key, in the order they end (children before their parent).
// With perCase, each of the run's children is the root of a trace of its
// own, with the run's attributes, and the run's span is not sent.
func record(root *span, perCase bool) []outSpan {
	runID, evalName := "", ""
	for _, a := range root.attrs {
		switch a.Key {
		case AttrRunID:
			runID = a.Value.AsString()
		case AttrEvalName:
			evalName = a.Value.AsString()
		}
	}
	runID = TraceKey(evalName, runID)
	var out []outSpan
	var emit func(s *span, trace traceID, parent spanID, extra []keyValue)
	emit = func(s *span, trace traceID, parent spanID, extra []keyValue) {
		id := SpanID(runID, s.key)
		for _, c := range s.children {
			emit(c, trace, id, nil)
		}
		attrs, dropped := dedupe(append(slices.Clip(s.attrs), extra...), maxAttrs)
		o := outSpan{trace: trace, id: id, parent: parent, name: s.name, start: s.start, end: s.end,
			attrs: attrs, dropped: dropped, failed: s.failed}
		if s.failed {
			o.errMsg = s.errMsg
		}
		out = append(out, o)
	}
	if perCase {
		for _, c := range root.children {
			emit(c, CaseTraceID(runID, c.key), spanID{}, runOnly(root.attrs, c.attrs))
		}
	} else {
		emit(root, TraceID(runID), spanID{}, nil)
	}
	return out
}

// runOnly are the run's attributes a case's span lacks, for a case sent
// as a trace of its own.
func runOnly(run, own []keyValue) []keyValue {
	have := map[string]bool{}
	for _, a := range own {
		have[a.Key] = true
	}
	var out []keyValue
	for _, a := range run {
		if !have[a.Key] {
			out = append(out, a)
		}
	}
	return out
}

// CaseTraceID is the trace id of the span at key ("case/<key>", or the
// batch's) when each case is a trace of its own.
func CaseTraceID(runID, key string) traceID {
	return TraceID(runID + "\x00" + key)
}

// TraceID is the trace id of the export of the run whose TraceKey is
// runID.
func TraceID(runID string) traceID {
	var id traceID
	h := sha256.Sum256([]byte("agent-eval trace\x00" + runID))
	copy(id[:], h[:])
	if !id.IsValid() {
		id[0] = 1
	}
	return id
}

// SpanID is the id of the span at key ("run", "case/<key>",
// "case/<key>/turn/<n>", "case/<key>/tool/<n>", "case/<key>/hook/<n>") of
// run runID's export.
func SpanID(runID, key string) spanID {
	var id spanID
	h := sha256.Sum256([]byte("agent-eval span\x00" + runID + "\x00" + key))
	copy(id[:], h[:])
	if !id.IsValid() {
		id[0] = 1
	}
	return id
}
