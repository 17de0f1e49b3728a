package workspace

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// diskUse is what the files and folders under dir take on disk
// (st_blocks), in bytes.
func diskUse(t *testing.T, dir string) int64 {
	t.Helper()
	var n int64
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		var st syscall.Stat_t
		if err := syscall.Lstat(p, &st); err != nil {
			return err
		}
		n += st.Blocks * 512
		return nil
	})
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return n
}

// sparse makes a sparse file of size bytes at p: it costs no disk.
func sparse(t *testing.T, p string, size int64) {
	t.Helper()
	write(t, p, "")
	if err := os.Truncate(p, size); err != nil {
		t.Fatal(err)
	}
}

func TestCollectionLimits(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		limits Limits
		make   func(t *testing.T, ws string)
		// want are the files copied; skipped what was left out.
		want    []string
		skipped []Skip
		// skippedFiles counts every file left out (skipped lists the first
		// MaxListedSkips).
		skippedFiles int
	}{
		{
			name:   "a 4 GiB sparse file is over file_bytes by its apparent size",
			limits: Limits{Bytes: 100 << 20, FileBytes: 50 << 20, Files: 100},
			make: func(t *testing.T, ws string) {
				sparse(t, filepath.Join(ws, "out", "big.bin"), 4<<30)
				write(t, filepath.Join(ws, "out", "answer.txt"), "42\n")
			},
			want:         []string{"out/", "out/answer.txt"},
			skipped:      []Skip{{Path: "out/big.bin", Size: 4 << 30, Limit: LimitFileBytes}},
			skippedFiles: 1,
		},
		{
			name:   "a real file over a small file_bytes",
			limits: Limits{Bytes: 1 << 20, FileBytes: 1000, Files: 100},
			make: func(t *testing.T, ws string) {
				write(t, filepath.Join(ws, "out", "a.txt"), strings.Repeat("x", 4096))
				write(t, filepath.Join(ws, "out", "b.txt"), strings.Repeat("y", 1000))
			},
			want:         []string{"out/", "out/b.txt"},
			skipped:      []Skip{{Path: "out/a.txt", Size: 4096, Limit: LimitFileBytes}},
			skippedFiles: 1,
		},
		{
			name:   "files that fit one by one but not together: the one past collect_bytes is left out, a smaller one after it fits",
			limits: Limits{Bytes: 5000, FileBytes: 3000, Files: 100},
			make: func(t *testing.T, ws string) {
				write(t, filepath.Join(ws, "out", "1.txt"), strings.Repeat("x", 3000))
				write(t, filepath.Join(ws, "out", "2.txt"), strings.Repeat("x", 2500))
				write(t, filepath.Join(ws, "out", "3.txt"), strings.Repeat("x", 2000))
			},
			want:         []string{"out/", "out/1.txt", "out/3.txt"},
			skipped:      []Skip{{Path: "out/2.txt", Size: 2500, Limit: LimitBytes}},
			skippedFiles: 1,
		},
		{
			name:   "many small files over files: folders count, the rest is left out and counted",
			limits: Limits{Bytes: 1 << 20, FileBytes: 1 << 20, Files: 3},
			make: func(t *testing.T, ws string) {
				for i := range 200 {
					write(t, filepath.Join(ws, "out", fmt.Sprintf("f%03d.txt", i)), "x")
				}
				write(t, filepath.Join(ws, "out", "sub", "g.txt"), "x")
			},
			want:         []string{"out/", "out/f000.txt", "out/f001.txt"},
			skippedFiles: 200, // 198 files, sub/ and sub/g.txt
		},
		{
			name:   "a link is neither followed nor counted",
			limits: Limits{Bytes: 1000, FileBytes: 1000, Files: 10},
			make: func(t *testing.T, ws string) {
				outside := filepath.Join(t.TempDir(), "outside.bin")
				sparse(t, outside, 1<<30)
				write(t, filepath.Join(ws, "out", "a.txt"), "a")
				if err := os.Symlink(outside, filepath.Join(ws, "out", "link.bin")); err != nil {
					t.Fatal(err)
				}
			},
			want: []string{"out/", "out/a.txt"},
		},
		{
			name:   "within the limits everything is copied",
			limits: Limits{Bytes: 10, FileBytes: 5, Files: 3},
			make: func(t *testing.T, ws string) {
				write(t, filepath.Join(ws, "out", "a.txt"), "12345")
				write(t, filepath.Join(ws, "out", "b.txt"), "12345")
			},
			want: []string{"out/", "out/a.txt", "out/b.txt"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ws, dst := t.TempDir(), filepath.Join(t.TempDir(), "case")
			tt.make(t, ws)
			c := NewCollection(tt.limits)
			if err := c.CopyOut(ws, "out", filepath.Join(dst, "out"), "out"); err != nil {
				t.Fatalf("CopyOut: %v", err)
			}
			var got []string
			_ = filepath.WalkDir(dst, func(p string, d fs.DirEntry, err error) error {
				if rel, _ := filepath.Rel(dst, p); err == nil && rel != "." {
					if d.IsDir() {
						rel += "/"
					}
					got = append(got, filepath.ToSlash(rel))
				}
				return nil
			})
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("copied (-want +got):\n%s", diff)
			}
			if tt.skipped != nil {
				if diff := cmp.Diff(tt.skipped, c.Skipped); diff != "" {
					t.Errorf("Skipped (-want +got):\n%s", diff)
				}
			}
			if c.SkippedFiles != tt.skippedFiles || c.Over() != (tt.skippedFiles > 0) {
				t.Errorf("SkippedFiles = %d, Over = %v; want %d", c.SkippedFiles, c.Over(), tt.skippedFiles)
			}
			if c.Bytes > tt.limits.Bytes || c.Files > tt.limits.Files {
				t.Errorf("collected %d bytes in %d files, past %+v", c.Bytes, c.Files, tt.limits)
			}
			if c.SeenFiles != c.Files+c.SkippedFiles {
				t.Errorf("SeenFiles %d, want Files %d + SkippedFiles %d", c.SeenFiles, c.Files, c.SkippedFiles)
			}
			if use := diskUse(t, dst); use > 1<<20 {
				t.Errorf("the copy takes %d bytes of disk", use)
			}
		})
	}
}

