package clip

import "testing"

func TestString(t *testing.T) {
	t.Parallel()
	tests := []struct {
		s    string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly", 7, "exactly"},
		{"abcdef", 3, "abc…"},
		{"héllo", 2, "h…"}, // é is two bytes: never half of it
		{"héllo", 3, "hé…"},
		{"日本語", 4, "日…"},
		{"abc", 0, "…"},
		{"abc", -1, "…"},
	}
	for _, tt := range tests {
		if got := String(tt.s, tt.n); got != tt.want {
			t.Errorf("String(%q, %d) = %q, want %q", tt.s, tt.n, got, tt.want)
		}
	}
}
