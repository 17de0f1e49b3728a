//go:build !linux

package agentproc

import (
	"fmt"
	"runtime"
	"syscall"
)

// probe: outside Linux there is no pid namespace and no child subreaper
// (nor /proc to sweep with): the agent's process group is all there is.
func probe(string) Containment {
	return Containment{Mode: ProcessGroup, Detail: fmt.Sprintf("pid namespaces and child subreapers are Linux's; this is %s: what leaves the agent's process group outlives its case, and a run killed by SIGKILL leaves its agents running", runtime.GOOS)}
}

// subreaperWorks says why the subreaper containment cannot be had here.
func subreaperWorks() error {
	return fmt.Errorf("a child subreaper needs Linux; this is %s", runtime.GOOS)
}

// NamespaceWorks says why no program can be started in the namespaces an
// agent gets: this is not Linux.
func NamespaceWorks() error {
	return fmt.Errorf("start a program in a new pid namespace: pid namespaces need Linux; this is %s", runtime.GOOS)
}

// becomeSubreaper is never called here (probe never answers Subreaper).
func becomeSubreaper() {}

// namespaceAttr is never used here (probe never answers PIDNamespace): a
// process group of its own.
func namespaceAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
