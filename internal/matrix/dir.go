package matrix

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/agent-eval/agent-eval/internal/atomicfile"
	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/rundir"
)

// The matrix folder's files and folders.
const (
	IndexFile  = "matrix.json" // the index of the cells
	CellsDir   = "cells"       // cells/<cell>/: each cell's run directory
	ReportYAML = "matrix.yaml" // matrix report: the ANOVA tables and the Pareto fronts
	ReportHTML = "matrix.html" // the same, with a cost-versus-score scatter
	// FolderPrefix begins a matrix folder's name under the eval's runs
	// directory: <runs dir>/<eval name>/matrix-<id>/.
	FolderPrefix = "matrix-"
)

// IndexVersion is the version of matrix.json.
const IndexVersion = 1

// Dir is a matrix folder.
type Dir struct{ Path string }

// Folder is the matrix id's folder under the eval's runs directory.
func Folder(runsDir, id string) Dir { return Dir{Path: filepath.Join(runsDir, FolderPrefix+id)} }

// Index is matrix.json's path.
func (d Dir) Index() string { return filepath.Join(d.Path, IndexFile) }

// Cells is the folder holding the cells' run directories.
func (d Dir) Cells() string { return filepath.Join(d.Path, CellsDir) }

// Cell is a cell's run directory.
func (d Dir) Cell(name string) rundir.Dir { return rundir.Dir{Path: filepath.Join(d.Cells(), name)} }

// ReportYAML is matrix.yaml's path; ReportHTML matrix.html's.
func (d Dir) ReportYAML() string { return filepath.Join(d.Path, ReportYAML) }

// ReportHTML is matrix.html's path.
func (d Dir) ReportHTML() string { return filepath.Join(d.Path, ReportHTML) }

// Index is matrix.json: what the matrix runs and where each cell's run
// directory is.
type Index struct {
	Version   int    `json:"version"`
	ID        string `json:"id"`
	EvalName  string `json:"eval_name"`
	CreatedAt string `json:"created_at"` // RFC 3339
	// Factors are the factors in name order, each with its levels in the
	// file's order.
	Factors      []Factor    `json:"factors"`
	Replications int         `json:"replications"`
	Cells        []IndexCell `json:"cells"`
}

// Factor is one factor and its levels, as text.
type Factor struct {
	Name   string   `json:"name"`
	Levels []string `json:"levels"`
}

// IndexCell is one cell in the index.
type IndexCell struct {
	Name        string  `json:"name"`
	Combination int     `json:"combination"`
	Levels      []Level `json:"levels"`
	Replication int     `json:"replication"`
	// RunDir is the cell's run directory, relative to the matrix folder.
	RunDir string `json:"run_dir"`
}

// NewIndex is the index of m's cells for the eval named evalName.
func NewIndex(id, evalName string, m *config.Matrix, now time.Time) Index {
	ix := Index{Version: IndexVersion, ID: id, EvalName: evalName, CreatedAt: now.UTC().Format(time.RFC3339), Replications: Replications(m)}
	for _, name := range m.FactorNames() {
		f := Factor{Name: name}
		for _, v := range m.Factors[name] {
			f.Levels = append(f.Levels, LevelText(name, v))
		}
		ix.Factors = append(ix.Factors, f)
	}
	for _, c := range Expand(m) {
		ix.Cells = append(ix.Cells, IndexCell{Name: c.Name, Combination: c.Combination, Levels: c.Levels,
			Replication: c.Replication, RunDir: filepath.ToSlash(filepath.Join(CellsDir, c.Name))})
	}
	return ix
}

// Cell is the index cell as a Cell.
func (c IndexCell) Cell() Cell {
	return Cell{Name: c.Name, Combination: c.Combination, Levels: c.Levels, Replication: c.Replication}
}

// FactorNames are the index's factor names, in order.
func (ix Index) FactorNames() []string {
	out := make([]string, len(ix.Factors))
	for i, f := range ix.Factors {
		out[i] = f.Name
	}
	return out
}

// ErrNoIndex is returned by ReadIndex for a folder without matrix.json.
var ErrNoIndex = errors.New("not a matrix folder (no " + IndexFile + ")")

// WriteIndex writes ix as d's matrix.json.
func (d Dir) WriteIndex(ix Index) error {
	b, err := json.MarshalIndent(ix, "", "  ")
	if err != nil {
		return fmt.Errorf("encode %s: %w", IndexFile, err)
	}
	if err := os.MkdirAll(d.Path, 0o755); err != nil {
		return fmt.Errorf("create the matrix folder: %w", err)
	}
	if err := atomicfile.Write(d.Index(), append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", d.Index(), err)
	}
	return nil
}

// ReadIndex reads d's matrix.json, checking its cells' names are safe
// folder names.
func (d Dir) ReadIndex() (Index, error) {
	var ix Index
	b, err := os.ReadFile(d.Index())
	if errors.Is(err, fs.ErrNotExist) {
		return ix, fmt.Errorf("%s: %w", d.Path, ErrNoIndex)
	}
	if err != nil {
		return ix, fmt.Errorf("read %s: %w", d.Index(), err)
	}
	if err := json.Unmarshal(b, &ix); err != nil {
		return ix, fmt.Errorf("%s: %w", d.Index(), err)
	}
	if ix.Version > IndexVersion {
		return ix, fmt.Errorf("%s: version %d is newer than this agent-eval reads (%d)", d.Index(), ix.Version, IndexVersion)
	}
	for _, c := range ix.Cells {
		if !rundir.SafeSegment(c.Name) || filepath.ToSlash(filepath.Join(CellsDir, c.Name)) != c.RunDir {
			return ix, fmt.Errorf("%s: cell %q is not a safe folder name under %s/", d.Index(), c.Name, CellsDir)
		}
	}
	return ix, nil
}

// State is how far a cell has got.
type State string

// The cells' states.
const (
	StatePending  State = "pending"    // not started
	StateRunning  State = "running"    // a run holds its lock
	StateUnfinish State = "unfinished" // started, interrupted or cut short: resume runs the rest
	StateFinished State = "finished"   // every case ran, not scored
	StateScored   State = "scored"     // summary.yaml written
)

// CellState reads a cell's state from its run directory.
func (d Dir) CellState(name string) State {
	rd := d.Cell(name)
	if _, err := os.Stat(rd.Path); err != nil {
		return StatePending
	}
	if rd.Running() {
		return StateRunning
	}
	r, err := rd.ReadRun()
	if err != nil || r.Interrupted {
		return StateUnfinish
	}
	if _, err := os.Stat(rd.Summary()); err == nil {
		return StateScored
	}
	return StateFinished
}
