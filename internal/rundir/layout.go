package rundir

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// LayoutVersion is the version of the run directory's layout: its files and
// folders (the constants of this package) and the fields of run_result.json
// (results.RunResult and results.Case). A change to any of them bumps it, and
// testdata/layout.golden pins them with it (TestLayoutVersion). A run
// records it in run_result.json's layout_version; a run without one was
// written by an agent-eval before layout 2.
//
// Layout history: 1, the first (no layout_version, no config/); 2, the run
// records what it ran (config/, started_at, models, project, ...) and the
// cases it was made with (selection.json), compare writes compare.html, and
// a batch run records how its outputs went to its cases (batch_outputs.json);
// 3, a run imported from a Harbor job (agent-eval harbor import): a case's
// other attempts in cases/<id>/attempts/<n>/, its trial under "harbor", the
// status infra_error (before the agent started; a verifier that failed
// after is the trial's verifier_error), and the run's harbor_job_dir and
// infra_errors; 4, a case's ungated (the hook was wired and never ran) and
// the ledger's canary lines (hook --canary), a permission denial's
// reason (the runner's own words, where it gives them), and repeats: a
// case's attempt, the run's repeats (and selection.json's), attempt n ≥ 2
// of a local run in cases/<id>/attempts/<n>/ as Harbor's, and a case's
// retries (infrastructure errors run again; infra_error in a local run);
// 5, a case's over_limit (the files it left past execution.limits, not
// collected); 6, the run's boundary (the world the harness drew for the
// agents, or why none) and a case's boundary_refused (hosts its proxy
// refused); 7, a case's events.json (traces.events), the run's
// analysis.md (agent-eval analyze), review.yaml (a person's verdicts,
// agent-eval review) and an agent judge's own runs, kept by score under
// judges/<judge>/<case>/ (each a run directory of its own); 8, a case's
// violations (what its agent tried that its world refused, counted by
// kind and listed) and over_quota (the boundary stopped it for its
// files), and the run's violations (their totals);
// cassette.yaml (its model conversation, run --record), the status
// diverged with a case's divergence and divergence.txt (run --replay); 9,
// a refused host's cli_host (one the agent CLI contacts on its own) and
// the violations' cli_traffic (its refusals, listed as kind cli_traffic
// and not counted).
const LayoutVersion = 9

// The files of the run's config/ folder: what the run ran, written by run
// before the first case.
const (
	ConfigDir       = "config"
	EvalCopyFile    = "eval.yaml"          // eval.yaml as loaded ($VAR references kept), redacted
	HandlersFile    = "tool_handlers.yaml" // the compiled inputs.tools (optional: without it, no hook handlers)
	PermissionsFile = "permissions.json"   // the compiled permissions block
)

// ErrNewerLayout is returned for a run directory written by a newer
// agent-eval than this one.
var ErrNewerLayout = errors.New("the run directory was written by a newer agent-eval")

// ConfigDir is the run's config/ folder.
func (d Dir) ConfigDir() string { return filepath.Join(d.Path, ConfigDir) }

// EvalCopy is the run's own copy of eval.yaml.
func (d Dir) EvalCopy() string { return filepath.Join(d.ConfigDir(), EvalCopyFile) }

// HandlersCopy is the compiled tool_handlers.yaml the run's hook used (before
// each case's answers and workspace were added).
func (d Dir) HandlersCopy() string { return filepath.Join(d.ConfigDir(), HandlersFile) }

// PermissionsCopy is the run's compiled permissions.
func (d Dir) PermissionsCopy() string { return filepath.Join(d.ConfigDir(), PermissionsFile) }

// checkLayout refuses a run whose run_result.json names a layout newer
// than LayoutVersion. A run without run_result.json (still running, or
// interrupted before its end) or without the field (older) passes.
func (d Dir) checkLayout() error {
	b, err := os.ReadFile(d.RunResult())
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read %s: %w", d.RunResult(), err)
	}
	var v struct {
		Layout int `json:"layout_version"`
	}
	if json.Unmarshal(b, &v) != nil || v.Layout <= LayoutVersion {
		return nil // a file that does not parse is its reader's to report
	}
	return fmt.Errorf("%s: %w (layout %d; this one reads up to %d); upgrade agent-eval to read it", d.Path, ErrNewerLayout, v.Layout, LayoutVersion)
}
