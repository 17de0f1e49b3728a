package config

// TraceSwitches are the traces: switches, each true unless eval.yaml says
// false: what judges may read of a case, and whether events.json is
// written.
type TraceSwitches struct{ Stdout, Stderr, Events, Metrics bool }

// TraceSwitches reads traces:, defaults filled (every switch on). A nil
// eval has them all on.
func (e *Eval) TraceSwitches() TraceSwitches {
	if e == nil {
		return TraceSwitches{true, true, true, true}
	}
	on := func(b *bool) bool { return b == nil || *b }
	t := e.Traces
	return TraceSwitches{Stdout: on(t.Stdout), Stderr: on(t.Stderr), Events: on(t.Events), Metrics: on(t.Metrics)}
}
