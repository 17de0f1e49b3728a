package otlp

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/agent-eval/agent-eval/internal/redact"
	"github.com/agent-eval/agent-eval/internal/rundir"
	"github.com/agent-eval/agent-eval/internal/version"
)

// batchSize is the most spans one request carries, and
// maxTracesPerRequest the most traces (MLflow links at most 100 traces of
// a request to a run).
const (
	batchSize           = 1000
	maxTracesPerRequest = 100
)

// chunks cuts spans into requests of at most size spans of at most traces
// traces each.
func chunks(spans []sdktrace.ReadOnlySpan, size, traces int) [][]sdktrace.ReadOnlySpan {
	var out [][]sdktrace.ReadOnlySpan
	var cur []sdktrace.ReadOnlySpan
	seen := map[trace.TraceID]bool{}
	for _, sp := range spans {
		id := sp.SpanContext().TraceID()
		if len(cur) == size || !seen[id] && len(seen) == traces {
			out, cur, seen = append(out, cur), nil, map[trace.TraceID]bool{}
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
		root.attrs = append(root.attrs, attribute.String(k, red.String(opt.RunAttrs[k])))
	}
	spans := record(ctx, root, resourceOf(opt, red), opt.TracePerCase)
	c := newClient(opt.Endpoint, opt.Headers)
	exp, err := otlptrace.New(ctx, c)
	if err != nil {
		return fmt.Errorf("start the OTLP exporter: %w", err)
	}
	var errs []error
	for _, chunk := range chunks(spans, batchSize, maxTracesPerRequest) {
		if err := exp.ExportSpans(ctx, chunk); err != nil {
			errs = append(errs, err)
			break
		}
	}
	if err := exp.Shutdown(context.WithoutCancel(ctx)); err != nil {
		errs = append(errs, err)
	}
	c.mu.Lock()
	first := c.err
	c.mu.Unlock()
	if first != nil {
		return first // the client's own words: the endpoint, never a header
	}
	return errors.Join(errs...)
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

func resourceOf(opt Options, red *redact.Redactor) *resource.Resource {
	attrs := []attribute.KeyValue{}
	for _, k := range slices.Sorted(maps.Keys(opt.ResourceAttrs)) {
		if k != "service.name" {
			attrs = append(attrs, attribute.String(k, red.String(opt.ResourceAttrs[k])))
		}
	}
	name := opt.ServiceName
	if name == "" {
		name = opt.ResourceAttrs["service.name"]
	}
	attrs = append(attrs,
		attribute.String("service.name", red.String(orDefault(name, "agent-eval"))),
		attribute.String("service.version", version.Get().Version))
	return resource.NewSchemaless(attrs...)
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

// record turns the tree into SDK spans with ids derived from the run id
// and each span's key.
// With perCase, each of the run's children is the root of a trace of its
// own, with the run's attributes, and the run's span is not sent.
func record(ctx context.Context, root *span, res *resource.Resource, perCase bool) []sdktrace.ReadOnlySpan {
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
	col := &collector{}
	tp := sdktrace.NewTracerProvider(
		sdktrace.WithSampler(sdktrace.AlwaysSample()),
		sdktrace.WithIDGenerator(ids{runID: runID}),
		sdktrace.WithResource(res),
		sdktrace.WithSpanProcessor(col),
		sdktrace.WithRawSpanLimits(sdktrace.SpanLimits{
			AttributeValueLengthLimit: -1, AttributeCountLimit: 256,
			EventCountLimit: 0, LinkCountLimit: 0, AttributePerEventCountLimit: 0, AttributePerLinkCountLimit: 0}))
	tr := tp.Tracer("github.com/agent-eval/agent-eval/internal/export/otlp", trace.WithInstrumentationVersion(version.Get().Version))
	var emit func(ctx context.Context, s *span, extra ...trace.SpanStartOption)
	emit = func(ctx context.Context, s *span, extra ...trace.SpanStartOption) {
		opts := append([]trace.SpanStartOption{trace.WithTimestamp(s.start), trace.WithAttributes(s.attrs...),
			trace.WithSpanKind(trace.SpanKindInternal)}, extra...)
		ctx, sp := tr.Start(withKey(ctx, s.key), s.name, opts...)
		for _, c := range s.children {
			emit(ctx, c)
		}
		if s.failed {
			sp.SetStatus(codes.Error, s.errMsg)
		}
		sp.End(trace.WithTimestamp(s.end))
	}
	if perCase {
		for _, c := range root.children {
			emit(ctx, c, trace.WithNewRoot(), trace.WithAttributes(runOnly(root.attrs, c.attrs)...))
		}
	} else {
		emit(ctx, root)
	}
	_ = tp.Shutdown(context.WithoutCancel(ctx)) // the collector's Shutdown does nothing
	return col.spans
}

// collector keeps the ended spans, to be exported in batches of our own:
// no batch processor, so no background goroutine and no errors sent to
// OTel's global handler (which prints).
type collector struct {
	mu    sync.Mutex
	spans []sdktrace.ReadOnlySpan
}

func (c *collector) OnStart(context.Context, sdktrace.ReadWriteSpan) {}
func (c *collector) OnEnd(s sdktrace.ReadOnlySpan) {
	c.mu.Lock()
	c.spans = append(c.spans, s)
	c.mu.Unlock()
}
func (c *collector) Shutdown(context.Context) error   { return nil }
func (c *collector) ForceFlush(context.Context) error { return nil }

type keyCtx struct{}

func withKey(ctx context.Context, key string) context.Context {
	return context.WithValue(ctx, keyCtx{}, key)
}

// ids is the sdktrace.IDGenerator of deterministic ids: the trace's from
// the run id, a span's from the run id and the span's key.
type ids struct{ runID string }

// NewIDs is the trace id and the root span's id: the run's trace, or a
// case's own (Options.TracePerCase).
func (g ids) NewIDs(ctx context.Context) (trace.TraceID, trace.SpanID) {
	key, _ := ctx.Value(keyCtx{}).(string)
	if key != "run" {
		return CaseTraceID(g.runID, key), g.NewSpanID(ctx, trace.TraceID{})
	}
	return TraceID(g.runID), g.NewSpanID(ctx, trace.TraceID{})
}

// runOnly are the run's attributes a case's span lacks, for a case sent
// as a trace of its own.
func runOnly(run, own []attribute.KeyValue) []attribute.KeyValue {
	have := map[attribute.Key]bool{}
	for _, a := range own {
		have[a.Key] = true
	}
	var out []attribute.KeyValue
	for _, a := range run {
		if !have[a.Key] {
			out = append(out, a)
		}
	}
	return out
}

// CaseTraceID is the trace id of the span at key ("case/<key>", or the
// batch's) when each case is a trace of its own.
func CaseTraceID(runID, key string) trace.TraceID {
	return TraceID(runID + "\x00" + key)
}

// NewSpanID is the id of the span whose key ctx carries.
func (g ids) NewSpanID(ctx context.Context, _ trace.TraceID) trace.SpanID {
	key, _ := ctx.Value(keyCtx{}).(string)
	return SpanID(g.runID, key)
}

// TraceID is the trace id of the export of the run whose TraceKey is
// runID.
func TraceID(runID string) trace.TraceID {
	var id trace.TraceID
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
func SpanID(runID, key string) trace.SpanID {
	var id trace.SpanID
	h := sha256.Sum256([]byte("agent-eval span\x00" + runID + "\x00" + key))
	copy(id[:], h[:])
	if !id.IsValid() {
		id[0] = 1
	}
	return id
}
