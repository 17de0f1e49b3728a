package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/agent-eval/agent-eval/internal/agentproc"
	"github.com/agent-eval/agent-eval/internal/clip"
	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/hook"
	"github.com/agent-eval/agent-eval/internal/lazyre"
	"github.com/agent-eval/agent-eval/internal/lifecycle"
	tmpl "github.com/agent-eval/agent-eval/internal/prompt"
	"github.com/agent-eval/agent-eval/internal/redact"
	"github.com/agent-eval/agent-eval/internal/results"
	"github.com/agent-eval/agent-eval/internal/rundir"
	"github.com/agent-eval/agent-eval/internal/runner"
	"github.com/agent-eval/agent-eval/internal/transcript"
	"github.com/agent-eval/agent-eval/internal/workspace"
)

// outputDirRE is the case's output folder in a prompt: {{ output_dir }} or
// {output_dir}.
var outputDirRE = lazyre.New(`\{\{\s*output_dir\s*\}\}|\{output_dir\}`)

// FillOutputDir puts dir where a prompt names the case's output folder.
func FillOutputDir(s, dir string) string { return outputDirRE().ReplaceAllString(s, dir) }

// caseRun is one case (or the batch) being run: where it works and writes.
type caseRun struct {
	c     *results.Case
	ws    string // the workspace
	out   string // the case's folder in the run directory
	sess  runner.Session
	tr    *transcript.Writer
	env   map[string]string // before_each's outputs
	vars  map[string]string // the CASE_* variables of the lifecycle hooks
	input map[string]any
	// wired is whether the runner wired the hook (tool_handlers.yaml in
	// the workspace after Prepare), read before the agent starts: an
	// agent that deletes the file has not unwired its case.
	wired bool
	// ungated is whether an invocation of the agent left no canary.
	ungated bool
	// coll is what the case's collection took from its workspace, within
	// execution.limits (every copy of the agent's files goes through it).
	coll *workspace.Collection
}

// runCase prepares the case's workspace, runs the agent and collects what
// it left. Every failure is the case's, never the run's.
func (st *state) runCase(ctx context.Context, id string) *results.Case {
	c := newCase(id)
	cr := &caseRun{c: c, out: st.dir.Case(id), ws: st.ws[id], coll: workspace.NewCollection(CollectLimits(st.ev))}
	fail := func(err error) *results.Case {
		c.ExitCode, c.Status, c.Error = -1, results.StatusError, err.Error()
		return c
	}
	if why, ok := st.noCassette[id]; ok {
		return fail(errors.New(why))
	}
	caseDir, overrides, err := st.prepareCase(cr, id)
	if err != nil {
		return fail(err)
	}
	sess, err := st.agent.Prepare(ctx, runner.Workspace{ID: id, Dir: cr.ws, CaseDir: caseDir, Overrides: overrides, InputOverrides: st.p.InputOverrides})
	if sess != nil {
		defer func() {
			if err := sess.Close(); err != nil {
				st.obs.Warn(fmt.Sprintf("%s: clean up the runner's files: %v", id, err))
			}
		}()
	}
	if err != nil {
		return fail(fmt.Errorf("prepare the workspace: %w", err))
	}
	cr.sess = sess
	cr.wired = fileExists(filepath.Join(cr.ws, hook.HandlersFile))
	closeTranscript, err := st.openTranscript(cr)
	if err != nil {
		return fail(err)
	}
	defer closeTranscript()
	h := st.ev.Hooks
	caseID, attempt := rundir.SplitAttempt(id)
	cr.vars = map[string]string{"CASE_ID": caseID, "CASE_ATTEMPT": strconv.Itoa(attempt), "CASE_WORKSPACE": cr.ws, "CASE_SOURCE_DIR": caseDir, "CASE_INPUT": filepath.Join(cr.ws, "input.yaml")}
	var hooksLog *os.File
	if len(h.BeforeEach) > 0 || len(h.AfterEach) > 0 {
		if hooksLog, err = os.Create(filepath.Join(cr.out, rundir.HooksLogFile)); err != nil {
			return fail(fmt.Errorf("create the case's hooks log: %w", err))
		}
		defer func() { _ = hooksLog.Close(); st.redactFile(hooksLog.Name()) }()
	}
	if len(h.AfterEach) > 0 {
		defer st.afterEach(ctx, cr, hooksLog)
	}
	if err := st.beforeEach(ctx, cr, hooksLog); err != nil {
		return fail(err)
	}
	// After the last copy of the agent's files (the deferred _modified/):
	// what did not fit makes the case an error.
	defer MarkOverLimit(c, cr.coll)
	// The baseline is taken after before_each, so what the hooks prepared is
	// not counted as the agent's work.
	if st.p.Repo == "" {
		if err := workspace.Baseline(cr.ws, st.baselineDir(id)); err != nil {
			st.obs.Warn(fmt.Sprintf("%s: no baseline of the workspace, so no _modified/ (%v)", id, err))
		} else {
			defer st.collectModified(cr)
		}
	}
	// What scoring reads as the agent left it, in repo mode before the
	// project is put back (the restore must not hide a change there).
	var seen []string
	defer func() { st.checkTamper(c, seen) }() // before the defers above: the after_each hooks are the eval's own
	if seen, err = st.runAgent(ctx, cr); err != nil {
		return fail(err)
	}
	return c
}

