package agentproc

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/agent-eval/agent-eval/internal/testutil"
)

// Every line of stdout reaches Line whole, one longer than the read buffer
// too, and the raw copy is byte for byte.
func TestLines(t *testing.T) {
	t.Parallel()
	var lines []string
	var raw bytes.Buffer
	res := Run(testutil.Context(t, time.Minute), Spec{Path: "sh", Args: []string{"-c", `echo one; head -c 300000 /dev/zero | tr '\0' x; echo; printf 'last'`},
		Env: []string{"PATH=/usr/bin:/bin"}, Stdout: &raw, Line: func(l []byte) { lines = append(lines, string(l)) }})
	if res.ExitCode != 0 || res.Err != nil {
		t.Fatalf("Run = %+v", res)
	}
	if len(lines) != 3 || lines[0] != "one\n" || len(lines[1]) != 300001 || lines[2] != "last" {
		t.Errorf("lines: %d, first %q, second %d bytes, last %q", len(lines), lines[0], len(lines[1]), lines[len(lines)-1])
	}
	if raw.Len() != 4+300001+4 {
		t.Errorf("raw copy %d bytes", raw.Len())
	}
}

func TestMissingProgram(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, p := range []string{"no-such-program-xyz", "./missing.sh", "/no/such/abs"} {
		res := Run(testutil.Context(t, time.Minute), Spec{Path: p, Dir: dir})
		if res.ExitCode != -1 || res.Err == nil || !strings.Contains(res.Err.Error(), p) {
			t.Errorf("Run(%s) = exit %d, %v; want -1 and an error naming it", p, res.ExitCode, res.Err)
		}
	}
}

// The run warns of every containment weaker than a pid namespace, and of
// none where the caller started its agent without the guard.
func TestWeaker(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		c    Containment
		want bool
	}{
		{Containment{Mode: Boundary}, false},
		{Containment{Mode: PIDNamespace}, false},
		{Containment{Mode: PIDNamespace, Detail: "mount the pid namespace's own /proc: EPERM"}, true},
		{Containment{Mode: Subreaper, Detail: "no pid namespace"}, true},
		{Containment{Mode: ProcessGroup, Detail: noGuard}, false},
		{Containment{Mode: ProcessGroup, Detail: "pid namespaces and child subreapers are Linux's; this is darwin"}, true},
	} {
		if got := tc.c.Weaker(); got != tc.want {
			t.Errorf("%+v.Weaker() = %v, want %v", tc.c, got, tc.want)
		}
	}
}
