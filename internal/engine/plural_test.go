package engine

import "testing"

func TestPlurals(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		n          int
		noun, want string
	}{{0, "denial", "0 denials"}, {1, "denial", "1 denial"}, {2, "denial", "2 denials"}, {1, "process", "1 process"}, {3, "process", "3 processes"}} {
		if got := Plural(tc.n, tc.noun); got != tc.want {
			t.Errorf("Plural(%d, %s) = %q, want %q", tc.n, tc.noun, got, tc.want)
		}
	}
}
