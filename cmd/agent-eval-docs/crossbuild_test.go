package main

import (
	"bytes"
	"debug/elf"
	"debug/macho"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agent-eval/agent-eval/internal/testutil/need"
)

// TestCrossBuilds builds both binaries, static, for the release's other
// operating system on arm64 and for linux/arm64 (one build each; the
// host's is every other test's), and reads each back as that system's
// executable format and architecture: the Linux-only parts (namespaces,
// prctl, /proc) stay behind build tags, or a darwin release cannot be made.
func TestCrossBuilds(t *testing.T) {
	if testing.Short() {
		t.Skip("cross-builds agent-eval twice")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go on PATH: %v", err)
	}
	for _, target := range []struct{ goos, goarch string }{{"darwin", "arm64"}, {"linux", "arm64"}} {
		t.Run(target.goos+"/"+target.goarch, func(t *testing.T) {
			t.Parallel()
			out := t.TempDir()
			cmd := exec.Command(goBin, "build", "-trimpath", "-ldflags", "-s -w", "-o", out+string(filepath.Separator), "./cmd/agent-eval", "./cmd/agent-eval-docs")
			cmd.Dir = "../.."
			cmd.Env = append(os.Environ(), "GOOS="+target.goos, "GOARCH="+target.goarch, "CGO_ENABLED=0", "GOFLAGS=-buildvcs=false")
			if b, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("GOOS=%s GOARCH=%s go build: %v\n%s", target.goos, target.goarch, err, b)
			}
			for _, bin := range []string{"agent-eval", "agent-eval-docs"} {
				p := filepath.Join(out, bin)
				switch target.goos {
				case "darwin":
					f, err := macho.Open(p)
					if err != nil {
						t.Fatalf("%s is not a Mach-O executable: %v", bin, err)
					}
					if f.Cpu != macho.CpuArm64 || f.Type != macho.TypeExec {
						t.Errorf("%s: cpu %v, type %v; want arm64, an executable", bin, f.Cpu, f.Type)
					}
					f.Close()
				default:
					f, err := elf.Open(p)
					if err != nil {
						t.Fatalf("%s is not an ELF executable: %v", bin, err)
					}
					if f.Machine != elf.EM_AARCH64 || hasInterp(f) {
						t.Errorf("%s: machine %v, interpreter %v; want aarch64 and static", bin, f.Machine, hasInterp(f))
					}
					f.Close()
				}
			}
		})
	}
}

func hasInterp(f *elf.File) bool {
	return slices.ContainsFunc(f.Progs, func(p *elf.Prog) bool { return p.Type == elf.PT_INTERP })
}

// TestReleaseTargets runs scripts/release.sh with no targets under a
// stand-in go that writes a script for each binary, and wants what make
// release publishes: one archive for each of linux and darwin on amd64 and
// arm64, each listed in checksums.txt.
func TestReleaseTargets(t *testing.T) {
	need.Program(t, "bash")
	if out, _ := exec.Command("tar", "--version").Output(); !bytes.Contains(out, []byte("GNU tar")) {
		need.Missing(t, "GNU tar", "apt-get install tar (macOS: brew install gnu-tar)")
	}
	dir := t.TempDir()
	fakeGo := filepath.Join(dir, "go")
	const script = `#!/bin/sh
case "$1" in
env) case "$2" in GOHOSTOS) echo linux ;; GOHOSTARCH) echo amd64 ;; esac ;;
build)
	while [ $# -gt 0 ]; do [ "$1" = -o ] && out=$2; shift; done
	echo "$GOOS/$GOARCH" >>"$BUILT"
	printf '#!/bin/sh\nif [ "$1" = --man ]; then mkdir -p "$2" "$4"; exit 0; fi\necho "agent-eval %s stand-in"\n' "$VERSION" >"$out"
	chmod +x "$out" ;;
*) echo "stand-in go: $*" >&2; exit 2 ;;
esac
`
	if err := os.WriteFile(fakeGo, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	dist, built := filepath.Join(dir, "dist"), filepath.Join(dir, "built")
	cmd := exec.Command("bash", "scripts/release.sh")
	cmd.Dir = "../.."
	cmd.Env = append(os.Environ(), "GO="+fakeGo, "VERSION=v0.0.0-targets", "DIST="+dist, "BUILT="+built, "SOURCE_DATE_EPOCH=1700000000")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("scripts/release.sh: %v\n%s", err, b)
	}
	sums, err := os.ReadFile(filepath.Join(dist, "checksums.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, target := range []string{"linux_amd64", "linux_arm64", "darwin_amd64", "darwin_arm64"} {
		name := "agent-eval_0.0.0-targets_" + target + ".tar.gz"
		if _, err := os.Stat(filepath.Join(dist, name)); err != nil {
			t.Errorf("no %s: %v", name, err)
		}
		if !strings.Contains(string(sums), "  "+name+"\n") {
			t.Errorf("checksums.txt does not list %s:\n%s", name, sums)
		}
	}
	b, err := os.ReadFile(built)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Fields(string(b)); len(got) != 5 || strings.Count(string(sums), "\n") != 4 {
		t.Errorf("built %v (the docs tool for the host, then each target) and checksums\n%s; want 5 builds and 4 archives", got, sums)
	}
}
