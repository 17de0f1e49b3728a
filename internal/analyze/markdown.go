package analyze

import (
	"fmt"
	"strings"
)

// Markdown is analysis.md.
func (a *Analysis) Markdown() []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "# Failure analysis: %s\n\n", a.RunID)
	if !a.ModelCalled {
		fmt.Fprintf(&b, "%s\n\n_Written by agent-eval analyze at %s._\n", a.Summary, a.AnalyzedAt)
		return []byte(b.String())
	}
	fmt.Fprintf(&b, "%d of %d case(s) failed or errored: %s.", len(a.Failing), a.NumCases, ids(a.Failing))
	if len(a.Omitted) > 0 {
		fmt.Fprintf(&b, " Left out for length (not read by the model): %s.", ids(a.Omitted))
	}
	fmt.Fprintf(&b, "\n\n_A reading by %s at %s (agent-eval analyze) of what the run directory holds; the agent's text was given to it as untrusted data. Check each pattern against its cases before acting on it._\n\n", a.Model, a.AnalyzedAt)
	b.WriteString("## Summary\n\n" + oneBlock(a.Summary) + "\n\n")
	b.WriteString("## Failure patterns\n\n")
	if len(a.Patterns) == 0 {
		b.WriteString("The model found none.\n\n")
	}
	for i, p := range a.Patterns {
		fmt.Fprintf(&b, "### %d. %s\n\n%s\n\n", i+1, oneLine(p.Title), oneBlock(p.Description))
		if len(p.Cases) > 0 {
			fmt.Fprintf(&b, "Cases: %s\n\n", ids(p.Cases))
		}
		if p.Fix != "" {
			fmt.Fprintf(&b, "**What to change:** %s\n\n", oneBlock(p.Fix))
		}
	}
	if len(a.Recommendations) > 0 {
		b.WriteString("## Recommendations\n\n")
		for _, r := range a.Recommendations {
			fmt.Fprintf(&b, "- %s\n", oneLine(r))
		}
		b.WriteString("\n")
	}
	return []byte(strings.TrimRight(b.String(), "\n") + "\n")
}

func ids(ids []string) string {
	q := make([]string, len(ids))
	for i, id := range ids {
		q[i] = "`" + id + "`"
	}
	return strings.Join(q, ", ")
}

// oneLine is s on one line (a heading or a list item).
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// oneBlock is s as one paragraph block: no heading of its own can start
// in it.
func oneBlock(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "#") {
			lines[i] = "\\" + strings.TrimSpace(l)
		}
	}
	return strings.Join(lines, "\n")
}
