// Package otlpvalue decodes an OpenTelemetry AnyValue in its JSON form
// (string_value, int_value, double_value, bool_value, array_value,
// kvlist_value), as MLflow's trace API answers span attributes. A leaf:
// the MLflow client and the tests' MLflow server helper both read it.
package otlpvalue

import "encoding/json"

// Decode returns raw as a Go value: string, int64, float64, bool, []any
// or map[string]any; nil when raw is no AnyValue.
func Decode(raw json.RawMessage) any {
	var v struct {
		String *string      `json:"string_value"`
		Int    *json.Number `json:"int_value"`
		Double *float64     `json:"double_value"`
		Bool   *bool        `json:"bool_value"`
		Array  *struct {
			Values []json.RawMessage `json:"values"`
		} `json:"array_value"`
		KV *struct {
			Values []struct {
				Key   string          `json:"key"`
				Value json.RawMessage `json:"value"`
			} `json:"values"`
		} `json:"kvlist_value"`
	}
	if json.Unmarshal(raw, &v) != nil {
		return nil
	}
	switch {
	case v.String != nil:
		return *v.String
	case v.Int != nil:
		n, _ := v.Int.Int64()
		return n
	case v.Double != nil:
		return *v.Double
	case v.Bool != nil:
		return *v.Bool
	case v.Array != nil:
		out := make([]any, 0, len(v.Array.Values))
		for _, e := range v.Array.Values {
			out = append(out, Decode(e))
		}
		return out
	case v.KV != nil:
		out := make(map[string]any, len(v.KV.Values))
		for _, kv := range v.KV.Values {
			out[kv.Key] = Decode(kv.Value)
		}
		return out
	}
	return nil
}
