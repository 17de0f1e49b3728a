// Package version reports the build's version. It does no I/O.
package version

import (
	"runtime"
	"runtime/debug"
)

// Version is stamped at build time with
// -ldflags "-X github.com/agent-eval/agent-eval/internal/version.Version=v1.2.3".
// When it is not stamped, Info falls back to the module's build information.
var Version = ""

// Info is what `agent-eval version` prints.
type Info struct {
	Version   string `json:"version"`
	Revision  string `json:"revision,omitempty"`
	Modified  bool   `json:"modified,omitempty"`
	GoVersion string `json:"go_version"`
	Platform  string `json:"platform"`
}

// Get returns the build's version information.
func Get() Info {
	info := Info{Version: Version, GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	bi, ok := debug.ReadBuildInfo()
	if ok {
		if info.Version == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			info.Version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				info.Revision = s.Value
			case "vcs.modified":
				info.Modified = s.Value == "true"
			}
		}
	}
	if info.Version == "" {
		info.Version = "dev"
	}
	return info
}

// String renders the information on one line.
func (i Info) String() string {
	s := "agent-eval " + i.Version
	if i.Revision != "" {
		rev := i.Revision
		if len(rev) > 12 {
			rev = rev[:12]
		}
		s += " (" + rev
		if i.Modified {
			s += ", modified"
		}
		s += ")"
	}
	return s + " " + i.GoVersion + " " + i.Platform
}
