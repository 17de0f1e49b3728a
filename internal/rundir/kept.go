package rundir

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// KeptFile is one file a case folder keeps as the agent wrote it: under
// outputs/ or _modified/.
type KeptFile struct {
	// Path is slash-separated and relative to the case folder
	// ("outputs/report.md", "_modified/src/main.go").
	Path   string
	Size   int64
	SHA256 string
}

// KeptFiles lists the files case key (a case id or an AttemptKey) keeps
// under outputs/ and _modified/, sorted by path, each with its content's
// SHA-256. Links and other non-regular files are left out; a case without
// either folder keeps none.
func (d Dir) KeptFiles(key string) ([]KeptFile, error) {
	dir := d.Case(key)
	var out []KeptFile
	for _, sub := range []string{OutputsDir, ModifiedDir} {
		err := filepath.WalkDir(filepath.Join(dir, sub), func(path string, e fs.DirEntry, err error) error {
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					return nil
				}
				return err
			}
			if !e.Type().IsRegular() {
				return nil
			}
			rel, err := filepath.Rel(dir, path)
			if err != nil {
				return err
			}
			size, sum, err := hashFile(path)
			if err != nil {
				return err
			}
			out = append(out, KeptFile{Path: filepath.ToSlash(rel), Size: size, SHA256: sum})
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("list the files %s kept: %w", key, err)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

func hashFile(path string) (int64, string, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, "", err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return 0, "", err
	}
	return n, hex.EncodeToString(h.Sum(nil)), nil
}

// ReadKept reads the kept file rel (a KeptFile's Path) of case key, at
// most limit bytes of it; a longer file is an error. rel must name a file
// under outputs/ or _modified/.
func (d Dir) ReadKept(key, rel string, limit int64) ([]byte, error) {
	clean := filepath.ToSlash(filepath.Clean(filepath.FromSlash(rel)))
	if !strings.HasPrefix(clean, OutputsDir+"/") && !strings.HasPrefix(clean, ModifiedDir+"/") {
		return nil, fmt.Errorf("read %s of %s: not a kept file", rel, key)
	}
	p := filepath.Join(d.Case(key), filepath.FromSlash(clean))
	st, err := os.Lstat(p)
	if err != nil {
		return nil, fmt.Errorf("read %s of %s: %w", rel, key, err)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("read %s of %s: not a regular file", rel, key)
	}
	if st.Size() > limit {
		return nil, fmt.Errorf("read %s of %s: %d bytes, more than %d", rel, key, st.Size(), limit)
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, fmt.Errorf("read %s of %s: %w", rel, key, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("read %s of %s: %w", rel, key, err)
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("read %s of %s: more than %d bytes", rel, key, limit)
	}
	return b, nil
}
