package otlp

import (
	"encoding/hex"
	"encoding/json"
	"strconv"
)

// valueKind is which of OTLP's AnyValue forms a value is.
type valueKind uint8

const (
	kindString valueKind = iota
	kindBool
	kindInt
	kindDouble
	kindStrings
)

// value is an attribute's value: a string, bool, int64, float64 or a list
// of strings (the only forms the spans carry).
type value struct {
	kind valueKind
	s    string
	n    int64
	f    float64
	ss   []string
}

// AsString is a string value's text ("" for another kind).
func (v value) AsString() string { return v.s }

// AsInt64 is an int value's number (0 for another kind).
func (v value) AsInt64() int64 { return v.n }

// String is the value as text, as OpenTelemetry prints it for protocols
// other than OTLP: a list as a JSON array.
func (v value) String() string {
	switch v.kind {
	case kindBool:
		return strconv.FormatBool(v.n != 0)
	case kindInt:
		return strconv.FormatInt(v.n, 10)
	case kindDouble:
		return strconv.FormatFloat(v.f, 'g', -1, 64)
	case kindStrings:
		b, _ := json.Marshal(v.ss) // strings always marshal
		return string(b)
	}
	return v.s
}

// keyValue is one span or resource attribute.
type keyValue struct {
	Key   string
	Value value
}

func attrString(k, v string) keyValue  { return keyValue{k, value{kind: kindString, s: v}} }
func attrInt(k string, v int) keyValue { return keyValue{k, value{kind: kindInt, n: int64(v)}} }
func attrInt64(k string, v int64) keyValue {
	return keyValue{k, value{kind: kindInt, n: v}}
}
func attrFloat(k string, v float64) keyValue { return keyValue{k, value{kind: kindDouble, f: v}} }
func attrStrings(k string, v []string) keyValue {
	return keyValue{k, value{kind: kindStrings, ss: v}}
}
func attrBool(k string, v bool) keyValue {
	n := int64(0)
	if v {
		n = 1
	}
	return keyValue{k, value{kind: kindBool, n: n}}
}

// traceID is a trace's 16-byte id.
type traceID [16]byte

// String is the id in lower-case hex, as receivers show it.
func (id traceID) String() string { return hex.EncodeToString(id[:]) }

// IsValid: the id is not all zeros.
func (id traceID) IsValid() bool { return id != traceID{} }

// spanID is a span's 8-byte id.
type spanID [8]byte

// String is the id in lower-case hex.
func (id spanID) String() string { return hex.EncodeToString(id[:]) }

// IsValid: the id is not all zeros.
func (id spanID) IsValid() bool { return id != spanID{} }
