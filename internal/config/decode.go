package config

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	yaml "go.yaml.in/yaml/v3"

	"github.com/agent-eval/agent-eval/internal/clip"
	"github.com/agent-eval/agent-eval/internal/lazyre"
)

// maxNodes bounds the work done on one document, counting nodes reached
// through aliases, so a "billion laughs" file fails fast instead of hanging.
const maxNodes = 200_000

type pos struct{ line, col int }

// extensionPrefix marks top-level keys the loader ignores, so a file can keep
// YAML anchors (x-defaults: &defaults ...) outside the schema's keys.
const extensionPrefix = "x-"

// decoder walks a yaml.Node tree into the schema types by reflection,
// collecting every problem instead of stopping at the first.
type decoder struct {
	file  string
	errs  Errors
	warns Errors
	pos   map[string]pos // where each value stands
	keys  map[string]pos // where each mapping key stands
	nodes int
}

// nodeDecoder is implemented by schema types that accept more than one YAML
// shape (a string or a mapping, say).
type nodeDecoder interface {
	decodeNode(d *decoder, n *yaml.Node, path string)
}

func (d *decoder) add(n *yaml.Node, field string, code Code, format string, args ...any) {
	e := Error{File: d.file, Field: field, Code: code, Msg: fmt.Sprintf(format, args...)}
	if n != nil {
		e.Line, e.Col = n.Line, n.Column
	}
	d.errs = append(d.errs, e)
}

func (d *decoder) warn(n *yaml.Node, field, format string, args ...any) {
	e := Error{File: d.file, Field: field, Warning: true, Msg: fmt.Sprintf(format, args...)}
	if n != nil {
		e.Line, e.Col = n.Line, n.Column
	}
	d.warns = append(d.warns, e)
}

// resolve follows aliases and charges the node budget. It returns nil when the
// budget is spent (the error is recorded once).
func (d *decoder) resolve(n *yaml.Node) *yaml.Node {
	for depth := 0; n != nil && n.Kind == yaml.AliasNode; depth++ {
		if depth > 100 {
			return nil
		}
		n = n.Alias
	}
	d.nodes++
	if d.nodes == maxNodes {
		d.add(n, "", CodeSyntax, "document is too large or expands too many aliases (more than %d nodes)", maxNodes)
	}
	if d.nodes >= maxNodes {
		return nil
	}
	return n
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

// describe names a node's YAML type for error messages.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!str":
			return fmt.Sprintf("the string %q", clip.String(n.Value, 40))
		case "!!int":
			return "the integer " + clip.String(n.Value, 40)
		case "!!float":
			return "the number " + clip.String(n.Value, 40)
		case "!!bool":
			return "the boolean " + n.Value
		case "!!null":
			return "null"
		default:
			return fmt.Sprintf("a %s value", n.ShortTag())
		}
	}
	return "an unsupported YAML node"
}

// kv is one key/value pair of a mapping, after merge keys are expanded.
type kv struct {
	key, val *yaml.Node
	merged   bool
}

// pairs returns a mapping's pairs with YAML merge keys ("<<: *anchor")
// expanded; explicit keys override merged ones. Duplicate explicit keys are
// reported.
func (d *decoder) pairs(n *yaml.Node, path string) []kv {
	var out, merged []kv
	seen := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind == yaml.ScalarNode && k.ShortTag() == "!!merge" {
			merged = append(merged, d.mergePairs(v, path)...)
			continue
		}
		if k.Kind != yaml.ScalarNode {
			d.add(k, path, CodeType, "keys must be plain strings, got %s", describe(k))
			continue
		}
		if first, dup := seen[k.Value]; dup {
			d.add(k, join(path, k.Value), CodeDuplicate, "duplicate key %q (first given at line %d)", k.Value, first.Line)
			continue
		}
		seen[k.Value] = k
		out = append(out, kv{key: k, val: v})
	}
	for _, m := range merged {
		if _, ok := seen[m.key.Value]; !ok {
			seen[m.key.Value] = m.key
			out = append(out, m)
		}
	}
	return out
}

