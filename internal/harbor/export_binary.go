package harbor

import (
	"debug/elf"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
)

// buildHint says how to make the binary a task needs.
const buildHint = "build one with CGO_ENABLED=0 GOOS=linux GOARCH=amd64 make build and pass it with --binary"

// FindBinary is the static linux/amd64 agent-eval the tasks carry: flag,
// else this executable when it is one.
func FindBinary(flag string) (string, error) {
	if flag != "" {
		abs, err := filepath.Abs(flag)
		if err != nil {
			return "", err
		}
		if err := StaticLinuxAMD64(abs); err != nil {
			return "", refusef("--binary %s: %v; %s", flag, err, buildHint)
		}
		return abs, nil
	}
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		return "", refusef("this agent-eval is %s/%s, and the tasks need a static linux/amd64 one: %s", runtime.GOOS, runtime.GOARCH, buildHint)
	}
	self, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find the agent-eval binary: %w", err)
	}
	if err := StaticLinuxAMD64(self); err != nil {
		return "", refusef("this agent-eval (%s) %v, and the tasks need a static one: %s", self, err, buildHint)
	}
	return self, nil
}

// StaticLinuxAMD64 checks that p is an x86-64 ELF executable without an
// interpreter (PT_INTERP): one that starts in any linux/amd64 image.
func StaticLinuxAMD64(p string) error {
	f, err := elf.Open(p)
	if err != nil {
		return fmt.Errorf("is not an ELF executable (%v)", err)
	}
	defer f.Close()
	if f.Machine != elf.EM_X86_64 || f.Class != elf.ELFCLASS64 {
		return fmt.Errorf("is built for %s, not amd64", f.Machine)
	}
	for _, prog := range f.Progs {
		if prog.Type == elf.PT_INTERP {
			return fmt.Errorf("is dynamically linked")
		}
	}
	return nil
}
