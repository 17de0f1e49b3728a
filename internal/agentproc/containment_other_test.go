//go:build !linux

package agentproc

import (
	"os"
	"strings"
	"testing"
)

// Outside Linux a guarded agent gets its process group, said as such and
// why; a containment only Linux has, asked for by name, is refused.
func TestProbeOutsideLinux(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(ModeEnv, "")
	c, err := Probe(self)
	if err != nil || c.Mode != ProcessGroup || !strings.Contains(c.Detail, "Linux") || !c.Weaker() {
		t.Errorf("Probe = %+v, %v; want process-group, weaker, saying Linux has the rest", c, err)
	}
	for _, want := range []Mode{PIDNamespace, Subreaper} {
		t.Setenv(ModeEnv, string(want))
		if _, err := Probe(self); err == nil || !strings.Contains(err.Error(), "Linux") {
			t.Errorf("%s=%s: Probe error %v; want a refusal naming Linux", ModeEnv, want, err)
		}
	}
}
