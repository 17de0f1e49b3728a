package report

import (
	"encoding/xml"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/agent-eval/agent-eval/internal/atomicfile"
	"github.com/agent-eval/agent-eval/internal/clip"
	"github.com/agent-eval/agent-eval/internal/redact"
	"github.com/agent-eval/agent-eval/internal/results"
	"github.com/agent-eval/agent-eval/internal/rundir"
)

// junit.xml, in the shape CI systems (GitLab, Jenkins, GitHub test
// reporters) read: one testsuite per judge, one testcase per case in it
// (classname = the judge, name = the case id), and a "thresholds" suite
// whose breached thresholds are failures.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Time     string       `xml:"time,attr,omitempty"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Time       string          `xml:"time,attr,omitempty"`
	Timestamp  string          `xml:"timestamp,attr,omitempty"`
	Properties []junitProperty `xml:"properties>property"`
	Cases      []junitCase     `xml:"testcase"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Classname string        `xml:"classname,attr"`
	Name      string        `xml:"name,attr"`
	Time      string        `xml:"time,attr,omitempty"`
	Failure   *junitProblem `xml:"failure"`
	Error     *junitProblem `xml:"error"`
	Skipped   *junitProblem `xml:"skipped"`
	SystemOut *junitText    `xml:"system-out"`
}

type junitText struct {
	Text string `xml:",cdata"`
}

type junitProblem struct {
	Message string `xml:"message,attr,omitempty"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",cdata"`
}

// WriteJUnit writes dir's junit.xml from its summary: one testsuite per
// judge with one testcase per case (a failed verdict is a <failure>
// carrying the rationale, an error sample an <error>, a skipped judge
// <skipped/>), and a "thresholds" suite. Without a summary (s nil: the run
// was not scored) it writes one "agent" suite whose testcases are the
// cases, an agent run that did not exit 0 being an <error>.
func WriteJUnit(dir rundir.Dir, s *rundir.Summary) error {
	b, err := RenderJUnit(dir, s)
	if err != nil {
		return err
	}
	if err := atomicfile.Write(dir.JUnit(), b, 0o644); err != nil {
		return fmt.Errorf("write junit.xml: %w", err)
	}
	return nil
}

// RenderJUnit is junit.xml's content.
func RenderJUnit(dir rundir.Dir, s *rundir.Summary) ([]byte, error) {
	// CI uploads and shows junit.xml: the secrets report.html hides (of
	// this environment, and those the run marked in its files) are hidden
	// here too — the free text (rationales, errors, details) with every
	// pattern, every text by the known values. What marks could
	// not be read report.html says; what was found is hidden all the same.
	red, _, _ := dir.Redactor(os.Environ())
	var doc junitSuites
	if s != nil {
		doc = scoredJUnit(redactedText(s, red))
	} else {
		doc = unscoredJUnit(dir, red)
	}
	// Attributes are escaped as they are encoded (a password with & or "
	// would no longer match), so every text is hidden before.
	doc.hideKnown(red)
	for _, su := range doc.Suites {
		doc.Tests += su.Tests
		doc.Failures += su.Failures
		doc.Errors += su.Errors
		doc.Skipped += su.Skipped
	}
	out, err := xml.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode junit.xml: %w", err)
	}
	return append(append([]byte(xml.Header), out...), '\n'), nil
}

// redactedText is a copy of s whose free text went through red.String.
func redactedText(s *rundir.Summary, red *redact.Redactor) *rundir.Summary {
	c := *s
	c.NotJudged = red.String(s.NotJudged)
	c.Thresholds = slices.Clone(s.Thresholds)
	for i := range c.Thresholds {
		c.Thresholds[i].Detail = red.String(c.Thresholds[i].Detail)
	}
	var cases func([]rundir.CaseSummary) []rundir.CaseSummary
	cases = func(in []rundir.CaseSummary) []rundir.CaseSummary {
		out := slices.Clone(in)
		for i := range out {
			out[i].Verdicts = slices.Clone(out[i].Verdicts)
			for j := range out[i].Verdicts {
				v := &out[i].Verdicts[j]
				v.Rationale, v.Error = red.String(v.Rationale), red.String(v.Error)
			}
			out[i].Attempts = cases(out[i].Attempts)
		}
		return out
	}
	c.Cases = cases(s.Cases)
	return &c
}

func scoredJUnit(s *rundir.Summary) junitSuites {
	doc := junitSuites{Name: "agent-eval " + s.EvalName, Time: secs(s.DurationS)}
	props := func(extra ...junitProperty) []junitProperty {
		p := []junitProperty{{"run_id", s.RunID}, {"eval_name", s.EvalName}}
		if s.Model != "" {
			p = append(p, junitProperty{"model", s.Model})
		}
		return append(p, extra...)
	}
	for _, j := range s.Judges {
		extra := []junitProperty{{"judge_kind", j.Kind}, {"judge_type", j.Type}}
		if j.PassRate != nil {
			extra = append(extra, junitProperty{"pass_rate", num(*j.PassRate)})
		}
		if j.Mean != nil {
			extra = append(extra, junitProperty{"mean", num(*j.Mean)})
		}
		if iv := j.Interval; iv != nil {
			extra = append(extra, junitProperty{"interval_low", num(iv.Low)}, junitProperty{"interval_high", num(iv.High)},
				junitProperty{"interval_level", num(iv.Level)}, junitProperty{"interval_method", iv.Method})
		}
		if j.Reduce != "" {
			extra = append(extra, junitProperty{"reduce", j.Reduce}, junitProperty{"flaky_cases", fmt.Sprint(j.Flaky)})
			if j.AttemptPassRate != nil {
				extra = append(extra, junitProperty{"attempt_pass_rate", num(*j.AttemptPassRate)})
			}
		}
		su := junitSuite{Name: j.Name, Timestamp: s.ScoredAt, Properties: props(extra...)}
		var total float64
		for _, c := range s.Cases {
			v := findVerdict(c.Verdicts, j.Name)
			if v == nil {
				continue
			}
			tc := junitCase{Classname: j.Name, Name: c.ID, Time: secs(c.DurationS)}
			total += c.DurationS
			switch {
			case v.Error != "":
				tc.Error = &junitProblem{Message: firstLine(v.Error), Type: "error sample", Text: xmlSafe(v.Error)}
				su.Errors++
			case v.Lost:
				tc.Skipped = &junitProblem{Message: "lost to the infrastructure, not judged: " + firstLine(v.Rationale)}
				su.Skipped++
			case v.Skipped:
				tc.Skipped = &junitProblem{Message: "its if: was false"}
				su.Skipped++
			case v.Passed != nil && !*v.Passed:
				tc.Failure = &junitProblem{Message: failMessage(v), Type: "failed verdict", Text: xmlSafe(verdictText(v))}
				su.Failures++
			default:
				tc.SystemOut = text(verdictText(v))
			}
			su.Cases = append(su.Cases, tc)
		}
		su.Tests, su.Time = len(su.Cases), secs(total)
		doc.Suites = append(doc.Suites, su)
	}
	for _, d := range s.DroppedJudges {
		// A judge score --no-llm-judges left out: one skipped test saying
		// why, so the report does not read as if the eval had no such judge.
		doc.Suites = append(doc.Suites, junitSuite{Name: d.Name, Tests: 1, Skipped: 1, Timestamp: s.ScoredAt, Properties: props(),
			Cases: []junitCase{{Classname: d.Name, Name: "dropped", Skipped: &junitProblem{Message: "not run (--no-llm-judges): " + d.Reason}}}})
	}
	if s.NotJudged != "" {
		line := "no case was judged (" + s.NotJudged + ")"
		doc.Suites = append(doc.Suites, junitSuite{Name: "verdict", Tests: 1, Failures: 1, Timestamp: s.ScoredAt, Properties: props(),
			Cases: []junitCase{{Classname: "verdict", Name: "judged cases", Failure: &junitProblem{Message: line, Type: "nothing judged", Text: xmlSafe(line)}}}})
	}
	if v := s.Violations; v.Total > 0 {
		doc.Suites = append(doc.Suites, violationsSuite(s, props(junitProperty{"violations", fmt.Sprint(v.Total)}, junitProperty{"cases_with_violations", fmt.Sprint(v.Cases)})))
	}
	if len(s.Thresholds) > 0 {
		su := junitSuite{Name: "thresholds", Timestamp: s.ScoredAt, Properties: props()}
		for _, t := range s.Thresholds {
			judge := t.Judge
			if judge == "" {
				judge = "run"
			}
			line := fmt.Sprintf("%s %s: want %s, got %s", judge, t.Metric, num(t.Want), num(t.Got))
			if t.Interval != nil {
				line += " — " + t.Detail
			}
			tc := junitCase{Classname: "threshold", Name: judge + " " + t.Metric, SystemOut: text(line)}
			switch {
			case t.Skipped:
				tc.Skipped = &junitProblem{Message: t.Detail}
				tc.SystemOut = nil
				su.Skipped++
			case !t.OK:
				tc.Failure = &junitProblem{Message: line, Type: "threshold breached", Text: line}
				tc.SystemOut = nil
				su.Failures++
			}
			su.Cases = append(su.Cases, tc)
		}
		su.Tests = len(su.Cases)
		doc.Suites = append(doc.Suites, su)
	}
	return doc
}

// hideKnown replaces red's known values in every text of doc.
func (doc *junitSuites) hideKnown(red *redact.Redactor) {
	problem := func(p *junitProblem) {
		if p != nil {
			p.Message, p.Type, p.Text = red.HideKnown(p.Message), red.HideKnown(p.Type), red.HideKnown(p.Text)
		}
	}
	doc.Name = red.HideKnown(doc.Name)
	for i := range doc.Suites {
		su := &doc.Suites[i]
		su.Name = red.HideKnown(su.Name)
		for j := range su.Properties {
			su.Properties[j].Value = red.HideKnown(su.Properties[j].Value)
		}
		for j := range su.Cases {
			tc := &su.Cases[j]
			tc.Classname, tc.Name = red.HideKnown(tc.Classname), red.HideKnown(tc.Name)
			problem(tc.Failure)
			problem(tc.Error)
			problem(tc.Skipped)
			if tc.SystemOut != nil {
				tc.SystemOut.Text = red.HideKnown(tc.SystemOut.Text)
			}
		}
	}
}

func unscoredJUnit(dir rundir.Dir, red *redact.Redactor) junitSuites {
	doc := junitSuites{Name: "agent-eval (not scored)"}
	su := junitSuite{Name: "agent", Properties: []junitProperty{{"scored", "false"}}}
	if run, err := dir.ReadRun(); err == nil {
		su.Properties = append([]junitProperty{{"run_id", run.RunID}, {"eval_name", run.EvalName}}, su.Properties...)
		doc.Name = "agent-eval " + run.EvalName + " (not scored)"
	}
	ids, _ := dir.CaseIDs()
	var total float64
	for _, id := range ids {
		tc := junitCase{Classname: "agent", Name: id}
		c, err := dir.ReadCase(id)
		if err != nil {
			tc.Error = &junitProblem{Message: "no result", Type: "harness", Text: xmlSafe(red.String(err.Error()))}
			su.Errors++
		} else {
			tc.Time = secs(c.DurationS)
			total += c.DurationS
			if !exitedZero(c) {
				why := red.String(c.Error) // the agent's own final message may be in it
				if why == "" {
					why = fmt.Sprintf("the agent's run ended %s (exit code %d)", c.Status, c.ExitCode)
				}
				tc.Error = &junitProblem{Message: firstLine(why), Type: string(c.Status), Text: xmlSafe(why)}
				su.Errors++
			} else {
				tc.SystemOut = textf("exited 0 (not scored); %d turns, %d permission denials", c.NumTurns, len(c.PermissionDenials))
			}
		}
		su.Cases = append(su.Cases, tc)
	}
	su.Tests, su.Time = len(su.Cases), secs(total)
	doc.Suites = []junitSuite{su}
	return doc
}

func text(s string) *junitText { return &junitText{xmlSafe(s)} }

func textf(format string, a ...any) *junitText { return text(fmt.Sprintf(format, a...)) }

// xmlSafe replaces what XML 1.0 cannot carry (control characters an
// agent's output may hold) with U+FFFD; CDATA sections are not escaped.
func xmlSafe(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\t' || r == '\n' || r == '\r',
			r >= 0x20 && r <= 0xD7FF, r >= 0xE000 && r <= 0xFFFD, r >= 0x10000 && r <= 0x10FFFF:
			return r
		}
		return '\uFFFD'
	}, s)
}

func exitedZero(c *results.Case) bool {
	return c.ExitCode == 0 && (c.Status == "passed" || c.Status == "completed" || c.Status == "")
}

func failMessage(v *rundir.Verdict) string {
	if v.Rationale != "" {
		return firstLine(v.Rationale)
	}
	if v.Value != nil {
		return "value " + num(*v.Value)
	}
	return "failed"
}

func verdictText(v *rundir.Verdict) string {
	var b strings.Builder
	if v.Value != nil {
		b.WriteString("value: " + num(*v.Value) + "\n")
	}
	if v.Passed != nil {
		b.WriteString("passed: " + strconv.FormatBool(*v.Passed) + "\n")
	}
	if len(v.Samples) > 0 {
		s := make([]string, len(v.Samples))
		for i, x := range v.Samples {
			s[i] = num(x)
		}
		b.WriteString("samples: " + strings.Join(s, ", ") + "\n")
	}
	if v.Rationale != "" {
		b.WriteString(v.Rationale + "\n")
	}
	return b.String()
}

func firstLine(s string) string {
	first, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return clip.String(first, 200)
}

func secs(s float64) string {
	if s == 0 {
		return ""
	}
	return strconv.FormatFloat(s, 'f', 3, 64)
}

// violationsSuite lists the cases whose agents were refused something,
// each one's counts by kind: no failure by itself (a max_violations gate
// fails in the thresholds suite).
func violationsSuite(s *rundir.Summary, props []junitProperty) junitSuite {
	su := junitSuite{Name: "violations", Timestamp: s.ScoredAt, Properties: props}
	for _, c := range s.Cases {
		if c.Violations == nil || c.Violations.Total == 0 {
			continue
		}
		kinds := make([]string, 0, len(c.Violations.ByKind))
		for _, k := range results.ViolationKinds() {
			if n := c.Violations.ByKind[string(k)]; n > 0 {
				kinds = append(kinds, fmt.Sprintf("%d %s", n, k))
			}
		}
		su.Cases = append(su.Cases, junitCase{Classname: "violations", Name: c.ID,
			SystemOut: textf("%d violation(s): %s (run_result.json: violations)", c.Violations.Total, strings.Join(kinds, ", "))})
	}
	su.Tests = len(su.Cases)
	return su
}
