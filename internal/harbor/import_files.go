package harbor

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/agent-eval/agent-eval/internal/redact"
)

// A trial folder is untrusted input: the agent ran where its agent/ and
// verifier/ folders were mounted, and may have left links, FIFOs or names
// meant to escape. Everything import reads from it goes through here: each
// component below the root must be a real folder, the file a regular one,
// opened without following a link and without blocking.

// errNotRegular marks a path that is a link, a FIFO, a device or a folder
// where a file should be.
var errNotRegular = errors.New("not a regular file")

// checkedPath joins rel onto root after refusing a rel that is absolute or
// climbs out (".."), and any component below root that is a symbolic link.
// A path that does not exist returns an error wrapping fs.ErrNotExist.
func checkedPath(root, rel string) (string, error) {
	if filepath.IsAbs(rel) || !filepath.IsLocal(rel) {
		return "", fmt.Errorf("%q: a path that escapes %s", rel, root)
	}
	p := root
	for _, part := range strings.Split(filepath.Clean(rel), string(filepath.Separator)) {
		p = filepath.Join(p, part)
		fi, err := os.Lstat(p)
		if err != nil {
			return "", err
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			return "", fmt.Errorf("%s: a symbolic link: %w", p, errNotRegular)
		}
	}
	return p, nil
}

// openUntrusted opens root/rel for reading when it is a regular file.
func openUntrusted(root, rel string) (*os.File, error) {
	p, err := checkedPath(root, rel)
	if err != nil {
		return nil, err
	}
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		_ = f.Close()
		return nil, fmt.Errorf("%s: %w", p, errNotRegular)
	}
	return f, nil
}

// readUntrusted reads root/rel, a regular file of at most limit bytes.
func readUntrusted(root, rel string, limit int64) ([]byte, error) {
	f, err := openUntrusted(root, rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", f.Name(), err)
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%s: larger than %d bytes", f.Name(), limit)
	}
	return b, nil
}

// copyUntrusted copies the regular file root/rel to dst, redacted line by
// line when red is not nil.
func copyUntrusted(root, rel, dst string, red *redact.Redactor) error {
	f, err := openUntrusted(root, rel)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	var w io.WriteCloser = out
	if red != nil {
		w = red.JSONWriter(out)
	}
	if _, err := io.Copy(w, f); err != nil {
		_ = out.Close()
		return fmt.Errorf("copy %s: %w", f.Name(), err)
	}
	if red != nil {
		if err := w.Close(); err != nil {
			_ = out.Close()
			return fmt.Errorf("copy %s: %w", f.Name(), err)
		}
	}
	return out.Close()
}

// copyTreeUntrusted copies the regular files under root/rel to dst, keeping
// their relative paths, and returns them (slash-separated, sorted, relative
// to root/rel) and what it refused: links, FIFOs and other non-files, named
// relative to root. A rel that does not exist copies nothing.
func copyTreeUntrusted(root, rel, dst string) (copied, refused []string, err error) {
	src, err := checkedPath(root, rel)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, []string{rel + " (" + reason(err) + ")"}, nil
	}
	fi, err := os.Lstat(src)
	if err != nil {
		return nil, nil, err
	}
	if !fi.IsDir() {
		return nil, []string{rel + " (not a folder)"}, nil
	}
	err = filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		sub, _ := filepath.Rel(src, p)
		name := filepath.ToSlash(filepath.Join(rel, sub))
		switch {
		case d.IsDir():
			return nil
		case !d.Type().IsRegular():
			refused = append(refused, name+" (not a regular file)")
			return nil
		}
		if err := copyUntrusted(root, filepath.Join(rel, sub), filepath.Join(dst, sub), nil); err != nil {
			if errors.Is(err, errNotRegular) {
				refused = append(refused, name+" (not a regular file)")
				return nil
			}
			return err
		}
		copied = append(copied, filepath.ToSlash(sub))
		return nil
	})
	if err != nil {
		return copied, refused, fmt.Errorf("copy %s: %w", src, err)
	}
	return copied, refused, nil
}

func reason(err error) string {
	if errors.Is(err, errNotRegular) {
		return "a symbolic link"
	}
	return err.Error()
}
