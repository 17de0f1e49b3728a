package rundir

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// AttemptsDir holds the other attempts of a case run more than once (a
// Harbor job with -k N): cases/<id>/attempts/<n>/ for n = 2…N, each in the
// shape of the case folder. The case folder itself is attempt 1, the one
// score judges.
const AttemptsDir = "attempts"

// AttemptKey names attempt n of case id where the engine keys its work by
// one string: the case id for attempt 1 (or a run without repeats),
// "<id>@<n>" for the others ("@" is never in a case id: ids are safe
// segments).
func AttemptKey(id string, n int) string {
	if n <= 1 {
		return id
	}
	return id + "@" + strconv.Itoa(n)
}

// SplitAttempt is AttemptKey's inverse: the case id and the attempt (1
// for a plain case id).
func SplitAttempt(key string) (id string, n int) {
	id, num, ok := strings.Cut(key, "@")
	if !ok {
		return key, 1
	}
	n, err := strconv.Atoi(num)
	if err != nil || n < 2 {
		return key, 1
	}
	return id, n
}

// AttemptKeys lists every attempt of ids, attempt-major (every case's
// first attempt, then every case's second, …): a run interrupted early
// has one attempt of as many cases as it could.
func AttemptKeys(ids []string, repeats int) []string {
	out := make([]string, 0, len(ids)*max(repeats, 1))
	for n := 1; n <= max(repeats, 1); n++ {
		for _, id := range ids {
			out = append(out, AttemptKey(id, n))
		}
	}
	return out
}

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

// Repeats is how many attempts each case of the run has (1 and up), as
// selection.json records them; 1 for a run without.
func (d Dir) Repeats() int {
	_, n, err := d.Selection()
	if err != nil {
		return 1
	}
	return n
}

// HasCase reports whether the run has a folder for key (a case id or an
// AttemptKey).
func (d Dir) HasCase(key string) bool {
	st, err := os.Lstat(d.Case(key))
	return err == nil && st.IsDir()
}

// Input is the folder's copy of the case's input file (input.yaml, or
// the input.yml or input.json it had); input.yaml's path when it has none.
func (f CaseFolder) Input() string {
	for _, name := range []string{"input.yaml", "input.yml", "input.json"} {
		p := filepath.Join(f.Path, name)
		if st, err := os.Lstat(p); err == nil && st.Mode().IsRegular() {
			return p
		}
	}
	return filepath.Join(f.Path, "input.yaml")
}
