package rundir

// HumanSummary sets the human verdicts of review.yaml beside the judges'
// (summary.yaml's human block).
type HumanSummary struct {
	// Reviewed counts the run's cases with a human verdict, Commented those
	// with a comment (with or without one), Passed the verdicts of pass.
	Reviewed  int      `yaml:"reviewed"`
	Commented int      `yaml:"commented,omitempty"`
	Passed    int      `yaml:"passed"`
	PassRate  *float64 `yaml:"pass_rate,omitempty"`
	// CaseVerdict compares the human verdicts with the cases' own (a case
	// passes when every pass/fail verdict it has passed and none errored);
	// Judges with each pass/fail judge's, in eval.yaml's order.
	CaseVerdict *Agreement  `yaml:"case_verdict,omitempty"`
	Judges      []Agreement `yaml:"judges,omitempty"`
}

// Agreement is how often a person and a verdict agreed, over the cases
// both judged.
type Agreement struct {
	Judge    string   `yaml:"judge,omitempty"`
	Compared int      `yaml:"compared"`
	Agreed   int      `yaml:"agreed"`
	Rate     *float64 `yaml:"rate,omitempty"`
	// Disagree are the cases where they differ, sorted.
	Disagree []string `yaml:"disagree,omitempty"`
}

// CasePassed is a case's own verdict: it passed when every pass/fail
// verdict it has passed and none errored; ok is false when it has neither.
func (c CaseSummary) CasePassed() (passed, ok bool) {
	passed = true
	for _, v := range c.Verdicts {
		switch {
		case v.Error != "":
			passed, ok = false, true
		case v.Passed != nil:
			passed, ok = passed && *v.Passed, true
		}
	}
	return passed && ok, ok
}

// Human compares review r with the summary's verdicts; nil when r reviews
// none of the summary's cases.
func Human(s *Summary, r *Review) *HumanSummary {
	if r == nil || s == nil {
		return nil
	}
	h := &HumanSummary{CaseVerdict: &Agreement{}}
	agree := make([]Agreement, 0, len(s.Judges))
	for _, j := range s.Judges {
		if j.Type == "bool" {
			agree = append(agree, Agreement{Judge: j.Name})
		}
	}
	seen := false
	for _, c := range s.Cases {
		cr, ok := r.Cases[c.ID]
		if !ok {
			continue
		}
		seen = true
		if cr.Comment != "" {
			h.Commented++
		}
		human, ok := cr.Passed()
		if !ok {
			continue
		}
		h.Reviewed++
		if human {
			h.Passed++
		}
		if p, ok := c.CasePassed(); ok {
			h.CaseVerdict.add(c.ID, p == human)
		}
		for i := range agree {
			for _, v := range c.Verdicts {
				if v.Judge == agree[i].Judge && v.Passed != nil && v.Error == "" {
					agree[i].add(c.ID, *v.Passed == human)
				}
			}
		}
	}
	if !seen {
		return nil
	}
	if h.Reviewed > 0 {
		h.PassRate = ratio(h.Passed, h.Reviewed)
	}
	h.CaseVerdict.finish()
	if h.CaseVerdict.Compared == 0 {
		h.CaseVerdict = nil
	}
	for _, a := range agree {
		if a.Compared > 0 {
			a.finish()
			h.Judges = append(h.Judges, a)
		}
	}
	return h
}

func (a *Agreement) add(id string, agreed bool) {
	a.Compared++
	if agreed {
		a.Agreed++
	} else {
		a.Disagree = append(a.Disagree, id)
	}
}

func (a *Agreement) finish() {
	if a.Compared > 0 {
		a.Rate = ratio(a.Agreed, a.Compared)
	}
}

func ratio(a, b int) *float64 {
	f := float64(a) / float64(b)
	return &f
}