// prepareCase makes the case's folder, checks its workspace is still the
// folder made for it, reads and copies its input, renders its prompt and
// fills its workspace. It returns the case's folder in the dataset and its
// answers.yaml overrides.
func (st *state) prepareCase(cr *caseRun, id string) (caseDir string, overrides map[string]string, err error) {
	c := cr.c
	// A case's folder holds only what the run puts there: what is in it
	// before the case starts is an earlier attempt's, or what another
	// case's agent planted (without a sandbox), and is never judged.
	if err := st.startFolder(id); err != nil {
		return "", nil, fmt.Errorf("make the case's folder: %w", err)
	}
	caseID, _ := rundir.SplitAttempt(id) // an attempt runs its case
	caseDir = filepath.Join(st.ev.DatasetDir(), caseID)
	c.Workspace = cr.ws
	if fi, err := os.Lstat(cr.ws); cr.ws == "" || err != nil || !fi.IsDir() {
		// Made for every case before the first agent started: gone or
		// replaced since, which no agent can do in the sandbox.
		return "", nil, fmt.Errorf("the workspace %q made for the case is not a folder any more (%v)", cr.ws, err)
	}
	input, err := workspace.ReadInput(caseDir)
	if err != nil {
		return "", nil, err
	}
	input = workspace.MergeInput(input, st.p.InputOverrides)
	cr.input = input
	if in := workspace.InputFile(caseDir); in != "" {
		if err := workspace.CopyTree(in, filepath.Join(cr.out, filepath.Base(in))); err != nil {
			return "", nil, fmt.Errorf("copy the case's input: %w", err)
		}
	}
	if err := st.writeMergedInput(cr.out, caseDir, input); err != nil {
		return "", nil, err
	}
	if !st.p.Steps {
		if c.Prompt, err = st.prompt(input, cr.ws); err != nil {
			return "", nil, err
		}
		// An agent CLI given an empty prompt fails before its first turn,
		// which would pass for the machine's failure and be tried again; a
		// cli runner's command decides for itself what {args} is worth.
		if strings.TrimSpace(c.Prompt) == "" && st.p.Runner != runner.TypeCLI {
			return "", nil, &runner.CaseError{Case: caseID, Field: "the prompt (execution.prompt)", Err: errEmptyPrompt}
		}
	}
	overrides, err = workspace.CaseOverrides(caseDir)
	if err != nil {
		return "", nil, err
	}
	if err := st.fillWorkspace(cr.ws, caseDir); err != nil {
		return "", nil, fmt.Errorf("prepare the workspace: %w", err)
	}
	if err := st.writeMergedInput(cr.ws, caseDir, input); err != nil {
		return "", nil, err
	}
	return caseDir, overrides, nil
}

// writeMergedInput writes, when the plan has input overrides, the case's
// input with them into dir under the case's input file name (input.yaml
// when it has none), over the copy of the case's own.
func (st *state) writeMergedInput(dir, caseDir string, input map[string]any) error {
	if len(st.p.InputOverrides) == 0 {
		return nil
	}
	name := "input.yaml"
	if in := workspace.InputFile(caseDir); in != "" {
		name = filepath.Base(in)
	}
	p := filepath.Join(dir, name)
	if strings.HasSuffix(name, ".json") {
		b, err := json.MarshalIndent(input, "", "  ")
		if err == nil {
			err = os.WriteFile(p, append(b, '\n'), 0o644)
		}
		if err != nil {
			return fmt.Errorf("write the case's input with the overrides: %w", err)
		}
		return nil
	}
	if err := writeYAML(p, input); err != nil {
		return fmt.Errorf("write the case's input with the overrides: %w", err)
	}
	return nil
}

// openTranscript creates the case's transcript, redacted line by line,
// as cr.tr; closeTranscript flushes and closes it.
func (st *state) openTranscript(cr *caseRun) (closeTranscript func(), err error) {
	id := cr.c.CaseID
	trFile, err := os.Create(st.dir.Transcript(id))
	if err != nil {
		return nil, fmt.Errorf("create the transcript: %w", err)
	}
	// The transcript holds what the agent read and said (a tool result
	// printing a token): redacted line by line like stdout.log.
	trRed := st.runRedactor().JSONWriter(trFile)
	cr.tr = transcript.NewWriter(trRed)
	return func() {
		if err := errors.Join(cr.tr.Flush(), trRed.Close(), trFile.Close()); err != nil {
			st.obs.Warn(fmt.Sprintf("%s: write the transcript: %v", id, err))
		}
		st.writeEvents(id, rundir.CaseFolder{Path: filepath.Dir(trFile.Name())})
	}, nil
}

// writeEvents writes events.json beside the transcript (traces.events),
// before the case's folder is sealed.
func (st *state) writeEvents(of string, f rundir.CaseFolder) {
	if !st.ev.TraceSwitches().Events {
		return
	}
	if err := f.WriteEvents(); err != nil {
		st.obs.Warn(fmt.Sprintf("%s: %v", of, err))
	}
}

// beforeEach runs the before_each hooks, if any, and keeps their outputs
// for the case as cr.env.
func (st *state) beforeEach(ctx context.Context, cr *caseRun, hooksLog *os.File) error {
	h := st.ev.Hooks
	cr.env = map[string]string{}
	if len(h.BeforeEach) == 0 {
		return nil
	}
	t0 := time.Now()
	out, err := lifecycle.Phase(ctx, "before_each", h.BeforeEach, cr.ws, st.hookEnviron(cr.vars), hooksLog, true)
	st.hooksRan(t0)
	if err != nil {
		return err
	}
	cr.env = out.Env
	st.runRedactor().Learn(out.Env)
	if len(out.Data) > 0 {
		if err := st.writeHookOutputs(filepath.Join(cr.out, rundir.HookOutputs), out.Data); err != nil {
			return fmt.Errorf("before_each: %w", err)
		}
	}
	return nil
}

// afterEach runs the after_each hooks, also after an interrupt; a failure
// is a warning.
func (st *state) afterEach(ctx context.Context, cr *caseRun, hooksLog *os.File) {
	defer st.hooksRan(time.Now())
	if _, err := lifecycle.Phase(context.WithoutCancel(ctx), "after_each", st.ev.Hooks.AfterEach, cr.ws, st.hookEnviron(cr.vars), hooksLog, false); err != nil {
		st.obs.Warn(fmt.Sprintf("%s: %v", cr.c.CaseID, err))
	}
}

