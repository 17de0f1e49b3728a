package claudecode

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-eval/agent-eval/internal/testutil"
	"github.com/agent-eval/agent-eval/internal/testutil/need"
)

// linkBins makes a PATH directory holding only the named programs of the
// real PATH.
func linkBins(t *testing.T, names ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, n := range names {
		p := need.Program(t, n)
		if err := os.Symlink(p, filepath.Join(dir, n)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestCheckSandbox(t *testing.T) {
	for _, tc := range []struct {
		name  string
		bins  []string
		wants []string // substrings of the error; none: no error
	}{
		{"both present", []string{"bwrap", "socat"}, nil},
		{"no bwrap", []string{"socat"}, []string{"bwrap (package bubblewrap) not found", "apt-get install bubblewrap socat"}},
		{"no socat", []string{"bwrap"}, []string{"socat not found", "apt-get install bubblewrap socat"}},
		{"neither", nil, []string{"bwrap (package bubblewrap) and socat not found"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckSandbox(testutil.Context(t, time.Minute), linkBins(t, tc.bins...))
			if len(tc.wants) == 0 {
				if err != nil {
					t.Fatalf("CheckSandbox: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("CheckSandbox succeeded, want an error with %q", tc.wants)
			}
			for _, w := range tc.wants {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}

// A bwrap that is installed but cannot sandbox (no user namespaces) fails
// the check too.
func TestCheckSandboxBwrapFails(t *testing.T) {
	dir := linkBins(t, "socat")
	if err := os.WriteFile(filepath.Join(dir, "bwrap"), []byte("#!/bin/sh\necho 'bwrap: No permissions to creating new namespace' >&2\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	err := CheckSandbox(testutil.Context(t, time.Minute), dir)
	if err == nil || !strings.Contains(err.Error(), "No permissions to creating new namespace") {
		t.Fatalf("CheckSandbox = %v, want bwrap's own message", err)
	}
}
