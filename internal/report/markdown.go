package report

import (
	"fmt"
	"net/url"
	"os"
	"strings"

	"github.com/agent-eval/agent-eval/internal/clip"
	"github.com/agent-eval/agent-eval/internal/mdsafe"
	"github.com/agent-eval/agent-eval/internal/redact"
	"github.com/agent-eval/agent-eval/internal/results"
	"github.com/agent-eval/agent-eval/internal/rundir"
	"github.com/agent-eval/agent-eval/internal/transcript"
	"github.com/agent-eval/agent-eval/internal/usd"
)

// Bounds that keep the Markdown a size a pull-request comment or a step
// summary takes (GitHub caps a comment at 65,536 characters and a step
// summary at 1 MiB); the run directory and report.html keep everything.
const (
	// MaxListed is how many failed cases, and how many worse cases of a
	// baseline, the Markdown lists before "and N more".
	MaxListed = 20
	// mdClip is the longest text (a rationale, an error) one cell shows.
	mdClip = 160
)

// Artifacts says where the run directory's files can be read, for the
// Markdown's links. With neither field set it names them as paths.
type Artifacts struct {
	// BaseURL is where the run directory's files are published: each
	// links to BaseURL/<name> ($AGENT_EVAL_ARTIFACTS_URL).
	BaseURL string
	// RunURL is the CI run whose artifacts hold the files, linked once
	// (GitHub Actions: $GITHUB_SERVER_URL/$GITHUB_REPOSITORY/actions/runs/$GITHUB_RUN_ID).
	RunURL string
	// Path is how the run directory is named when no URL is known
	// (relative to where the command ran, when it can be).
	Path string
}

// ArtifactsFromEnv reads where artifacts are published from the
// environment: $AGENT_EVAL_ARTIFACTS_URL (the run directory's files under
// it), and GitHub Actions' $GITHUB_SERVER_URL, $GITHUB_REPOSITORY and
// $GITHUB_RUN_ID (the run's page, which lists its uploaded artifacts).
// Only http and https URLs are taken. path names the run directory.
func ArtifactsFromEnv(getenv func(string) string, path string) Artifacts {
	a := Artifacts{Path: path}
	if u := strings.TrimRight(getenv("AGENT_EVAL_ARTIFACTS_URL"), "/"); webURL(u) {
		a.BaseURL = u
	}
	server, repo, id := getenv("GITHUB_SERVER_URL"), getenv("GITHUB_REPOSITORY"), getenv("GITHUB_RUN_ID")
	if server != "" && repo != "" && id != "" {
		if u := strings.TrimRight(server, "/") + "/" + repo + "/actions/runs/" + url.PathEscape(id); webURL(u) {
			a.RunURL = u
		}
	}
	return a
}

// webURL: u is an absolute http(s) URL with a host.
func webURL(u string) bool {
	p, err := url.Parse(u)
	return err == nil && (p.Scheme == "https" || p.Scheme == "http") && p.Host != ""
}

// markdown builds the Markdown of one run.
type markdown struct {
	b      strings.Builder
	red    *redact.Redactor
	review *rundir.Review
}

// RenderMarkdown is the Markdown of a scored run, for a pull-request
// comment or a CI job's summary: the verdict and why, a table of judges,
// the thresholds breached, what got worse against the baseline, the cases
// that failed (at most MaxListed), cost and duration, and where the
// artifacts are. s nil: the run was not scored, which it says. Every text
// from the run is redacted as report.html redacts it (this environment's
// secrets and those the run marked) and escaped, so that it can neither
// break the Markdown nor mention anyone.
func RenderMarkdown(dir rundir.Dir, s *rundir.Summary, a Artifacts) []byte {
	red, _, err := dir.Redactor(os.Environ())
	m := &markdown{red: red}
	review, rerr := dir.ReadReview()
	m.review = review
	if s == nil {
		m.unscored(dir)
	} else {
		m.scored(s)
	}
	for _, err := range []error{err, rerr} {
		if err != nil {
			m.line("> **Note:** %s", m.text(err.Error()))
			m.line("")
		}
	}
	m.artifacts(a, s != nil)
	return []byte(m.b.String())
}

// url is u (from the environment) redacted, as a Markdown link's target:
// what could end it or the line is percent-encoded.
func (m *markdown) url(u string) string {
	return strings.NewReplacer("(", "%28", ")", "%29", " ", "%20", "<", "%3C", ">", "%3E", "\n", "%0A", "\r", "%0D").Replace(m.red.String(u))
}

func (m *markdown) line(format string, args ...any) {
	fmt.Fprintf(&m.b, format, args...)
	m.b.WriteByte('\n')
}

// text is s from the run, redacted, on one line, clipped and escaped.
func (m *markdown) text(s string) string {
	return mdEscape(clip.String(transcript.OneLine(m.red.String(s)), mdClip))
}