// runAgent runs the case's agent: its pipeline, or one invocation; in
// repo mode, between a record of the project and the undoing of what the
// agent changed there. seen is what the tamper check's changes were before
// the project was put back.
func (st *state) runAgent(ctx context.Context, cr *caseRun) (seen []string, err error) {
	c, id := cr.c, cr.c.CaseID
	if st.p.Steps {
		st.runSteps(ctx, cr)
		return nil, nil
	}
	if st.p.Repo == "" {
		st.invoke(ctx, cr, cr.c, cr.out, c.Prompt, invocationSpec{}, true)
		return nil, nil
	}
	snap, err := workspace.SnapshotRepo(ctx, st.p.Repo, filepath.Join(st.baselines, id+".repo"), st.harnessPaths())
	switch {
	case errors.Is(err, workspace.ErrNotRepo):
		st.obs.Warn(fmt.Sprintf("%s: %s is not in a git work tree, so what the agent changes in it is neither detected nor undone", id, st.p.Repo))
		snap = nil
	case err != nil:
		// No record to compare with or to restore from: the agent does not
		// run in the user's repository.
		return nil, fmt.Errorf("record the repository before the case: %w", err)
	}
	st.invoke(ctx, cr, cr.c, cr.out, c.Prompt, invocationSpec{}, true)
	if snap != nil {
		return st.undoRepoChanges(ctx, cr, snap), nil
	}
	return nil, nil
}

// harnessPaths are what the harness itself writes while a case runs in
// the project: not the agent's changes.
func (st *state) harnessPaths() []string {
	var out []string
	for _, p := range []string{st.p.RunsDir, st.dir.Path, st.wsRoot, st.baselines} {
		if abs, err := filepath.Abs(p); err == nil && p != "" {
			out = append(out, abs)
		}
	}
	return out
}

// undoRepoChanges compares the repository with its record from before the
// case (repo mode): a difference is the case's repo_modified with what
// changed; the agent's work-tree changes are kept in the case's
// repo_changes/ (a patch and the files), and everything is put back as it
// was. A change of the git state fails the case; a change of the work tree
// does unless runner.repo_changes is report. It returns what differed in
// what scoring reads before anything was put back (the tamper check's
// changes, less the sandbox's placeholders): a change the restore undoes
// there is the case's tampering all the same.
func (st *state) undoRepoChanges(ctx context.Context, cr *caseRun, snap *workspace.RepoState) []string {
	ctx = context.WithoutCancel(ctx) // an interrupted case is undone too
	c, id := cr.c, cr.c.CaseID
	changes, err := snap.Diff(ctx)
	seen := st.tamperChanges(stubPaths(snap, changes))
	if err != nil {
		// Put back what can be: the git files' copies are checked one by
		// one against the hashes held in memory.
		msg := " could not compare the repository with its state before the case: " + err.Error()
		if rerr := snap.Restore(ctx); rerr != nil {
			msg += "; putting it back: " + rerr.Error()
		}
		c.Status, c.ExitCode, c.RepoModified = results.StatusError, -1, true
		c.Error = strings.TrimSpace(c.Error + msg)
		st.obs.Warn(id + ":" + msg)
		return seen
	}
	gitState := false
	var stubs []string
	for _, ch := range changes {
		if ch.Stub {
			stubs = append(stubs, ch.String())
			continue
		}
		c.RepoChanges = append(c.RepoChanges, ch.String())
		gitState = gitState || !ch.Worktree
	}
	if len(c.RepoChanges) == 0 {
		// Only what Claude Code's sandbox leaves for its mounts: not the
		// agent's; put back all the same.
		if len(stubs) > 0 {
			if err := snap.Restore(ctx); err != nil {
				st.obs.Warn(fmt.Sprintf("%s: remove the sandbox's placeholders from the project (%s): %v", id, strings.Join(stubs, "; "), err))
			}
		}
		return seen
	}
	c.RepoModified = true
	if err := snap.SaveWorktree(ctx, filepath.Join(cr.out, rundir.RepoChangesDir), cr.coll); err != nil {
		st.obs.Warn(fmt.Sprintf("%s: keep the agent's changes of the project: %v", id, err))
	}
	report := strings.Join(c.RepoChanges, "\n") + "\n"
	if len(stubs) > 0 {
		report += "(and what Claude Code's sandbox left for its mounts: " + strings.Join(stubs, "; ") + ")\n"
	}
	undone := "undone"
	if err := snap.Restore(ctx); err != nil {
		undone = "NOT all undone: " + err.Error()
		st.obs.Warn(fmt.Sprintf("%s: put the repository back: %v", id, err))
	} else if left, err := snap.Diff(ctx); err != nil || len(left) > 0 {
		undone = fmt.Sprintf("NOT all undone: %v %v", left, err)
		st.obs.Warn(fmt.Sprintf("%s: the repository still differs after putting it back: %v %v", id, left, err))
	}
	report += undone + "\n"
	if err := os.WriteFile(filepath.Join(cr.out, rundir.RepoModsFile), []byte(report), 0o644); err != nil {
		st.obs.Warn(fmt.Sprintf("%s: write %s: %v", id, rundir.RepoModsFile, err))
	}
	shown := c.RepoChanges
	if len(shown) > 4 {
		shown = append(slices.Clone(shown[:4]), fmt.Sprintf("and %d more", len(shown)-4))
	}
	msg := "the case modified the project (" + strings.Join(shown, "; ") + "); " + undone + ", see " + rundir.RepoModsFile
	if !gitState && st.ev.Runner.RepoChanges == "report" {
		st.obs.Warn(id + ": " + msg)
		return seen
	}
	c.Error = strings.TrimSpace(c.Error + " " + msg)
	if c.Status == results.StatusCompleted {
		c.Status = results.StatusFailed
	}
	if c.ExitCode == 0 {
		c.ExitCode = 1
	}
	return seen
}

// stubPaths are the work-tree files among changes that Claude Code's
// sandbox left for its mounts (not the agent's), by absolute path.
func stubPaths(snap *workspace.RepoState, changes []workspace.RepoChange) []string {
	var out []string
	for _, ch := range changes {
		if ch.Stub && ch.Worktree && ch.How == "added" {
			out = append(out, filepath.Join(snap.Top, filepath.FromSlash(ch.What)))
		}
	}
	return out
}

func (st *state) baselineDir(id string) string {
	return filepath.Join(st.baselines, id+".git")
}

// fillWorkspace copies dataset.workspace.files and the case's input and
// answers into ws. caseDir is "" for the batch workspace, which gets no
// per-case files.
func (st *state) fillWorkspace(ws, caseDir string) error {
	return FillWorkspace(st.ev, st.p.ProjectRoot, ws, caseDir)
}

