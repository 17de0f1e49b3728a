package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/agent-eval/agent-eval/internal/atomicfile"
	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/filestat"
	"github.com/agent-eval/agent-eval/internal/pathutil"
	"github.com/agent-eval/agent-eval/internal/results"
	"github.com/agent-eval/agent-eval/internal/rundir"
)

// maxTamperLines caps the changes a tampered case lists.
const maxTamperLines = 20

// tamperGuard fingerprints what scoring will read (config.Eval.ScoredFiles:
// eval.yaml, the dataset, shared sources, the files the judges name and
// their own folders, the Python sources they could import; the run's judge
// cache) before the first agent starts, so that a case after which any of
// it differs is failed as tampered, whichever agent (or sandbox-escaping
// tool, or another process on the machine) changed it and however. The
// sandbox keeps the agent's commands from writing these places; this check
// holds where it is off, and behind the tools that do not run inside it.
type tamperGuard struct {
	roots   []string
	sources []string // folders of which only what Python imports counts (pySource)
	skip    []string // folders under a root that the run itself writes

	mu   sync.Mutex
	base map[string]mark
	sums map[statKey]string // content hashes by unchanged inode state
}

// mark is one path's fingerprint: its type and mode, and the sha256 of a
// file's content or a link's target.
type mark struct {
	mode fs.FileMode
	sum  string
}

// statKey identifies a file's content without reading it: the change time
// moves on every write, rename or chmod and cannot be set back by an
// unprivileged process (unlike the modification time).
type statKey struct {
	dev, ino    uint64
	size        int64
	mtime, ctim int64
}

// newTamperGuard fingerprints roots whole and, of sources, the entries
// pySource keeps, leaving out the skip folders, every .git (repo mode
// guards the project's git state on its own) and every .claude (Claude
// Code keeps its own files there, in repo mode in the project; no judge
// reads them).
func newTamperGuard(roots, sources, skip []string) *tamperGuard {
	g := &tamperGuard{roots: roots, sources: sources, skip: skip, sums: map[statKey]string{}}
	base := g.snapshot()
	g.mu.Lock()
	g.base = base
	g.mu.Unlock()
	return g
}

// snapshot walks the roots; a path that cannot be read is fingerprinted by
// its error, so that a later change of it still shows.
func (g *tamperGuard) snapshot() map[string]mark {
	out := map[string]mark{}
	g.walk(out, g.roots, nil)
	g.walk(out, g.sources, pySource)
	return out
}

// pySource keeps, under a folder scoring's Python imports from, what an
// import can load there: .py files (score compiles modules from source
// only: no .pyc, __pycache__ entry or .so is ever loaded, and no .pth file
// is read from there) and links whose name could be a module's or a
// package's (one without a "."). A log, a text or a data file written
// there is not read by an import.
func pySource(d fs.DirEntry) bool {
	switch {
	case d.Type()&fs.ModeSymlink != 0:
		return !strings.Contains(d.Name(), ".") || strings.HasSuffix(d.Name(), ".py")
	case d.IsDir():
		return false
	}
	return strings.HasSuffix(d.Name(), ".py")
}

// walk adds to out the fingerprints of what is under roots, of each entry
// keep keeps (all, when keep is nil).
func (g *tamperGuard) walk(out map[string]mark, roots []string, keep func(fs.DirEntry) bool) {
	for _, root := range roots {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if p == root && os.IsNotExist(err) {
					return nil // absent; a later one is "added"
				}
				out[p] = mark{sum: "unreadable: " + err.Error()}
				return nil
			}
			if p != root && d.IsDir() && (d.Name() == ".git" || d.Name() == ".claude" || slices.Contains(g.skip, p)) {
				return filepath.SkipDir
			}
			if keep != nil && p != root && d.IsDir() && slices.Contains(g.roots, p) {
				return filepath.SkipDir // fingerprinted whole already
			}
			if keep == nil || p != root && keep(d) {
				out[p] = g.mark(p)
			}
			return nil
		})
		if err != nil {
			out[root] = mark{sum: "unreadable: " + err.Error()}
		}
	}
}

