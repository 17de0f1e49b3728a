package atomicfile

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// names lists the entries of dir, sorted.
func names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

func TestWrite(t *testing.T) {
	t.Parallel()
	// The mode is applied with chmod, so the umask does not filter it.
	tests := []struct {
		name     string
		existing *fs.FileMode // mode of a file already at the path; nil for none
		data     []byte
		mode     fs.FileMode
	}{
		{name: "new file 0644", data: []byte("hello\n"), mode: 0o644},
		{name: "new file 0600", data: []byte("secret"), mode: 0o600},
		{name: "new file 0777 ignores the umask", data: []byte("#!/bin/sh\n"), mode: 0o777},
		{name: "new read-only file", data: []byte("ro"), mode: 0o400},
		{name: "empty data", data: []byte{}, mode: 0o640},
		{name: "binary data", data: []byte{0, 1, 2, 0xff, '\n', 0}, mode: 0o644},
		{name: "replaces a longer file and its mode", existing: modePtr(0o644), data: []byte("short"), mode: 0o600},
		{name: "replaces a read-only file", existing: modePtr(0o444), data: []byte("new"), mode: 0o644},
		{name: "widens an existing file's mode", existing: modePtr(0o600), data: []byte("x"), mode: 0o755},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			path := filepath.Join(dir, "file.json")
			if tt.existing != nil {
				if err := os.WriteFile(path, []byte("the previous, much longer content of the file\n"), 0o600); err != nil {
					t.Fatal(err)
				}
				if err := os.Chmod(path, *tt.existing); err != nil {
					t.Fatal(err)
				}
			}
			if err := Write(path, tt.data, tt.mode); err != nil {
				t.Fatalf("Write: %v", err)
			}
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, tt.data) {
				t.Errorf("content = %q, want %q", got, tt.data)
			}
			st, err := os.Lstat(path)
			if err != nil {
				t.Fatal(err)
			}
			if !st.Mode().IsRegular() {
				t.Errorf("%s is a %v, want a regular file", path, st.Mode().Type())
			}
			if got := st.Mode().Perm(); got != tt.mode {
				t.Errorf("mode = %#o, want %#o", got, tt.mode)
			}
			if diff := cmp.Diff([]string{"file.json"}, names(t, dir)); diff != "" {
				t.Errorf("directory entries (-want +got), temporary files left behind?\n%s", diff)
			}
		})
	}
}

func modePtr(m fs.FileMode) *fs.FileMode { return &m }

func TestWriteRepeatedlyLeavesNoTempFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for i := range 20 {
		name := fmt.Sprintf("f%d", i%3)
		if err := Write(filepath.Join(dir, name), []byte(name), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if diff := cmp.Diff([]string{"f0", "f1", "f2"}, names(t, dir)); diff != "" {
		t.Errorf("directory entries (-want +got):\n%s", diff)
	}
}

// TestWriteReplacesSymlink: the temporary file is renamed over the path, so
// a symlink there is replaced by a regular file and its target is untouched.
func TestWriteReplacesSymlink(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	if err := os.WriteFile(target, []byte("target"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := Write(link, []byte("new"), 0o600); err != nil {
		t.Fatal(err)
	}
	st, err := os.Lstat(link)
	if err != nil {
		t.Fatal(err)
	}
	if !st.Mode().IsRegular() {
		t.Errorf("link is now a %v, want a regular file", st.Mode().Type())
	}
	for p, want := range map[string]string{link: "new", target: "target"} {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != want {
			t.Errorf("%s = %q, want %q", filepath.Base(p), b, want)
		}
	}
}

func TestWriteErrors(t *testing.T) {
	t.Parallel()
	t.Run("missing directory", func(t *testing.T) {
		t.Parallel()
		root := t.TempDir()
		path := filepath.Join(root, "missing", "file")
		err := Write(path, []byte("x"), 0o644)
		if !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Write = %v, want ErrNotExist", err)
		}
		if diff := cmp.Diff([]string(nil), names(t, root)); diff != "" {
			t.Errorf("entries created (-want +got):\n%s", diff)
		}
	})
	t.Run("the path is a directory", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		path := filepath.Join(dir, "target")
		if err := os.MkdirAll(filepath.Join(path, "inner"), 0o755); err != nil {
			t.Fatal(err)
		}
		err := Write(path, []byte("x"), 0o644)
		if err == nil {
			t.Fatal("Write over a non-empty directory succeeded")
		}
		if want := "write " + path + ": "; !strings.HasPrefix(err.Error(), want) {
			t.Errorf("error %q does not start with %q", err, want)
		}
		// The failed rename's temporary file is removed and the directory
		// is left as it was.
		if diff := cmp.Diff([]string{"target"}, names(t, dir)); diff != "" {
			t.Errorf("entries of the parent (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]string{"inner"}, names(t, path)); diff != "" {
			t.Errorf("entries of the directory (-want +got):\n%s", diff)
		}
	})
}

// TestWriteIsAtomic: readers racing with writers only ever see one whole
// version of the file, never a mix or a truncated one.
func TestWriteIsAtomic(t *testing.T) {
	t.Parallel()
	t.Run("Write", func(t *testing.T) { t.Parallel(); testAtomic(t, Write) })
}

func testAtomic(t *testing.T, write func(string, []byte, fs.FileMode) error) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state.json")
	versions := make([][]byte, 4)
	for i := range versions {
		versions[i] = bytes.Repeat([]byte{byte('a' + i)}, 256<<10)
	}
	if err := write(path, versions[0], 0o644); err != nil {
		t.Fatal(err)
	}
	const rounds = 25
	var wg sync.WaitGroup
	errs := make(chan error, 2*len(versions)+1)
	for _, v := range versions {
		wg.Go(func() {
			for range rounds {
				if err := write(path, v, 0o644); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	done := make(chan struct{})
	var readers sync.WaitGroup
	readers.Go(func() {
		for {
			select {
			case <-done:
				return
			default:
			}
			b, err := os.ReadFile(path)
			if err != nil {
				errs <- err
				return
			}
			whole := false
			for _, v := range versions {
				whole = whole || bytes.Equal(b, v)
			}
			if !whole {
				errs <- fmt.Errorf("read a partial file: %d bytes starting %q", len(b), b[:min(len(b), 8)])
				return
			}
		}
	})
	wg.Wait()
	close(done)
	readers.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if diff := cmp.Diff([]string{"state.json"}, names(t, dir)); diff != "" {
		t.Errorf("directory entries after concurrent writes (-want +got):\n%s", diff)
	}
}

// BenchmarkWrite writes a 4 KB case result.
func BenchmarkWrite(b *testing.B) {
	data := bytes.Repeat([]byte("x"), 4<<10)
	path := filepath.Join(b.TempDir(), "run_result.json")
	for i := 0; i < b.N; i++ {
		if err := Write(path, data, 0o644); err != nil {
			b.Fatal(err)
		}
	}
}
