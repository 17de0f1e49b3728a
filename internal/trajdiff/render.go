package trajdiff

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/agent-eval/agent-eval/internal/mdsafe"
)

// MaxListed is how many changed cases the text and the Markdown detail
// (the JSON and the HTML page have them all).
const MaxListed = 20

// Changed: the runs differ somewhere.
func (r *Report) Changed() bool {
	return len(r.OnlyA)+len(r.OnlyB)+len(r.TrajectoryChanged)+len(r.VerdictChanged) > 0 || r.filesChanged()
}

func (r *Report) filesChanged() bool {
	for _, c := range r.Cases {
		if len(c.Files) > 0 || c.StatusChanged || c.AnswerChanged {
			return true
		}
	}
	return false
}

// differs: the case changed in any way the report shows.
func (c *Case) differs() bool {
	return c.Only != "" || c.TrajectoryChanged || c.VerdictChanged || c.StatusChanged || c.AnswerChanged || len(c.Files) > 0
}

// WriteJSON writes the report as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r); err != nil {
		return fmt.Errorf("write the diff as json: %w", err)
	}
	return nil
}

func verdictWord(p *bool, scored bool) string {
	switch {
	case !scored:
		return verdictNotScored
	case p == nil:
		return "no pass/fail verdict"
	case *p:
		return "pass"
	default:
		return "fail"
	}
}

func value(v *float64) string {
	if v == nil {
		return "–"
	}
	return strconv.FormatFloat(*v, 'g', 4, 64)
}

func (r *Report) headline() string {
	n := 0
	for _, c := range r.Cases {
		if c.Only == "" {
			n++
		}
	}
	return fmt.Sprintf("%d case(s) in both, %d in A only, %d in B only; trajectory changed in %d, verdict in %d",
		n, len(r.OnlyA), len(r.OnlyB), len(r.TrajectoryChanged), len(r.VerdictChanged))
}

func (s *Significance) line() string {
	p := "n/a"
	if s.PValue != nil {
		p = strconv.FormatFloat(*s.PValue, 'g', 4, 64)
	}
	return fmt.Sprintf("passed %d → %d of %d paired (gained %d, lost %d), %s p = %s: %s", s.PassA, s.PassB, s.Paired, s.Gained, s.Lost, s.Test, p, s.Verdict)
}

func stepLine(s *Step) string {
	a, b := "(none)", "(none)"
	if s.A != nil {
		a = fmt.Sprintf("#%d %s", s.IndexA, s.A)
	}
	if s.B != nil {
		b = fmt.Sprintf("#%d %s", s.IndexB, s.B)
	}
	return fmt.Sprintf("%s: A %s | B %s", s.Op, a, b)
}

