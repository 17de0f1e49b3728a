package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/agent-eval/agent-eval/internal/testutil/need"
)

// TestReleaseReproducible builds the host's release archive twice with
// scripts/release.sh, the second time under another umask and temporary
// directory, and wants the same bytes, a checksums.txt that matches them,
// the expected files with fixed owner and time, and the version stamped in
// the binary.
func TestReleaseReproducible(t *testing.T) {
	if testing.Short() {
		t.Skip("builds agent-eval twice")
	}
	need.Program(t, "bash")
	out, _ := exec.Command("tar", "--version").Output()
	if !bytes.Contains(out, []byte("GNU tar")) {
		need.Missing(t, "GNU tar", "apt-get install tar (macOS: brew install gnu-tar)")
	}
	target := runtime.GOOS + "/" + runtime.GOARCH
	if !slices.Contains([]string{"linux/amd64", "linux/arm64", "darwin/amd64", "darwin/arm64"}, target) {
		t.Skipf("release.sh builds no %s archive", target)
	}
	const version, epoch = "v0.0.0-reprotest", "1700000000"
	name := "agent-eval_" + strings.TrimPrefix(version, "v") + "_" + runtime.GOOS + "_" + runtime.GOARCH
	build := func(umask string) (archive, sums []byte) {
		dist, tmp := t.TempDir(), t.TempDir()
		cmd := exec.Command("bash", "-c", "umask "+umask+" && exec scripts/release.sh "+target)
		cmd.Dir = "../.."
		cmd.Env = append(os.Environ(), "VERSION="+version, "DIST="+dist, "SOURCE_DATE_EPOCH="+epoch, "TMPDIR="+tmp)
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("scripts/release.sh %s (umask %s): %v\n%s", target, umask, err, b)
		}
		archive, err := os.ReadFile(filepath.Join(dist, name+".tar.gz"))
		if err != nil {
			t.Fatal(err)
		}
		sums, err = os.ReadFile(filepath.Join(dist, "checksums.txt"))
		if err != nil {
			t.Fatal(err)
		}
		if notes, err := os.ReadFile(filepath.Join(dist, "RELEASE_NOTES.md")); err != nil || !bytes.HasPrefix(notes, []byte("## [Unreleased]\n")) {
			t.Errorf("RELEASE_NOTES.md of the pre-release %s: %v %.40q", version, err, notes)
		}
		return archive, sums
	}
	a1, sums1 := build("022")
	a2, sums2 := build("077")
	if !bytes.Equal(a1, a2) || !bytes.Equal(sums1, sums2) {
		t.Errorf("two builds differ: checksums\n%s\nand\n%s", sums1, sums2)
	}
	sum := sha256.Sum256(a1)
	if want := hex.EncodeToString(sum[:]) + "  " + name + ".tar.gz\n"; string(sums1) != want {
		t.Errorf("checksums.txt is %q, want %q", sums1, want)
	}

	files, bin := readArchive(t, a1, epoch)
	for _, want := range []string{"agent-eval", "README.md", "CHANGELOG.md", "share/man/man1/agent-eval.1", "share/man/man1/agent-eval-run.1",
		"share/completions/agent-eval.bash", "docs/README.md", "docs/img/report.png", "share/completions/_agent-eval", "share/completions/agent-eval.fish"} {
		if !slices.Contains(files, name+"/"+want) {
			t.Errorf("the archive lacks %s; it holds %v", want, files)
		}
	}
	for _, f := range files {
		if strings.Contains(f, "hook") || strings.Contains(f, "fake-model") {
			t.Errorf("the archive documents a hidden command: %s", f)
		}
	}
	exe := filepath.Join(t.TempDir(), "agent-eval")
	if err := os.WriteFile(exe, bin, 0o755); err != nil {
		t.Fatal(err)
	}
	got, err := exec.Command(exe, "version").Output()
	if err != nil {
		t.Fatalf("agent-eval version: %v", err)
	}
	if !strings.HasPrefix(string(got), "agent-eval "+version+" ") {
		t.Errorf("agent-eval version says %q, want the stamped %s", got, version)
	}
}

