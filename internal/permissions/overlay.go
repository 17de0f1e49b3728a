package permissions

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// WriteSettingsFile writes a generated settings document (PermissionsFile or
// OverlayFile) into dir with mode 0600 and returns its path and a remove
// function the caller must call on every exit path. It never writes through
// a symlink: a symlink, a non-regular file or a file with more than one link
// in its place is refused; a stale regular file from an earlier run is
// replaced. The file is created exclusively, so a concurrent writer fails
// instead of being overwritten.
func WriteSettingsFile(dir, name string, settings map[string]any) (path string, remove func() error, err error) {
	path = filepath.Join(dir, name)
	b, err := json.MarshalIndent(settings, "", "  ")
	if err != nil {
		return "", nil, fmt.Errorf("encode %s: %w", name, err)
	}
	st, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return "", nil, fmt.Errorf("check %s: %w", path, err)
	case st.Mode()&fs.ModeSymlink != 0:
		return "", nil, fmt.Errorf("refusing to write %s: it is a symlink", path)
	case !st.Mode().IsRegular():
		return "", nil, fmt.Errorf("refusing to write %s: it is not a regular file", path)
	case linkCount(st) > 1:
		return "", nil, fmt.Errorf("refusing to write %s: it has %d hard links", path, linkCount(st))
	default:
		if err := os.Remove(path); err != nil {
			return "", nil, fmt.Errorf("remove stale %s: %w", path, err)
		}
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return "", nil, fmt.Errorf("create %s: %w", path, err)
	}
	remove = func() error {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}
	// The mode is set again on the open file: the umask only narrows it, but
	// the file must be exactly 0600 whatever the umask.
	werr := f.Chmod(0o600)
	if werr == nil {
		_, werr = f.Write(append(b, '\n'))
	}
	if err := errors.Join(werr, f.Close()); err != nil {
		_ = remove()
		return "", nil, fmt.Errorf("write %s: %w", path, err)
	}
	return path, remove, nil
}

func linkCount(st fs.FileInfo) uint64 {
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		return uint64(s.Nlink)
	}
	return 1
}
