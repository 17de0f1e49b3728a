package config

import (
	"reflect"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/agent-eval/agent-eval/internal/lazyre"
)

// This file holds the schema types that accept more than one YAML shape.
// Each decodes itself (nodeDecoder) and describes itself to the JSON Schema
// generator (schemaDescriber).

// EnvMap is a map of environment variables. Values are kept exactly as
// written: "$VAR" is resolved only when a run starts (see ResolveEnv), so a
// loaded config never holds a secret read from the environment.
type EnvMap map[string]string

var secretLike = lazyre.New(`^(sk-[A-Za-z0-9_-]{16,}|gh[pousr]_[A-Za-z0-9]{20,}|xox[abp]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16})`)

func (m *EnvMap) decodeNode(d *decoder, n *yaml.Node, path string) {
	if n.Kind != yaml.MappingNode {
		d.add(n, path, CodeType, "must be a mapping of variable names to values, got %s", describe(n))
		return
	}
	out := EnvMap{}
	for _, p := range d.pairs(n, path) {
		name, field := p.key.Value, join(path, p.key.Value)
		if !envNameRE().MatchString(name) {
			d.add(p.key, field, CodeFormat, "%q is not a valid environment variable name ([A-Za-z_][A-Za-z0-9_]*)", name)
			continue
		}
		v := d.resolve(p.val)
		if v == nil {
			return
		}
		d.pos[field] = pos{v.Line, v.Column}
		if v.Kind != yaml.ScalarNode || isNull(v) || !scalarTags[v.ShortTag()] {
			d.add(v, field, CodeType, "must be a string, number or boolean, got %s", describe(v))
			continue
		}
		out[name] = v.Value
	}
	*m = out
}

var scalarTags = map[string]bool{"!!str": true, "!!int": true, "!!float": true, "!!bool": true}

func (EnvMap) jsonSchema(*schemaGen) map[string]any {
	return map[string]any{
		"type":                 []any{"object", "null"},
		"propertyNames":        map[string]any{"pattern": envNameRE().String()},
		"additionalProperties": map[string]any{"type": []any{"string", "number", "boolean"}},
	}
}

// ResolveEnv returns env with "$VAR" and "${VAR}" values read through lookup.
// A variable that is not set is omitted; every other value is kept verbatim.
func ResolveEnv(env EnvMap, lookup func(string) (string, bool)) map[string]string {
	out := make(map[string]string, len(env))
	for k, v := range env {
		if name, ok := envRef(v); ok {
			if val, set := lookup(name); set {
				out[k] = val
			}
			continue
		}
		out[k] = envVarRE().ReplaceAllStringFunc(v, func(m string) string {
			sub := envVarRE().FindStringSubmatch(m)
			val, _ := lookup(sub[1] + sub[2])
			return val
		})
	}
	return out
}

// envVarRE is a $VAR or ${VAR} anywhere in an env value; ResolveEnv
// expands each (unset: empty), as a shell would.
var envVarRE = lazyre.New(`\$(?:([A-Za-z_][A-Za-z0-9_]*)|\{([A-Za-z_][A-Za-z0-9_]*)\})`)

var envRefRE = lazyre.New(`^\$(?:([A-Za-z_][A-Za-z0-9_]*)|\{([A-Za-z_][A-Za-z0-9_]*)\})$`)

func envRef(v string) (string, bool) {
	m := envRefRE().FindStringSubmatch(v)
	if m == nil {
		return "", false
	}
	return m[1] + m[2], true
}

// StringList is a command given either as one string or as a list of
// arguments. A string is split into arguments when it is loaded
// (SplitCommand), so both forms hold one argument per element; each
// argument's {placeholders} are checked then too (ParseArg).
type StringList []string

func (s *StringList) decodeNode(d *decoder, n *yaml.Node, path string) {
	switch {
	case n.Kind == yaml.ScalarNode && n.ShortTag() == "!!str":
		if strings.TrimSpace(n.Value) == "" {
			d.add(n, path, CodeRequired, "must not be empty")
			return
		}
		args, err := SplitCommand(n.Value)
		if err != nil {
			d.add(n, path, CodeFormat, "%v", err)
			return
		}
		for _, a := range args {
			if _, err := ParseArg(a); err != nil {
				d.add(n, path, CodeFormat, "%v", err)
			}
		}
		*s = args
	case n.Kind == yaml.SequenceNode:
		var out []string
		d.value(n, reflect.ValueOf(&out).Elem(), path, rules{checks: []string{"nonempty"}})
		if len(out) == 0 {
			d.add(n, path, CodeRequired, "must list at least one argument")
		}
		for i, item := range n.Content {
			if item.Kind != yaml.ScalarNode {
				continue
			}
			if _, err := ParseArg(item.Value); err != nil {
				d.add(item, index(path, i), CodeFormat, "%v", err)
			}
		}
		*s = out
	default:
		d.add(n, path, CodeType, "must be a string or a list of strings, got %s", describe(n))
	}
}

func (StringList) jsonSchema(*schemaGen) map[string]any {
	return map[string]any{"oneOf": []any{
		map[string]any{"type": "string", "minLength": 1},
		map[string]any{"type": "array", "minItems": 1, "items": map[string]any{"type": "string", "minLength": 1}},
		map[string]any{"type": "null"},
	}}
}