func (d *decoder) mergePairs(v *yaml.Node, path string) []kv {
	v = d.resolve(v)
	if v == nil {
		return nil
	}
	switch v.Kind {
	case yaml.MappingNode:
		ps := d.pairs(v, path)
		for i := range ps {
			ps[i].merged = true
		}
		return ps
	case yaml.SequenceNode:
		var out []kv
		for _, e := range v.Content {
			out = append(out, d.mergePairs(e, path)...)
		}
		return out
	}
	d.add(v, path, CodeType, "a merge key (<<) must refer to a mapping, got %s", describe(v))
	return nil
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func index(path string, i int) string { return fmt.Sprintf("%s[%d]", path, i) }

// rules are the constraints a struct tag puts on a value (or, for lists and
// maps, on each element).
type rules struct {
	enum   []string
	checks []string
}

func (r rules) has(c string) bool { return slices.Contains(r.checks, c) }

// field is one struct field of a schema type.
type field struct {
	key   string
	index int
	doc   string
	def   string
	rules rules
}

var fieldCache sync.Map // reflect.Type -> []field

func fieldsOf(t reflect.Type) []field {
	if fs, ok := fieldCache.Load(t); ok {
		return fs.([]field)
	}
	var fs []field
	for i := range t.NumField() {
		sf := t.Field(i)
		key, _, _ := strings.Cut(sf.Tag.Get("yaml"), ",")
		if key == "" || key == "-" || !sf.IsExported() {
			continue
		}
		f := field{key: key, index: i, doc: sf.Tag.Get("doc"), def: sf.Tag.Get("default")}
		if e := sf.Tag.Get("enum"); e != "" {
			f.rules.enum = strings.Split(e, "|")
		}
		if c := sf.Tag.Get("check"); c != "" {
			f.rules.checks = strings.Split(c, ",")
		}
		fs = append(fs, f)
	}
	fieldCache.Store(t, fs)
	return fs
}

func keysOf(fs []field) []string {
	keys := make([]string, len(fs))
	for i, f := range fs {
		keys[i] = f.key
	}
	return keys
}

// value decodes n into v. path names v in error messages.
func (d *decoder) value(n *yaml.Node, v reflect.Value, path string, r rules) {
	n = d.resolve(n)
	if n == nil {
		return
	}
	d.pos[path] = pos{n.Line, n.Column}
	if isNull(n) {
		return
	}
	if nd, ok := v.Addr().Interface().(nodeDecoder); ok {
		nd.decodeNode(d, n, path)
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		d.value(n, p.Elem(), path, r)
		v.Set(p)
	case reflect.Struct:
		d.structure(n, v, path)
	case reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			d.add(n, path, CodeType, "must be a list, got %s", describe(n))
			return
		}
		s := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
		for i, e := range n.Content {
			d.element(e, s.Index(i), index(path, i), r)
		}
		v.Set(s)
	case reflect.Map:
		if n.Kind != yaml.MappingNode {
			d.add(n, path, CodeType, "must be a mapping, got %s", describe(n))
			return
		}
		m := reflect.MakeMap(v.Type())
		for _, p := range d.pairs(n, path) {
			d.keys[join(path, p.key.Value)] = pos{p.key.Line, p.key.Column}
			ev := reflect.New(v.Type().Elem()).Elem()
			d.element(p.val, ev, join(path, p.key.Value), r)
			m.SetMapIndex(reflect.ValueOf(p.key.Value), ev)
		}
		v.Set(m)
	case reflect.Interface:
		if x := d.plain(n, path); x != nil {
			v.Set(reflect.ValueOf(x))
		}
	default:
		d.scalar(n, v, path, r)
	}
}

// element decodes a list item or a map value, which unlike a struct field
// may not be left empty (null); free-form values (settings, arguments) may.
func (d *decoder) element(n *yaml.Node, v reflect.Value, path string, r rules) {
	if v.Kind() != reflect.Interface && isNull(d.resolveQuiet(n)) {
		d.add(d.resolveQuiet(n), path, CodeType, "is empty (null); give a value or remove the entry")
		return
	}
	d.value(n, v, path, r)
}