// code is s from the run as inline code: redacted, on one line, clipped,
// its backticks fenced by a longer run of them and each @ followed by a
// zero-width space (a mention in code notifies no one on GitHub; elsewhere
// it might).
func (m *markdown) code(s string) string { return m.inline(s, false) }

// cell is code for a table cell: its pipes are escaped too (GitHub splits
// a table row at any unescaped |, in code too, and shows \| there as |).
func (m *markdown) cell(s string) string { return m.inline(s, true) }

func (m *markdown) inline(s string, inTable bool) string {
	return mdsafe.Code(clip.String(transcript.OneLine(m.red.String(s)), mdClip), inTable)
}

// mdEscape escapes s (one line) for a Markdown paragraph or table cell
// (mdsafe.Text).
func mdEscape(s string) string { return mdsafe.Text(s) }

func (m *markdown) scored(s *rundir.Summary) {
	title := "agent-eval " + m.text(s.EvalName)
	switch {
	case s.Passed:
		m.line("## ✅ %s: PASSED", title)
	default:
		m.line("## ❌ %s: FAILED", title)
	}
	m.line("")
	// why's own words are plain; only what it quotes from the run is escaped.
	m.line("Run %s%s: %d case(s), %s.", m.code(s.RunID), m.modelPart(s.Model), s.NumCases, why(s, func(t string) string { return mdEscape(transcript.OneLine(m.red.String(t))) }))
	m.line("")
	m.judges(s)
	m.thresholds(s)
	m.baseline(s)
	m.failedCases(s)
	m.human(s)
	m.costs(s)
}

func (m *markdown) modelPart(model string) string {
	if model == "" {
		return ""
	}
	return " of " + m.code(model)
}

// why is the verdict's reason in a few words, plain text; r redacts what
// comes from the run.
func why(s *rundir.Summary, r func(string) string) string {
	var parts []string
	breached := 0
	for _, t := range s.Thresholds {
		if t.Breached() {
			breached++
		}
	}
	if breached > 0 {
		parts = append(parts, fmt.Sprintf("%d of %d threshold(s) breached", breached, len(s.Thresholds)))
	}
	if n := len(s.BrokenJudges); n > 0 {
		parts = append(parts, fmt.Sprintf("%d judge(s) judged no case", n))
	}
	if n := len(s.Tampered); n > 0 {
		parts = append(parts, fmt.Sprintf("%d case(s) tampered with what scoring reads", n))
	}
	if n := len(s.Foreign); n > 0 {
		parts = append(parts, fmt.Sprintf("%d folder(s) under cases/ that are none of the run's cases", n))
	}
	if s.NotJudged != "" {
		parts = append(parts, "no case was judged ("+r(s.NotJudged)+")")
	}
	switch {
	case len(parts) > 0:
		return strings.Join(parts, "; ")
	case !s.Passed:
		return "the verdict failed (see summary.yaml)"
	case len(s.Thresholds) == 0:
		return "no thresholds set, so nothing gates this run"
	}
	met, skipped := s.GateCounts()
	if skipped > 0 {
		return fmt.Sprintf("%d threshold(s) met, %d skipped (their judges were dropped)", met, skipped)
	}
	return fmt.Sprintf("all %d threshold(s) met", met)
}

func (m *markdown) judges(s *rundir.Summary) {
	if len(s.Judges) == 0 {
		return
	}
	// The header names the intervals' level when they share one (0.95);
	// else each cell does.
	level := 0.0
	for _, j := range s.Judges {
		switch {
		case j.Interval == nil:
		case level == 0:
			level = j.Interval.Level
		case level != j.Interval.Level:
			level = -1
		}
	}
	head := "interval"
	if level > 0 {
		head = pct(&level) + " interval"
		head = strings.Replace(head, ".0%", "%", 1)
	}
	m.line("| judge | result | %s | scored | errors | lost | flaky |", head)
	m.line("|---|---|---|---:|---:|---:|---:|")
	for _, j := range s.Judges {
		result := "–"
		switch {
		case j.PassRate != nil:
			result = "pass rate " + pct(j.PassRate)
		case j.Mean != nil:
			result = "mean " + numP(j.Mean)
		}
		iv := "–"
		if j.Interval != nil {
			if j.PassRate != nil {
				iv = fmt.Sprintf("%s – %s", pct(&j.Interval.Low), pct(&j.Interval.High))
			} else {
				iv = fmt.Sprintf("%s – %s", num(j.Interval.Low), num(j.Interval.High))
			}
			if level < 0 {
				iv += fmt.Sprintf(" (%s)", strings.Replace(pct(&j.Interval.Level), ".0%", "%", 1))
			}
		}
		flaky := "–"
		if j.Reduce != "" {
			flaky = fmt.Sprint(j.Flaky)
		}
		name := m.cell(j.Name)
		if contains(s.BrokenJudges, j.Name) {
			name += " ⚠️ judged no case"
		}
		m.line("| %s | %s | %s | %d | %d | %d | %s |", name, result, iv, j.Scored, j.Errors, j.Lost, flaky)
	}
	m.line("")
	for _, d := range s.DroppedJudges {
		m.line("- %s not run (--no-llm-judges): %s", m.code(d.Name), m.text(d.Reason))
	}
	if len(s.DroppedJudges) > 0 {
		m.line("")
	}
}

