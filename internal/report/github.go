package report

import (
	"fmt"
	"os"
	"strings"

	"github.com/agent-eval/agent-eval/internal/rundir"
	"github.com/agent-eval/agent-eval/internal/transcript"
)

// RenderGitHub is the verdict of a run as GitHub Actions workflow commands,
// one a line, which the runner turns into annotations on the job: an
// ::error for each breached threshold, judge that judged no case, tampered
// or foreign case, and for a run that judged nothing; a ::warning for each
// judge that did worse than the baseline and for a run not scored (s nil);
// and one ::notice with the verdict. Every text is redacted as report.html
// redacts it and escaped as the runner unescapes it, so that no text from
// the run can end a command or start another.
func RenderGitHub(dir rundir.Dir, s *rundir.Summary) []byte {
	red, _, _ := dir.Redactor(os.Environ())
	// Each text from the run is redacted on its own, before it is put in a
	// sentence (the sentence's own words are no secret).
	r := func(s string) string { return transcript.OneLine(red.String(s)) }
	var b strings.Builder
	emit := func(kind, title, msg string) {
		fmt.Fprintf(&b, "::%s title=%s::%s\n", kind, ghProperty(title), ghData(msg))
	}
	if s == nil {
		name := ""
		if run, err := dir.ReadRun(); err == nil {
			name = " " + r(run.EvalName)
		}
		emit("warning", "agent-eval"+name+": not scored", "the run was not scored: agent-eval score judges it")
		return []byte(b.String())
	}
	for _, t := range s.Thresholds {
		if !t.Breached() {
			continue
		}
		judge := r(t.Judge)
		if judge == "" {
			judge = "run"
		}
		msg := fmt.Sprintf("%s %s: want %s, got %s", judge, r(t.Metric), num(t.Want), num(t.Got))
		if t.Detail != "" {
			msg += " (" + r(t.Detail) + ")"
		}
		emit("error", "agent-eval: threshold breached: "+judge+" "+t.Metric, msg)
	}
	for _, j := range s.BrokenJudges {
		j = r(j)
		emit("error", "agent-eval: judge judged no case: "+j, "every case the judge "+j+" did not skip was an error (see summary.yaml)")
	}
	for _, id := range s.Tampered {
		id = r(id)
		emit("error", "agent-eval: case tampered: "+id, "what scoring reads changed by the end of case "+id+" (by an agent, or by something else on this machine), so every verdict on it is a failure")
	}
	for _, id := range s.Foreign {
		id = r(id)
		emit("error", "agent-eval: not one of the run's cases: "+id, "cases/"+id+" was written by someone other than the run; not judged, and it fails the verdict")
	}
	if s.NotJudged != "" {
		emit("error", "agent-eval: no case judged", "no case was judged ("+r(s.NotJudged)+")")
	}
	if bl := s.Baseline; bl != nil {
		for _, d := range bl.Judges {
			if !worse(d) {
				continue
			}
			judge := r(d.Judge)
			msg := judge + " did worse than the baseline " + r(bl.RunID)
			switch {
			case d.PassNow != nil || d.PassBefore != nil:
				msg += fmt.Sprintf(": pass rate %s -> %s", pct(d.PassBefore), pct(d.PassNow))
			default:
				msg += fmt.Sprintf(": mean %s -> %s", numP(d.MeanBefore), numP(d.MeanNow))
			}
			if d.PValue != nil {
				msg += ", p = " + num(*d.PValue)
				if d.Test != "" {
					msg += " (" + r(d.Test) + ")"
				}
			}
			emit("warning", "agent-eval: worse than the baseline: "+judge, msg)
		}
	}
	verdict := "PASSED"
	if !s.Passed {
		verdict = "FAILED"
	}
	emit("notice", "agent-eval "+r(s.EvalName)+": "+verdict, fmt.Sprintf("run %s: %d case(s), %s", r(s.RunID), s.NumCases, why(s, r)))
	return []byte(b.String())
}

// ghData escapes a workflow command's message as the runner unescapes it:
// % first, then CR and LF.
func ghData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// ghProperty escapes a workflow command's property value: as a message,
// and also : and , (which end a property).
func ghProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}
