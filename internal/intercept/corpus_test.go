package intercept

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	yaml "go.yaml.in/yaml/v3"
)

// Corpus is testdata/decisions.yaml. It is exported to the package's tests
// only, and read by the hook's end-to-end tests through LoadCorpus.
type Corpus struct {
	HandlerSets map[string]File `yaml:"handler_sets"`
	Cases       []CorpusCase    `yaml:"cases"`
}

// CorpusCase is one call and the decision expected for it.
type CorpusCase struct {
	Name      string            `yaml:"name"`
	Handlers  string            `yaml:"handlers"`
	Tool      string            `yaml:"tool"`
	Input     map[string]any    `yaml:"input"`
	Env       map[string]string `yaml:"env"`
	LLM       *string           `yaml:"llm"`
	LLMError  string            `yaml:"llm_error"`
	Want      Kind              `yaml:"want"`
	Reason    string            `yaml:"reason"`
	NotReason string            `yaml:"not_reason"`
	Answers   map[string]string `yaml:"answers"`
	Tiers     map[string]string `yaml:"tiers"`
	Warning   string            `yaml:"warning"`
}

var loadCorpus = sync.OnceValues(func() (*Corpus, error) {
	b, err := os.ReadFile("testdata/decisions.yaml")
	if err != nil {
		return nil, err
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true) // a typo in the corpus fails the tests
	var c Corpus
	if err := dec.Decode(&c); err != nil {
		return nil, err
	}
	return &c, nil
})

type fakeLLM struct {
	reply string
	err   error
}

func (f fakeLLM) Answer(context.Context, Question) (string, error) { return f.reply, f.err }

func (c CorpusCase) answerer() Answerer {
	switch {
	case c.LLMError != "":
		return fakeLLM{err: errors.New(c.LLMError)}
	case c.LLM != nil:
		return fakeLLM{reply: *c.LLM}
	}
	return nil
}

func TestDecisionCorpus(t *testing.T) {
	t.Parallel()
	corpus, err := loadCorpus()
	if err != nil {
		t.Fatal(err)
	}
	if len(corpus.Cases) < 20 {
		t.Fatalf("the corpus has %d cases", len(corpus.Cases))
	}
	for _, c := range corpus.Cases {
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			set, ok := corpus.HandlerSets[c.Handlers]
			if !ok {
				t.Fatalf("no handler set %q", c.Handlers)
			}
			p, err := Prepare(set)
			if err != nil {
				t.Fatal(err)
			}
			d := Decide(context.Background(), p, Request{ToolName: c.Tool, ToolInput: c.Input, Env: c.Env}, c.answerer())
			if d.Kind != c.Want {
				t.Fatalf("Decide = %s (%s), want %s", d.Kind, d.Reason, c.Want)
			}
			if !strings.Contains(d.Reason, c.Reason) {
				t.Errorf("reason %q does not contain %q", d.Reason, c.Reason)
			}
			if c.NotReason != "" && strings.Contains(d.Reason, c.NotReason) {
				t.Errorf("reason %q contains %q", d.Reason, c.NotReason)
			}
			if c.Answers != nil {
				if diff := cmp.Diff(c.Answers, d.Answers); diff != "" {
					t.Errorf("answers (-want +got):\n%s", diff)
				}
				if diff := cmp.Diff(c.Tiers, d.Tiers); diff != "" {
					t.Errorf("tiers (-want +got):\n%s", diff)
				}
				if d.UpdatedInput["questions"] == nil || d.UpdatedInput["answers"] == nil {
					t.Errorf("updatedInput = %v, want questions and answers", d.UpdatedInput)
				}
			}
			if c.Warning != "" && !strings.Contains(strings.Join(d.Warnings, "\n"), c.Warning) {
				t.Errorf("warnings %q lack %q", d.Warnings, c.Warning)
			}
		})
	}
}

func TestPrepareRejects(t *testing.T) {
	t.Parallel()
	bad := []Handler{
		{Match: "x"},
		{Match: "x", Patterns: []string{"mcp__*__x"}},
		{Match: "x", Patterns: []string{"Bash"}, InputFilters: []string{"("}},
		{Match: "x", Patterns: []string{"Bash"}, InputFilters: []string{"a"}, EnvChecks: map[string]EnvCheck{"BAD-NAME": {MustContain: []string{"x"}}}},
		{Match: "x", Patterns: []string{"Bash"}, InputFilters: []string{"a"}, EnvChecks: map[string]EnvCheck{"OK": {}}},
	}
	for _, h := range bad {
		if _, err := Prepare(File{Handlers: []Handler{h}}); err == nil {
			t.Errorf("Prepare(%+v) succeeded, want an error", h)
		}
	}
}
