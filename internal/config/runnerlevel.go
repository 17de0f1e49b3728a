package config

import (
	"bytes"
	"fmt"
	"slices"
	"sort"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// RunnerFactor is the matrix factor whose levels are agents: each level a
// runner type with its own model (docs/agent-matrix.md).
const RunnerFactor = "runner"

// RunnerLevel is one level of the runner factor: the agent CLI and the
// model it runs, and the runner settings that belong to that CLI.
type RunnerLevel struct {
	// Name is the level's name in cell names and tables: name:, else the
	// type.
	Name string
	Type string
	// Model is the level's models.skill ("" only for a cli runner).
	Model string
	// Effort and Settings replace runner.effort and runner.settings; nil
	// or "": a level of runner.type's own type keeps the eval's, another
	// type has none (they are per agent CLI).
	Effort   string
	Settings map[string]any
}

// runnerLevelKeys are the keys a runner level may have.
var runnerLevelKeys = []string{"name", "type", "model", "effort", "settings"}

// runnerTypes are the runner types a level may name.
var runnerTypes = []string{"claude-code", "codex", "gemini", "cursor", "cli"}

// ParseRunnerLevel reads a level of the runner factor as eval.yaml (or
// matrix.json) holds it: a mapping {type, model, name?, effort?,
// settings?}. The error says what is wrong, for the level's position.
func ParseRunnerLevel(v any) (RunnerLevel, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return RunnerLevel{}, fmt.Errorf("a level of the runner factor is a mapping {type: codex, model: gpt-5.5}, got %s", levelKind(v))
	}
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var l RunnerLevel
	for _, k := range keys {
		if !slices.Contains(runnerLevelKeys, k) {
			return l, fmt.Errorf("unknown key %q in a runner level (known keys: %s)", k, strings.Join(runnerLevelKeys, ", "))
		}
		if k == "settings" {
			s, ok := m[k].(map[string]any)
			if !ok && m[k] != nil {
				return l, fmt.Errorf("settings must be a mapping, got %s", levelKind(m[k]))
			}
			l.Settings = s
			continue
		}
		s, ok := m[k].(string)
		if !ok {
			return l, fmt.Errorf("%s must be a string, got %s", k, levelKind(m[k]))
		}
		switch k {
		case "name":
			l.Name = s
		case "type":
			l.Type = s
		case "model":
			l.Model = s
		case "effort":
			l.Effort = s
		}
	}
	switch {
	case strings.TrimSpace(l.Type) == "":
		return l, fmt.Errorf("a runner level needs a type (%s)", strings.Join(runnerTypes, ", "))
	case l.Type == "responses-api":
		return l, fmt.Errorf("runner type responses-api (upstream's) is not run by agent-eval (see runner.type); use codex")
	case !slices.Contains(runnerTypes, l.Type):
		return l, fmt.Errorf("type %q is not a runner type: %s", l.Type, strings.Join(runnerTypes, ", "))
	case strings.TrimSpace(l.Model) == "" && l.Type != "cli":
		return l, fmt.Errorf("runner level %s names no model: each agent needs its own (model: ...), models.skill is not shared between runners", l.Type)
	case m["name"] != nil && !envNameRE().MatchString(strings.ReplaceAll(l.Name, "-", "_")):
		return l, fmt.Errorf("name %q: a level's name is letters, digits, _ and -", l.Name)
	}
	if l.Name == "" {
		l.Name = l.Type
	}
	return l, nil
}

func levelKind(v any) string {
	switch v.(type) {
	case map[string]any:
		return "a mapping"
	case []any:
		return "a list"
	case nil:
		return "nothing"
	}
	return fmt.Sprintf("%T %v", v, v)
}

// RunnerLevels are the levels of the matrix's runner factor, nil when it
// has none. Valid after Load (which refuses a level that does not parse).
func (m *Matrix) RunnerLevels() []RunnerLevel {
	if m == nil {
		return nil
	}
	var out []RunnerLevel
	for _, v := range m.Factors[RunnerFactor] {
		if l, err := ParseRunnerLevel(v); err == nil {
			out = append(out, l)
		}
	}
	return out
}

// Loaded is the content of the eval.yaml file the eval was read from:
// Source, except for a runner level's eval (ForRunner), whose Source is
// that content rewritten.
func (e *Eval) Loaded() []byte {
	if e.loaded != nil {
		return e.loaded
	}
	return e.src
}

// ForRunner is the eval as a cell of the runner level l runs it: its
// source with runner.type, models.skill and the level's effort and
// settings written in (a level of another type than runner.type drops the
// eval's runner.effort and runner.settings), decoded and validated as if
// the user had written it. Its Source is what the cell's run directory
// keeps as its eval.yaml; Loaded stays the file's.
func (e *Eval) ForRunner(l RunnerLevel) (*Eval, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(e.src, &doc); err != nil || len(doc.Content) == 0 {
		return nil, fmt.Errorf("rewrite %s for runner level %s: %v", e.path, l.Name, err)
	}
	root := doc.Content[0]
	runner, err := mappingAt(root, "runner")
	if err != nil {
		return nil, err
	}
	other := l.Type != e.RunnerType()
	mark := func(n *yaml.Node) *yaml.Node {
		n.LineComment = "# the matrix's runner level " + l.Name
		return n
	}
	setKey(runner, "type", mark(scalarNode(l.Type)))
	switch {
	case l.Effort != "":
		setKey(runner, "effort", scalarNode(l.Effort))
	case other:
		deleteKey(runner, "effort")
	}
	switch {
	case l.Settings != nil:
		var n yaml.Node
		if err := n.Encode(l.Settings); err != nil {
			return nil, fmt.Errorf("runner level %s: encode its settings: %w", l.Name, err)
		}
		setKey(runner, "settings", &n)
	case other:
		deleteKey(runner, "settings")
	}
	if l.Model != "" {
		models, err := mappingAt(root, "models")
		if err != nil {
			return nil, err
		}
		setKey(models, "skill", mark(scalarNode(l.Model)))
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return nil, fmt.Errorf("rewrite %s for runner level %s: %w", e.path, l.Name, err)
	}
	cell := &Eval{path: e.path, origin: e.origin, src: buf.Bytes(), loaded: e.Loaded()}
	return parseEval(cell)
}

