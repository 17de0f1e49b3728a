// Package analyze reads a scored run's failed and errored cases and asks
// a model what went wrong: the failure patterns, the cases that show
// each, and what to change in the skill or the prompt. The result is the
// run's analysis.md (and, for --json, its structured form).
package analyze

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/agent-eval/agent-eval/internal/llm"
	"github.com/agent-eval/agent-eval/internal/redact"
	"github.com/agent-eval/agent-eval/internal/rundir"
)

// Model is the one call analyze makes: a forced tool call
// (*llm.Client's).
type Model interface {
	ForcedTool(ctx context.Context, req llm.ToolRequest) (json.RawMessage, string, error)
}

// Options configure one analysis.
type Options struct {
	// Dir is the scored run; Summary its summary.yaml.
	Dir     rundir.Dir
	Summary *rundir.Summary
	// Model names the model Client is asked.
	Model  string
	Client Model
	// Budgets bound the material sent (DefaultBudgets when zero).
	Budgets Budgets
	// Redactor hides what the run directory may still hold of this
	// environment's secrets (nil: nothing more).
	Redactor *redact.Redactor
	// Now stamps the analysis (time.Now when nil).
	Now func() time.Time
	// Timeout bounds the model call (5 minutes when zero).
	Timeout time.Duration
}

// Analysis is what analyze found, as --json prints it.
type Analysis struct {
	RunID      string `json:"run_id"`
	AnalyzedAt string `json:"analyzed_at"`
	// Model is the model asked; "" when none was (no failures).
	Model       string `json:"model,omitempty"`
	ModelCalled bool   `json:"model_called"`
	NumCases    int    `json:"num_cases"`
	// Failing are the cases that failed or errored; Omitted those of them
	// past the material's total budget (not shown to the model).
	Failing []string `json:"failing_cases"`
	Omitted []string `json:"omitted_cases,omitempty"`
	// Summary, Patterns and Recommendations are the model's reading.
	Summary         string    `json:"summary"`
	Patterns        []Pattern `json:"patterns"`
	Recommendations []string  `json:"recommendations"`
}

// Pattern is one way the cases failed.
type Pattern struct {
	Title       string   `json:"title"`
	Description string   `json:"description"`
	Cases       []string `json:"cases"`
	// Fix is what to change in the skill, the prompt or the eval.
	Fix string `json:"fix"`
}

// Run analyzes the run: with no failing case it writes nothing to the
// model and says so; else it sends the failing cases' material (cut to
// the budgets) and reads back the patterns.
func Run(ctx context.Context, opts Options) (*Analysis, error) {
	if opts.Summary == nil {
		return nil, errors.New("the run is not scored: agent-eval score it first")
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Budgets == (Budgets{}) {
		opts.Budgets = DefaultBudgets
	}
	if opts.Timeout == 0 {
		opts.Timeout = 5 * time.Minute
	}
	s := opts.Summary
	a := &Analysis{RunID: s.RunID, AnalyzedAt: opts.Now().UTC().Format(time.RFC3339), NumCases: len(s.Cases), Failing: []string{}, Patterns: []Pattern{}, Recommendations: []string{}}
	var failed []rundir.CaseSummary
	for _, c := range s.Cases {
		if failing(c) {
			failed = append(failed, c)
			a.Failing = append(a.Failing, c.ID)
		}
	}
	if len(failed) == 0 {
		a.Summary = fmt.Sprintf("No case failed or errored (%d case(s)): there is nothing to analyze, and no model was asked.", len(s.Cases))
		return a, nil
	}
	if opts.Model == "" {
		return nil, errors.New("no model to analyze with")
	}
	batch, err := opts.Dir.ReadBatchAssignment()
	if err != nil {
		return nil, fmt.Errorf("read the run: %w", err)
	}
	var materials []Material
	for _, c := range failed {
		m, err := caseMaterial(opts.Dir, c, batch, opts.Budgets.Case)
		if err != nil {
			return nil, fmt.Errorf("read case %s: %w", c.ID, err)
		}
		if opts.Redactor != nil {
			m = opts.Redactor.String(m)
		}
		materials = append(materials, Material{ID: c.ID, Text: m})
	}
	kept, omitted := Fit(materials, opts.Budgets.Total)
	a.Omitted = omitted
	req := request(s, kept, omitted, opts.Model, opts.Timeout)
	raw, text, err := opts.Client.ForcedTool(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("ask %s: %w", opts.Model, err)
	}
	if raw == nil {
		return nil, fmt.Errorf("%s answered without calling %s: %q", opts.Model, toolName, clipText(text))
	}
	var got struct {
		Summary         string    `json:"summary"`
		Patterns        []Pattern `json:"patterns"`
		Recommendations []string  `json:"recommendations"`
	}
	if err := json.Unmarshal(raw, &got); err != nil {
		return nil, fmt.Errorf("read %s's analysis: %w", opts.Model, err)
	}
	a.Model, a.ModelCalled = opts.Model, true
	a.Summary = strings.TrimSpace(got.Summary)
	a.Recommendations = nonEmpty(got.Recommendations)
	for _, p := range got.Patterns {
		// A case id the model made up (or read in an agent's text) is
		// not one of the run's failing cases: it is not listed.
		p.Cases = slices.DeleteFunc(p.Cases, func(id string) bool { return !slices.Contains(a.Failing, id) })
		if strings.TrimSpace(p.Title) == "" {
			continue
		}
		a.Patterns = append(a.Patterns, p)
	}
	return a, nil
}

// AnyFailing reports whether some case of s failed or errored: analyze
// then asks a model.
func AnyFailing(s *rundir.Summary) bool {
	return slices.ContainsFunc(s.Cases, failing)
}

// Material is one failing case's text for the model.
type Material struct{ ID, Text string }

// Fit keeps the materials, in order, while their text fits in total
// bytes; the others are omitted (listed by id). The first is always
// kept: it is already cut to its case budget.
func Fit(ms []Material, total int) (kept []Material, omitted []string) {
	used := 0
	for i, m := range ms {
		if i > 0 && used+len(m.Text) > total {
			omitted = append(omitted, m.ID)
			continue
		}
		used += len(m.Text)
		kept = append(kept, m)
	}
	return kept, omitted
}

func nonEmpty(ss []string) []string {
	out := []string{}
	for _, s := range ss {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

func clipText(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}

// judgeNames are the judges of the summary, sorted.
func judgeNames(s *rundir.Summary) []string {
	var out []string
	for _, j := range s.Judges {
		out = append(out, j.Name+" ("+j.Kind+")")
	}
	sort.Strings(out)
	return out
}
