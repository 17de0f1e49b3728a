// Package decisions loads the tool-interception decision corpus
// (internal/intercept/testdata/decisions.yaml) for the unit, fuzz and
// end-to-end tests that share it. It is imported by tests only.
package decisions

import (
	"bytes"
	"context"
	"errors"
	"os"

	yaml "go.yaml.in/yaml/v3"

	"github.com/agent-eval/agent-eval/internal/intercept"
)

// Corpus is the decisions file.
type Corpus struct {
	HandlerSets map[string]intercept.File `yaml:"handler_sets"`
	Cases       []Case                    `yaml:"cases"`
}

// Case is one call and the decision expected for it.
type Case struct {
	Name      string            `yaml:"name"`
	Handlers  string            `yaml:"handlers"`
	Tool      string            `yaml:"tool"`
	Input     map[string]any    `yaml:"input"`
	Env       map[string]string `yaml:"env"`
	LLM       *string           `yaml:"llm"`
	LLMError  string            `yaml:"llm_error"`
	Want      intercept.Kind    `yaml:"want"`
	Reason    string            `yaml:"reason"`
	NotReason string            `yaml:"not_reason"`
	Answers   map[string]string `yaml:"answers"`
	Tiers     map[string]string `yaml:"tiers"`
	Warning   string            `yaml:"warning"`
}

// Load reads the corpus strictly: a typo in it fails the tests.
func Load(path string) (*Corpus, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	var c Corpus
	if err := dec.Decode(&c); err != nil {
		return nil, err
	}
	for _, cs := range c.Cases {
		if _, ok := c.HandlerSets[cs.Handlers]; !ok {
			return nil, errors.New("case " + cs.Name + ": no handler set " + cs.Handlers)
		}
	}
	return &c, nil
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
