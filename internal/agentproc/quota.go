package agentproc

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/agent-eval/agent-eval/internal/boundary"
)

// ErrOverQuota is what an agent stopped for its quota ends with (wrapped):
// its own doing, never retried as the machine's.
var ErrOverQuota = errors.New("stopped")

// quotaEveryNS, when set (the tests), is how often the agent's folders are
// measured while it runs, in nanoseconds; otherwise every second.
var quotaEveryNS atomic.Int64

func quotaEvery() time.Duration {
	if d := quotaEveryNS.Load(); d > 0 {
		return time.Duration(d)
	}
	return time.Second
}

// usage measures dirs: bytes (the larger of each file's apparent and
// allocated size) and entries, stopping early once past q.
func usage(dirs []string, q boundary.Quota) (bytes int64, files int) {
	for _, d := range dirs {
		_ = filepath.WalkDir(d, func(p string, e fs.DirEntry, err error) error {
			if err != nil || p == d {
				return nil
			}
			files++
			if info, err := e.Info(); err == nil {
				n := info.Size()
				if st, ok := info.Sys().(*syscall.Stat_t); ok && st.Blocks*512 > n {
					n = st.Blocks * 512
				}
				if !info.IsDir() {
					bytes += n
				}
			}
			if (q.Bytes > 0 && bytes > q.Bytes) || (q.Files > 0 && files > q.Files) {
				return fs.SkipAll
			}
			return nil
		})
	}
	return bytes, files
}

// overQuota says how dirs passed q, or "" while they have not.
func overQuota(dirs []string, q boundary.Quota) string {
	bytes, files := usage(dirs, q)
	switch {
	case q.Bytes > 0 && bytes > q.Bytes:
		return fmt.Sprintf("the agent's files passed execution.limits.disk_bytes (%d bytes) while it ran", q.Bytes)
	case q.Files > 0 && files > q.Files:
		return fmt.Sprintf("the agent's files and folders passed execution.limits.disk_files (%d) while it ran", q.Files)
	}
	return ""
}

// watchQuota measures dirs every quotaEvery (or ten times as long as the
// last measure took, so that a large tree costs the machine a tenth of a
// core at most) until stop closes, and sends on the returned channel how
// they passed q, once.
func watchQuota(dirs []string, q boundary.Quota, stop <-chan struct{}) <-chan string {
	over := make(chan string, 1)
	every := quotaEvery()
	go func() {
		t := time.NewTimer(every)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
			}
			began := time.Now()
			if why := overQuota(dirs, q); why != "" {
				over <- why
				return
			}
			t.Reset(max(every, 10*time.Since(began)))
		}
	}()
	return over
}