func (d *decoder) structure(n *yaml.Node, v reflect.Value, path string) {
	fs := fieldsOf(v.Type())
	if n.Kind != yaml.MappingNode {
		d.add(n, path, CodeType, "must be a mapping, got %s", describe(n))
		return
	}
	present := map[string]bool{}
	failed := map[string]bool{}
	for _, p := range d.pairs(n, path) {
		key := p.key.Value
		i := slices.IndexFunc(fs, func(f field) bool { return f.key == key })
		if i < 0 && path == "" && strings.HasPrefix(key, extensionPrefix) {
			continue // a free extension key, e.g. to hold YAML anchors
		}
		if i < 0 {
			d.unknownKey(p.key, path, keysOf(fs))
			continue
		}
		present[key] = !isNull(d.resolveQuiet(p.val))
		before := len(d.errs)
		d.value(p.val, v.Field(fs[i].index), join(path, key), fs[i].rules)
		failed[key] = len(d.errs) > before
	}
	for _, f := range fs {
		if !f.rules.has("required") || failed[f.key] {
			continue
		}
		fv := v.Field(f.index)
		blank := !present[f.key] || (fv.Kind() == reflect.String && strings.TrimSpace(fv.String()) == "") ||
			(fv.Kind() == reflect.Slice && fv.Len() == 0)
		if !blank {
			continue
		}
		if present[f.key] {
			d.add(d.at(join(path, f.key), n), join(path, f.key), CodeRequired, "must not be empty")
		} else {
			d.add(n, join(path, f.key), CodeRequired, "is required")
		}
	}
}

// resolveQuiet follows aliases without charging the node budget.
func (d *decoder) resolveQuiet(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 100; i++ {
		n = n.Alias
	}
	if n == nil {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null"}
	}
	return n
}

// at returns a node standing at the recorded position of path, or fallback.
func (d *decoder) at(path string, fallback *yaml.Node) *yaml.Node {
	if p, ok := d.pos[path]; ok {
		return &yaml.Node{Line: p.line, Column: p.col}
	}
	return fallback
}

func (d *decoder) unknownKey(k *yaml.Node, path string, known []string) {
	msg := fmt.Sprintf("unknown key %q", k.Value)
	if s := suggest(k.Value, known); s != "" {
		msg += fmt.Sprintf("; did you mean %q?", s)
	} else if path == "" {
		if where := nestedHome(k.Value); where != "" {
			msg += fmt.Sprintf("; did you mean %s?", where)
		}
	}
	if s := suggest(k.Value, known); s == "" && len(known) <= 12 {
		msg += " (known keys: " + strings.Join(known, ", ") + ")"
	}
	d.add(k, join(path, k.Value), CodeUnknownKey, "%s", msg)
}

// nestedHome finds where a misplaced top-level key belongs, e.g. timeout →
// execution.timeout.
func nestedHome(key string) string {
	for _, f := range fieldsOf(reflect.TypeFor[Eval]()) {
		t := reflect.TypeFor[Eval]().Field(f.index).Type
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct {
			continue
		}
		for _, sub := range fieldsOf(t) {
			if sub.key == key {
				return f.key + "." + key
			}
		}
	}
	return ""
}

var (
	envNameRE = lazyre.New(`^[A-Za-z_][A-Za-z0-9_]*$`)
)

