package rundir

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/agent-eval/agent-eval/internal/atomicfile"
	"github.com/agent-eval/agent-eval/internal/redact"
)

// SecretMarksFile says where the run's known secrets occur in the files a
// case keeps as the agent wrote them (outputs/, _modified/), so that what
// reads the run later (score, report), in another environment maybe, can
// hide them without the run directory holding any secret, or anything
// derived from one, that those files do not already hold.
//
// Why marks and not the secrets' hashes: a salted hash lets whoever holds
// the run directory confirm a guessed password offline; the marks only
// point into files that are there anyway. Why not redact the files: the
// judges must see what the agent wrote, or the verdict would change.
const SecretMarksFile = "secret_marks.json"

// maxMarkedFile: larger files are not searched (nor inlined by the report).
const maxMarkedFile = 64 << 20

// SecretMarks is the content of SecretMarksFile.
type SecretMarks struct {
	Files []MarkedFile `json:"files"`
}

// MarkedFile is one file that holds known secrets: its path (slash
// separated, relative to the folder of the marks) or, when the path itself
// holds a secret, the path's SHA-256; the file's SHA-256 when marked; the
// [start, end) byte ranges of the secrets in it and in its path.
type MarkedFile struct {
	Path       string   `json:"path,omitempty"`
	PathSHA256 string   `json:"path_sha256,omitempty"`
	SHA256     string   `json:"sha256"`
	Spans      [][2]int `json:"spans,omitempty"`
	NameSpans  [][2]int `json:"name_spans,omitempty"`
}

// MarkSecrets searches the files the case folder dir keeps as written
// (outputs/, _modified/) with find (the run's redactor's Find) and writes
// SecretMarksFile, or removes it when no file holds a secret.
func MarkSecrets(dir string, find func([]byte) [][2]int) error {
	var marks SecretMarks
	for _, sub := range []string{OutputsDir, ModifiedDir} {
		root := filepath.Join(dir, sub)
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					return nil
				}
				return err
			}
			if !d.Type().IsRegular() {
				return nil
			}
			if fi, err := d.Info(); err != nil || fi.Size() > maxMarkedFile {
				return err
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			rel, err := filepath.Rel(dir, path)
			if err != nil {
				return err
			}
			rel = filepath.ToSlash(rel)
			spans, names := find(b), find([]byte(rel))
			if len(spans)+len(names) == 0 {
				return nil
			}
			sum := sha256.Sum256(b)
			m := MarkedFile{Path: rel, SHA256: hex.EncodeToString(sum[:]), Spans: spans, NameSpans: names}
			if len(names) > 0 {
				m.Path, m.PathSHA256 = "", hashHex(rel)
			}
			marks.Files = append(marks.Files, m)
			return nil
		})
		if err != nil {
			return fmt.Errorf("mark the secrets in %s: %w", sub, err)
		}
	}
	path := filepath.Join(dir, SecretMarksFile)
	if len(marks.Files) == 0 {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("mark the secrets: %w", err)
		}
		return nil
	}
	b, err := json.MarshalIndent(marks, "", "  ")
	if err != nil {
		return fmt.Errorf("mark the secrets: %w", err)
	}
	return atomicfile.Write(path, append(b, '\n'), 0o644)
}

func hashHex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// keptFiles are the slash-separated paths of the files under dir's
// outputs/ and _modified/, by their SHA-256. A folder it cannot list is an
// error: a file it would miss keeps its secret name unredacted.
func keptFiles(dir string) (map[string]string, error) {
	out := map[string]string{}
	for _, sub := range []string{OutputsDir, ModifiedDir} {
		err := filepath.WalkDir(filepath.Join(dir, sub), func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					return nil
				}
				return err
			}
			if d.Type().IsRegular() {
				if rel, err := filepath.Rel(dir, path); err == nil {
					out[hashHex(filepath.ToSlash(rel))] = filepath.ToSlash(rel)
				}
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("list the kept files of %s: %w", dir, err)
		}
	}
	return out, nil
}

// Redactor is what a reader of the run hides: the secrets of environ
// (KEY=VALUE strings, os.Environ's) and those the run marked
// (KnownSecrets). changed and err are KnownSecrets'; red hides what was
// found all the same.
func (d Dir) Redactor(environ []string) (red *redact.Redactor, changed []string, err error) {
	red = redact.FromEnviron(environ)
	changed, err = d.HideSecrets(red)
	return red, changed, err
}

// HideSecrets makes red hide the secrets the run marked (KnownSecrets):
// those found even when not all of them could be.
func (d Dir) HideSecrets(red *redact.Redactor) (changed []string, err error) {
	vals, changed, err := d.KnownSecrets()
	red.LearnValues(vals...)
	return changed, err
}

// KnownSecrets reads the secret marks of the run (its cases' and a batch's)
// and returns the secrets they point at, for a redactor to hide, and the
// marked files that changed since the run (their secrets cannot be found
// any more: a reader shows them only redacted by the patterns, or not at
// all), relative to the run directory. A folder of kept files it cannot
// list is an error returned with the secrets it did find: a reader that
// shows the run anyway hides those.
func (d Dir) KnownSecrets() (values, changed []string, err error) {
	dirs := []string{d.Path}
	ids, err := d.CaseIDs()
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, nil, err
	}
	for _, id := range ids {
		dirs = append(dirs, d.Case(id))
	}
	seen := map[string]bool{}
	var listErrs []error
	for _, dir := range dirs {
		b, err := os.ReadFile(filepath.Join(dir, SecretMarksFile))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, nil, fmt.Errorf("read the secret marks: %w", err)
		}
		var marks SecretMarks
		if err := json.Unmarshal(b, &marks); err != nil {
			return nil, nil, fmt.Errorf("read %s: %w", filepath.Join(dir, SecretMarksFile), err)
		}
		var byHash map[string]string
		for _, f := range marks.Files {
			if f.Path == "" {
				if byHash == nil {
					if byHash, err = keptFiles(dir); err != nil {
						listErrs = append(listErrs, fmt.Errorf("find the files the secret marks name: %w", err))
						byHash = map[string]string{} // listed once
					}
				}
				f.Path = byHash[f.PathSHA256]
				if f.Path == "" {
					continue // renamed or removed: its name is not shown
				}
			}
			rel, _ := filepath.Rel(d.Path, filepath.Join(dir, filepath.FromSlash(f.Path)))
			var found []string
			for _, s := range f.NameSpans {
				if s[0] >= 0 && s[0] < s[1] && s[1] <= len(f.Path) {
					found = append(found, f.Path[s[0]:s[1]])
				}
			}
			body, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f.Path)))
			if sum := sha256.Sum256(body); err != nil || hex.EncodeToString(sum[:]) != f.SHA256 {
				changed = append(changed, filepath.ToSlash(rel))
			} else {
				for _, s := range f.Spans {
					if s[0] >= 0 && s[0] < s[1] && s[1] <= len(body) {
						found = append(found, string(body[s[0]:s[1]]))
					}
				}
			}
			for _, v := range found {
				forms := []string{v}
				// A secret marked in its JSON-escaped form is also hidden
				// decoded (a rationale quoting it).
				if strings.Contains(v, `\`) {
					if u, err := strconv.Unquote(`"` + v + `"`); err == nil {
						forms = append(forms, u)
					}
				}
				for _, x := range forms {
					if !seen[x] {
						seen[x] = true
						values = append(values, x)
					}
				}
			}
		}
	}
	sort.Strings(values)
	return values, changed, errors.Join(listErrs...)
}
