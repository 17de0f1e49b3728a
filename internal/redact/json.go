package redact

import (
	"bytes"
	"encoding/json"
	"io"
)

// JSON redacts a JSON document (one stream-json line, a tool's input) and
// keeps it valid JSON: the text is redacted as a whole, and when that broke
// the document (a match ran into an escape sequence, say) every string in
// it is redacted one by one instead, keys and shape kept. A document that
// is not JSON to begin with is redacted as text.
func (r *Redactor) JSON(doc []byte) []byte {
	out := []byte(r.String(string(doc)))
	if bytes.Equal(out, doc) || json.Valid(out) || !json.Valid(doc) {
		return out
	}
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return out
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r.walk(v)); err != nil {
		return []byte(`"` + Mark + `"`)
	}
	res := bytes.TrimRight(buf.Bytes(), "\n")
	// Keep the line's own ending.
	if trail := doc[len(bytes.TrimRight(doc, "\r\n")):]; len(trail) > 0 {
		res = append(res, trail...)
	}
	return res
}

// walk redacts every string (keys included) of a decoded JSON value.
func (r *Redactor) walk(v any) any {
	switch v := v.(type) {
	case string:
		return r.String(v)
	case []any:
		for i := range v {
			v[i] = r.walk(v[i])
		}
		return v
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[r.String(k)] = r.walk(x)
		}
		return out
	}
	return v
}

// JSONWriter is Writer for a stream of JSON lines (stream-json): each line
// is redacted with JSON, so it stays parseable.
func (r *Redactor) JSONWriter(w io.Writer) io.WriteCloser {
	return &lineWriter{r: r, w: w, json: true}
}