func (m *markdown) thresholds(s *rundir.Summary) {
	var lines []string
	for _, t := range s.Thresholds {
		if !t.Breached() {
			continue
		}
		judge := "run"
		if t.Judge != "" {
			judge = t.Judge
		}
		op := "≥"
		if strings.HasPrefix(t.Metric, "max_") {
			op = "≤"
		}
		l := fmt.Sprintf("- %s %s: want %s %s, got %s", m.code(judge), m.code(t.Metric), op, num(t.Want), num(t.Got))
		if t.Detail != "" {
			l += " (" + m.text(t.Detail) + ")"
		}
		lines = append(lines, l)
	}
	if len(lines) == 0 {
		return
	}
	m.line("### Thresholds breached")
	m.line("")
	for _, l := range lines {
		m.line("%s", l)
	}
	m.line("")
}

// worse reports whether d says the judge did worse than the baseline.
func worse(d rundir.JudgeDelta) bool { return d.Change == "worse" || d.Regression }

func (m *markdown) baseline(s *rundir.Summary) {
	b := s.Baseline
	if b == nil {
		return
	}
	var rows []rundir.JudgeDelta
	for _, d := range b.Judges {
		if worse(d) {
			rows = append(rows, d)
		}
	}
	m.line("### Against the baseline %s", m.code(b.RunID))
	m.line("")
	if len(rows) == 0 && len(b.Worse) == 0 {
		m.line("No judge did worse than the baseline.")
		m.line("")
		return
	}
	if len(rows) > 0 {
		m.line("| judge | before | now | change | p-value |")
		m.line("|---|---|---|---|---|")
		for _, d := range rows {
			before, now := numP(d.MeanBefore), numP(d.MeanNow)
			if d.PassNow != nil || d.PassBefore != nil {
				before, now = pct(d.PassBefore), pct(d.PassNow)
			}
			change := "worse"
			if d.Change != "" && d.Change != "worse" {
				change = "lower (" + m.text(d.Change) + ")"
			}
			p := "–"
			if d.PValue != nil {
				p = num(*d.PValue)
				if d.Test != "" {
					p += " (" + m.text(d.Test) + ")"
				}
			}
			m.line("| %s | %s | %s | %s | %s |", m.cell(d.Judge), before, now, change, p)
		}
		m.line("")
	}
	if len(b.Worse) > 0 {
		m.line("Cases that got worse:")
		m.line("")
		for i, c := range b.Worse {
			if i == MaxListed {
				m.line("- and %d more", len(b.Worse)-MaxListed)
				break
			}
			m.line("- %s, %s: %s → %s", m.code(c.Case), m.code(c.Judge), numP(c.Before), numP(c.Now))
		}
		m.line("")
	}
}

// failedVerdicts are the verdicts on c that failed or erred.
func failedVerdicts(c rundir.CaseSummary) []rundir.Verdict {
	var out []rundir.Verdict
	for _, v := range c.Verdicts {
		if v.Error != "" || (v.Passed != nil && !*v.Passed) {
			out = append(out, v)
		}
	}
	return out
}

func (m *markdown) failedCases(s *rundir.Summary) {
	type row struct {
		c  rundir.CaseSummary
		vs []rundir.Verdict
	}
	var rows []row
	for _, c := range s.Cases {
		vs := failedVerdicts(c)
		if len(vs) > 0 || c.Status == string(results.StatusTampered) || c.Status == string(results.StatusInfraError) {
			rows = append(rows, row{c, vs})
		}
	}
	if len(rows) == 0 {
		return
	}
	m.line("### Cases that failed (%d of %d)", len(rows), len(s.Cases))
	m.line("")
	m.line("| case | status | judge | why |")
	m.line("|---|---|---|---|")
	for i, r := range rows {
		if i == MaxListed {
			m.line("")
			m.line("… and %d more (see report.html).", len(rows)-MaxListed)
			break
		}
		if len(r.vs) == 0 {
			why := "not judged: lost to the infrastructure"
			if r.c.Status == string(results.StatusTampered) {
				why = "what scoring reads changed (by an agent, or by something else on this machine)"
			}
			m.line("| %s | %s | – | %s |", m.cell(r.c.ID), m.text(r.c.Status), why)
			continue
		}
		v := r.vs[0]
		judge := m.cell(v.Judge)
		if len(r.vs) > 1 {
			judge += fmt.Sprintf(" (+%d more)", len(r.vs)-1)
		}
		why := "failed: " + m.text(v.Rationale)
		switch {
		case v.Error != "":
			why = "error: " + m.text(v.Error)
		case v.Rationale == "":
			why = "failed"
		}
		if v.Flaky {
			why += " (flaky)"
		}
		m.line("| %s | %s | %s | %s |", m.cell(r.c.ID), m.text(r.c.Status), judge, why)
	}
	m.line("")
}