// TestCollectionListsAtMostMaxListedSkips: a million files left out are
// counted, not listed.
func TestCollectionListsAtMostMaxListedSkips(t *testing.T) {
	t.Parallel()
	c := NewCollection(Limits{Files: 1})
	for i := range MaxListedSkips + 50 {
		c.Admit(fmt.Sprint(i), 1)
	}
	if len(c.Skipped) != MaxListedSkips || c.SkippedFiles != MaxListedSkips+49 || c.SkippedBytes != MaxListedSkips+49 {
		t.Errorf("listed %d, counted %d files of %d bytes; want %d listed of %d", len(c.Skipped), c.SkippedFiles, c.SkippedBytes, MaxListedSkips, MaxListedSkips+49)
	}
}

// TestNilCollectionCopiesAll: the harness's own copies have no limit.
func TestNilCollectionCopiesAll(t *testing.T) {
	t.Parallel()
	ws, dst := t.TempDir(), filepath.Join(t.TempDir(), "d")
	write(t, filepath.Join(ws, "a.txt"), strings.Repeat("x", 10000))
	var c *Collection
	if err := c.CopyTree(ws, dst, ""); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dst, "a.txt")); err != nil || len(b) != 10000 {
		t.Errorf("a.txt = %d bytes, %v", len(b), err)
	}
	if c.Over() {
		t.Error("a nil collection is over")
	}
}

func TestWriteBounded(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		limits Limits
		used   int64 // bytes collected before
		write  int
		kept   bool
		limit  string
	}{
		{"within", Limits{Bytes: 100, FileBytes: 50, Files: 5}, 0, 50, true, ""},
		{"past file_bytes", Limits{Bytes: 1000, FileBytes: 50, Files: 5}, 0, 51, false, LimitFileBytes},
		{"past what the case has left", Limits{Bytes: 100, FileBytes: 80, Files: 5}, 60, 41, false, LimitBytes},
		{"past the count", Limits{Bytes: 100, FileBytes: 80, Files: 1}, 10, 5, false, LimitFiles},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := NewCollection(tt.limits)
			if tt.used > 0 && !c.Admit("before", tt.used) {
				t.Fatal("the first file does not fit")
			}
			dst := filepath.Join(t.TempDir(), "x", "patch")
			stopped := false
			kept, err := c.WriteBounded(dst, "patch", func() { stopped = true }, func(w io.Writer) error {
				for i := 0; i < tt.write; i++ {
					if _, err := w.Write([]byte("p")); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil || kept != tt.kept {
				t.Fatalf("WriteBounded = %v, %v; want %v", kept, err, tt.kept)
			}
			_, serr := os.Stat(dst)
			if kept != (serr == nil) {
				t.Errorf("kept %v but the file: %v", kept, serr)
			}
			if tt.kept {
				return
			}
			if len(c.Skipped) != 1 || c.Skipped[0].Limit != tt.limit || c.Skipped[0].Path != "patch" {
				t.Errorf("Skipped = %+v, want patch for %s", c.Skipped, tt.limit)
			}
			if tt.limit != LimitFiles && (!stopped || !c.Skipped[0].AtLeast) {
				t.Errorf("stopped %v, AtLeast %v; want the writer stopped and the size a lower bound", stopped, c.Skipped[0].AtLeast)
			}
		})
	}
}

