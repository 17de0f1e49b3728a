// Package filestat reads the inode times os.FileInfo leaves out: the
// change time (ctime, which no one can set back) beside the modification
// time, in nanoseconds, from the system's stat structure, whose field
// names differ between Linux and macOS (filestat_linux.go,
// filestat_darwin.go).
package filestat

import (
	"io/fs"
	"syscall"
)

// Times are one file's inode times, in nanoseconds since the epoch.
type Times struct {
	Mtime, Ctime int64
}

// Of is fi's times; ok is false when fi carries no stat structure.
func Of(fi fs.FileInfo) (t Times, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return Times{}, false
	}
	return times(st), true
}

// Stat is st's times.
func Stat(st *syscall.Stat_t) Times { return times(st) }
