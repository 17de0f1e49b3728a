package pathutil

import "testing"

func TestWithin(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		p, dir string
		want   bool
	}{
		{"/a/b", "/a", true},
		{"/a", "/a", true},
		{"/a/", "/a", true},
		{"/a", "/a/", true},
		{"/a/b/../c", "/a", true},
		{"/ab", "/a", false},
		{"/a/../b", "/a", false},
		{"/", "/a", false},
		{"/a/..b", "/a", true},
		{"/a", "", false},
		{"rel/x", "rel", true},
		{"rel", "/abs", false},
	} {
		if got := Within(tt.p, tt.dir); got != tt.want {
			t.Errorf("Within(%q, %q) = %v, want %v", tt.p, tt.dir, got, tt.want)
		}
	}
}
