package config

import (
	"encoding/json"
	"reflect"
)

// SchemaID is the $id of the generated JSON Schema.
const SchemaID = "https://agent-eval.dev/schema/eval.json"

// schemaDescriber is implemented by schema types with their own JSON Schema.
type schemaDescriber interface {
	jsonSchema(g *schemaGen) map[string]any
}

// schemaExtender is implemented by structs whose cross-field rules (mutually
// exclusive keys) can be stated in JSON Schema.
type schemaExtender interface {
	schemaExtra() map[string]any
}

type schemaGen struct {
	defs map[string]any
}

// JSONSchema returns the JSON Schema (draft 2020-12) of eval.yaml, generated
// from the same types the loader decodes into.
func JSONSchema() ([]byte, error) {
	g := &schemaGen{defs: map[string]any{}}
	root := g.structSchema(reflect.TypeFor[Eval](), false)
	root["$schema"] = "https://json-schema.org/draft/2020-12/schema"
	root["$id"] = SchemaID
	root["title"] = "agent-eval eval.yaml"
	root["$defs"] = g.defs
	root["patternProperties"] = map[string]any{"^" + extensionPrefix: map[string]any{"description": "Free extension key, e.g. to hold YAML anchors."}}
	return json.MarshalIndent(root, "", "  ")
}

// typeSchema describes one Go type. A property may be null (a YAML key with
// no value), which the loader treats as absent; a list item or a map value
// may not (nullable false).
func (g *schemaGen) typeSchema(t reflect.Type, r rules, nullable bool) map[string]any {
	if d, ok := reflect.New(t).Interface().(schemaDescriber); ok {
		return d.jsonSchema(g)
	}
	typ := func(name string) any {
		if nullable {
			return []any{name, "null"}
		}
		return name
	}
	switch t.Kind() {
	case reflect.Pointer:
		return g.typeSchema(t.Elem(), r, nullable)
	case reflect.Struct:
		name := t.Name()
		if _, ok := g.defs[name]; !ok {
			g.defs[name] = nil // reserve against recursion
			g.defs[name] = g.structSchema(t, false)
		}
		ref := map[string]any{"$ref": "#/$defs/" + name}
		if nullable {
			return map[string]any{"anyOf": []any{ref, map[string]any{"type": "null"}}}
		}
		return ref
	case reflect.Slice:
		return map[string]any{"type": typ("array"), "items": g.typeSchema(t.Elem(), r, false)}
	case reflect.Map:
		m := map[string]any{"type": typ("object")}
		if t.Elem().Kind() != reflect.Interface {
			m["additionalProperties"] = g.typeSchema(t.Elem(), r, false)
		}
		return m
	case reflect.Interface:
		return map[string]any{}
	case reflect.String:
		s := map[string]any{"type": typ("string")}
		g.applyString(s, r, nullable)
		return s
	case reflect.Int:
		s := map[string]any{"type": typ("integer")}
		g.applyNumber(s, r, nullable)
		if r.has("seconds") {
			// Or a duration string: "10m", "1h30m", "90s".
			dur := map[string]any{"type": "string", "pattern": `^\s*(([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+|[0-9]+)\s*$`}
			return map[string]any{"anyOf": []any{s, dur}}
		}
		if r.has("bytes") {
			// Or a size string: "100MiB", "2GB" (ParseBytes).
			size := map[string]any{"type": "string", "pattern": sizePattern}
			return map[string]any{"anyOf": []any{s, size}}
		}
		return s
	case reflect.Float64:
		s := map[string]any{"type": typ("number")}
		g.applyNumber(s, r, nullable)
		return s
	case reflect.Bool:
		return map[string]any{"type": typ("boolean")}
	}
	panic("config: no JSON Schema for " + t.String())
}

func (g *schemaGen) structSchema(t reflect.Type, nullable bool) map[string]any {
	props := map[string]any{}
	var required []any
	for _, f := range fieldsOf(t) {
		ft := t.Field(f.index).Type
		p := g.typeSchema(ft, f.rules, true)
		if f.doc != "" {
			p["description"] = f.doc
		}
		if f.def != "" {
			var v any
			if json.Unmarshal([]byte(f.def), &v) == nil {
				p["default"] = v
			}
		}
		if f.rules.has("required") {
			required = append(required, f.key)
			requireValue(p, ft)
		}
		props[f.key] = p
	}
	s := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if nullable {
		s["type"] = []any{"object", "null"}
	}
	if len(required) > 0 {
		s["required"] = required
	}
	if e, ok := reflect.New(t).Interface().(schemaExtender); ok {
		for k, v := range e.schemaExtra() {
			s[k] = v
		}
	}
	return s
}