// FillWorkspace copies ev's dataset.workspace.files (relative sources
// read from projectRoot) and the case's input and answers into ws, as a
// run fills a case's workspace. caseDir is "" for the batch workspace,
// which gets no per-case files.
func FillWorkspace(ev *config.Eval, projectRoot, ws, caseDir string) error {
	if ev.Dataset.Workspace != nil {
		for _, f := range ev.Dataset.Workspace.Files {
			var src, dst string
			if f.Path != "" && caseDir == "" {
				continue // a per-case file; batch mode has no case folder
			}
			if f.Path != "" {
				src, dst = filepath.Join(caseDir, f.Path), filepath.Join(ws, f.Path)
				if _, err := os.Stat(src); err != nil {
					return fmt.Errorf("dataset.workspace.files: the case has no %s: %w", f.Path, err)
				}
			} else {
				src, dst = f.Source, filepath.Join(ws, f.Dest)
				if !filepath.IsAbs(src) {
					src = filepath.Join(projectRoot, src)
				}
			}
			// run checked every source before the first case: one gone
			// since is the case's error, not a workspace without it.
			if err := workspace.CopyTree(src, dst); errors.Is(err, os.ErrNotExist) && f.Source != "" {
				return fmt.Errorf("dataset.workspace.files: the source %s of %s is gone: %w", f.Source, f.Dest, err)
			} else if err != nil {
				return err
			}
		}
	}
	if caseDir == "" {
		return nil
	}
	for _, name := range append(slices.Clone(workspace.InputNames), workspace.AnswersFile) {
		if p := filepath.Join(caseDir, name); fileExists(p) {
			if err := workspace.CopyTree(p, filepath.Join(ws, name)); err != nil {
				return err
			}
		}
	}
	return nil
}

// collectModified copies what the agent changed in its workspace (besides
// its outputs) into _modified/.
func (st *state) collectModified(cr *caseRun) {
	c := cr.c
	files, err := workspace.Modified(cr.ws, st.baselineDir(c.CaseID), OutputPaths(st.ev))
	if err != nil {
		st.obs.Warn(fmt.Sprintf("%s: list the workspace's changes: %v", c.CaseID, err))
		return
	}
	st.collector(cr).Modified(cr.ws, cr.out, c, files)
}

// collect copies the ledger and the outputs into the case's folder and
// records the answered questions the agent was delivered
// (rundir.DeliveredAnswers).
func (st *state) collect(cr *caseRun, caseOut string, c *results.Case, calls []transcript.ToolCall) {
	st.collector(cr).Collect(cr.ws, caseOut, c, calls)
}

func (st *state) collector(cr *caseRun) Collector {
	return Collector{Outputs: st.ev.Outputs, Redactor: st.runRedactor(), Warn: st.obs.Warn, Gated: true, Collection: cr.coll}
}

// CollectLimits are ev's execution.limits for a case's Collection.
func CollectLimits(ev *config.Eval) workspace.Limits {
	return workspace.Limits{Bytes: ev.CollectBytes(), FileBytes: ev.FileBytes(), Files: ev.CollectFiles()}
}

// maxShownSkips is how many of the files left out a case's error names.
const maxShownSkips = 10

// MarkOverLimit makes c an error when its collection coll left files out
// for execution.limits: c.OverLimit lists them, and its error says which
// limit and how much the agent left. A case that ended otherwise (timed
// out, tampered) keeps its status and gets the record and the message. Its
// exit code 0 becomes 1, so the run fails. It reports whether coll left
// anything out.
func MarkOverLimit(c *results.Case, coll *workspace.Collection) bool {
	if !coll.Over() {
		return false
	}
	l := coll.Limits
	o := &results.OverLimit{
		Limits:    results.CollectLimits{CollectBytes: l.Bytes, FileBytes: l.FileBytes, Files: l.Files},
		SeenBytes: coll.SeenBytes, SeenFiles: coll.SeenFiles, CollectedBytes: coll.Bytes, CollectedFiles: coll.Files,
		Skipped: []results.SkippedFile{}, SkippedFiles: coll.SkippedFiles, SkippedBytes: coll.SkippedBytes,
	}
	over := map[string]bool{}
	var shown []string
	for _, s := range coll.Skipped {
		o.Skipped = append(o.Skipped, results.SkippedFile{Path: s.Path, Bytes: s.Size, AtLeast: s.AtLeast, Limit: s.Limit})
		over[s.Limit] = true
		if len(shown) < maxShownSkips {
			switch {
			case s.Dir:
				shown = append(shown, s.Path)
			case s.AtLeast:
				shown = append(shown, fmt.Sprintf("%s (over %s)", s.Path, config.FormatBytes(s.Size)))
			default:
				shown = append(shown, fmt.Sprintf("%s (%s)", s.Path, config.FormatBytes(s.Size)))
			}
		}
	}
	if n := coll.SkippedFiles - len(shown); n > 0 {
		shown = append(shown, fmt.Sprintf("%d more (run_result.json: over_limit)", n))
	}
	var why []string
	if over[workspace.LimitFileBytes] {
		why = append(why, "the "+config.FormatBytes(l.FileBytes)+" one file may have (execution.limits.file_bytes)")
	}
	if over[workspace.LimitBytes] {
		why = append(why, "the "+config.FormatBytes(l.Bytes)+" a case may leave (execution.limits.collect_bytes)")
	}
	if over[workspace.LimitFiles] {
		why = append(why, fmt.Sprintf("the %d files and folders a case may leave (execution.limits.files)", l.Files))
	}
	c.OverLimit = o
	in := Plural(coll.SeenFiles-coll.SeenDirs, "file")
	if over[workspace.LimitFiles] && coll.SeenDirs > 0 {
		in += " and " + Plural(coll.SeenDirs, "folder")
	}
	msg := fmt.Sprintf("the agent left %s in %s, over %s; not collected: %s",
		config.FormatBytes(coll.SeenBytes), in, strings.Join(why, " and "), joinAnd(shown))
	c.Error = strings.TrimSpace(msg + " " + c.Error)
	if c.Status == results.StatusCompleted || c.Status == results.StatusFailed {
		c.Status = results.StatusError
	}
	if c.ExitCode == 0 {
		c.ExitCode = 1
	}
	return true
}