func (g *tamperGuard) mark(p string) mark {
	fi, err := os.Lstat(p)
	if err != nil {
		return mark{sum: "unreadable: " + err.Error()}
	}
	m := mark{mode: fi.Mode()}
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		t, err := os.Readlink(p)
		if err != nil {
			t = "unreadable: " + err.Error()
		}
		m.sum = "-> " + t
	case fi.Mode().IsRegular():
		m.sum = g.fileSum(p, fi)
	}
	return m
}

// fileSum is the sha256 of p's content, read again only when its inode
// state changed since it was last read.
func (g *tamperGuard) fileSum(p string, fi fs.FileInfo) string {
	st, ok := fi.Sys().(*syscall.Stat_t)
	var key statKey
	if ok {
		ts := filestat.Stat(st)
		key = statKey{dev: uint64(st.Dev), ino: st.Ino, size: st.Size, mtime: ts.Mtime, ctim: ts.Ctime}
		g.mu.Lock()
		sum, seen := g.sums[key]
		g.mu.Unlock()
		if seen {
			return sum
		}
	}
	f, err := os.Open(p)
	if err != nil {
		return "unreadable: " + err.Error()
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "unreadable: " + err.Error()
	}
	sum := hex.EncodeToString(h.Sum(nil))
	if ok {
		g.mu.Lock()
		g.sums[key] = sum
		g.mu.Unlock()
	}
	return sum
}

// changes lists what differs from the fingerprint taken at the start:
// "added", "removed" or "changed" (content, type or mode), by path.
func (g *tamperGuard) changes() []string {
	now := g.snapshot()
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []string
	for p, m := range now {
		was, ok := g.base[p]
		switch {
		case !ok:
			out = append(out, p+": added")
		case was != m:
			out = append(out, p+": changed")
		}
	}
	for p := range g.base {
		if _, ok := now[p]; !ok {
			out = append(out, p+": removed")
		}
	}
	sort.Strings(out)
	return out
}

// hookSlack widens a hook's time window for the file system's coarse
// clock, which may stamp a change a few milliseconds early.
const hookSlack = 100 * time.Millisecond

// absorb takes into the fingerprint what changed while the eval's own
// lifecycle hooks ran, from start until now: a change whose inode change
// time falls in that window (a removal: its folder's), which an agent
// running at the same time could only hide behind by writing within it.
func (g *tamperGuard) absorb(start time.Time) {
	from, to := start.Add(-hookSlack), time.Now().Add(hookSlack)
	inWindow := func(p string) bool {
		fi, err := os.Lstat(p)
		if err != nil {
			return false
		}
		ts, ok := filestat.Of(fi)
		if !ok {
			return false
		}
		c := time.Unix(0, ts.Ctime)
		return !c.Before(from) && !c.After(to)
	}
	now := g.snapshot()
	g.mu.Lock()
	defer g.mu.Unlock()
	for p, m := range now {
		if was, ok := g.base[p]; (!ok || was != m) && inWindow(p) {
			g.base[p] = m
		}
	}
	for p := range g.base {
		if _, ok := now[p]; !ok && inWindow(filepath.Dir(p)) {
			delete(g.base, p)
		}
	}
}

// hooksRan absorbs what the eval's lifecycle hooks that ran since start
// changed (they are the eval's own, not the agent's).
func (st *state) hooksRan(start time.Time) {
	if st.tamper != nil {
		st.tamper.absorb(start)
	}
}

// startTamperGuard fingerprints what scoring will read, before the first
// case starts.
func (st *state) startTamperGuard() {
	// The run's config/ is what score reads by default: the agent may no
	// more change it than eval.yaml itself.
	// selection.json is which case folders score judges and a resume
	// runs: guarded too, and put back after a case that changed it.
	sel := pathutil.Abs(st.dir.SelectionPath())
	st.selection, _ = os.ReadFile(sel)
	whole, sources := st.ev.ScoredFiles(st.p.ProjectRoot)
	roots := append(whole, pathutil.Abs(st.dir.JudgeCache()), pathutil.Abs(st.dir.ConfigDir()), sel)
	skip := []string{pathutil.Abs(st.p.RunsDir), pathutil.Abs(st.wsRoot), pathutil.Abs(st.baselines), pathutil.Abs(os.TempDir())}
	if drawsExamples(st.ev) {
		// A judge's examples: are the reviews (and reviewed cases) of the
		// eval's other runs: the runs directory is read by scoring too,
		// all of it but this run.
		roots = append(roots, pathutil.Abs(st.p.RunsDir))
		skip = append(skip, pathutil.Abs(st.dir.Path))
	}
	if home, err := os.UserHomeDir(); err == nil {
		skip = append(skip, pathutil.Abs(home)) // the agent's caches, not the eval's files
	}
	st.tamper = newTamperGuard(roots, sources, skip)
}

