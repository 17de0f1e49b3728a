package rundir

import (
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestRunIDsDoNotCollide(t *testing.T) {
	t.Parallel()
	runs := t.TempDir()
	at := time.Date(2026, 12, 1, 2, 3, 4, 5e6, time.UTC)
	same := NewID(at, "claude/sonnet 4")
	if same != "20261201-020304.005-claude-sonnet-4" {
		t.Errorf("newRunID = %q", same)
	}
	// Two runs started in the same second (and millisecond) get two folders.
	var got []string
	for range 3 {
		id, dir, err := Create(runs, same, false)
		if err != nil {
			t.Fatal(err)
		}
		if filepath.Base(dir.Path) != id {
			t.Errorf("dir %s for id %s", dir, id)
		}
		got = append(got, id)
	}
	if got[0] == got[1] || got[1] == got[2] || got[0] != same {
		t.Errorf("ids %q: want three distinct, the first unsuffixed", got)
	}
	// A later second sorts after, a later millisecond too.
	ids := []string{NewID(at.Add(time.Second), "m"), NewID(at, "m"), NewID(at.Add(time.Millisecond), "m")}
	if !sort.StringsAreSorted([]string{ids[1], ids[2], ids[0]}) {
		t.Errorf("ids do not sort by time: %q", ids)
	}
	// An explicit id that is taken is an error, not a suffix.
	if _, _, err := Create(runs, same, true); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("explicit taken id: err %v", err)
	}
}

// TestUnlockWithForkedCopy: a copy of the lock's descriptor (what a child
// forked at that moment holds until it execs) does not keep the run locked
// once this process unlocks it.
func TestUnlockWithForkedCopy(t *testing.T) {
	d := Dir{Path: t.TempDir()}
	unlock, err := d.Lock()
	if err != nil {
		t.Fatal(err)
	}
	lock := filepath.Join(d.Path, LockFile)
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("no /proc/self/fd: %v", err)
	}
	copied := -1
	for _, e := range fds {
		if target, err := os.Readlink(filepath.Join("/proc/self/fd", e.Name())); err == nil && target == lock {
			fd, _ := strconv.Atoi(e.Name())
			if copied, err = syscall.Dup(fd); err != nil {
				t.Fatal(err)
			}
			break
		}
	}
	if copied < 0 {
		t.Fatalf("the lock's descriptor is not open in /proc/self/fd")
	}
	defer syscall.Close(copied)
	unlock()
	again, err := d.Lock()
	if err != nil {
		t.Fatalf("lock after unlock, with a copy of the old descriptor open: %v", err)
	}
	again()
}
