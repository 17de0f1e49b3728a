package config

import (
	"fmt"
	"reflect"
	"strings"
)

// Reference renders the configuration reference as a Markdown table, one
// row per key, from the same types the loader and the schema use. It is
// docs/configuration.md, which a test keeps equal to it.
func Reference() string {
	var b strings.Builder
	b.WriteString("| key | type | default | description |\n|---|---|---|---|\n")
	home := homes(reflect.TypeFor[Eval]())
	referenceRows(&b, reflect.TypeFor[Eval](), "", home)
	return b.String()
}

// structOf returns the struct type under pointers, lists and maps, and the
// key separator that leads into it.
func structOf(t reflect.Type) (reflect.Type, string) {
	sep := "."
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map {
		switch t.Kind() {
		case reflect.Slice:
			sep = "[]."
		case reflect.Map:
			sep = ".<name>."
		}
		t = t.Elem()
	}
	return t, sep
}

// homes picks, for each struct type, the shallowest key that holds it: a
// type used in several places (Runner) is described once, there.
func homes(root reflect.Type) map[reflect.Type]string {
	home := map[reflect.Type]string{}
	type item struct {
		t      reflect.Type
		prefix string
	}
	queue := []item{{root, ""}}
	for len(queue) > 0 {
		it := queue[0]
		queue = queue[1:]
		for _, f := range fieldsOf(it.t) {
			inner, sep := structOf(it.t.Field(f.index).Type)
			if inner.Kind() != reflect.Struct || isShape(inner) {
				continue
			}
			if _, ok := home[inner]; ok {
				continue
			}
			home[inner] = it.prefix + f.key
			queue = append(queue, item{inner, it.prefix + f.key + sep})
		}
	}
	return home
}

func referenceRows(b *strings.Builder, t reflect.Type, prefix string, home map[reflect.Type]string) {
	for _, f := range fieldsOf(t) {
		ft := t.Field(f.index).Type
		key := prefix + f.key
		def := f.def
		if def != "" {
			def = "`" + strings.Trim(def, `"`) + "`"
		}
		doc := strings.ReplaceAll(f.doc, "|", `\|`)
		inner, sep := structOf(ft)
		if h, ok := home[inner]; ok && h != key {
			doc += " Same keys as `" + h + "`."
		}
		fmt.Fprintf(b, "| `%s` | %s | %s | %s |\n", key, refType(ft, f.rules), def, doc)
		if home[inner] == key {
			referenceRows(b, inner, key+sep, home)
		}
	}
}

func isShape(t reflect.Type) bool {
	_, ok := reflect.New(t).Interface().(nodeDecoder)
	return ok
}

func refType(t reflect.Type, r rules) string {
	switch t {
	case reflect.TypeFor[EnvMap]():
		return "map of name → string (`$VAR` read at run time)"
	case reflect.TypeFor[StringList]():
		return "string or list of strings"
	case reflect.TypeFor[PermissionRule]():
		return "rule string or `{path, tools}`"
	case reflect.TypeFor[WorkspaceFile]():
		return "path or `{dest, source}`"
	case reflect.TypeFor[ScoreRange]():
		return "`[min, max]`"
	}
	switch t.Kind() {
	case reflect.Pointer:
		if t.Elem().Kind() == reflect.Struct && !isShape(t.Elem()) {
			return "mapping"
		}
		return refType(t.Elem(), r)
	case reflect.Struct:
		return "mapping"
	case reflect.Slice:
		return "list of " + strings.TrimPrefix(refType(t.Elem(), rules{}), "a ")
	case reflect.Map:
		if t.Elem().Kind() == reflect.Interface {
			return "mapping (free-form)"
		}
		return "map of name → " + refType(t.Elem(), rules{})
	case reflect.Interface:
		return "any"
	case reflect.String:
		if len(r.enum) > 0 {
			return "`" + strings.Join(r.enum, "` \\| `") + "`"
		}
		return "string"
	case reflect.Int:
		if r.has("bytes") {
			return "bytes" + numberNote(r) + " or a size (`\"100MiB\"`, `\"2GB\"`)"
		}
		return "integer" + numberNote(r)
	case reflect.Float64:
		return "number" + numberNote(r)
	case reflect.Bool:
		return "boolean"
	}
	return t.String()
}

func numberNote(r rules) string {
	switch {
	case r.has("positive"):
		return " > 0"
	case r.has("nonneg"):
		return " ≥ 0"
	case r.has("atleast1"):
		return " ≥ 1"
	case r.has("rate"):
		return " in [0, 1]"
	}
	return ""
}