// mappingAt is root's mapping under key, added when absent. A YAML anchor
// or alias there is refused: rewriting it would change the other places
// that share it.
func mappingAt(root *yaml.Node, key string) (*yaml.Node, error) {
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value != key {
			continue
		}
		n := root.Content[i+1]
		switch {
		case n.Kind == yaml.AliasNode || n.Anchor != "":
			return nil, fmt.Errorf("%s: is a YAML anchor or alias, which a runner factor cannot rewrite per level; write it out", key)
		case n.Kind == yaml.ScalarNode && n.Tag == "!!null":
			*n = yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		case n.Kind != yaml.MappingNode:
			return nil, fmt.Errorf("%s: must be a mapping", key)
		}
		return n, nil
	}
	n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	root.Content = append(root.Content, scalarNode(key), n)
	return n, nil
}

func scalarNode(s string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
}

// setKey sets m's key to v, keeping the key's place and comments (v's own
// line comment replaces the old value's).
func setKey(m *yaml.Node, key string, v *yaml.Node) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			old := m.Content[i+1]
			v.HeadComment, v.FootComment = old.HeadComment, old.FootComment
			if v.LineComment == "" {
				v.LineComment = old.LineComment
			}
			m.Content[i+1] = v
			return
		}
	}
	m.Content = append(m.Content, scalarNode(key), v)
}

func deleteKey(m *yaml.Node, key string) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			m.Content = append(m.Content[:i], m.Content[i+2:]...)
			return
		}
	}
}

// runnerFactor checks the runner factor's levels: each a runner with its
// model, their names distinct, and no model factor crossing them.
func (v *validator) runnerFactor(p string, levels []any) {
	if _, ok := v.e.Matrix.Factors[ModelFactorName]; ok {
		v.errf("matrix.factors."+ModelFactorName, CodeConflict, "the runner factor's levels name their own models; a model factor would cross every model with every agent: put each model in its runner level")
	}
	seen := map[string]bool{}
	for i, x := range levels {
		lp := index(p, i)
		l, err := ParseRunnerLevel(x)
		if err != nil {
			v.errf(lp, CodeSemantic, "factor runner: %v", err)
			continue
		}
		if seen[l.Name] {
			v.errf(lp, CodeSemantic, "factor runner: two levels are named %q; give one a name: of its own", l.Name)
		}
		seen[l.Name] = true
	}
}

// ModelFactorName is the factor that varies models.skill (matrix.ModelFactor).
const ModelFactorName = "model"

// runnerCells validates the eval each runner level makes (ForRunner), once
// the eval itself is valid: what is wrong only with that agent (an effort
// it does not have, repo mode under codex) is an error at the level.
func (v *validator) runnerCells() {
	m := v.e.Matrix
	if v.e.loaded != nil || m == nil || len(m.Factors[RunnerFactor]) == 0 || len(v.d.errs) > 0 {
		return
	}
	known := map[string]bool{}
	for _, w := range v.d.warns {
		known[w.Field+"\x00"+w.Msg] = true
	}
	for i, x := range m.Factors[RunnerFactor] {
		l, err := ParseRunnerLevel(x)
		if err != nil {
			continue
		}
		lp := index("matrix.factors."+RunnerFactor, i)
		cell, err := v.e.ForRunner(l)
		var errs Errors
		switch e := err.(type) {
		case nil:
		case Errors:
			errs = e
		default:
			v.errf(lp, CodeSemantic, "runner level %s: %v", l.Name, err)
			continue
		}
		for _, x := range errs {
			v.errf(lp, x.Code, "runner level %s: %s", l.Name, fieldMsg(x))
		}
		if cell == nil {
			continue
		}
		for _, w := range cell.Warnings {
			if k := w.Field + "\x00" + w.Msg; !known[k] {
				known[k] = true
				v.warnf(lp, "runner level %s: %s", l.Name, fieldMsg(w))
			}
		}
	}
}

func fieldMsg(e Error) string {
	if e.Field == "" {
		return e.Msg
	}
	return e.Field + ": " + e.Msg
}

// LevelErrors places the problems found in runner level l's eval
// (ForRunner; its source is rewritten, so its lines are not the file's) in
// e's file: at the field's position where e has the field, else at the
// level's, each message naming the level. Another error is returned as it
// is.
func (e *Eval) LevelErrors(l RunnerLevel, err error) error {
	errs, ok := err.(Errors)
	if !ok {
		return err
	}
	at := "matrix.factors." + RunnerFactor
	for i, lv := range e.Matrix.RunnerLevels() {
		if lv.Name == l.Name {
			at = index(at, i)
		}
	}
	out := make(Errors, len(errs))
	for i, x := range errs {
		x.File = e.path
		x.Line, x.Col = e.Position(x.Field)
		if x.Line == 0 {
			x.Line, x.Col = e.Position(at)
		}
		x.Msg = "runner level " + l.Name + ": " + x.Msg
		out[i] = x
	}
	return out
}
