package intercept

import (
	"context"
	"fmt"
	"strings"

	"github.com/agent-eval/agent-eval/internal/clip"
)

// answer resolves every question of an AskUserQuestion call: an exact
// case_overrides entry, else the LLM tier (its reply must be one of the
// options), else the first option or "yes".
//
// The LLM tier is asked about every question at once, and waited for until
// ctx's deadline (the hook sets one safely below Claude Code's hook
// timeout, so that a decision is always printed): a question whose call has
// not answered by then gets the fallback, with a warning. The Answerer
// must be safe for concurrent use.
func answer(ctx context.Context, d Decision, p *Policy, h prepared, input map[string]any, llm Answerer) Decision {
	d.Answers, d.Tiers = map[string]string{}, map[string]string{}
	questions, _ := input["questions"].([]any)
	if len(questions) == 0 {
		d.Kind = Deny
		d.Reason = "Blocked by eval harness: AskUserQuestion without questions"
		return d
	}
	type reply struct {
		text     string
		err      error
		panicked any // re-raised on the caller's goroutine, whose caller fails closed
	}
	qs := make([]Question, len(questions))
	replies := make([]chan reply, len(questions))
	for i, raw := range questions {
		q := parseQuestion(raw)
		q.Prompt, q.Model = h.Prompt, p.HookModel
		qs[i] = q
		if _, ok := h.CaseOverrides[q.Question]; ok || llm == nil || len(q.Options) == 0 {
			continue
		}
		replies[i] = make(chan reply, 1) // buffered: a late reply never blocks its goroutine
		go func(ch chan<- reply) {
			defer func() {
				if r := recover(); r != nil {
					ch <- reply{panicked: r}
				}
			}()
			text, err := llm.Answer(ctx, q)
			ch <- reply{text: text, err: err}
		}(replies[i])
	}
	for i, q := range qs {
		if a, ok := h.CaseOverrides[q.Question]; ok {
			d.Answers[q.Question], d.Tiers[q.Question] = a, TierOverride
			continue
		}
		if replies[i] != nil {
			var r reply
			select {
			case r = <-replies[i]:
			case <-ctx.Done():
				// A reply that came in just as the deadline passed still counts.
				select {
				case r = <-replies[i]:
				default:
					r.err = fmt.Errorf("no answer before the hook's deadline (%w)", ctx.Err())
				}
			}
			if r.panicked != nil {
				panic(r.panicked)
			}
			if r.err == nil {
				if a, ok := pickOption(r.text, q); ok {
					d.Answers[q.Question], d.Tiers[q.Question] = a, TierLLM
					continue
				}
				d.Warnings = append(d.Warnings, fmt.Sprintf("the hook model's answer %q to %q is not one of its options", clip.String(r.text, 80), q.Question))
			} else {
				d.Warnings = append(d.Warnings, fmt.Sprintf("the hook model could not answer %q: %v", q.Question, r.err))
			}
		}
		a := "yes"
		if len(q.Options) > 0 {
			a = q.Options[0]
		}
		d.Answers[q.Question], d.Tiers[q.Question] = a, TierFallback
		d.Warnings = append(d.Warnings, fmt.Sprintf("answered %q with the fallback %q", q.Question, a))
	}
	d.Kind = Allow
	d.Reason = "answered by eval harness: " + oneLine(h.Match)
	answers := map[string]any{}
	for k, v := range d.Answers {
		answers[k] = v
	}
	d.UpdatedInput = map[string]any{"questions": questions, "answers": answers}
	return d
}

func parseQuestion(raw any) Question {
	m, _ := raw.(map[string]any)
	q := Question{}
	q.Question, _ = m["question"].(string)
	q.Header, _ = m["header"].(string)
	q.MultiSelect, _ = m["multiSelect"].(bool)
	opts, _ := m["options"].([]any)
	for _, o := range opts {
		switch o := o.(type) {
		case string:
			q.Options = append(q.Options, o)
		case map[string]any:
			if l, ok := o["label"].(string); ok {
				q.Options = append(q.Options, l)
			}
		}
	}
	return q
}

// pickOption maps a model reply onto the option labels: exact, else
// case-insensitive after trimming quotes and spaces. A multiSelect reply
// may name several labels, separated by commas.
func pickOption(reply string, q Question) (string, bool) {
	one := func(s string) (string, bool) {
		s = strings.Trim(strings.TrimSpace(s), "\"'`“”.")
		for _, o := range q.Options {
			if s == o {
				return o, true
			}
		}
		for _, o := range q.Options {
			if strings.EqualFold(s, o) {
				return o, true
			}
		}
		return "", false
	}
	if a, ok := one(reply); ok {
		return a, true
	}
	if !q.MultiSelect {
		return "", false
	}
	var picked []string
	for _, part := range strings.Split(reply, ",") {
		a, ok := one(part)
		if !ok {
			return "", false
		}
		picked = append(picked, a)
	}
	return strings.Join(picked, ", "), len(picked) > 0
}
