package config

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/agent-eval/agent-eval/internal/lazyre"
)

// Defaults applied when eval.yaml leaves a value unset.
const (
	DefaultTimeout      = 3600 * time.Second
	DefaultMaxBudgetUSD = 100.0
	DefaultParallelism  = 1
	DefaultHookModel    = "claude-haiku-4-5-20251001"
	DefaultRunner       = "claude-code"
	DefaultRunsDir      = "eval/runs"
	DefaultHookTimeout  = 120 * time.Second
	// RunsDirEnv overrides DefaultRunsDir.
	RunsDirEnv = "AGENT_EVAL_RUNS_DIR"
)

// Path is the file the eval was loaded from (for a run's copy, the copy).
func (e *Eval) Path() string { return e.path }

// originPath is the eval.yaml the eval is of: Path, or the original of a
// run's copy (ParseCopy).
func (e *Eval) originPath() string {
	if e.origin != "" {
		return e.origin
	}
	return e.path
}

// Source is the content the eval was parsed from, as the user wrote it
// ($VAR references unresolved).
func (e *Eval) Source() []byte { return e.src }

// Dir is the directory of eval.yaml (of the original, for a run's copy),
// the base of dataset.path and of inputs.tools[].prompt_file.
func (e *Eval) Dir() string { return filepath.Dir(e.originPath()) }

// Position returns the line and column of a field path such as
// "execution.mode" or "judges[2].name" (0, 0 when it was not in the file).
func (e *Eval) Position(path string) (line, col int) {
	p := e.pos[path]
	return p.line, p.col
}

// Mode is execution.mode, "case" by default.
func (e *Eval) Mode() string {
	if e.Execution.Mode == "" {
		return "case"
	}
	return e.Execution.Mode
}

// Timeout is execution.timeout, DefaultTimeout when unset.
func (e *Eval) Timeout() time.Duration {
	if t := e.Execution.Timeout; t != nil {
		return time.Duration(*t) * time.Second
	}
	return DefaultTimeout
}

// MaxBudgetUSD is execution.max_budget_usd, DefaultMaxBudgetUSD when unset.
func (e *Eval) MaxBudgetUSD() float64 {
	if b := e.Execution.MaxBudgetUSD; b != nil {
		return *b
	}
	return DefaultMaxBudgetUSD
}

// Parallelism is execution.parallelism, DefaultParallelism when unset.
func (e *Eval) Parallelism() int {
	if p := e.Execution.Parallelism; p != nil {
		return *p
	}
	return DefaultParallelism
}

// MaxRepeats bounds execution.repeats and run --repeat.
const MaxRepeats = 1000

// Repeats is execution.repeats, 1 when unset.
func (e *Eval) Repeats() int {
	if r := e.Execution.Repeats; r != nil {
		return *r
	}
	return 1
}

// The defaults of execution.limits. 100 MiB a case holds any report, log
// or patch a judge reads (and a run of 100 cases stays under 10 GiB); 50
// MiB a file lets one large output through while two fill the case;
// 10,000 files and folders hold a generated project without node_modules,
// and bound the blocks small files take beyond their sizes (some 40 MiB of
// 4 KiB blocks).
const (
	DefaultCollectBytes = 100 << 20
	DefaultFileBytes    = 50 << 20
	DefaultCollectFiles = 10000
)

// What an agent may keep in its own folders while it runs, by default:
// a build's caches and a dependency install fit (a Go module cache, a
// node_modules of some 100,000 files), a disk of a CI runner is not filled.
const (
	DefaultDiskBytes = 4 << 30
	DefaultDiskFiles = 200000
)

// DiskBytes is execution.limits.disk_bytes, DefaultDiskBytes when unset.
func (e *Eval) DiskBytes() int64 {
	if l := e.Execution.Limits; l != nil && l.DiskBytes != nil {
		return int64(*l.DiskBytes)
	}
	return DefaultDiskBytes
}

// DiskFiles is execution.limits.disk_files, DefaultDiskFiles when unset.
func (e *Eval) DiskFiles() int {
	if l := e.Execution.Limits; l != nil && l.DiskFiles != nil {
		return *l.DiskFiles
	}
	return DefaultDiskFiles
}

// CollectBytes is execution.limits.collect_bytes, DefaultCollectBytes when
// unset.
func (e *Eval) CollectBytes() int64 {
	if l := e.Execution.Limits; l != nil && l.CollectBytes != nil {
		return int64(*l.CollectBytes)
	}
	return DefaultCollectBytes
}

// FileBytes is execution.limits.file_bytes, DefaultFileBytes when unset.
func (e *Eval) FileBytes() int64 {
	if l := e.Execution.Limits; l != nil && l.FileBytes != nil {
		return int64(*l.FileBytes)
	}
	return DefaultFileBytes
}

// CollectFiles is execution.limits.files, DefaultCollectFiles when unset.
func (e *Eval) CollectFiles() int {
	if l := e.Execution.Limits; l != nil && l.Files != nil {
		return *l.Files
	}
	return DefaultCollectFiles
}

