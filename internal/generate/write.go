package generate

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"

	yaml "go.yaml.in/yaml/v3"

	"github.com/agent-eval/agent-eval/internal/lazyre"
	"github.com/agent-eval/agent-eval/internal/rundir"
)

// Statuses of a case in Write's outcome.
const (
	Written    = "written"
	WouldWrite = "would-write"
	Skipped    = "skipped"
	Invalid    = "invalid"
)

// Outcome is what Write did with one case.
type Outcome struct {
	Case   `yaml:",inline"`
	Status string `json:"status" yaml:"status"`
	// Reason says why a case was skipped, renamed or not valid.
	Reason string `json:"reason,omitempty" yaml:"reason,omitempty"`
}

// WriteOptions configure Write.
type WriteOptions struct {
	// DryRun validates every case in a scratch folder and writes nothing
	// into the dataset.
	DryRun bool
	// Validate checks the case folder root/id as validate checks a case
	// of the dataset and returns its problems (none: valid).
	Validate func(root, id string) []string
	// Progress gets a line per case skipped, renamed or invalid.
	Progress io.Writer
}

// Write writes cases into dir, one folder each (input.yaml,
// annotations.yaml and the case's files). A case is first written whole
// into a hidden scratch folder beside the dataset and validated there; an
// invalid one is left out, a valid one moved into place in one rename that
// never replaces a folder already there. A case whose id is taken is
// skipped (KeepExisting) or renamed to the next free id.
func Write(dir string, cases []Case, opts WriteOptions) ([]Outcome, error) {
	taken := map[string]bool{}
	if entries, err := os.ReadDir(dir); err == nil {
		for _, en := range entries {
			taken[en.Name()] = true
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("read the dataset %s: %w", dir, err)
	}
	scratchParent := dir
	if opts.DryRun {
		scratchParent = ""
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create the dataset %s: %w", dir, err)
	}
	out := make([]Outcome, 0, len(cases))
	for _, c := range cases {
		o := Outcome{Case: c}
		if !rundir.SafeSegment(c.ID) {
			o.Status, o.Reason = Invalid, fmt.Sprintf("%q is not a safe case folder name", c.ID)
			note(opts.Progress, o)
			out = append(out, o)
			continue
		}
		if taken[c.ID] {
			if c.KeepExisting {
				o.Status, o.Reason = Skipped, "a case "+c.ID+" is already in the dataset"
				note(opts.Progress, o)
				out = append(out, o)
				continue
			}
			o.ID = freeID(c.ID, taken)
			o.Reason = "renamed from " + c.ID + ", which is already in the dataset"
			note(opts.Progress, o)
		}
		status, reason, err := writeOne(scratchParent, dir, o.Case, opts)
		if err != nil {
			return out, err
		}
		o.Status = status
		if reason != "" {
			o.Reason = reason
			note(opts.Progress, o)
		}
		if status != Invalid {
			taken[o.ID] = true
		}
		out = append(out, o)
	}
	return out, nil
}

func note(w io.Writer, o Outcome) {
	switch {
	case o.Status == Skipped:
		progressf(w, "case %s skipped: %s", o.ID, o.Reason)
	case o.Status == Invalid:
		progressf(w, "case %s not written, it is not valid: %s", o.ID, o.Reason)
	case o.Reason != "":
		progressf(w, "case %s %s", o.ID, o.Reason)
	}
}

var numbered = lazyre.New(`^(.*)-([0-9]+)$`)

// freeID is the next id after id that is not taken: prefix-NNN numbered
// on past the highest taken number, else id-2, id-3, ...
func freeID(id string, taken map[string]bool) string {
	prefix, width, n := id, 0, 1
	if m := numbered().FindStringSubmatch(id); m != nil {
		prefix, width = m[1], len(m[2])
		n, _ = strconv.Atoi(m[2])
	}
	for t := range taken {
		if m := numbered().FindStringSubmatch(t); m != nil && m[1] == prefix {
			if k, err := strconv.Atoi(m[2]); err == nil && k > n {
				n = k
			}
		}
	}
	for {
		n++
		cand := fmt.Sprintf("%s-%0*d", prefix, width, n)
		if !taken[cand] {
			return cand
		}
	}
}

// writeOne writes c into a scratch folder under scratchParent (the
// system's temporary folder when ""), validates it, and unless dry-run
// moves it to dir/c.ID.
func writeOne(scratchParent, dir string, c Case, opts WriteOptions) (status, reason string, err error) {
	root, err := os.MkdirTemp(scratchParent, ".generate-")
	if err != nil {
		return "", "", fmt.Errorf("create a scratch folder for case %s: %w", c.ID, err)
	}
	defer os.RemoveAll(root)
	caseDir := filepath.Join(root, c.ID)
	if problem, err := stage(caseDir, c); err != nil {
		return "", "", fmt.Errorf("write case %s: %w", c.ID, err)
	} else if problem != "" {
		return Invalid, problem, nil
	}
	if opts.Validate != nil {
		if problems := opts.Validate(root, c.ID); len(problems) > 0 {
			return Invalid, strings.Join(problems, "; "), nil
		}
	}
	if opts.DryRun {
		return WouldWrite, "", nil
	}
	if err := renameNoReplace(caseDir, filepath.Join(dir, c.ID)); err != nil {
		if errors.Is(err, os.ErrExist) {
			return Skipped, "a case " + c.ID + " appeared in the dataset meanwhile", nil
		}
		return "", "", fmt.Errorf("move case %s into %s: %w", c.ID, dir, err)
	}
	return Written, "", nil
}

// stage writes c's files into caseDir; problem says why c cannot be a
// case folder (a file path that leaves it).
func stage(caseDir string, c Case) (problem string, err error) {
	if err := os.Mkdir(caseDir, 0o755); err != nil {
		return "", err
	}
	files := map[string][]byte{}
	in, err := yaml.Marshal(c.Input)
	if err != nil {
		return "", fmt.Errorf("input.yaml: %w", err)
	}
	files["input.yaml"] = in
	if len(c.Annotations) > 0 {
		a, err := yaml.Marshal(c.Annotations)
		if err != nil {
			return "", fmt.Errorf("annotations.yaml: %w", err)
		}
		files["annotations.yaml"] = a
	}
	for p, body := range c.Files {
		rel := filepath.FromSlash(p)
		if !filepath.IsLocal(rel) {
			return fmt.Sprintf("file %q is not a path inside the case folder", p), nil
		}
		if _, dup := files[rel]; dup {
			return fmt.Sprintf("file %q is written twice", p), nil
		}
		files[rel] = []byte(body)
	}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		p := filepath.Join(caseDir, n)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(p, files[n], 0o644); err != nil {
			return "", err
		}
	}
	return "", nil
}

// renameNoReplace moves from to to, failing with os.ErrExist when to
// exists. A folder that appears in between is not replaced either:
// rename(2) refuses to replace a folder that is not empty, and an empty
// one holds no case.
func renameNoReplace(from, to string) error {
	if _, err := os.Lstat(to); err == nil {
		return os.ErrExist
	}
	err := os.Rename(from, to)
	if errors.Is(err, syscall.ENOTEMPTY) || errors.Is(err, syscall.EEXIST) {
		return os.ErrExist
	}
	return err
}
