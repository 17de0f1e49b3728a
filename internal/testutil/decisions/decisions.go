// Package decisions loads the tool-interception decision corpus
// (internal/intercept/testdata/decisions.yaml) for the unit, fuzz and
// end-to-end tests that share it. It is imported by tests only.
package decisions

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/agent-eval/agent-eval/internal/intercept"
)

// Corpus is the decisions file.
type Corpus struct {
	HandlerSets map[string]intercept.File `yaml:"handler_sets"`
	// Workspaces are filesystem fixtures for the path layer: a case that
	// names one runs with the fixture built in a temporary directory, which
	// is the root of the handler set's denied_paths and the call's cwd.
	Workspaces map[string]Workspace `yaml:"workspaces"`
	Cases      []Case               `yaml:"cases"`
}

// Workspace is a directory to build: files with their content, and
// symlinks (link → target, as given to os.Symlink).
type Workspace struct {
	Files    map[string]string `yaml:"files"`
	Symlinks map[string]string `yaml:"symlinks"`
}

// Build creates the workspace in dir.
func (w Workspace) Build(dir string) error {
	for name, content := range w.Files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			return err
		}
	}
	for link, target := range w.Symlinks {
		p := filepath.Join(dir, filepath.FromSlash(link))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.Symlink(target, p); err != nil {
			return err
		}
	}
	return nil
}

// Case is one call and the decision expected for it.
type Case struct {
	Name     string            `yaml:"name"`
	Handlers string            `yaml:"handlers"`
	Tool     string            `yaml:"tool"`
	Input    map[string]any    `yaml:"input"`
	Env      map[string]string `yaml:"env"`
	LLM      *string           `yaml:"llm"`
	LLMError string            `yaml:"llm_error"`
	Want     intercept.Kind    `yaml:"want"`
	// Handler is the index of the handler the decision must name; unset
	// means any (a pass with a handler is a checked pass, without one an
	// unmatched call).
	Handler   *int              `yaml:"handler"`
	Reason    string            `yaml:"reason"`
	NotReason string            `yaml:"not_reason"`
	Answers   map[string]string `yaml:"answers"`
	Tiers     map[string]string `yaml:"tiers"`
	Warning   string            `yaml:"warning"`
	// Commands and HandlerSets make one entry stand for many cases: one
	// Bash call per command, under each handler set (a corpus of everyday
	// or evasive commands that share an expectation). Load expands them.
	Commands    []string `yaml:"commands"`
	HandlerSets []string `yaml:"handler_sets"`
	// Workspace names a fixture of Workspaces; CWD is the call's directory
	// relative to it (default: its root).
	Workspace string `yaml:"workspace"`
	CWD       string `yaml:"cwd"`
}

// Load reads the corpus strictly: a typo in it fails the tests. Beside the
// main file, every YAML file in the folder named like it without ".yaml"
// (testdata/decisions/*.yaml) is read too and merged: its handler sets and
// workspaces join the main file's (a name defined twice is an error) and its
// cases follow, so a corpus of one class of attack can live in a file of its
// own.
func Load(path string) (*Corpus, error) {
	c, err := loadOne(path)
	if err != nil {
		return nil, err
	}
	extra, err := filepath.Glob(filepath.Join(strings.TrimSuffix(path, filepath.Ext(path)), "*.yaml"))
	if err != nil {
		return nil, err
	}
	sort.Strings(extra)
	for _, p := range extra {
		more, err := loadOne(p)
		if err != nil {
			return nil, err
		}
		for name, hs := range more.HandlerSets {
			if _, dup := c.HandlerSets[name]; dup {
				return nil, fmt.Errorf("%s: handler set %s is defined already", p, name)
			}
			c.HandlerSets[name] = hs
		}
		for name, ws := range more.Workspaces {
			if _, dup := c.Workspaces[name]; dup {
				return nil, fmt.Errorf("%s: workspace %s is defined already", p, name)
			}
			c.Workspaces[name] = ws
		}
		c.Cases = append(c.Cases, more.Cases...)
	}
	for _, cs := range c.Cases {
		if _, ok := c.HandlerSets[cs.Handlers]; !ok {
			return nil, errors.New("case " + cs.Name + ": no handler set " + cs.Handlers)
		}
		if _, ok := c.Workspaces[cs.Workspace]; cs.Workspace != "" && !ok {
			return nil, errors.New("case " + cs.Name + ": no workspace " + cs.Workspace)
		}
	}
	return c, nil
}

// loadOne reads one corpus file strictly and expands its cases.
func loadOne(path string) (*Corpus, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	var c Corpus
	if err := dec.Decode(&c); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if c.HandlerSets == nil {
		c.HandlerSets = map[string]intercept.File{}
	}
	if c.Workspaces == nil {
		c.Workspaces = map[string]Workspace{}
	}
	var cases []Case
	for _, cs := range c.Cases {
		expanded, err := expand(cs)
		if err != nil {
			return nil, err
		}
		cases = append(cases, expanded...)
	}
	c.Cases = cases
	return &c, nil
}

// expand turns a case with commands or handler_sets into one case per
// command and handler set.
func expand(cs Case) ([]Case, error) {
	if len(cs.Commands) == 0 && len(cs.HandlerSets) == 0 {
		return []Case{cs}, nil
	}
	if len(cs.HandlerSets) > 0 && cs.Handlers != "" {
		return nil, errors.New("case " + cs.Name + ": handlers and handler_sets are exclusive")
	}
	if len(cs.Commands) > 0 && (cs.Input != nil || (cs.Tool != "" && cs.Tool != "Bash")) {
		return nil, errors.New("case " + cs.Name + ": commands are Bash calls; drop input and tool")
	}
	sets := cs.HandlerSets
	if len(sets) == 0 {
		sets = []string{cs.Handlers}
	}
	var out []Case
	for _, set := range sets {
		one := cs
		one.Commands, one.HandlerSets, one.Handlers = nil, nil, set
		if len(cs.Commands) == 0 {
			one.Name = cs.Name + " [" + set + "]"
			out = append(out, one)
			continue
		}
		for _, cmd := range cs.Commands {
			c := one
			c.Tool, c.Input = "Bash", map[string]any{"command": cmd}
			c.Name = cs.Name + " [" + set + "]: " + cmd
			out = append(out, c)
		}
	}
	return out, nil
}

// Answerer is the scripted LLM tier of a case (nil when the case has none).
func (c Case) Answerer() intercept.Answerer {
	switch {
	case c.LLMError != "":
		return fake{err: errors.New(c.LLMError)}
	case c.LLM != nil:
		return fake{reply: *c.LLM}
	}
	return nil
}

type fake struct {
	reply string
	err   error
}

func (f fake) Answer(context.Context, intercept.Question) (string, error) { return f.reply, f.err }