func (m *markdown) costs(s *rundir.Summary) {
	l := fmt.Sprintf("Cost: %s", usd.Format(s.CostUSD))
	if s.JudgeCostUSD > 0 {
		l += fmt.Sprintf(" (judges %s)", usd.Format(s.JudgeCostUSD))
	}
	l += fmt.Sprintf(" · duration %s · %d permission denial(s)", dur(s.DurationS), s.Denials)
	if v := s.Violations; v.Total > 0 {
		l += fmt.Sprintf(" · %d violation(s) in %d case(s)", v.Total, v.Cases)
	}
	if n := s.Attempts(); n > 1 {
		l += fmt.Sprintf(" · %d attempts per case", n)
	}
	m.line("%s", l)
	m.line("")
}

func (m *markdown) unscored(dir rundir.Dir) {
	run, err := dir.ReadRun()
	if err != nil {
		m.line("## ⚠️ agent-eval: NOT SCORED")
		m.line("")
		m.line("The run has no readable result: %s.", m.text(err.Error()))
		m.line("")
		return
	}
	m.line("## ⚠️ agent-eval %s: NOT SCORED", m.text(run.EvalName))
	m.line("")
	m.line("Run %s%s: %d case(s), not judged (`agent-eval score` judges it).", m.code(run.RunID), m.modelPart(run.Model), run.NumCases)
	m.line("")
	ids, _ := dir.CaseIDs()
	counts := map[string]int{}
	var order []string
	for _, id := range ids {
		st := "missing"
		if c, err := dir.ReadCase(id); err == nil {
			st = string(c.Status)
		}
		if counts[st] == 0 {
			order = append(order, st)
		}
		counts[st]++
	}
	if len(order) > 0 {
		var parts []string
		for _, st := range order {
			parts = append(parts, fmt.Sprintf("%d %s", counts[st], m.text(st)))
		}
		m.line("Cases by how the agent's run ended: %s.", strings.Join(parts, ", "))
		m.line("")
	}
	m.line("Cost: %s · duration %s", usd.Format(run.CostUSD), dur(run.DurationS))
	m.line("")
}

func (m *markdown) artifacts(a Artifacts, scored bool) {
	names := []string{"report.html", "junit.xml"}
	if scored {
		names = append(names, rundir.SummaryFile)
	}
	var links []string
	for _, n := range names {
		switch {
		case a.BaseURL != "":
			links = append(links, "["+n+"]("+m.url(a.BaseURL+"/"+n)+")")
		default:
			links = append(links, "`"+n+"`")
		}
	}
	l := "Artifacts: " + strings.Join(links, ", ")
	switch {
	case a.BaseURL != "":
	case a.RunURL != "":
		l += " in the artifacts of [the CI run](" + m.url(a.RunURL) + ")"
	case a.Path != "":
		l += " in " + m.code(a.Path)
	}
	m.line("%s", l)
}

// human lists the cases a person reviewed, their verdict beside the
// case's, ≠ where the two differ.
func (m *markdown) human(s *rundir.Summary) {
	h := rundir.Human(s, m.review)
	if h == nil {
		return
	}
	m.line("### Human review")
	m.line("")
	m.line("%s.", humanLine(h, m.code))
	m.line("")
	m.line("| case | human | judges | comment |")
	m.line("|---|---|---|---|")
	listed := 0
	for i := range s.Cases {
		c := &s.Cases[i]
		hv := humanOf(m.review, c, c.ID, m.red.String)
		if hv == nil {
			continue
		}
		if listed == MaxListed {
			m.line("")
			m.line("… and more (see report.html).")
			break
		}
		listed++
		judged := "–"
		if p, ok := c.CasePassed(); ok {
			judged = map[bool]string{true: "pass", false: "fail"}[p]
		}
		verdict := hv.Verdict
		if verdict == "" {
			verdict = "–"
		}
		if hv.Disagree {
			verdict += " ≠"
		}
		m.line("| %s | %s | %s | %s |", m.cell(c.ID), verdict, judged, m.text(hv.Comment))
	}
	m.line("")
}
