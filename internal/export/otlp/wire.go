package otlp

import (
	"encoding/binary"
	"math"
)

// The OTLP/HTTP request body is an ExportTraceServiceRequest, which is
// wire-identical to TracesData; this file encodes it in protobuf's wire
// format by hand (varints, fixed64, length-delimited fields), so that the
// binary links no protobuf runtime: its initialisation would run on every
// start, the hook's included. The field numbers are those of
// opentelemetry/proto/{trace,common,resource}/v1 (TestWireGolden decodes
// what is sent with the official types).

// Protobuf wire types.
const (
	wireVarint  = 0
	wireFixed64 = 1
	wireBytes   = 2
	wireFixed32 = 5
)

// Enum values and flags of trace/v1.
const (
	spanKindInternal = 1
	statusCodeError  = 2
	// flagSampled | SPAN_FLAGS_CONTEXT_HAS_IS_REMOTE_MASK: a sampled span
	// whose parent is known not to be remote.
	spanFlags = 0x01 | 0x100
)

// pb appends protobuf fields to a buffer.
type pb struct{ b []byte }

func (p *pb) tag(field, wire int) { p.b = binary.AppendUvarint(p.b, uint64(field)<<3|uint64(wire)) }

func (p *pb) varint(field int, v uint64) {
	p.tag(field, wireVarint)
	p.b = binary.AppendUvarint(p.b, v)
}

func (p *pb) fixed64(field int, v uint64) {
	p.tag(field, wireFixed64)
	p.b = binary.LittleEndian.AppendUint64(p.b, v)
}

func (p *pb) fixed32(field int, v uint32) {
	p.tag(field, wireFixed32)
	p.b = binary.LittleEndian.AppendUint32(p.b, v)
}

func (p *pb) bytes(field int, v []byte) {
	p.tag(field, wireBytes)
	p.b = binary.AppendUvarint(p.b, uint64(len(v)))
	p.b = append(p.b, v...)
}

func (p *pb) str(field int, v string) {
	p.tag(field, wireBytes)
	p.b = binary.AppendUvarint(p.b, uint64(len(v)))
	p.b = append(p.b, v...)
}

// msg appends a length-delimited sub-message that fill writes.
func (p *pb) msg(field int, fill func(*pb)) {
	var sub pb
	fill(&sub)
	p.bytes(field, sub.b)
}

// Proto3 leaves zero scalars out; these write a field only when set.
func (p *pb) strOpt(field int, v string) {
	if v != "" {
		p.str(field, v)
	}
}

func (p *pb) varintOpt(field int, v uint64) {
	if v != 0 {
		p.varint(field, v)
	}
}

// keyValues appends attrs as repeated KeyValue{1: key, 2: AnyValue}.
func (p *pb) keyValues(field int, attrs []keyValue) {
	for _, a := range attrs {
		p.msg(field, func(kv *pb) {
			kv.strOpt(1, a.Key)
			kv.msg(2, func(av *pb) { av.anyValue(a.Value) })
		})
	}
}

// anyValue writes AnyValue's oneof: 1 string, 2 bool, 3 int, 4 double,
// 5 array. A oneof member is written even when zero.
func (p *pb) anyValue(v value) {
	switch v.kind {
	case kindString:
		p.str(1, v.s)
	case kindBool:
		p.varint(2, uint64(v.n))
	case kindInt:
		p.varint(3, uint64(v.n))
	case kindDouble:
		p.fixed64(4, math.Float64bits(v.f))
	case kindStrings:
		p.msg(5, func(arr *pb) {
			for _, s := range v.ss {
				arr.msg(1, func(av *pb) { av.str(1, s) })
			}
		})
	}
}

// scope is the instrumentation scope the spans are sent under.
type scope struct{ name, version string }

// encodeTraces is the TracesData of spans: one ResourceSpans of res, with
// one ScopeSpans of sc.
func encodeTraces(spans []outSpan, res []keyValue, sc scope) []byte {
	var p pb
	if len(spans) == 0 {
		return p.b
	}
	p.msg(1, func(rs *pb) { // ResourceSpans
		rs.msg(1, func(r *pb) { r.keyValues(1, res) }) // Resource
		rs.msg(2, func(ss *pb) {                       // ScopeSpans
			ss.msg(1, func(s *pb) { // InstrumentationScope
				s.strOpt(1, sc.name)
				s.strOpt(2, sc.version)
			})
			for i := range spans {
				ss.msg(2, func(s *pb) { s.span(&spans[i]) })
			}
		})
	})
	return p.b
}

// span writes trace/v1's Span.
func (p *pb) span(s *outSpan) {
	p.bytes(1, s.trace[:])
	p.bytes(2, s.id[:])
	if s.parent.IsValid() {
		p.bytes(4, s.parent[:])
	}
	p.strOpt(5, s.name)
	p.varint(6, spanKindInternal)
	p.fixed64(7, uint64(max(0, s.start.UnixNano())))
	p.fixed64(8, uint64(max(0, s.end.UnixNano())))
	p.keyValues(9, s.attrs)
	p.varintOpt(10, uint64(s.dropped))
	p.msg(15, func(st *pb) { // Status{2: message, 3: code}; Unset is empty
		if s.failed {
			st.strOpt(2, s.errMsg)
			st.varint(3, statusCodeError)
		}
	})
	p.fixed32(16, spanFlags)
}
