package clip

import "testing"

// TestString: cuts fall on character boundaries at or below n bytes.
func TestString(t *testing.T) {
	t.Parallel()
	type in struct {
		s string
		n int
	}
	for in, want := range map[in]string{
		{"short", 10}: "short", {"exactly", 7}: "exactly", {"abcdef", 3}: "abc…",
		{"héllo", 2}: "h…", {"héllo", 3}: "hé…", // é is two bytes: never half of it
		{"日本語", 4}: "日…", {"abc", 0}: "…", {"abc", -1}: "…",
	} {
		if got := String(in.s, in.n); got != want {
			t.Errorf("String(%q, %d) = %q, want %q", in.s, in.n, got, want)
		}
	}
}