// requireValue tightens a required property: it may not be null, blank or an
// empty list.
func requireValue(p map[string]any, t reflect.Type) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		p["type"] = "string"
		p["pattern"] = `\S`
	case reflect.Slice:
		p["type"] = "array"
		p["minItems"] = 1
	case reflect.Int:
		p["type"] = "integer"
	}
}

func (g *schemaGen) applyString(s map[string]any, r rules, nullable bool) {
	if len(r.enum) > 0 {
		enum := make([]any, 0, len(r.enum)+1)
		for _, e := range r.enum {
			enum = append(enum, e)
		}
		if nullable {
			enum = append(enum, nil)
		}
		s["enum"] = enum
	}
	if r.has("nonempty") {
		s["pattern"] = `\S`
	}
	var nots []any
	if r.has("relpath") {
		nots = append(nots, map[string]any{"pattern": `^([/\\]|[A-Za-z]:[/\\])`})
	}
	if r.has("noparent") || r.has("segment") {
		nots = append(nots, map[string]any{"pattern": parentRE().String()})
	}
	if r.has("notdot") {
		nots = append(nots, map[string]any{"pattern": dotRE().String()})
	}
	if r.has("segment") {
		nots = append(nots, map[string]any{"pattern": `[/\\\x00-\x1f\x7f]|^\.$`})
	}
	if r.has("envname") {
		s["pattern"] = `^\$?[A-Za-z_][A-Za-z0-9_]*$`
	}
	if r.has("host") {
		s["pattern"] = hostRE().String()
	}
	switch len(nots) {
	case 0:
	case 1:
		s["not"] = nots[0]
	default:
		s["not"] = map[string]any{"anyOf": nots}
	}
}

func (g *schemaGen) applyNumber(s map[string]any, r rules, nullable bool) {
	switch {
	case r.has("positive"):
		s["exclusiveMinimum"] = 0
	case r.has("nonneg"):
		s["minimum"] = 0
	case r.has("atleast1"):
		s["minimum"] = 1
	case r.has("rate"):
		s["minimum"], s["maximum"] = 0, 1
	}
	if len(r.enum) > 0 {
		enum := make([]any, 0, len(r.enum)+1)
		for _, e := range r.enum {
			var v any
			_ = json.Unmarshal([]byte(e), &v) // the enum tags are ours, each a JSON value (the schema's tests read them)
			enum = append(enum, v)
		}
		if nullable {
			enum = append(enum, nil)
		}
		s["enum"] = enum
	}
}

// nonBlank is a schema that holds when key is present as a non-blank string.
func nonBlank(keys ...string) map[string]any {
	props := map[string]any{}
	for _, k := range keys {
		props[k] = map[string]any{"type": "string", "pattern": `\S`}
	}
	req := make([]any, len(keys))
	for i, k := range keys {
		req[i] = k
	}
	return map[string]any{"required": req, "properties": props}
}

func nonEmptyList(key string) map[string]any {
	return map[string]any{
		"required":   []any{key},
		"properties": map[string]any{key: map[string]any{"type": "array", "minItems": 1}},
	}
}

// The cross-field rules the schema can state. The loader checks the same
// rules (validate.go) and reports them with CodeConflict.

func (Execution) schemaExtra() map[string]any {
	return map[string]any{"allOf": []any{
		map[string]any{"not": nonBlank("skill", "prompt")},
		map[string]any{"not": map[string]any{"allOf": []any{nonEmptyList("steps"), map[string]any{"anyOf": []any{nonBlank("skill"), nonBlank("prompt")}}}}},
	}}
}

func (Step) schemaExtra() map[string]any {
	return map[string]any{"not": nonBlank("skill", "prompt")}
}

func (ToolHandler) schemaExtra() map[string]any {
	return map[string]any{"not": nonBlank("prompt", "prompt_file")}
}
