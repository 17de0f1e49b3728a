package workspace

import (
	"io"
	"os"
	"path/filepath"
)

// Limits bound what a Collection copies out of a case's workspace into the
// run directory: the files' apparent sizes all together (Bytes), one
// file's (FileBytes), and how many files and folders (Files). A zero field
// is no limit. A file counts by its apparent size, st_size: copied, a
// sparse file takes all of it on disk.
type Limits struct {
	Bytes     int64
	FileBytes int64
	Files     int
}

// The limits a file can be left out for, by the name of their key in
// eval.yaml's execution.limits.
const (
	LimitBytes     = "collect_bytes"
	LimitFileBytes = "file_bytes"
	LimitFiles     = "files"
)

// MaxListedSkips is how many of the files it leaves out a Collection lists
// (it counts them all): an agent that leaves a million files must not make
// the case's result as large.
const MaxListedSkips = 100

// Skip is a file (or a folder, Dir) a Collection left out, and why: the
// limit it would have gone past.
type Skip struct {
	// Path names it as the case left it: relative to the workspace (or,
	// in repo mode, to the project), slash-separated.
	Path string
	// Size is its apparent size; AtLeast: it was not known whole (a patch
	// left out while it was being written), Size is what there was then.
	Size    int64
	AtLeast bool
	Dir     bool
	Limit   string
}

// Collection is what one case's collection took and left out. Every copy
// of the case's files into the run directory goes through it, in a fixed
// order (outputs, the other changed files), so the same workspace always
// leaves out the same files: a file that does not fit is left out whole,
// never cut short, and counted; the files after it that fit are copied. A
// nil *Collection copies everything (the harness's own files). It is not
// safe for concurrent use.
type Collection struct {
	Limits Limits
	// Bytes and Files are what was copied; SeenBytes and SeenFiles what
	// was looked at, copied or not (files and folders; SeenDirs the
	// folders among them).
	Bytes, SeenBytes           int64
	Files, SeenFiles, SeenDirs int
	// Skipped are the first MaxListedSkips files left out; SkippedFiles
	// and SkippedBytes count them all.
	Skipped      []Skip
	SkippedFiles int
	SkippedBytes int64
}

// NewCollection starts a case's collection within l.
func NewCollection(l Limits) *Collection { return &Collection{Limits: l} }

// Over reports whether c left something out.
func (c *Collection) Over() bool { return c != nil && c.SkippedFiles > 0 }

// skippedCount is how many files c has left out so far.
func (c *Collection) skippedCount() int {
	if c == nil {
		return 0
	}
	return c.SkippedFiles
}

// Admit counts a file of size bytes (name as Skip.Path) that the caller
// copies itself, and reports whether it fits; one that does not is
// recorded as left out.
func (c *Collection) Admit(name string, size int64) bool { return c.admit(name, size, false) }

func (c *Collection) admit(name string, size int64, dir bool) bool {
	if c == nil {
		return true
	}
	c.SeenFiles++
	c.SeenBytes += size
	if dir {
		c.SeenDirs++
	}
	l := c.Limits
	limit := ""
	switch {
	case !dir && l.FileBytes > 0 && size > l.FileBytes:
		limit = LimitFileBytes
	case l.Files > 0 && c.Files >= l.Files:
		limit = LimitFiles
	case !dir && l.Bytes > 0 && size > l.Bytes-c.Bytes:
		limit = LimitBytes
	}
	if limit == "" {
		c.Files++
		c.Bytes += size
		return true
	}
	c.skip(Skip{Path: name, Size: size, Dir: dir, Limit: limit})
	return false
}

func (c *Collection) skip(s Skip) {
	c.SkippedFiles++
	c.SkippedBytes += s.Size
	if len(c.Skipped) < MaxListedSkips {
		c.Skipped = append(c.Skipped, s)
	}
}

// unadmit takes back an admitted file that could not be copied after all
// (it is the copy's error, not a limit's).
func (c *Collection) unadmit(size int64) {
	if c != nil {
		c.Files--
		c.Bytes -= size
	}
}

// CopyTree copies src to dst as the package's CopyTree does, within c's
// limits; name is src as Skip.Path names it (a folder's files are named
// under it).
func (c *Collection) CopyTree(src, dst, name string) error { return copyTree(c, src, dst, name) }

// CopyOut copies rel under root to dst as the package's CopyOut does,
// within c's limits; name is rel as Skip.Path names it.
func (c *Collection) CopyOut(root, rel, dst, name string) error {
	return copyOut(c, root, rel, dst, name)
}

// limitedWriter writes to w what fits in max bytes, and nothing past it:
// the write that would go past is dropped whole, over is set and onOver
// called (to stop whatever writes), and every later write is dropped too,
// all reported written so that the writer's source is not left blocked on
// a pipe. n counts every byte offered.
type limitedWriter struct {
	w      io.Writer
	max, n int64
	over   bool
	onOver func()
}

func (w *limitedWriter) Write(p []byte) (int, error) {
	w.n += int64(len(p))
	if w.over {
		return len(p), nil
	}
	if w.n > w.max {
		w.over = true
		if w.onOver != nil {
			w.onOver()
		}
		return len(p), nil
	}
	return w.w.Write(p)
}

// room is how many bytes one more file may have in c: the least of the
// per-file limit and what the case has left; -1 for no limit.
func (c *Collection) room() int64 {
	if c == nil {
		return -1
	}
	room := int64(-1)
	if c.Limits.FileBytes > 0 {
		room = c.Limits.FileBytes
	}
	if c.Limits.Bytes > 0 && (room < 0 || c.Limits.Bytes-c.Bytes < room) {
		room = max(c.Limits.Bytes-c.Bytes, 0)
	}
	return room
}

// WriteBounded writes what produce writes into the file dst (name as
// Skip.Path names it) within c's limits, for a file the harness makes from
// the case's (a patch) whose size is known only once it is written. The
// writer produce gets drops everything past the limits and calls stop
// (produce's cancel) the moment it is past; dst is then removed and
// recorded as left out, with the size written by then (Skip.AtLeast). It
// reports whether dst was kept; produce's error is returned only for a
// file within the limits.
func (c *Collection) WriteBounded(dst, name string, stop func(), produce func(io.Writer) error) (bool, error) {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return false, err
	}
	f, err := os.OpenFile(dst, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err != nil {
		return false, err
	}
	var w io.Writer = f
	var lw *limitedWriter
	if room := c.room(); room >= 0 {
		lw = &limitedWriter{w: f, max: room, onOver: stop}
		w = lw
	}
	err = produce(w)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if lw != nil && lw.over {
		_ = os.Remove(dst)
		c.SeenFiles++
		c.SeenBytes += lw.n
		limit := LimitBytes
		if c.Limits.FileBytes > 0 && lw.max == c.Limits.FileBytes {
			limit = LimitFileBytes
		}
		c.skip(Skip{Path: name, Size: lw.n, AtLeast: true, Limit: limit})
		return false, nil
	}
	if err != nil {
		_ = os.Remove(dst)
		return false, err
	}
	st, err := os.Stat(dst)
	if err == nil && !c.admit(name, st.Size(), false) {
		err = os.Remove(dst) // past the count of files
		return false, err
	}
	return err == nil, err
}