// tamperChanges lists what differs in what scoring reads now (nil without
// a guard), leaving out an addition of one of the files placeholders names
// (what Claude Code's sandbox mounts over, which repo mode undoes).
func (st *state) tamperChanges(placeholders []string) []string {
	if st.tamper == nil {
		return nil
	}
	var out []string
	for _, ch := range st.tamper.changes() {
		p, ok := strings.CutSuffix(ch, ": added")
		if ok && slices.ContainsFunc(placeholders, func(s string) bool { return sameFile(p, s) }) {
			continue
		}
		out = append(out, ch)
	}
	return out
}

// sameFile reports a and b naming one file that exists.
func sameFile(a, b string) bool {
	fa, err := os.Lstat(a)
	if err != nil {
		return false
	}
	fb, err := os.Lstat(b)
	return err == nil && os.SameFile(fa, fb)
}

// changedSinceStart is what a tampered case's error says of what changed:
// the check sees that it changed after the run's fingerprint (during this
// case, or during an earlier one, as a change persists), not who changed it
// (the user, or another program on the machine, may write there too).
const changedSinceStart = "changed after the run started (by an agent, or by something else on this machine)"

// checkTamper fails c as tampered when what scoring reads changed since the
// run started (by this case's agent, an earlier or a parallel case's, or a
// process that is no agent's: either way its verdict could not be trusted;
// the error names what changed, not who changed it). earlier are the
// changes seen before the case's end, which the run has put back since
// (repo mode restores the project): they count all the same.
func (st *state) checkTamper(c *results.Case, earlier []string) {
	if st.tamper == nil {
		return
	}
	changed := append(st.tamper.changes(), st.pendingChanges()...)
	for _, ch := range earlier {
		if !slices.Contains(changed, ch) {
			changed = append(changed, ch)
		}
	}
	sort.Strings(changed)
	if len(changed) == 0 {
		return
	}
	st.restoreSelection(changed)
	c.Tampered = changed
	if len(changed) > maxTamperLines {
		c.Tampered = append(changed[:maxTamperLines:maxTamperLines], fmt.Sprintf("... and %d more", len(changed)-maxTamperLines))
	}
	c.Status = results.StatusTampered
	if c.ExitCode == 0 {
		c.ExitCode = 1
	}
	shown := changed
	if len(shown) > 3 {
		shown = append(shown[:3:3], fmt.Sprintf("... (%d in all)", len(changed)))
	}
	c.Error = strings.TrimSpace(c.Error + " what scoring reads " + changedSinceStart + ": " + strings.Join(shown, "; "))
}

// sealCase fingerprints a finished case's folder in the run directory:
// what scoring reads of it (its outputs, transcript, result) is final, so a
// later change is another agent's.
func (st *state) sealCase(id string) {
	if st.tamper == nil {
		return
	}
	g := newTamperGuard([]string{st.dir.Case(id)}, nil, st.otherAttempts(id))
	st.mu.Lock()
	if st.sealed == nil {
		st.sealed = map[string]*tamperGuard{}
	}
	st.sealed[id] = g
	st.mu.Unlock()
}

// checkSealed fails a finished case as tampered when its folder changed
// after it was written (by an agent of a later or parallel case), and
// rewrites its result.
func (st *state) checkSealed(id string) error {
	st.mu.Lock()
	g := st.sealed[id]
	st.mu.Unlock()
	if g == nil {
		return nil
	}
	changed := g.changes()
	if len(changed) == 0 {
		return nil
	}
	c, err := st.dir.ReadCase(id)
	if err != nil {
		return nil // the caller reports an unreadable result
	}
	c.Tampered = append(c.Tampered, changed...)
	c.Status = results.StatusTampered
	if c.ExitCode == 0 {
		c.ExitCode = 1
	}
	c.Error = strings.TrimSpace(c.Error + " its results were changed after it ended: " + strings.Join(changed[:min(len(changed), 3)], "; "))
	if err := results.WriteJSON(st.dir.CaseResult(id), c); err != nil {
		return fmt.Errorf("write the result of case %s: %w", id, err)
	}
	st.mu.Lock()
	row := RowOf(c)
	row.ID = id // the attempt's key
	st.rows[id] = row
	st.mu.Unlock()
	st.obs.Warn(fmt.Sprintf("%s: its results were changed after it ended (%s): tampered", id, strings.Join(changed[:min(len(changed), 3)], "; ")))
	return nil
}

