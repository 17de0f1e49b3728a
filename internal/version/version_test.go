package version

import (
	"runtime"
	"strings"
	"testing"
)

func TestGet(t *testing.T) {
	tests := []struct {
		name    string
		stamped string
		want    string
	}{
		{"stamped", "v1.2.3", "v1.2.3"},
		{"unstamped falls back", "", "dev"}, // test binaries carry no module version
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old := Version
			Version = tt.stamped
			defer func() { Version = old }()
			got := Get()
			if got.Version != tt.want {
				t.Errorf("Get().Version = %q, want %q", got.Version, tt.want)
			}
			if got.GoVersion != runtime.Version() {
				t.Errorf("Get().GoVersion = %q, want %q", got.GoVersion, runtime.Version())
			}
			if s := got.String(); !strings.HasPrefix(s, "agent-eval "+tt.want) || !strings.Contains(s, runtime.Version()) {
				t.Errorf("String() = %q, want the version and %s", s, runtime.Version())
			}
		})
	}
}
