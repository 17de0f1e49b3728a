package rundir

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/agent-eval/agent-eval/internal/atomicfile"
	"github.com/agent-eval/agent-eval/internal/transcript"
)

// A batch run (execution.mode: batch) is one agent run for every case: its
// transcript, streams, ledger and outputs are at the run's root
// (<run>/transcript.jsonl, <run>/outputs/…). Collection then gives each
// case a folder judges read like a case-mode one:
//
//	<run>/batch_outputs.json        which output file went to which case
//	<run>/cases/<id>/run_result.json  the batch's result, under the case's id
//	<run>/cases/<id>/outputs/       the files assigned to the case
//
// The case's transcript and ledger are the batch's (BatchTranscript).
const BatchOutputsFile = "batch_outputs.json"

// BatchAssignment is batch_outputs.json: how a batch run's output files
// were assigned to cases. File names are relative to the outputs folder
// (outputs[].path/…), with forward slashes.
type BatchAssignment struct {
	// Unit: no output has a batch_pattern, so the batch is judged as one
	// case, named by UnitID, holding every output.
	Unit   bool   `json:"unit,omitempty"`
	UnitID string `json:"unit_id,omitempty"`
	// Outputs are the eval's output paths and their patterns.
	Outputs []BatchOutput `json:"outputs"`
	// Cases maps each judged case to its files (shared ones included), in
	// case_order.yaml's order in Order.
	Cases map[string][]string `json:"cases"`
	Order []string            `json:"order"`
	// Shared are the files every case got (batch_pattern "*", or an output
	// without a pattern beside outputs with one): the report shows them
	// once.
	Shared []string `json:"shared,omitempty"`
	// Unassigned are files no case's prefix matched: kept in the run's
	// outputs folder and reported, not judged.
	Unassigned []string `json:"unassigned,omitempty"`
	// Refused are names that would leave a case's folder; never copied.
	Refused []string `json:"refused,omitempty"`
}

// BatchOutput is one output path of a batch run and its batch_pattern.
type BatchOutput struct {
	Path    string `json:"path"`
	Pattern string `json:"batch_pattern,omitempty"`
}

// BatchOutputs is batch_outputs.json.
func (d Dir) BatchOutputs() string { return filepath.Join(d.Path, BatchOutputsFile) }

// RootOutputs is the folder of a batch run's collected outputs.
func (d Dir) RootOutputs() string { return filepath.Join(d.Path, OutputsDir) }

// BatchTranscript is a batch run's transcript.jsonl.
func (d Dir) BatchTranscript() string { return filepath.Join(d.Path, TranscriptFile) }

// WriteBatchAssignment writes batch_outputs.json.
func (d Dir) WriteBatchAssignment(a *BatchAssignment) error {
	b, err := json.MarshalIndent(a, "", "  ")
	if err != nil {
		return fmt.Errorf("encode %s: %w", BatchOutputsFile, err)
	}
	if err := atomicfile.Write(d.BatchOutputs(), append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", BatchOutputsFile, err)
	}
	return nil
}

// ReadBatchAssignment reads batch_outputs.json; nil when the run is not a
// batch run (or predates the file).
func (d Dir) ReadBatchAssignment() (*BatchAssignment, error) {
	var a BatchAssignment
	err := readJSON(d.BatchOutputs(), &a)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &a, nil
}

// InBatch reports whether case id is one of the assignment's cases.
func (a *BatchAssignment) InBatch(id string) bool {
	if a == nil {
		return false
	}
	_, ok := a.Cases[id]
	return ok
}

// ReadBatchTranscript reads a batch run's transcript (none: no events).
func (d Dir) ReadBatchTranscript() ([]transcript.Event, error) {
	return readTranscript(d.BatchTranscript(), "the batch")
}

// ReadBatchLedger reads a batch run's hook ledger.
func (d Dir) ReadBatchLedger() ([]Decision, error) {
	return readLedger(filepath.Join(d.Path, LedgerFile), "the batch")
}
