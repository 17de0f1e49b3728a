package mlflow

import (
	"encoding/json"
	"reflect"
	"testing"
)

// The span attributes as MLflow's trace API answers them (OTLP AnyValue
// in JSON), and the previews of a trace without spans.
func TestAnyValue(t *testing.T) {
	for _, tc := range []struct {
		raw  string
		want any
	}{
		{`{"string_value": "plain text question"}`, "plain text question"},
		{`{"string_value": "{\"prompt\": \"p\"}"}`, map[string]any{"prompt": "p"}},
		{`{"string_value": "[1, 2"}`, "[1, 2"},
		{`{"int_value": "10"}`, int64(10)},
		{`{"double_value": 1.5}`, 1.5},
		{`{"bool_value": true}`, true},
		{`{"array_value": {"values": [{"string_value": "a"}, {"int_value": 2}]}}`, []any{"a", int64(2)}},
		{`{"kvlist_value": {"values": [{"key": "prompt", "value": {"string_value": "Fix it"}}, {"key": "n", "value": {"kvlist_value": {"values": []}}}]}}`,
			map[string]any{"prompt": "Fix it", "n": map[string]any{}}},
		{`{}`, nil},
		{`"not an AnyValue"`, nil},
	} {
		if got := anyValue(json.RawMessage(tc.raw)); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("anyValue(%s) = %#v, want %#v", tc.raw, got, tc.want)
		}
	}
	for in, want := range map[string]any{"": nil, `"quoted"`: "quoted", `{"a": 1}`: map[string]any{"a": 1.0}, "42": "42", "text": "text"} {
		if got := jsonOrText(in); !reflect.DeepEqual(got, want) {
			t.Errorf("jsonOrText(%q) = %#v, want %#v", in, got, want)
		}
	}
}