// WriteText writes the report for a terminal.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "A: %s\nB: %s\n%s\n", r.A.Name, r.B.Name, r.headline())
	if r.PassRate != nil {
		fmt.Fprintf(&b, "pass rate: %s\n", r.PassRate.line())
	}
	for _, s := range r.PerCase {
		fmt.Fprintf(&b, "pass rate of %s: %s\n", s.Case, s.line())
	}
	listed := 0
	for i := range r.Cases {
		c := &r.Cases[i]
		if !c.differs() {
			continue
		}
		if listed++; listed > MaxListed {
			fmt.Fprintf(&b, "\n… and more changed cases (--json lists them all)\n")
			break
		}
		fmt.Fprintf(&b, "\ncase %s", c.Key())
		switch c.Only {
		case "a":
			fmt.Fprintf(&b, ": in A only (%s)\n", c.A.Status)
			continue
		case "b":
			fmt.Fprintf(&b, ": in B only (%s)\n", c.B.Status)
			continue
		}
		fmt.Fprintf(&b, "\n  verdict: %s → %s", verdictWord(c.A.Passed, r.A.Scored), verdictWord(c.B.Passed, r.B.Scored))
		if c.StatusChanged {
			fmt.Fprintf(&b, " (status %s → %s)", c.A.Status, c.B.Status)
		}
		b.WriteByte('\n')
		for _, j := range c.Judges {
			fmt.Fprintf(&b, "  judge %s: %s → %s\n", j.Judge, value(j.A), value(j.B))
		}
		fmt.Fprintf(&b, "  calls: %d → %d (added %d, removed %d, changed %d)\n", c.A.Calls, c.B.Calls, c.Added, c.Removed, c.Changed)
		if c.FirstDivergence != nil {
			fmt.Fprintf(&b, "  first divergence: %s\n", stepLine(c.FirstDivergence))
		}
		for k := range c.Steps {
			if s := &c.Steps[k]; s.Op != OpSame && !s.First {
				fmt.Fprintf(&b, "    %s\n", stepLine(s))
			}
		}
		if c.AnswerChanged {
			fmt.Fprintf(&b, "  answer changed:\n    A: %s\n    B: %s\n", oneLine(c.A.Answer), oneLine(c.B.Answer))
		}
		for _, f := range c.Files {
			fmt.Fprintf(&b, "  file %s: %s\n", f.Change, f.Path)
		}
	}
	if !r.Changed() {
		b.WriteString("\nno differences\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func oneLine(s string) string {
	if s == "" {
		return "(none)"
	}
	return safe(s, false)
}

// WriteMarkdown writes the report as GitHub Markdown (a pull-request
// comment): every text from the runs escaped (mdsafe), so that it makes
// no link, HTML or mention; diffs of small text files in fenced blocks.
func (r *Report) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	code := func(s string) string { return mdsafe.Code(s, true) }
	fmt.Fprintf(&b, "## agent-eval diff\n\nA: %s, B: %s\n\n%s\n\n", code(r.A.Name), code(r.B.Name), mdsafe.Text(r.headline()))
	if r.PassRate != nil {
		fmt.Fprintf(&b, "**Pass rate:** %s\n\n", mdsafe.Text(r.PassRate.line()))
	}
	for _, s := range r.PerCase {
		fmt.Fprintf(&b, "- %s: %s\n", code(s.Case), mdsafe.Text(s.line()))
	}
	if len(r.PerCase) > 0 {
		b.WriteString("\n")
	}
	var rows []*Case
	for i := range r.Cases {
		if r.Cases[i].differs() {
			rows = append(rows, &r.Cases[i])
		}
	}
	if len(rows) == 0 {
		b.WriteString("No differences.\n")
		_, err := io.WriteString(w, b.String())
		return err
	}
	b.WriteString("| case | verdict | calls | first divergence |\n|---|---|---|---|\n")
	for i, c := range rows {
		if i == MaxListed {
			fmt.Fprintf(&b, "\nand %d more (agent-eval diff --json lists them all)\n", len(rows)-MaxListed)
			break
		}
		switch c.Only {
		case "a", "b":
			fmt.Fprintf(&b, "| %s | in %s only | – | – |\n", code(c.Key()), strings.ToUpper(c.Only))
			continue
		}
		verdict := verdictWord(c.A.Passed, r.A.Scored) + " → " + verdictWord(c.B.Passed, r.B.Scored)
		if c.StatusChanged {
			verdict += " (status " + c.A.Status + " → " + c.B.Status + ")"
		}
		div := "–"
		if c.FirstDivergence != nil {
			div = code(stepLine(c.FirstDivergence))
		}
		fmt.Fprintf(&b, "| %s | %s | %d → %d (+%d −%d ~%d) | %s |\n", code(c.Key()), mdsafe.Text(verdict), c.A.Calls, c.B.Calls, c.Added, c.Removed, c.Changed, div)
	}
	for i, c := range rows {
		if i == MaxListed || c.Only != "" {
			continue
		}
		var d strings.Builder
		for _, j := range c.Judges {
			fmt.Fprintf(&d, "- judge %s: %s → %s\n", code(j.Judge), value(j.A), value(j.B))
		}
		for k := range c.Steps {
			if s := &c.Steps[k]; s.Op != OpSame {
				fmt.Fprintf(&d, "- %s\n", code(stepLine(s)))
			}
		}
		if c.AnswerChanged {
			fmt.Fprintf(&d, "- answer: %s → %s\n", code(oneLine(c.A.Answer)), code(oneLine(c.B.Answer)))
		}
		for _, f := range c.Files {
			fmt.Fprintf(&d, "- file %s: %s\n", f.Change, code(f.Path))
			if f.Diff != "" {
				d.WriteString("\n" + mdsafe.Block(clipLines(f.Diff, 60), "diff") + "\n")
			}
		}
		if d.Len() > 0 {
			fmt.Fprintf(&b, "\n### %s\n\n%s", code(c.Key()), d.String())
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// clipLines keeps the first n lines of s.
func clipLines(s string, n int) string {
	ls := strings.SplitAfter(s, "\n")
	if len(ls) <= n {
		return s
	}
	return strings.Join(ls[:n], "") + fmt.Sprintf("… %d more lines\n", len(ls)-n)
}
