package harbor

import (
	"debug/elf"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
)

// LinuxBinary is the agent-eval the tasks and the image carry: path when
// given, else this one when it runs on linux/amd64; either way it must be
// a static linux/amd64 ELF (no interpreter), since the container has no
// Go and perhaps not this machine's libc.
func LinuxBinary(path string) (string, error) {
	from := "--binary " + path
	if path == "" {
		if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
			return "", fmt.Errorf("this agent-eval is %s/%s, the containers run linux/amd64: pass --binary with a static linux/amd64 build (CGO_ENABLED=0 GOOS=linux GOARCH=amd64 make build)", runtime.GOOS, runtime.GOARCH)
		}
		exe, err := os.Executable()
		if err != nil {
			return "", fmt.Errorf("find this agent-eval: %w", err)
		}
		path, from = exe, "this agent-eval ("+exe+")"
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	if err := staticLinuxAMD64(abs); err != nil {
		return "", fmt.Errorf("%s cannot run in the containers: %w (pass --binary with a static linux/amd64 build: CGO_ENABLED=0 GOOS=linux GOARCH=amd64 make build)", from, err)
	}
	return abs, nil
}

func staticLinuxAMD64(path string) error {
	f, err := elf.Open(path)
	if err != nil {
		return fmt.Errorf("not an ELF executable: %w", err)
	}
	defer f.Close()
	if f.OSABI != elf.ELFOSABI_NONE && f.OSABI != elf.ELFOSABI_LINUX {
		return errors.New("not a Linux executable")
	}
	if f.Machine != elf.EM_X86_64 {
		return fmt.Errorf("built for %v, not amd64", f.Machine)
	}
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return errors.New("dynamically linked (it has an ELF interpreter)")
		}
	}
	return nil
}