func (d *decoder) scalar(n *yaml.Node, v reflect.Value, path string, r rules) {
	if n.Kind != yaml.ScalarNode {
		d.add(n, path, CodeType, "must be %s, got %s", kindName(v.Kind()), describe(n))
		return
	}
	tag := n.ShortTag()
	switch v.Kind() {
	case reflect.String:
		if tag != "!!str" {
			d.add(n, path, CodeType, "must be a string, got %s (quote it to use it as text)", describe(n))
			return
		}
		v.SetString(n.Value)
		d.checkString(n, path, n.Value, r)
	case reflect.Int:
		if r.has("seconds") && tag == "!!str" {
			d.seconds(n, v, path, r)
			return
		}
		if r.has("bytes") && tag == "!!str" {
			d.bytes(n, v, path, r)
			return
		}
		// 3 and 3.0 are the same integer, as in JSON Schema.
		var f float64
		if (tag != "!!int" && tag != "!!float") || n.Decode(&f) != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
			d.add(n, path, CodeType, "must be an integer, got %s", describe(n))
			return
		}
		v.SetInt(int64(f))
		d.checkNumber(n, path, f, r)
	case reflect.Float64:
		var f float64
		if (tag != "!!int" && tag != "!!float") || n.Decode(&f) != nil {
			d.add(n, path, CodeType, "must be a number, got %s", describe(n))
			return
		}
		if math.IsNaN(f) || math.IsInf(f, 0) {
			d.add(n, path, CodeRange, "must be a finite number, got %s", n.Value)
			return
		}
		v.SetFloat(f)
		d.checkNumber(n, path, f, r)
	case reflect.Bool:
		if tag != "!!bool" {
			d.add(n, path, CodeType, "must be true or false, got %s", describe(n))
			return
		}
		b, _ := strconv.ParseBool(strings.ToLower(n.Value))
		v.SetBool(b)
	default:
		d.add(n, path, CodeType, "unsupported value")
	}
}

// seconds reads a duration string ("10m", "1h30m", "90s") into a field
// that counts seconds (check:"seconds"); a number is read as seconds.
func (d *decoder) seconds(n *yaml.Node, v reflect.Value, path string, r rules) {
	text := strings.TrimSpace(n.Value)
	if secs, err := strconv.Atoi(text); err == nil {
		text = strconv.Itoa(secs) + "s" // "600" as a string is seconds too
	}
	dur, err := time.ParseDuration(text)
	switch {
	case err != nil:
		d.add(n, path, CodeType, "must be seconds (600) or a duration (\"10m\", \"1h30m\"), got %s", describe(n))
		return
	case dur%time.Second != 0:
		d.add(n, path, CodeRange, "must be a whole number of seconds, got %s", n.Value)
		return
	}
	f := float64(dur / time.Second)
	v.SetInt(int64(f))
	d.checkNumber(n, path, f, r)
}

// bytes reads a size string ("100MiB", "2GB", ParseBytes) into a field
// that counts bytes (check:"bytes"); a number is read as bytes.
func (d *decoder) bytes(n *yaml.Node, v reflect.Value, path string, r rules) {
	b, err := ParseBytes(n.Value)
	if err != nil {
		code := CodeType
		if sizeRE().MatchString(n.Value) {
			code = CodeRange // well formed, past what a field holds
		}
		d.add(n, path, code, "must be a number of bytes or a size (\"100MiB\", \"2GB\"), got %s", describe(n))
		return
	}
	v.SetInt(b)
	d.checkNumber(n, path, float64(b), r)
}

func kindName(k reflect.Kind) string {
	switch k {
	case reflect.String:
		return "a string"
	case reflect.Int:
		return "an integer"
	case reflect.Float64:
		return "a number"
	case reflect.Bool:
		return "true or false"
	}
	return "a value"
}

func (d *decoder) checkNumber(n *yaml.Node, path string, f float64, r rules) {
	switch {
	case r.has("positive") && f <= 0:
		d.add(n, path, CodeRange, "must be greater than 0, got %s", n.Value)
	case r.has("nonneg") && f < 0:
		d.add(n, path, CodeRange, "must not be negative, got %s", n.Value)
	case r.has("atleast1") && f < 1:
		d.add(n, path, CodeRange, "must be at least 1, got %s", n.Value)
	case r.has("rate") && (f < 0 || f > 1):
		d.add(n, path, CodeRange, "must be between 0 and 1, got %s", n.Value)
	}
	if len(r.enum) > 0 && !slices.Contains(r.enum, n.Value) {
		d.add(n, path, CodeEnum, "must be %s, got %s", strings.Join(r.enum, " or "), n.Value)
	}
}

