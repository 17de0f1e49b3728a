package main

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/rogpeppe/go-internal/testscript"
	yaml "go.yaml.in/yaml/v3"
)

// cmdANOVANear is the scripts' anova-near MATRIX_YAML JUDGE REFERENCE_JSON:
// the judge's ANOVA table in matrix.yaml matches, term by term and to a
// relative 1e-6, the reference table (made with statsmodels, see
// testdata/matrix_anova_reference.py).
func cmdANOVANear(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: anova-near MATRIX_YAML JUDGE REFERENCE_JSON")
	}
	type row struct {
		Term         string   `yaml:"term" json:"term"`
		SS           float64  `yaml:"ss" json:"ss"`
		DF           float64  `yaml:"df" json:"df"`
		MS           *float64 `yaml:"ms" json:"ms"`
		F            *float64 `yaml:"f" json:"f"`
		P            *float64 `yaml:"p" json:"p"`
		EtaSq        *float64 `yaml:"eta_sq" json:"eta_sq"`
		PartialEtaSq *float64 `yaml:"partial_eta_sq" json:"partial_eta_sq"`
	}
	var doc struct {
		Judges []struct {
			Judge string `yaml:"judge"`
			ANOVA []row  `yaml:"anova"`
		} `yaml:"judges"`
	}
	ts.Check(yaml.Unmarshal([]byte(ts.ReadFile(args[0])), &doc))
	var ref struct {
		Rows []row `json:"rows"`
	}
	ts.Check(json.Unmarshal([]byte(ts.ReadFile(args[2])), &ref))
	var got []row
	for _, j := range doc.Judges {
		if j.Judge == args[1] {
			got = j.ANOVA
		}
	}
	if len(got) != len(ref.Rows) {
		ts.Fatalf("judge %s: %d ANOVA rows, the reference has %d", args[1], len(got), len(ref.Rows))
	}
	near := func(what string, g, w *float64) {
		switch {
		case g == nil && w == nil:
		case g == nil || w == nil:
			ts.Fatalf("%s: got %v, want %v", what, show(g), show(w))
		case math.Abs(*g-*w) > 1e-6*math.Max(1, math.Abs(*w)) && math.Abs(*g-*w) > 1e-12:
			ts.Fatalf("%s: got %v, want %v", what, *g, *w)
		}
	}
	for i, w := range ref.Rows {
		g := got[i]
		if g.Term != w.Term {
			ts.Fatalf("row %d: term %q, want %q", i, g.Term, w.Term)
		}
		near(w.Term+" SS", &g.SS, &w.SS)
		near(w.Term+" DF", &g.DF, &w.DF)
		near(w.Term+" MS", g.MS, w.MS)
		near(w.Term+" F", g.F, w.F)
		near(w.Term+" P", g.P, w.P)
		near(w.Term+" η²", g.EtaSq, w.EtaSq)
		near(w.Term+" partial η²", g.PartialEtaSq, w.PartialEtaSq)
	}
}

func show(p *float64) string {
	if p == nil {
		return "none"
	}
	return fmt.Sprint(*p)
}
