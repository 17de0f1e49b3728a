// Package rundir is the run directory's layout: the contract between `run`,
// which writes it, and everything after it — score, report, compare,
// replay, a Harbor import — which reads it through this package and never
// builds a path by hand.
//
//	<run>/run_result.json           the run (results.RunResult)
//	<run>/config/                   what the run ran: eval.yaml, tool_handlers.yaml, permissions.json
//	<run>/selection.json            the cases the run was made with
//	<run>/summary.yaml              the verdict (Summary), written by score
//	<run>/report.html, junit.xml    written by score and report
//	<run>/review.yaml               a person's verdicts (Review), written by review
//	<run>/judge_cache/              LLM verdicts, keyed by model and prompt
//	<run>/judges/<judge>/<case>/    an agent judge's own run directory, per case (and sample)
//	<run>/cases/<id>/run_result.json   the case (results.Case)
//	<run>/cases/<id>/transcript.jsonl  what the agent did (transcript.Event)
//	<run>/cases/<id>/hook_decisions.jsonl  the hook's ledger (Decision)
//	<run>/cases/<id>/stdout.log, stderr.log  the agent's own streams
//	<run>/cases/<id>/outputs/       the collected output files
//	<run>/cases/<id>/_modified/     other files the agent changed
//	<run>/cases/<id>/steps/<step>/  a pipeline step's logs
//	<run>/batch_outputs.json, outputs/, transcript.jsonl  a batch run's (batch.go)
package rundir

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"

	"github.com/agent-eval/agent-eval/internal/results"
	"github.com/agent-eval/agent-eval/internal/transcript"
)

// File names inside a run directory.
const (
	RunResultFile  = "run_result.json"
	SummaryFile    = "summary.yaml"
	ReportFile     = "report.html"
	JUnitFile      = "junit.xml"
	JudgeCacheDir  = "judge_cache"
	JudgeAgentsDir = "judges"
	CompareFile    = "compare.yaml"
	CasesDir       = "cases"
	TranscriptFile = "transcript.jsonl"
	LedgerFile     = "hook_decisions.jsonl"
	StdoutFile     = "stdout.log"
	StderrFile     = "stderr.log"
	// CassetteFile is a case's recorded model conversation (run
	// --record), a fake model script; DivergenceFile says where a replay
	// of one (run --replay) left it.
	CassetteFile   = "cassette.yaml"
	DivergenceFile = "divergence.txt"
	OutputsDir     = "outputs"
	ModifiedDir    = "_modified"
	StepsDir       = "steps"
)

// Dir is a run directory.
type Dir struct{ Path string }

// Open checks that path is a run directory (it has cases/ or a
// run_result.json) of a layout this agent-eval reads (ErrNewerLayout) and
// returns it.
func Open(path string) (Dir, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return Dir{}, fmt.Errorf("open the run directory %s: %w", path, err)
	}
	d := Dir{abs}
	if !exists(d.RunResult()) && !exists(filepath.Join(abs, CasesDir)) {
		return Dir{}, fmt.Errorf("%s is not a run directory: it has neither %s nor %s/", path, RunResultFile, CasesDir)
	}
	if err := d.checkLayout(); err != nil {
		return Dir{}, err
	}
	return d, nil
}

// RunResult is the run's run_result.json.
func (d Dir) RunResult() string { return filepath.Join(d.Path, RunResultFile) }

// Summary is summary.yaml.
func (d Dir) Summary() string { return filepath.Join(d.Path, SummaryFile) }

// Report is report.html.
func (d Dir) Report() string { return filepath.Join(d.Path, ReportFile) }

// JUnit is junit.xml.
func (d Dir) JUnit() string { return filepath.Join(d.Path, JUnitFile) }

// JudgeCache is the folder of cached LLM verdicts.
func (d Dir) JudgeCache() string { return filepath.Join(d.Path, JudgeCacheDir) }

