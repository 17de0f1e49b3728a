package config

// traces warns of each traces switch turned off: the keys are upstream's
// and load, but nothing in this version reads them, so false changes
// nothing a judge sees.
func (v *validator) traces() {
	t := v.e.Traces
	for _, s := range []struct {
		key  string
		val  *bool
		what string
	}{
		{"stdout", t.Stdout, "judges are never given stdout.log"},
		{"stderr", t.Stderr, "judges are never given stderr.log"},
		{"events", t.Events, "no events.json is written, and judges always see the transcript (transcript.jsonl)"},
		{"metrics", t.Metrics, "judges always see cost, tokens and turns"},
	} {
		if s.val != nil && !*s.val && !v.failed("traces."+s.key) {
			v.warnf("traces."+s.key, "%s: false does nothing in this version: %s", s.key, s.what)
		}
	}
}
