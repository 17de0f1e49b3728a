package permissions

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/agent-eval/agent-eval/internal/atomicfile"
)

// CursorConfigPath is where Cursor reads a workspace's permissions.
const CursorConfigPath = ".cursor/cli.json"

// ReadCursorConfig reads the workspace's existing cli.json (nil when there is
// none). It never follows a symlink: a symlinked .cursor or cli.json, a
// non-regular or hard-linked cli.json, or one that is not a JSON object is an
// error.
func ReadCursorConfig(ws string) (map[string]any, error) {
	if err := CheckCursorDir(ws); err != nil {
		return nil, err
	}
	b, _, err := ReadRegular(filepath.Join(ws, CursorConfigPath))
	if err != nil || b == nil {
		return nil, err
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil || doc == nil {
		return nil, fmt.Errorf("%s is not a JSON object", CursorConfigPath)
	}
	return doc, nil
}

// WriteCursorConfig writes doc as the workspace's cli.json, atomically, and
// returns a function that restores what was there before: the original
// bytes and mode, or no file (and no .cursor directory if it created one).
func WriteCursorConfig(ws string, doc map[string]any) (restore func() error, err error) {
	if err := CheckCursorDir(ws); err != nil {
		return nil, err
	}
	dir := filepath.Join(ws, ".cursor")
	created := false
	if _, err := os.Lstat(dir); errors.Is(err, fs.ErrNotExist) {
		if err := os.Mkdir(dir, 0o755); err != nil {
			return nil, err
		}
		created = true
	}
	path := filepath.Join(ws, CursorConfigPath)
	orig, mode, err := ReadRegular(path)
	if err != nil {
		return nil, err
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, err
	}
	newMode := fs.FileMode(0o644)
	if orig != nil {
		newMode = mode
	}
	if err := atomicfile.Write(path, append(b, '\n'), newMode); err != nil {
		return nil, err
	}
	return func() error {
		if err := CheckCursorDir(ws); err != nil {
			return fmt.Errorf("restore %s: %w", CursorConfigPath, err)
		}
		if orig != nil {
			return atomicfile.Write(path, orig, mode)
		}
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		if created {
			_ = os.Remove(dir) // only if empty
		}
		return nil
	}, nil
}

// CheckCursorDir refuses a workspace whose .cursor is a link or not a
// directory (none at all is fine): what is written into it or restored
// there is never written through a link the agent made.
func CheckCursorDir(ws string) error {
	st, err := os.Lstat(filepath.Join(ws, ".cursor"))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	case st.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("refusing %s: .cursor is a symlink", filepath.Join(ws, ".cursor"))
	case !st.IsDir():
		return fmt.Errorf("refusing %s: .cursor is not a directory", filepath.Join(ws, ".cursor"))
	}
	return nil
}

// ReadRegular reads a file that must be a regular, single-link file; it
// returns nil bytes when there is no file.
func ReadRegular(path string) ([]byte, fs.FileMode, error) {
	st, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, 0, nil
	case err != nil:
		return nil, 0, err
	case st.Mode()&fs.ModeSymlink != 0, !st.Mode().IsRegular():
		return nil, 0, fmt.Errorf("refusing %s: not a regular file", path)
	case linkCount(st) > 1:
		return nil, 0, fmt.Errorf("refusing %s: it has %d hard links", path, linkCount(st))
	}
	b, err := os.ReadFile(path)
	return b, st.Mode().Perm(), err
}
