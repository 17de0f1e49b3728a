package redact

import (
	"bytes"
	"encoding/json"
	"io"
	"unicode/utf16"
	"unicode/utf8"
)

// JSON redacts a JSON document (one stream-json line, a tool's input) and
// keeps it valid JSON, byte for byte where nothing is hidden: every string
// is decoded, redacted as text (so a "\n" escape is a line break, never
// part of a value), and re-encoded; the value of a secret-named key
// ("password": "…", "Authorization": "Bearer …") is hidden whole. A
// document that is not JSON is redacted as text. The line's own ending is
// kept.
func (r *Redactor) JSON(doc []byte) []byte {
	body := bytes.TrimRight(doc, "\r\n")
	if !json.Valid(body) {
		return []byte(r.String(string(doc)))
	}
	out := r.json(body)
	if len(body) == len(doc) {
		return out
	}
	if &out[0] == &body[0] {
		return doc
	}
	return append(out, doc[len(body):]...)
}

// frame is an open object or array: the key whose value is being read (an
// array's elements have the key of the array).
type frame struct {
	key string
	obj bool
}

// json redacts a valid JSON document; it returns doc itself when nothing
// changed.
func (r *Redactor) json(doc []byte) []byte {
	var out []byte // nil until something changes
	at := 0        // doc[:at] is in out
	emit := func(start, end int, repl []byte) {
		if out == nil {
			out = make([]byte, 0, len(doc)+32)
		}
		out = append(out, doc[at:start]...)
		out = append(out, repl...)
		at = end
	}
	stack := []frame{{}}
	for i := 0; i < len(doc); {
		top := &stack[len(stack)-1]
		switch c := doc[i]; c {
		case '{':
			stack = append(stack, frame{obj: true})
			i++
		case '[':
			stack = append(stack, frame{key: top.key})
			i++
		case '}', ']':
			if len(stack) > 1 {
				stack = stack[:len(stack)-1]
			}
			i++
		case '"':
			end := stringEnd(doc, i)
			s := decodeString(doc[i:end])
			j := end
			for j < len(doc) && isSpace(doc[j]) {
				j++
			}
			var red string
			if j < len(doc) && doc[j] == ':' {
				top.key = s
				red = r.String(s)
			} else {
				red = r.value(top.key, s)
			}
			if red != s {
				emit(i, end, encodeString(red))
			}
			i = end
		case ',', ':', ' ', '\t', '\r', '\n':
			i++
		default:
			// A number, true, false or null.
			e := i
			for e < len(doc) && !isSpace(doc[e]) && doc[e] != ',' && doc[e] != '}' && doc[e] != ']' {
				e++
			}
			if lit := string(doc[i:e]); (SecretName(top.key) && !isKeyword(lit)) || r.known(lit) != lit {
				emit(i, e, encodeString(Mark))
			}
			i = e
		}
	}
	if out == nil {
		return doc
	}
	return append(out, doc[at:]...)
}

// value redacts the string value of key.
func (r *Redactor) value(key, s string) string {
	if key != "" && s != "" && SecretName(key) {
		if isReference(s) || isKeyword(s) {
			return s
		}
		if isHeaderName(key) {
			var sp spans
			hideHeader(s, 0, &sp)
			return sp.apply(s)
		}
		return Mark
	}
	return r.String(s)
}

// stringEnd is the index after the closing quote of the string at i.
func stringEnd(doc []byte, i int) int {
	for j := i + 1; j < len(doc); j++ {
		switch doc[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(doc)
}

// decodeString decodes a JSON string literal, quotes included, of a
// document json.Valid accepted.
func decodeString(lit []byte) string {
	body := lit[1 : len(lit)-1]
	if bytes.IndexByte(body, '\\') < 0 {
		return string(body)
	}
	b := make([]byte, 0, len(body))
	for i := 0; i < len(body); i++ {
		c := body[i]
		if c != '\\' || i+1 >= len(body) {
			b = append(b, c)
			continue
		}
		i++
		switch body[i] {
		case 'n':
			b = append(b, '\n')
		case 't':
			b = append(b, '\t')
		case 'r':
			b = append(b, '\r')
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'u':
			r, n := hexRune(body[i+1:])
			i += n
			if utf16.IsSurrogate(r) && i+2 < len(body) && body[i+1] == '\\' && body[i+2] == 'u' {
				if r2, n2 := hexRune(body[i+3:]); n2 == 4 {
					if pair := utf16.DecodeRune(r, r2); pair != utf8.RuneError {
						r = pair
						i += 2 + n2
					}
				}
			}
			if utf16.IsSurrogate(r) {
				r = utf8.RuneError
			}
			b = utf8.AppendRune(b, r)
		default: // " \ /
			b = append(b, body[i])
		}
	}
	return string(b)
}

// hexRune reads the four hex digits of a \u escape.
func hexRune(b []byte) (rune, int) {
	if len(b) < 4 {
		return utf8.RuneError, len(b)
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return utf8.RuneError, 4
		}
		r = r<<4 | rune(c)
	}
	return r, 4
}

// encodeString encodes s as a JSON string literal, HTML characters kept.
func encodeString(s string) []byte {
	b := make([]byte, 0, len(s)+2)
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x80 {
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && n == 1 {
				b = append(b, `\ufffd`...)
			} else {
				b = append(b, s[i:i+n]...)
			}
			i += n
			continue
		}
		switch c {
		case '"':
			b = append(b, `\"`...)
		case '\\':
			b = append(b, `\\`...)
		case '\n':
			b = append(b, `\n`...)
		case '\r':
			b = append(b, `\r`...)
		case '\t':
			b = append(b, `\t`...)
		default:
			if c < 0x20 {
				const hex = "0123456789abcdef"
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			} else {
				b = append(b, c)
			}
		}
		i++
	}
	return append(b, '"')
}

// JSONWriter is Writer for a stream of JSON lines (stream-json): each line
// is redacted with JSON, so it stays parseable.
func (r *Redactor) JSONWriter(w io.Writer) io.WriteCloser {
	return &lineWriter{r: r, w: w, json: true, st: newState()}
}
