package filestat

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// The times read are the file's: its modification time as os.FileInfo
// says it, a change time no earlier, both set when it was written.
func TestOf(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "f")
	before := time.Now().Add(-time.Second)
	if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	got, ok := Of(fi)
	if !ok {
		t.Fatal("Of: no stat structure")
	}
	if got.Mtime != fi.ModTime().UnixNano() {
		t.Errorf("Mtime %d, want os's %d", got.Mtime, fi.ModTime().UnixNano())
	}
	if time.Unix(0, got.Ctime).Before(before) || got.Ctime < got.Mtime-int64(time.Second) {
		t.Errorf("Ctime %v, want after %v and about Mtime %v", time.Unix(0, got.Ctime), before, time.Unix(0, got.Mtime))
	}
	var st syscall.Stat_t
	if err := syscall.Stat(p, &st); err != nil {
		t.Fatal(err)
	}
	if Stat(&st) != got {
		t.Errorf("Stat = %+v, Of = %+v", Stat(&st), got)
	}
}