func (d *decoder) checkString(n *yaml.Node, path, s string, r rules) {
	if len(r.enum) > 0 && !slices.Contains(r.enum, s) {
		msg := fmt.Sprintf("%q is not one of: %s", s, strings.Join(r.enum, ", "))
		if sg := suggest(s, r.enum); sg != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", sg)
		}
		d.add(n, path, CodeEnum, "%s", msg)
		return
	}
	if r.has("nonempty") && strings.TrimSpace(s) == "" {
		d.add(n, path, CodeRequired, "must not be empty")
		return
	}
	if s == "" {
		return
	}
	if msg := pathProblem(s, r); msg != "" {
		d.add(n, path, CodeFormat, "%s", msg)
	}
	if r.has("envname") && !envNameRE().MatchString(strings.TrimPrefix(s, "$")) {
		d.add(n, path, CodeFormat, "must name an environment variable ([A-Za-z_][A-Za-z0-9_]*), got %q", s)
	}
	if r.has("host") && !hostRE().MatchString(s) {
		d.add(n, path, CodeFormat, "must be a host name (example.test), a subdomain wildcard (*.test), an IP address or * (any host), without scheme, port or path; got %q", s)
	}
}

// hostRE is a network allowlist entry: a host name or IPv4 address, with an
// optional leading "*." for any subdomain, an IPv6 address, or "*" for any
// host.
var hostRE = lazyre.New(`^(?:\*|(?:\*\.)?[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*|[0-9A-Fa-f]*:[0-9A-Fa-f:.]*)$`)

// pathProblem applies the path rules of r to s and says what is wrong, if
// anything.
func pathProblem(s string, r rules) string {
	switch {
	case r.has("relpath") && (strings.HasPrefix(s, "/") || strings.HasPrefix(s, `\`) || windowsAbs().MatchString(s)):
		return fmt.Sprintf("must be a relative path, got %q", s)
	case (r.has("noparent") || r.has("segment")) && hasParent(s):
		return fmt.Sprintf("must not contain a \"..\" segment, got %q", s)
	case r.has("notdot") && isDot(s):
		return fmt.Sprintf("must name a sub-directory, not %q (the workspace itself)", s)
	case r.has("segment") && (strings.ContainsAny(s, `/\`) || s == "." || hasControl(s)):
		return fmt.Sprintf("must be a single name without \"/\", \"\\\" or control characters, got %q", s)
	}
	return ""
}

var (
	windowsAbs = lazyre.New(`^[A-Za-z]:[\\/]`)
	parentRE   = lazyre.New(`(^|[/\\])\.\.([/\\]|$)`)
	dotRE      = lazyre.New(`^\.[/\\]*$`)
	controlRE  = lazyre.New(`[\x00-\x1f\x7f]`)
)

func hasParent(s string) bool  { return parentRE().MatchString(s) }
func isDot(s string) bool      { return dotRE().MatchString(s) }
func hasControl(s string) bool { return controlRE().MatchString(s) }

// plain converts a free-form node (runner.settings, judge arguments) into
// plain Go values, charging every node, aliases included, to the budget.
func (d *decoder) plain(n *yaml.Node, path string) any {
	switch n.Kind {
	case yaml.MappingNode:
		m := map[string]any{}
		for _, p := range d.pairs(n, path) {
			v := d.resolve(p.val)
			if v == nil {
				return nil
			}
			m[p.key.Value] = d.plain(v, join(path, p.key.Value))
		}
		return m
	case yaml.SequenceNode:
		l := make([]any, 0, len(n.Content))
		for i, e := range n.Content {
			e = d.resolve(e)
			if e == nil {
				return nil
			}
			l = append(l, d.plain(e, index(path, i)))
		}
		return l
	case yaml.ScalarNode:
		var x any
		if err := n.Decode(&x); err != nil {
			d.add(n, path, CodeType, "cannot read the value: %v", err)
		}
		return x
	}
	return nil
}
