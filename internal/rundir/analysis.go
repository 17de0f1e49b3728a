package rundir

import (
	"fmt"
	"path/filepath"

	"github.com/agent-eval/agent-eval/internal/atomicfile"
)

// AnalysisFile is the run's analysis.md: agent-eval analyze's reading of
// its failed cases.
const AnalysisFile = "analysis.md"

// Analysis is the run's analysis.md.
func (d Dir) Analysis() string { return filepath.Join(d.Path, AnalysisFile) }

// WriteAnalysis writes analysis.md.
func (d Dir) WriteAnalysis(md []byte) error {
	if err := atomicfile.Write(d.Analysis(), md, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", AnalysisFile, err)
	}
	return nil
}
