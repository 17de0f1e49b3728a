package shellname

import "testing"

func TestIs(t *testing.T) {
	t.Parallel()
	for prog, want := range map[string]bool{"sh": true, "/bin/bash": true, "/usr/local/bin/fish": true, "rbash": true,
		"busybox": false, "python3": false, "bash.exe": false, "": false, "/bin/": false} {
		if got := Is(prog); got != want {
			t.Errorf("Is(%q) = %v, want %v", prog, got, want)
		}
	}
}