// joinAnd joins items as "a, b and c".
func joinAnd(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

// OutputPaths are the paths of ev's outputs, which _modified/ leaves out
// (they are collected into outputs/).
func OutputPaths(ev *config.Eval) []string {
	var skip []string
	for _, o := range ev.Outputs {
		if o.Path != "" {
			skip = append(skip, o.Path)
		}
	}
	return skip
}

// Collector copies what a case's agent left in its workspace into the
// case's folder of a run directory: the hook's ledger, the outputs, the
// other files it changed. A local run collects with it, and so does the
// Harbor verifier inside a trial's container (package harbor), so a case
// from Harbor holds what the same case run here would.
type Collector struct {
	// Outputs are eval.yaml's outputs.
	Outputs []config.Output
	// Redactor hides secrets in the ledger's copy.
	Redactor *redact.Redactor
	// Warn hears what could not be collected.
	Warn func(string)
	// Collection is the case's: every copy of the agent's files counts
	// against its limits (nil: no limit).
	Collection *workspace.Collection
	// Gated is whether Collect leaves the ungated check to its caller,
	// which made it per invocation with what it read before the agent
	// started (the engine: see StartGate). Without it (the Harbor
	// verifier), Collect checks the ledger as it finds it.
	Gated bool
}

// StartGate is the case's gate as the agent starts an invocation: whether
// the runner wired the hook, and how long the decision ledger was. Only a
// canary written after that point proves this invocation ran its hook: a
// ledger the workspace came with (a copied project, an earlier step) proves
// nothing, and deleting tool_handlers.yaml does not unwire the case.
type StartGate struct {
	Wired  bool
	Ledger int64
}

// ReadStartGate reads ws's gate before an invocation (wired: the runner
// wired the hook, known from before the agent's first start).
func ReadStartGate(ws string, wired bool) StartGate {
	g := StartGate{Wired: wired}
	if st, err := os.Lstat(filepath.Join(ws, hook.LedgerFile)); err == nil && st.Mode().IsRegular() {
		g.Ledger = st.Size()
	}
	return g
}

// Canaries counts the canary lines the invocation that started at g wrote
// to ws's ledger; a ledger that shrank or is no longer a regular file has
// none.
func (g StartGate) Canaries(ws string) int {
	f, err := os.OpenFile(filepath.Join(ws, hook.LedgerFile), os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil || !regular(f) {
		return 0
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || st.Size() < g.Ledger {
		return 0
	}
	if _, err := f.Seek(g.Ledger, io.SeekStart); err != nil {
		return 0
	}
	b, _ := io.ReadAll(io.LimitReader(f, 64<<20))
	return rundir.Canaries(b)
}

// Modified copies files (relative to ws: what the agent changed, listed
// by workspace.Modified or workspace.ModifiedSince) into caseOut's
// _modified/ and records them in c.ModifiedFiles.
func (k Collector) Modified(ws, caseOut string, c *results.Case, files []string) {
	for _, f := range files {
		var copied int
		if k.Collection != nil {
			copied = k.Collection.Files
		}
		if err := k.Collection.CopyTree(filepath.Join(ws, f), filepath.Join(caseOut, rundir.ModifiedDir, f), filepath.ToSlash(f)); err != nil {
			k.Warn(fmt.Sprintf("%s: copy the changed file %s: %v", c.CaseID, f, err))
			continue
		}
		if k.Collection != nil && k.Collection.Files == copied {
			continue // left out for the limits: listed in c.OverLimit
		}
		c.ModifiedFiles = append(c.ModifiedFiles, f)
	}
}

// Collect copies the ledger and the outputs from ws into caseOut and
// records in c the answered questions the agent was delivered
// (deliveredAnswers, by the tool calls of its transcript).
func (k Collector) Collect(ws, caseOut string, c *results.Case, calls []transcript.ToolCall) {
	ledger := filepath.Join(ws, hook.LedgerFile)
	canaries := 0
	// The agent may have made the ledger a FIFO or a link: read it only
	// as the regular file it should be, without blocking.
	if f, err := os.OpenFile(ledger, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0); err == nil && regular(f) {
		b, err := io.ReadAll(io.LimitReader(f, 64<<20))
		if err != nil {
			k.Warn(fmt.Sprintf("%s: read the hook ledger: %v", c.CaseID, err))
		}
		answered, lost, err := rundir.DeliveredAnswers(bytes.NewReader(b), calls)
		if err != nil {
			k.Warn(fmt.Sprintf("%s: %v", c.CaseID, err))
		}
		c.Answers, c.AnswerLog, c.AnswersNotDelivered = len(answered), answered, lost
		c.AnswersByTier = results.TierCounts(answered)
		canaries = rundir.Canaries(b)
		// The copy is made from the file read (not from its name again), no
		// longer than it was then, and counts against the case's limits:
		// the agent may have grown it (a cli agent has no hook to stop it).
		if st, err := f.Stat(); err != nil {
			k.Warn(fmt.Sprintf("%s: copy the hook ledger: %v", c.CaseID, err))
		} else if k.Collection.Admit(hook.LedgerFile, st.Size()) {
			_, err := f.Seek(0, io.SeekStart)
			if err == nil {
				err = copyRedacted(k.Redactor, io.LimitReader(f, st.Size()), filepath.Join(caseOut, hook.LedgerFile))
			}
			if err != nil {
				k.Warn(fmt.Sprintf("%s: copy the hook ledger: %v", c.CaseID, err))
			}
		}
		_ = f.Close()
	}
	if !k.Gated {
		MarkUngated(c, fileExists(filepath.Join(ws, hook.HandlersFile)), canaries, len(calls))
	}
	for _, o := range k.Outputs {
		if o.Path == "" {
			continue
		}
		src := filepath.Join(ws, o.Path)
		if fileExists(src) {
			if err := k.Collection.CopyOut(ws, o.Path, filepath.Join(caseOut, rundir.OutputsDir, o.Path), filepath.ToSlash(filepath.Clean(o.Path))); err != nil {
				k.Warn(fmt.Sprintf("%s: copy the output %s: %v", c.CaseID, o.Path, err))
				c.Error = strings.TrimSpace(c.Error + " output " + o.Path + " could not be collected: " + err.Error())
			}
		}
	}
}

// MarkUngated marks a case that ran without its hook: the runner wired one
// (wired), yet the ledger holds no canary line (canaries), so no call of
// the agent was gated, whatever it did. Such a case is an error, not a
// verdict: its tool calls went past inputs.tools and the hook's path and
// git layers (calls: how many tool calls it made). A case that did not get to run normally (timed out,
// interrupted, an error) is left as it is. Its exit code 0 becomes 1, so
// the run fails. It reports whether it made the case an error.
func MarkUngated(c *results.Case, wired bool, canaries, calls int) bool {
	if !wired || canaries > 0 {
		return false
	}
	c.Ungated = true
	// An agent that failed before any tool call gated nothing either, and
	// its own error says more.
	if c.Status == results.StatusCompleted || c.Status == results.StatusFailed && calls > 0 {
		c.Status = results.StatusError
		if c.ExitCode == 0 {
			c.ExitCode = 1 // as a tampered case: the run fails
		}
		c.Error = strings.TrimSpace("the agent ran without its hook (no canary in the decision ledger): inputs.tools and the hook's denies gated none of its calls, so the case has no verdict; check that the agent CLI loads hooks (a version without them, a settings or trust flag that turns them off) " + c.Error)
		return true
	}
	return false
}

// invocationSpec overrides the run's settings for one step of a pipeline.
type invocationSpec struct {
	step    string
	timeout time.Duration
	budget  *float64
	runner  *config.Runner
	env     map[string]string // the step's env, instead of the case's
}

// invoke runs the agent once, writes its streams into out and fills c;
// collect copies the ledger and the outputs into out afterwards (a
// pipeline collects once, after its last step). calls are returned for a
// pipeline to collect with.
func (st *state) invoke(ctx context.Context, cr *caseRun, c *results.Case, out, prompt string, spec invocationSpec, collect bool) []transcript.ToolCall {
	fail := func(err error) []transcript.ToolCall {
		c.ExitCode, c.Status, c.Error = -1, results.StatusError, err.Error()
		return nil
	}
	stdout, err := os.Create(filepath.Join(out, rundir.StdoutFile))
	if err != nil {
		return fail(fmt.Errorf("create the agent's log: %w", err))
	}
	// The logs are written through the runner, which reports a failed
	// write; a close of a local file loses nothing written before it.
	defer stdout.Close()
	stderr, err := os.Create(filepath.Join(out, rundir.StderrFile))
	if err != nil {
		return fail(fmt.Errorf("create the agent's log: %w", err))
	}
	defer stderr.Close()
	st.obs.AgentStarted(c.CaseID)
	budget, timeout := st.p.MaxBudgetUSD, st.p.Timeout
	if spec.budget != nil {
		budget = *spec.budget
	}
	if spec.timeout > 0 {
		timeout = spec.timeout
	}
	env := merged(st.hookEnv, cr.env)
	if spec.env != nil {
		env = merged(st.hookEnv, spec.env)
	}
	if cr.tr != nil {
		cr.tr.Write(transcript.Event{Kind: transcript.KindPrompt, Step: spec.step, Text: prompt})
	}
	var gate StartGate
	var res runner.Result
	for try := 0; ; try++ {
		gate = ReadStartGate(cr.ws, cr.wired)
		res = cr.sess.Invoke(ctx, runner.Invocation{Name: c.CaseID, Step: spec.step, Prompt: prompt, Env: env, Timeout: timeout,
			MaxBudgetUSD: budget, Runner: spec.runner, Stdout: stdout, Stderr: stderr, NewRedactor: st.invocationRedactor,
			Transcript: cr.tr, Started: func(pgid int) { st.recordAgent(pgid, c.CaseID) }})
		if res.Err != nil && cr.tr != nil {
			cr.tr.Write(transcript.Event{Kind: transcript.KindError, Step: spec.step, Text: res.Err.Error()})
		}
		why := InfraFailure(res)
		// Only an invocation that made no tool call is tried again: its
		// workspace is as the case left it.
		if why == "" || try >= st.p.RetryErrors || len(res.ToolCalls) > 0 || ctx.Err() != nil {
			break
		}
		wait := RetryBackoff(st.p.RetryBackoff, try)
		c.Retries = append(c.Retries, why)
		st.obs.Warn(fmt.Sprintf("%s: %s, which is not the agent's doing; trying again in %s (retry %d of %d)", c.CaseID, why, wait, try+1, st.p.RetryErrors))
		if cr.tr != nil {
			cr.tr.Write(transcript.Event{Kind: transcript.KindError, Step: spec.step, Text: "agent-eval: " + why + "; trying again"})
		}
		select {
		case <-ctx.Done():
		case <-time.After(wait):
		}
		if ctx.Err() != nil {
			break
		}
	}
	RecordInvocation(c, res, timeout)
	if why := InfraFailure(res); why != "" && !c.TimedOut && !c.Interrupted {
		// Lost to the infrastructure: never a verdict on the agent.
		c.Status = results.StatusInfraError
		tries := "1 try"
		if n := len(c.Retries) + 1; n > 1 {
			tries = fmt.Sprintf("%d tries", n)
		}
		c.Error = strings.TrimSpace(fmt.Sprintf("%s (%s); %s", why, tries, c.Error))
	}
	if MarkUngated(c, gate.Wired, gate.Canaries(cr.ws), len(res.ToolCalls)) {
		cr.ungated = true
	}
	st.markDiverged(c, out)
	if st.recorder != nil {
		st.writeCassette(cr.out, c.CaseID)
	}
	if collect {
		st.collect(cr, out, c, res.ToolCalls)
	}
	RedactCase(c, res.Redactor)
	return res.ToolCalls
}

// InfraFailure says why an invocation failed for a reason that is not the
// agent's: the model API answered 429 or 5xx past the agent CLI's own
// retries, the agent could not be started at all, or its runner says so
// (Claude Code crashing before its first turn); "" for any other end, and
// for a runner's refusal of the case's own data (runner.CaseError).
func InfraFailure(res runner.Result) string {
	switch s := res.APIErrorStatus; {
	case res.TimedOut || res.Interrupted || errors.Is(res.Err, agentproc.ErrOverQuota):
		return "" // the agent's doing, not the machine's
	case errors.As(res.Err, new(*runner.CaseError)):
		return "" // the case's doing: refused again however often it is tried
	case s == 429 || s >= 500 && s <= 599:
		return fmt.Sprintf("the model API answered HTTP %d", s)
	case res.InfraError != "" && len(res.ToolCalls) == 0:
		return res.InfraError
	case res.Err != nil && res.ExitCode == -1 && len(res.ToolCalls) == 0 && res.NumTurns == 0:
		// Redacted before it is clipped: a cut secret is no longer one to find.
		return "the agent could not be run: " + clip.String(res.Redactor.String(res.Err.Error()), 200)
	}
	return ""
}

// RetryBackoff is how long to wait before retry try+1 (try from 0): base
// doubled each time, at most a minute.
func RetryBackoff(base time.Duration, try int) time.Duration {
	if base <= 0 {
		base = DefaultRetryBackoff
	}
	return min(base<<min(try, 10), time.Minute)
}

// DefaultRetryBackoff is the first wait before a retry of an
// infrastructure error.
const DefaultRetryBackoff = 5 * time.Second

// RecordInvocation fills c with how an invocation of its agent ended
// (res; timeout was its limit): its exit code, usage, cost, turns, model,
// result, denials and status.
func RecordInvocation(c *results.Case, res runner.Result, timeout time.Duration) {
	c.ExitCode, c.DurationS = res.ExitCode, res.Duration.Seconds()
	c.CostUSD, c.TokenUsage, c.NumTurns, c.PerModelUsage = res.CostUSD, res.Usage, res.NumTurns, res.PerModel
	if c.PerModelUsage == nil {
		c.PerModelUsage = map[string]transcript.ModelUsage{}
	}
	c.Model, c.Result, c.IsError, c.PermissionDenials = res.Model, res.Text, res.IsError, res.Denials
	if c.PermissionDenials == nil {
		c.PermissionDenials = []transcript.Denial{}
	}
	c.TimedOut, c.Interrupted = res.TimedOut, res.Interrupted
	c.Refused = append(c.Refused, res.Refused...)
	if errors.Is(res.Err, agentproc.ErrOverQuota) {
		c.OverQuota = strings.TrimSuffix(res.Err.Error(), ": "+agentproc.ErrOverQuota.Error())
	}
	switch {
	case res.Interrupted:
		c.Status, c.Error = results.StatusInterrupted, "interrupted"
	case res.TimedOut:
		c.Status, c.Error = results.StatusTimeout, fmt.Sprintf("timed out after %s", timeout)
	case res.Err != nil:
		c.Status, c.Error = results.StatusError, res.Err.Error()
	case c.ExitCode != 0:
		c.Status = results.StatusFailed
		if res.IsError {
			// Redacted before it is clipped (RedactCase would be too late): a
			// secret cut short is no longer found.
			c.Error = "the agent ended with an error: " + clip.String(res.Redactor.String(res.Text), 200)
		}
	default:
		c.Status = results.StatusCompleted
	}
}

// prompt renders execution.prompt (or the skill's invocation) for a case.
func (st *state) prompt(input map[string]any, outputDir string) (string, error) {
	return Prompt(st.ev, input, outputDir)
}

// Prompt renders ev's execution.prompt (or the skill's invocation) for a
// case's input, its output folder at outputDir, as a run sends it.
func Prompt(ev *config.Eval, input map[string]any, outputDir string) (string, error) {
	x := ev.Execution
	x.Prompt = outputDirRE().ReplaceAllString(x.Prompt, outputDir)
	x.Arguments = outputDirRE().ReplaceAllString(x.Arguments, outputDir)
	if skill := strings.TrimSpace(x.Skill); skill != "" {
		args, err := tmpl.Render(x.Arguments, input)
		if err != nil {
			return "", err
		}
		return strings.TrimSpace("/" + skill + " " + args), nil
	}
	return tmpl.Render(x.Prompt, input)
}

// runSteps runs a multi-step pipeline in the case's workspace: each step's
// prompt may use the earlier steps' results ({{ steps.<id>.output }},
// {{ steps.<id>.exit_code }}); a failing step stops the pipeline unless its
// on_failure is continue. The case adds up its steps.
func (st *state) runSteps(ctx context.Context, cr *caseRun) {
	c := cr.c
	stepsCtx := map[string]any{}
	c.Status, c.PerModelUsage = results.StatusCompleted, map[string]transcript.ModelUsage{}
	seen := map[string]bool{}
	var calls []transcript.ToolCall
	for i, s := range st.ev.Execution.Steps {
		out := st.dir.Step(c.CaseID, s.ID)
		sc := newCase(c.CaseID + "/" + s.ID)
		c.Steps = append(c.Steps, sc)
		if err := os.MkdirAll(out, 0o755); err != nil {
			sc.ExitCode, sc.Status, sc.Error = -1, results.StatusError, err.Error()
		} else {
			calls = append(calls, st.runStep(ctx, cr, sc, s, i, out, stepsCtx)...)
		}
		stepsCtx[s.ID] = map[string]any{"output": sc.Result, "exit_code": sc.ExitCode}
		c.DurationS += sc.DurationS
		c.CostUSD += sc.CostUSD
		c.NumTurns += sc.NumTurns
		c.TokenUsage.Add(sc.TokenUsage)
		transcript.AddPerModel(c.PerModelUsage, sc.PerModelUsage)
		for _, d := range sc.PermissionDenials {
			if !seen[d.ToolUseID+"\x00"+sc.CaseID] {
				seen[d.ToolUseID+"\x00"+sc.CaseID] = true
				c.PermissionDenials = append(c.PermissionDenials, d)
			}
		}
		c.Model, c.Result, c.IsError = firstNonBlank(sc.Model, c.Model), sc.Result, sc.IsError
		c.TimedOut, c.Interrupted = c.TimedOut || sc.TimedOut, c.Interrupted || sc.Interrupted
		if sc.ExitCode != 0 && c.ExitCode == 0 {
			c.ExitCode, c.Status, c.Error = sc.ExitCode, sc.Status, "step "+s.ID+": "+firstNonBlank(sc.Error, string(sc.Status))
		}
		if sc.ExitCode != 0 && (s.OnFailure != "continue" || sc.Interrupted) {
			c.AbortedAtStep = s.ID
			break
		}
	}
	if c.Interrupted {
		c.Status = results.StatusInterrupted
	}
	if cr.ungated {
		MarkUngated(c, true, 0, len(calls)) // a step ran without its hook
	}
	st.collect(cr, cr.out, c, calls)
}

// StepPrompt renders step s's prompt (or its skill's invocation) for a
// case's input, its output folder at outputDir, with the earlier steps'
// results stepsCtx ({{ steps.<id>.output }}).
func StepPrompt(s config.Step, input map[string]any, outputDir string, stepsCtx map[string]any) (string, error) {
	tpl := s.Prompt
	if strings.TrimSpace(s.Skill) != "" {
		tpl = "/" + strings.TrimSpace(s.Skill) + " " + s.Arguments
	}
	return tmpl.RenderStep(outputDirRE().ReplaceAllString(tpl, outputDir), input, stepsCtx)
}

// runStep runs one step of a pipeline with its hooks.
func (st *state) runStep(ctx context.Context, cr *caseRun, sc *results.Case, s config.Step, i int, out string, stepsCtx map[string]any) []transcript.ToolCall {
	prompt, err := StepPrompt(s, cr.input, cr.ws, stepsCtx)
	if err != nil {
		sc.ExitCode, sc.Status, sc.Error = -1, results.StatusError, err.Error()
		return nil
	}
	sc.Prompt = prompt
	vars := map[string]string{"STEP_ID": s.ID, "STEP_INDEX": fmt.Sprint(i + 1)}
	for k, v := range cr.vars {
		vars[k] = v
	}
	stepEnv := merged(cr.env, config.ResolveEnv(s.Env, st.p.lookupEnv))
	st.runRedactor().Learn(stepEnv)
	var hooksLog io.Writer = io.Discard
	if len(st.ev.Hooks.BeforeStep)+len(st.ev.Hooks.AfterStep) > 0 {
		f, err := os.Create(filepath.Join(out, rundir.HooksLogFile))
		if err != nil {
			st.obs.Warn(fmt.Sprintf("%s: create the step's hooks log: %v", sc.CaseID, err))
		} else {
			defer func() { _ = f.Close(); st.redactFile(f.Name()) }()
			hooksLog = f
		}
	}
	var calls []transcript.ToolCall
	failed := false
	if len(st.ev.Hooks.BeforeStep) > 0 {
		t0 := time.Now()
		o, err := lifecycle.Phase(ctx, "before_step", st.ev.Hooks.BeforeStep, cr.ws, st.hookEnviron(merged(vars, stepEnv)), hooksLog, true)
		if err != nil {
			sc.ExitCode, sc.Status, sc.Error, failed = -1, results.StatusError, err.Error(), true
		}
		st.hooksRan(t0)
		for k, v := range o.Env {
			stepEnv[k] = v
		}
		st.runRedactor().Learn(o.Env)
	}
	if !failed {
		spec := invocationSpec{step: s.ID, runner: s.Runner, budget: s.MaxBudgetUSD, env: stepEnv}
		if s.Timeout != nil {
			spec.timeout = time.Duration(*s.Timeout) * time.Second
		}
		calls = st.invoke(ctx, cr, sc, out, prompt, spec, false)
	}
	if len(st.ev.Hooks.AfterStep) > 0 {
		vars["STEP_EXIT_CODE"] = fmt.Sprint(sc.ExitCode)
		defer st.hooksRan(time.Now())
		if _, err := lifecycle.Phase(context.WithoutCancel(ctx), "after_step", st.ev.Hooks.AfterStep, cr.ws, st.hookEnviron(vars), hooksLog, false); err != nil {
			st.obs.Warn(fmt.Sprintf("%s: %v", sc.CaseID, err))
		}
	}
	return calls
}

// merged returns the maps' entries, later maps winning.
func merged(maps ...map[string]string) map[string]string {
	out := map[string]string{}
	for _, m := range maps {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// regular reports whether f is a regular file, closing it when it is not.
func regular(f *os.File) bool {
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
		return true
	}
	_ = f.Close()
	return false
}

// A PromptProblem is a prompt of a case that run would refuse to send:
// Field is the eval.yaml field it comes from (execution.prompt,
// execution.arguments, execution.steps[i].prompt).
type PromptProblem struct {
	Field string
	Err   error
}

// errEmptyPrompt is a prompt that renders to nothing for a case's input.
var errEmptyPrompt = errors.New("it renders empty for the case's input, so the agent would be given nothing to do")

// PromptProblems renders every prompt run sends for a case's input, with
// the functions run uses (Prompt, StepPrompt; the earlier steps' results
// as stand-ins): one that does not render, or that renders empty for an
// agent CLI, is a problem. A cli runner's command decides for itself what
// an empty prompt is worth. validate and run (before its first case) both
// ask this, so neither lets through what the other refuses.
func PromptProblems(ev *config.Eval, input map[string]any) []PromptProblem {
	var out []PromptProblem
	cli := ev.RunnerType() == string(runner.TypeCLI)
	if len(ev.Execution.Steps) == 0 {
		field := "execution.prompt"
		if strings.TrimSpace(ev.Execution.Skill) != "" {
			field = "execution.arguments"
		}
		p, err := Prompt(ev, input, "/output")
		if err == nil && !cli && strings.TrimSpace(p) == "" {
			err = errEmptyPrompt
		}
		if err != nil {
			out = append(out, PromptProblem{field, err})
		}
		return out
	}
	steps := map[string]any{}
	for i, s := range ev.Execution.Steps {
		field := fmt.Sprintf("execution.steps[%d].prompt", i)
		if strings.TrimSpace(s.Skill) != "" {
			field = fmt.Sprintf("execution.steps[%d].arguments", i)
		}
		p, err := StepPrompt(s, input, "/output", steps)
		stepCLI := cli
		if s.Runner != nil && s.Runner.Type != "" {
			stepCLI = s.Runner.Type == string(runner.TypeCLI)
		}
		if err == nil && !stepCLI && strings.TrimSpace(p) == "" {
			err = errEmptyPrompt
		}
		if err != nil {
			out = append(out, PromptProblem{field, err})
		}
		steps[s.ID] = map[string]any{"output": "0", "exit_code": 0}
	}
	return out
}