// PermissionRule is one allow or deny entry: a simple pattern ("Skill",
// "mcp__*", "Edit(artifacts/**)") or a path-based {path, tools} rule.
type PermissionRule struct {
	Pattern string   // the simple form; empty for a path-based rule
	Path    string   // the path-based form: gitignore-style path
	Tools   []string // the path-based form: tools the rule applies to
	Reason  string   // the path-based form: why (upstream's template writes it); shown in deny messages
	Line    int      // position in eval.yaml
	Col     int
}

// IsPath reports whether the rule is the path-based form.
func (r PermissionRule) IsPath() bool { return r.Pattern == "" }

// pathRule is the mapping form of a permission rule, decoded generically so
// the loader and the schema share its rules.
type pathRule struct {
	Path   string   `yaml:"path" doc:"Directory (trailing /, matched recursively) or file, gitignore-style." check:"required,noparent"`
	Tools  []string `yaml:"tools" doc:"Tools the rule applies to: Read, Edit, Write, Grep, Glob (Bash in deny hardens to Read and Edit)." check:"required,nonempty"`
	Reason string   `yaml:"reason" doc:"Why the rule exists; kept in permissions --json and named in the harness's deny messages."`
}

// The string rules of each "string or mapping" shape.
var (
	ruleString = rules{checks: []string{"nonempty"}}
	fileString = rules{checks: []string{"nonempty", "relpath", "noparent"}}
)

func (r *PermissionRule) decodeNode(d *decoder, n *yaml.Node, path string) {
	r.Line, r.Col = n.Line, n.Column
	var pr pathRule
	d.stringOrStruct(n, path, ruleString, &pr, `a rule string ("Tool" or "Tool(pattern)") or a {path, tools} mapping`,
		func(s string) { r.Pattern = strings.TrimSpace(s) })
	r.Path, r.Tools, r.Reason = pr.Path, pr.Tools, strings.TrimSpace(pr.Reason)
}

func (PermissionRule) jsonSchema(g *schemaGen) map[string]any {
	return g.stringOrStruct(ruleString, reflect.TypeFor[pathRule]())
}

// WorkspaceFile is one dataset.workspace.files entry: a path inside each
// case directory, or a {dest, source} file shared by every case.
type WorkspaceFile struct {
	Path   string // per-case form, trailing "/" stripped
	Dest   string // shared form: where it lands in the workspace
	Source string // shared form: project-relative or absolute source
}

type sharedFile struct {
	Dest   string `yaml:"dest" doc:"Where the file lands in each workspace; relative, no \"..\"." check:"required,relpath,noparent,notdot"`
	Source string `yaml:"source" doc:"Source file, relative to the project root or absolute; validate and run refuse one that is not there." check:"required"`
}

func (w *WorkspaceFile) decodeNode(d *decoder, n *yaml.Node, path string) {
	var sf sharedFile
	d.stringOrStruct(n, path, fileString, &sf, "a path string or a {dest, source} mapping",
		func(s string) { w.Path = strings.TrimRight(s, "/") })
	w.Dest, w.Source = sf.Dest, sf.Source
}

func (WorkspaceFile) jsonSchema(g *schemaGen) map[string]any {
	return g.stringOrStruct(fileString, reflect.TypeFor[sharedFile]())
}

// stringOrStruct decodes a shape written either as a string, checked with
// r and handed to str when it passes, or as a mapping decoded into m.
func (d *decoder) stringOrStruct(n *yaml.Node, path string, r rules, m any, want string, str func(string)) {
	switch {
	case n.Kind == yaml.ScalarNode && n.ShortTag() == "!!str":
		before := len(d.errs)
		d.checkString(n, path, n.Value, r)
		if len(d.errs) == before {
			str(n.Value)
		}
	case n.Kind == yaml.MappingNode:
		d.structure(n, reflect.ValueOf(m).Elem(), path)
	default:
		d.add(n, path, CodeType, "must be %s, got %s", want, describe(n))
	}
}

// stringOrStruct is the schema of the same shape.
func (g *schemaGen) stringOrStruct(r rules, t reflect.Type) map[string]any {
	s := map[string]any{"type": "string"}
	g.applyString(s, r, false)
	return map[string]any{"oneOf": []any{s, g.structSchema(t, false)}}
}

// ScoreRange is a [min, max] scale.
type ScoreRange struct {
	Min, Max float64
}

func (s *ScoreRange) decodeNode(d *decoder, n *yaml.Node, path string) {
	var xs []float64
	if n.Kind != yaml.SequenceNode || len(n.Content) != 2 {
		d.add(n, path, CodeType, "must be a [min, max] list of two numbers, got %s", describe(n))
		return
	}
	before := len(d.errs)
	d.value(n, reflect.ValueOf(&xs).Elem(), path, rules{})
	if len(d.errs) > before {
		return
	}
	s.Min, s.Max = xs[0], xs[1]
	if s.Min >= s.Max {
		d.add(n, path, CodeSemantic, "must be increasing: min %v is not below max %v", s.Min, s.Max)
	}
}

func (ScoreRange) jsonSchema(*schemaGen) map[string]any {
	return map[string]any{
		"type": []any{"array", "null"}, "minItems": 2, "maxItems": 2,
		"items": map[string]any{"type": "number"},
	}
}
