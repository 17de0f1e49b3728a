package rundir

import "path/filepath"

// CaseStdout is a case's raw agent stream (stream-json for claude-code),
// which judges fall back on when the case has no transcript.jsonl.
func (d Dir) CaseStdout(id string) string { return filepath.Join(d.Case(id), StdoutFile) }