// TestSaveWorktreeLimits: repo mode's repo_changes/ holds neither the copy
// of a file past the limits nor its diff, and a patch that grows past
// what is left is not kept.
func TestSaveWorktreeLimits(t *testing.T) {
	ctx := context.Background()
	dir := gitRepo(t)
	s, err := SnapshotRepo(ctx, dir, t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	sparse(t, filepath.Join(dir, "big.bin"), 64<<20)
	write(t, filepath.Join(dir, "small.txt"), "agent's small file\n")
	out := t.TempDir()
	c := NewCollection(Limits{Bytes: 1 << 20, FileBytes: 1 << 20, Files: 100})
	if err := s.SaveWorktree(ctx, out, c); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(out, "files", "big.bin")); err == nil {
		t.Error("files/big.bin was copied")
	}
	if b, err := os.ReadFile(filepath.Join(out, "files", "small.txt")); err != nil || string(b) != "agent's small file\n" {
		t.Errorf("files/small.txt = %q, %v", b, err)
	}
	patch, err := os.ReadFile(filepath.Join(out, "worktree.patch"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(patch), "big.bin") || !strings.Contains(string(patch), "+agent's small file") {
		t.Errorf("worktree.patch should have small.txt and not big.bin:\n%.2000s", patch)
	}
	if len(c.Skipped) != 1 || c.Skipped[0].Path != "big.bin" || c.Skipped[0].Size != 64<<20 {
		t.Errorf("Skipped = %+v, want big.bin", c.Skipped)
	}
	if use := diskUse(t, out); use > 1<<20 {
		t.Errorf("repo_changes takes %d bytes of disk", use)
	}

	// A change that fits as a file but whose patch (the old content and
	// the new) does not.
	out2 := t.TempDir()
	write(t, filepath.Join(dir, "small.txt"), strings.Repeat("z", 3000))
	c2 := NewCollection(Limits{Bytes: 4000, FileBytes: 3500, Files: 100})
	if err := s.SaveWorktree(ctx, out2, c2); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(out2, "worktree.patch")); err == nil {
		t.Error("a worktree.patch past the limits was kept")
	}
	if n := len(c2.Skipped); n != 2 || c2.Skipped[1].Path != "worktree.patch" || !c2.Skipped[1].AtLeast {
		t.Errorf("Skipped = %+v, want big.bin and worktree.patch", c2.Skipped)
	}
	if err := s.Restore(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestRepoStateBigGitFile: a large file the agent puts in .git (sparse:
// it costs no disk) is hashed as a stream, not read whole, and the sandbox
// stub check reads no more than maxStubFile of it.
func TestRepoStateBigGitFile(t *testing.T) {
	ctx := context.Background()
	dir := gitRepo(t)
	s, err := SnapshotRepo(ctx, dir, t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	const size = 256 << 20
	sparse(t, filepath.Join(dir, ".git", "big"), size)
	// A file git reads changed in place, as large.
	sparse(t, filepath.Join(dir, ".git", "description"), size)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	changes, err := s.Diff(ctx)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{".git/big: added", ".git/description: changed"} {
		if !strings.Contains(fmt.Sprint(changes), want) {
			t.Errorf("Diff = %v, want %s", changes, want)
		}
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > size/4 {
		t.Errorf("Diff allocated %d bytes over two files of %d: it read them whole", n, size)
	}
	if err := s.Restore(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, ".git", "big")); err == nil {
		t.Error("Restore left .git/big")
	}
}

// TestCollectionNamesAFolderOnce: a folder named with a trailing slash (as
// git names a nested repository) names what it left out without "//".
func TestCollectionNamesAFolderOnce(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	write(t, filepath.Join(ws, "nested", "big.txt"), strings.Repeat("x", 100))
	c := NewCollection(Limits{Files: 1})
	c.Admit("first", 1)
	if err := c.CopyTree(filepath.Join(ws, "nested"), filepath.Join(t.TempDir(), "nested"), "nested/"); err != nil {
		t.Fatal(err)
	}
	if len(c.Skipped) != 2 || c.Skipped[0].Path != "nested/" || c.Skipped[1].Path != "nested/big.txt" {
		t.Errorf("Skipped = %+v, want nested/ and nested/big.txt", c.Skipped)
	}
}
