package rundir

import (
	"path/filepath"
	"strconv"
)

// AttemptsDir holds the other attempts of a case run more than once (a
// Harbor job with -k N): cases/<id>/attempts/<n>/ for n = 2…N, each in the
// shape of the case folder. The case folder itself is attempt 1, the one
// score judges.
const AttemptsDir = "attempts"

// CaseFolder is one case folder's files: cases/<id>/, or one of its
// attempts.
type CaseFolder struct{ Path string }

// CaseFolder is the folder of case id.
func (d Dir) CaseFolder(id string) CaseFolder { return CaseFolder{d.Case(id)} }

// Attempt is attempt n (2 and up) of case id.
func (d Dir) Attempt(id string, n int) CaseFolder {
	return CaseFolder{filepath.Join(d.Case(id), AttemptsDir, strconv.Itoa(n))}
}

// Result is the folder's run_result.json.
func (f CaseFolder) Result() string { return filepath.Join(f.Path, RunResultFile) }

// Transcript is the folder's transcript.jsonl.
func (f CaseFolder) Transcript() string { return filepath.Join(f.Path, TranscriptFile) }

// Ledger is the folder's hook_decisions.jsonl.
func (f CaseFolder) Ledger() string { return filepath.Join(f.Path, LedgerFile) }

// Stdout is the folder's stdout.log.
func (f CaseFolder) Stdout() string { return filepath.Join(f.Path, StdoutFile) }

// Outputs is the folder's outputs/.
func (f CaseFolder) Outputs() string { return filepath.Join(f.Path, OutputsDir) }

// Modified is the folder's _modified/.
func (f CaseFolder) Modified() string { return filepath.Join(f.Path, ModifiedDir) }

// Step is the folder of one pipeline step.
func (f CaseFolder) Step(step string) CaseFolder {
	return CaseFolder{filepath.Join(f.Path, StepsDir, step)}
}
