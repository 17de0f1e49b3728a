package config

import (
	"testing"
)

// TestTraceSwitches: traces: switches default on, false turns one off, and
// none draws a warning now that judges honour them.
func TestTraceSwitches(t *testing.T) {
	t.Parallel()
	ev := mustParse(t, "eval.yaml", minimal+"traces:\n  stdout: false\n  events: false\n  metrics: true\n")
	got := ev.TraceSwitches()
	if want := (TraceSwitches{Stdout: false, Stderr: true, Events: false, Metrics: true}); got != want {
		t.Errorf("TraceSwitches = %+v; want %+v", got, want)
	}
	for _, w := range ev.Warnings {
		if w.Field == "traces.stdout" || w.Field == "traces.events" {
			t.Errorf("warning on a honoured switch: %v", w)
		}
	}
	if all := mustParse(t, "eval.yaml", minimal).TraceSwitches(); all != (TraceSwitches{true, true, true, true}) {
		t.Errorf("defaults = %+v; want every switch on", all)
	}
	if all := (*Eval)(nil).TraceSwitches(); !all.Stdout || !all.Metrics {
		t.Errorf("a nil eval's switches = %+v", all)
	}
}
