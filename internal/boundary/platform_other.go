//go:build !linux

package boundary

import (
	"fmt"
	"runtime"
)

// ErrNeedsLinux is why no boundary is drawn outside Linux.
var ErrNeedsLinux = fmt.Errorf("the harness's boundary needs Linux namespaces; this is %s", runtime.GOOS)

// platform: the boundary's namespaces are Linux's.
func platform() error { return ErrNeedsLinux }