// restoreSelection writes selection.json back as the run wrote it when
// changed names it, so that what a tampering agent wrote there makes no
// later score judge, nor resume run, other cases.
func (st *state) restoreSelection(changed []string) {
	sel := pathutil.Abs(st.dir.SelectionPath())
	if st.selection == nil || !slices.ContainsFunc(changed, func(ch string) bool { return strings.HasPrefix(ch, sel+": ") }) {
		return
	}
	_ = os.RemoveAll(sel) // a folder or a link in its place
	if err := atomicfile.Write(sel, st.selection, 0o644); err != nil {
		st.obs.Warn(fmt.Sprintf("put back %s, which a case's agent changed: %v", sel, err))
	}
}

// guardPending fingerprints the folders of the cases yet to run (absent,
// or an interrupted attempt's): until its case starts, a folder there is
// written by no one but an agent without a sandbox, and a result planted
// in it would pass for a finished case to a later resume.
func (st *state) guardPending(ids []string) {
	if st.tamper == nil {
		return
	}
	st.pendMu.Lock()
	defer st.pendMu.Unlock()
	st.pending = map[string]*tamperGuard{}
	for _, id := range ids {
		st.pending[id] = newTamperGuard([]string{pathutil.Abs(st.dir.Case(id))}, nil, st.otherAttempts(id))
	}
}

// startFolder gives case id an empty folder of its own as it starts; its
// folder is no longer a pending one. The first attempt's folder keeps the
// other attempts' (attempts/), which are theirs.
func (st *state) startFolder(id string) error {
	st.pendMu.Lock()
	defer st.pendMu.Unlock()
	delete(st.pending, id)
	dir := st.dir.Case(id)
	keep := st.otherAttempts(id)
	if len(keep) == 0 {
		return freshDir(dir)
	}
	entries, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	for _, e := range entries {
		if p := filepath.Join(dir, e.Name()); !slices.Contains(keep, p) {
			if err := os.RemoveAll(p); err != nil {
				return err
			}
		}
	}
	return os.MkdirAll(dir, 0o755)
}

// otherAttempts is what a tamper guard of id's folder leaves to the other
// attempts' own guards: attempts/ in the first attempt's folder of a run
// with repeats (absolute paths; none otherwise).
func (st *state) otherAttempts(id string) []string {
	if _, n := rundir.SplitAttempt(id); st.p.Repeats <= 1 || n > 1 {
		return nil
	}
	p := filepath.Join(st.dir.Case(id), rundir.AttemptsDir)
	return []string{p, pathutil.Abs(p)} // as the guard's root is spelled, either way
}

// pendingChanges lists what changed in the folders of the cases not
// started yet, and removes each changed folder (its case makes it again
// when it starts, and a resume then runs that case).
func (st *state) pendingChanges() []string {
	st.pendMu.Lock()
	defer st.pendMu.Unlock()
	var out []string
	for id, g := range st.pending {
		ch := g.changes()
		if len(ch) == 0 {
			continue
		}
		out = append(out, ch...)
		dir := pathutil.Abs(st.dir.Case(id))
		if err := os.RemoveAll(dir); err != nil {
			st.obs.Warn(fmt.Sprintf("remove %s, which a case's agent wrote before case %s started: %v", dir, id, err))
		}
		st.pending[id] = newTamperGuard([]string{dir}, nil, nil)
	}
	return out
}

// drawsExamples says whether a judge of ev takes few-shot exemplars from
// the reviews of the eval's other runs (judges[].examples).
func drawsExamples(ev *config.Eval) bool {
	for _, j := range ev.Judges {
		if j.Examples != nil {
			return true
		}
	}
	return false
}
