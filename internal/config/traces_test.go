package config

import (
	"strings"
	"testing"
)

// TestTracesOffWarns: traces.* switched off is accepted (upstream's files
// load) and warned about, since nothing in this version reads it.
func TestTracesOffWarns(t *testing.T) {
	t.Parallel()
	ev := mustParse(t, "eval.yaml", minimal+"traces:\n  stdout: false\n  events: false\n  metrics: true\n")
	var got []string
	for _, w := range ev.Warnings {
		got = append(got, w.Error())
	}
	all := strings.Join(got, "\n")
	for _, want := range []string{"traces.stdout: warning: stdout: false does nothing in this version", "traces.events: warning: events: false does nothing in this version: no events.json is written"} {
		if !strings.Contains(all, want) {
			t.Errorf("warnings lack %q:\n%s", want, all)
		}
	}
	if strings.Contains(all, "traces.metrics") {
		t.Errorf("traces.metrics: true draws a warning:\n%s", all)
	}
}