// readArchive lists a release archive's entries, checks each is owned by
// 0:0 and dated epoch, and returns the agent-eval binary's bytes.
func readArchive(t *testing.T, archive []byte, epoch string) (names []string, bin []byte) {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(archive))
	if err != nil {
		t.Fatal(err)
	}
	if !zr.ModTime.IsZero() || zr.Name != "" {
		t.Errorf("gzip header carries name %q, time %v", zr.Name, zr.ModTime)
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, strings.TrimSuffix(h.Name, "/"))
		if h.Uid != 0 || h.Gid != 0 || h.Uname != "" || h.Gname != "" {
			t.Errorf("%s: owner %d:%d %q:%q, want 0:0 and no names", h.Name, h.Uid, h.Gid, h.Uname, h.Gname)
		}
		if got := strconv.FormatInt(h.ModTime.Unix(), 10); got != epoch {
			t.Errorf("%s: mtime %s, want %s", h.Name, got, epoch)
		}
		if strings.HasSuffix(h.Name, "/agent-eval") {
			if bin, err = io.ReadAll(tr); err != nil {
				t.Fatal(err)
			}
		}
	}
	if !slices.IsSorted(names) {
		t.Errorf("entries are not sorted: %v", names)
	}
	return names, bin
}

// TestReleaseNotes: scripts/release-notes.sh gives a release its dated
// CHANGELOG section, refuses a release the changelog does not describe,
// and gives anything else the [Unreleased] section.
func TestReleaseNotes(t *testing.T) {
	need.Program(t, "bash")
	const changelog = "# Changelog\n\n## [Unreleased]\n\n- next\n\n## [1.2.0] - 2026-11-30\n\n### Added\n- one\n\n## [1.1.0]\n\n- undated\n\n## [1.0.0] - 2026-10-01\n\n## [0.9.0] - 2026-09-01\n\n- old\n"
	for _, tc := range []struct {
		version, want, err string
	}{
		{"v1.2.0", "## [1.2.0] - 2026-11-30\n\n### Added\n- one\n", ""},
		{"v0.9.0", "## [0.9.0] - 2026-09-01\n\n- old\n", ""},
		{"v1.3.0", "", `no section "## [1.3.0] - YYYY-MM-DD"`},
		{"v1.1.0", "", `wants the form "## [1.1.0] - YYYY-MM-DD"`},
		{"v1.0.0", "", "the section for v1.0.0 is empty"},
		{"v1.2", "## [Unreleased]\n\n- next\n", ""},
		{"v1.3.0-rc.1", "## [Unreleased]\n\n- next\n", ""},
		{"dev", "## [Unreleased]\n\n- next\n", ""},
	} {
		t.Run(tc.version, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "CHANGELOG.md")
			if err := os.WriteFile(path, []byte(changelog), 0o644); err != nil {
				t.Fatal(err)
			}
			var stderr bytes.Buffer
			cmd := exec.Command("bash", "../../scripts/release-notes.sh", tc.version, path)
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if tc.err != "" {
				var exit *exec.ExitError
				if !errors.As(err, &exit) || exit.ExitCode() != 2 || !strings.Contains(stderr.String(), tc.err) {
					t.Fatalf("err %v, stderr %q; want exit 2 saying %q", err, stderr.String(), tc.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("%v: %s", err, stderr.String())
			}
			if strings.TrimSpace(string(out)) != strings.TrimSpace(tc.want) {
				t.Errorf("notes\n%s\nwant\n%s", out, tc.want)
			}
		})
	}
	// The repository's own changelog has the section a dev build releases.
	if out, err := exec.Command("bash", "../../scripts/release-notes.sh", "dev", "../../CHANGELOG.md").Output(); err != nil || !bytes.HasPrefix(out, []byte("## [Unreleased]\n")) {
		t.Errorf("CHANGELOG.md's notes for a dev build: %v %q", err, out)
	}
}