// JudgeAgents is the folder of an agent judge's runs: one run directory
// of its own per case judged (and sample), kept for audit. It is not under
// cases/, so nothing takes it for a case.
func (d Dir) JudgeAgents(judge string) string {
	return filepath.Join(d.Path, JudgeAgentsDir, judge)
}

// JudgeCacheEntry is the file caching one LLM judge verdict under key (a
// hex digest of the model, the rendered prompt and the sample index).
func (d Dir) JudgeCacheEntry(key string) string {
	return filepath.Join(d.JudgeCache(), key+".json")
}

// Compare is compare.yaml, written by `agent-eval compare` into the first
// run's directory.
func (d Dir) Compare() string { return filepath.Join(d.Path, CompareFile) }

// Case is the folder of case id.
//
// id may be an AttemptKey: attempt n ≥ 2's folder is cases/<id>/attempts/<n>.
func (d Dir) Case(id string) string {
	if c, n := SplitAttempt(id); n > 1 {
		return filepath.Join(d.Path, CasesDir, c, AttemptsDir, strconv.Itoa(n))
	}
	return filepath.Join(d.Path, CasesDir, id)
}

// CaseResult is a case's run_result.json.
func (d Dir) CaseResult(id string) string { return filepath.Join(d.Case(id), RunResultFile) }

// Transcript is a case's transcript.jsonl.
func (d Dir) Transcript(id string) string { return filepath.Join(d.Case(id), TranscriptFile) }

// Ledger is a case's hook_decisions.jsonl.
func (d Dir) Ledger(id string) string { return filepath.Join(d.Case(id), LedgerFile) }

// Outputs is the folder of a case's collected output files.
func (d Dir) Outputs(id string) string { return filepath.Join(d.Case(id), OutputsDir) }

// Modified is the folder of the other files a case's agent changed.
func (d Dir) Modified(id string) string { return filepath.Join(d.Case(id), ModifiedDir) }

// Step is the folder of one pipeline step of a case.
func (d Dir) Step(id, step string) string { return filepath.Join(d.Case(id), StepsDir, step) }

// CaseIDs lists the folders of the run's own cases, sorted: those of a
// batch run's batch_outputs.json, else of selection.json (every folder for
// a run that records neither). A folder beside them was not written by the
// run (ForeignCases) and is never read as a case.
func (d Dir) CaseIDs() ([]string, error) {
	ids, _, err := d.caseFolders()
	return ids, err
}

// ForeignCases lists the folders under cases/ that are none of the run's
// cases: written by someone else (an agent without a sandbox), sorted.
func (d Dir) ForeignCases() ([]string, error) {
	_, foreign, err := d.caseFolders()
	return foreign, err
}

func (d Dir) caseFolders() (own, foreign []string, err error) {
	entries, err := os.ReadDir(filepath.Join(d.Path, CasesDir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("list the cases of %s: %w", d.Path, err)
	}
	known, err := d.recordedCases()
	if err != nil {
		return nil, nil, err
	}
	for _, e := range entries {
		switch {
		case known != nil && !slices.Contains(known, e.Name()):
			foreign = append(foreign, e.Name())
		case e.IsDir():
			own = append(own, e.Name())
		}
	}
	sort.Strings(own)
	sort.Strings(foreign)
	return own, foreign, nil
}

// recordedCases are the cases the run wrote folders for (nil: the run
// records none, so every folder counts).
func (d Dir) recordedCases() ([]string, error) {
	a, err := d.ReadBatchAssignment()
	if err != nil {
		return nil, err
	}
	if a != nil {
		return append([]string{}, a.Order...), nil
	}
	ids, _, err := d.Selection()
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the run's cases: %w", err)
	}
	return append([]string{}, ids...), nil
}

// ReadRun reads the run's run_result.json.
func (d Dir) ReadRun() (*results.RunResult, error) {
	var r results.RunResult
	if err := readJSON(d.RunResult(), &r); err != nil {
		return nil, err
	}
	if r.LayoutVersion > LayoutVersion {
		return nil, d.checkLayout()
	}
	return &r, nil
}

