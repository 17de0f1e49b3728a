package config

import (
	"strings"
	"testing"
	"time"
)

// TestTimeoutsTakeSecondsOrDurations: every timeout in eval.yaml takes plain
// seconds (600) or a Go duration ("10m"), in the loader and in the schema
// alike.
func TestTimeoutsTakeSecondsOrDurations(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		value string
		want  time.Duration
		err   string
	}{
		{"600", 10 * time.Minute, ""},
		{`"10m"`, 10 * time.Minute, ""},
		{"1h30m", 90 * time.Minute, ""},
		{`"90s"`, 90 * time.Second, ""},
		{`"600"`, 10 * time.Minute, ""},
		{`"10x"`, 0, `must be seconds (600) or a duration ("10m", "1h30m"), got the string "10x"`},
		{`"1.5s"`, 0, "must be a whole number of seconds, got 1.5s"},
		{`"0s"`, 0, "must be greater than 0"},
		{`"-1m"`, 0, "must be greater than 0"},
	} {
		src := "execution:\n  prompt: hi\n  timeout: " + tc.value + "\nhooks:\n  before_all: [{command: 'true', timeout: " + tc.value + "}]\n"
		ev, err := Parse("eval.yaml", []byte(src))
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), "execution.timeout") || !strings.Contains(err.Error(), "hooks.before_all[0].timeout") {
				t.Errorf("timeout %s: err %v, want %q on both", tc.value, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("timeout %s: %v", tc.value, err)
			continue
		}
		if got := ev.Timeout(); got != tc.want {
			t.Errorf("timeout %s = %v, want %v", tc.value, got, tc.want)
		}
		if got := time.Duration(*ev.Hooks.BeforeAll[0].Timeout) * time.Second; got != tc.want {
			t.Errorf("hook timeout %s = %v, want %v", tc.value, got, tc.want)
		}
		if valid, _, detail := schemaVerdict(t, []byte(src)); !valid {
			t.Errorf("the schema rejects timeout %s: %s", tc.value, detail)
		}
	}
}