// HookModel is models.hook, DefaultHookModel when unset.
//
// Under an OpenRouter plan (models.skill "openrouter:/…") it is the bare
// OpenRouter id the hook asks for: models.hook's, else the plan's
// background model, else the agent's.
func (e *Eval) HookModel() string {
	m := strings.TrimSpace(e.Models.Hook)
	if IsOpenRouter(e.Models.Skill) {
		if m == "" && e.Models.Providers != nil && e.Models.Providers.OpenRouter != nil {
			m = strings.TrimSpace(e.Models.Providers.OpenRouter.BackgroundModel)
		}
		if m == "" {
			m = strings.TrimSpace(e.Models.Skill)
		}
		return strings.TrimPrefix(strings.TrimPrefix(m, "openrouter:"), "/")
	}
	if m != "" {
		return m
	}
	return DefaultHookModel
}

// RunnerType is runner.type, DefaultRunner when unset.
func (e *Eval) RunnerType() string {
	if e.Runner.Type == "" {
		return DefaultRunner
	}
	return e.Runner.Type
}

// MLflowExperiment is the MLflow experiment, or "" when MLflow is off (no
// mlflow block). It defaults to name.
func (e *Eval) MLflowExperiment() string {
	if e.MLflow == nil {
		return ""
	}
	if e.MLflow.Experiment != "" {
		return e.MLflow.Experiment
	}
	return e.DisplayName()
}

// DefaultMLflowTrackingURI is the tracking server when neither
// mlflow.tracking_uri nor $MLFLOW_TRACKING_URI names one.
const DefaultMLflowTrackingURI = "http://127.0.0.1:5000"

// MLflowTrackingURI is the tracking server: mlflow.tracking_uri, else
// $MLFLOW_TRACKING_URI, else DefaultMLflowTrackingURI.
func (e *Eval) MLflowTrackingURI(getenv func(string) string) string {
	if e.MLflow != nil && e.MLflow.TrackingURI != "" {
		return e.MLflow.TrackingURI
	}
	if u := getenv("MLFLOW_TRACKING_URI"); u != "" {
		return u
	}
	return DefaultMLflowTrackingURI
}

// DisplayName is name, or the file's stem when name is unset.
func (e *Eval) DisplayName() string {
	if e.Name != "" {
		return e.Name
	}
	return stem(e.originPath())
}

func stem(path string) string {
	base := filepath.Base(path)
	return strings.TrimSuffix(base, filepath.Ext(base))
}

var nameCleanRE = lazyre.New(`[^a-z0-9._-]`)

// EvalName is the directory name of this eval's runs: the skill when there
// is one; else name, lower-cased with spaces as "-" and only [a-z0-9._-]
// kept (unless name merely repeats the file stem); else it comes from the
// file's place: eval/<x>/eval.yaml and eval/<x>.yaml give <x>, anything
// else "eval".
func (e *Eval) EvalName() string {
	if s := strings.TrimSpace(e.Execution.Skill); s != "" {
		return s
	}
	if e.Name != "" && e.Name != stem(e.originPath()) {
		n := nameCleanRE().ReplaceAllString(strings.ReplaceAll(strings.ToLower(strings.TrimSpace(e.Name)), " ", "-"), "")
		if n != "" && n != "." && n != ".." {
			return n
		}
	}
	abs, err := filepath.Abs(e.originPath())
	if err != nil {
		abs = e.originPath()
	}
	dir, base := filepath.Dir(abs), filepath.Base(abs)
	switch {
	case base == "eval.yaml" && filepath.Base(filepath.Dir(dir)) == "eval":
		return filepath.Base(dir)
	case base != "eval.yaml" && filepath.Base(dir) == "eval":
		return stem(base)
	}
	return "eval"
}

// RunsDir is where runs are written: $AGENT_EVAL_RUNS_DIR, else eval/runs
// (relative to the working directory), joined with the eval name.
func (e *Eval) RunsDir(getenv func(string) string) string {
	root := DefaultRunsDir
	if v := getenv(RunsDirEnv); v != "" {
		root = v
	}
	return filepath.Join(root, e.EvalName())
}

// DatasetDir is dataset.path resolved against eval.yaml's directory, or ""
// when unset.
func (e *Eval) DatasetDir() string {
	p := e.Dataset.Path
	if p == "" {
		return ""
	}
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(e.Dir(), p)
}

// CaseIDs lists the cases: the sub-directories of the dataset directory,
// sorted by name. Hidden directories are skipped.
func (e *Eval) CaseIDs() ([]string, error) {
	dir := e.DatasetDir()
	if dir == "" {
		return nil, nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, en := range entries {
		if en.IsDir() && !strings.HasPrefix(en.Name(), ".") {
			ids = append(ids, en.Name())
		}
	}
	sort.Strings(ids)
	return ids, nil
}

// StepIDs lists the ids of execution.steps in order.
func (e *Eval) StepIDs() []string {
	ids := make([]string, 0, len(e.Execution.Steps))
	for _, s := range e.Execution.Steps {
		if s.ID != "" {
			ids = append(ids, s.ID)
		}
	}
	return ids
}

// JudgeNames lists the judge names in order.
func (e *Eval) JudgeNames() []string {
	names := make([]string, 0, len(e.Judges))
	for _, j := range e.Judges {
		if j.Name != "" {
			names = append(names, j.Name)
		}
	}
	return names
}