// ReadCase reads a case's run_result.json.
func (d Dir) ReadCase(id string) (*results.Case, error) {
	var c results.Case
	if err := readJSON(d.CaseResult(id), &c); err != nil {
		return nil, err
	}
	return &c, nil
}

// ReadTranscript reads a case's transcript.jsonl; a case without one has
// no events.
func (d Dir) ReadTranscript(id string) ([]transcript.Event, error) {
	return readTranscript(d.Transcript(id), id)
}

func readTranscript(path, of string) ([]transcript.Event, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the transcript of %s: %w", of, err)
	}
	defer f.Close()
	ev, _, err := transcript.Read(f)
	return ev, err
}

// DecisionCanary is a ledger line that only proves a session ran its
// hooks (hook --canary); it decides no call.
const DecisionCanary = "canary"

// Decision is one line of a case's hook ledger (hook_decisions.jsonl): what
// the interception hook decided for one tool call, and by which tier.
type Decision struct {
	Time      string            `json:"ts"`
	ToolUseID string            `json:"tool_use_id,omitempty"`
	Tool      string            `json:"tool,omitempty"`
	Decision  string            `json:"decision"` // intercept.Kind: allow, deny, pass, ...
	Handler   int               `json:"handler"`
	Tiers     map[string]string `json:"tiers,omitempty"`
	Answers   map[string]string `json:"answers,omitempty"`
	Reason    string            `json:"reason,omitempty"`
	Detail    string            `json:"detail,omitempty"`
	Warnings  []string          `json:"warnings,omitempty"`
	Micros    int64             `json:"us"`
}

// ReadLedger reads a case's hook ledger; a case without one has no
// decisions. Lines that do not parse, and canary lines (which decide no
// call), are skipped.
func (d Dir) ReadLedger(id string) ([]Decision, error) {
	return readLedger(d.Ledger(id), id)
}

func readLedger(path, of string) ([]Decision, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the hook ledger of %s: %w", of, err)
	}
	var out []Decision
	for _, line := range splitLines(b) {
		var x Decision
		if json.Unmarshal(line, &x) == nil && x.Decision != DecisionCanary { // a canary decides no call
			out = append(out, x)
		}
	}
	return out, nil
}

// ReadLedgerUpTo reads at most max bytes of a case's hook ledger (a page
// that shows it reads a bounded part of a file the agent's run wrote);
// cut says there was more. A line cut at max is not read.
func (d Dir) ReadLedgerUpTo(id string, max int64) (ds []Decision, cut bool, err error) {
	f, err := os.Open(d.Ledger(id))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("read the hook ledger of %s: %w", id, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, false, fmt.Errorf("read the hook ledger of %s: %w", id, err)
	}
	if int64(len(b)) > max {
		cut = true
		b = b[:max]
		if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
			b = b[:i]
		} else {
			b = nil
		}
	}
	for _, line := range splitLines(b) {
		var x Decision
		if json.Unmarshal(line, &x) == nil && x.Decision != DecisionCanary {
			ds = append(ds, x)
		}
	}
	return ds, cut, nil
}

// OutputFiles lists a case's collected output files, relative to its
// outputs folder, sorted.
func (d Dir) OutputFiles(id string) ([]string, error) {
	root := d.Outputs(id)
	var out []string
	err := filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && p == root {
				return filepath.SkipDir
			}
			return err
		}
		if e.Type().IsRegular() {
			rel, _ := filepath.Rel(root, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list the outputs of %s: %w", id, err)
	}
	return out, nil
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	return nil
}

func splitLines(b []byte) [][]byte {
	var out [][]byte
	for len(b) > 0 {
		i := 0
		for i < len(b) && b[i] != '\n' {
			i++
		}
		if i > 0 {
			out = append(out, b[:i])
		}
		if i < len(b) {
			i++
		}
		b = b[i:]
	}
	return out
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
