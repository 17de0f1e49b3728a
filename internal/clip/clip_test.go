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

// TestLine: a text from a run never starts a line of its own.
func TestLine(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"plain":                            "plain",
		"héllo 日本":                         "héllo 日本",
		"x\n::error title=forged::PASSED":  `x\n::error title=forged::PASSED`,
		"x\r::stop-commands::t":            `x\r::stop-commands::t`,
		"tab\tand \x1b[31mred\x1b[0m":      `tab\tand \x1b[31mred\x1b[0m`,
		"x\u2028::warning::y\u0085z\u2029": `x\u2028::warning::y\u0085z\u2029`,
	} {
		if got := Line(in); got != want {
			t.Errorf("Line(%q) = %q, want %q", in, got, want)
		}
	}
}
