package rundir

import (
	"testing"
	"time"
)

func TestIDTime(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 12, 1, 10, 15, 0, 123e6, time.Local)
	tests := []struct {
		id   string
		want time.Time
		ok   bool
	}{
		{NewID(at, "claude-sonnet-4-5"), at, true},
		{NewID(at, "") + "-2", at, true},
		{"20261201-101500.123", at, true},
		{"r1", time.Time{}, false},
		{"20261301-101500.000-m", time.Time{}, false}, // month 13
		{"my-run-with-a-long-explicit-name", time.Time{}, false},
	}
	for _, tt := range tests {
		got, ok := IDTime(tt.id)
		if ok != tt.ok || !got.Equal(tt.want) {
			t.Errorf("IDTime(%q) = %v, %v; want %v, %v", tt.id, got, ok, tt.want, tt.ok)
		}
	}
}
