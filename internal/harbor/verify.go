package harbor

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/agent-eval/agent-eval/internal/atomicfile"
	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/engine"
	"github.com/agent-eval/agent-eval/internal/redact"
	"github.com/agent-eval/agent-eval/internal/results"
	"github.com/agent-eval/agent-eval/internal/rundir"
	"github.com/agent-eval/agent-eval/internal/runner/claudecode"
	"github.com/agent-eval/agent-eval/internal/score"
	"github.com/agent-eval/agent-eval/internal/transcript"
	"github.com/agent-eval/agent-eval/internal/workspace"
)

// ClaudeCodeLog is the log Harbor's claude-code agent writes in the agent
// logs folder: `claude --print --output-format=stream-json --verbose …
// 2>&1 | tee`, the stream and the agent's stderr in one file.
const ClaudeCodeLog = "claude-code.txt"

// VerifyOptions are the folders of `agent-eval harbor verify`: the
// container's paths (layout.go), flags so tests run it on temporary
// folders.
type VerifyOptions struct {
	Tests, Workdir, AgentLogs, Out string
	// Environ is the judges' environment and what the copies are redacted
	// with (os.Environ when nil).
	Environ []string
	// Warn hears what could not be collected (may be nil).
	Warn func(string)
}

// Verify judges the case of a Harbor trial inside its container, after the
// agent ran: it removes what the verifier writes from Out first (an agent
// may have planted a reward there), collects the case into
// Out/CollectedDir as a local run would, runs the judges the container can
// run, and writes JudgesJSON and then RewardJSON. On any error it writes no
// reward file: Harbor then reports the trial's verifier as failed, never a
// reward of 0. It returns what it wrote in JudgesJSON.
func Verify(ctx context.Context, o VerifyOptions) (*Judges, error) {
	if o.Environ == nil {
		o.Environ = os.Environ()
	}
	if o.Warn == nil {
		o.Warn = func(string) {}
	}
	if err := clearOut(o.Out); err != nil {
		return nil, err
	}
	info, ev, err := readTests(o.Tests)
	if err != nil {
		return nil, err
	}
	var planted []string
	if info.Tests != nil {
		if planted, err = plantedTests(o.Tests, info.Tests); err != nil {
			return nil, err
		}
	}
	dir := rundir.Dir{Path: filepath.Join(o.Out, CollectedDir)}
	if err := collectTrial(o, info, ev, dir, planted); err != nil {
		return nil, err
	}
	v, err := score.ScoreTrial(ctx, score.TrialOptions{Dir: dir, Eval: ev, CaseID: info.CaseID,
		CaseSource: filepath.Join(o.Tests, CaseDataDir), Step: info.Step, Environ: o.Environ, TestsVerified: info.Tests != nil})
	if err != nil {
		return nil, fmt.Errorf("judge the case: %w", err)
	}
	judges, reward := trialFiles(v)
	if err := writeJSON(filepath.Join(o.Out, JudgesJSON), judges); err != nil {
		return nil, err
	}
	if err := writeJSON(filepath.Join(o.Out, RewardJSON), reward); err != nil {
		return nil, err
	}
	return &judges, nil
}

// clearOut removes what the verifier writes from out, whatever the agent
// put there in its place (a file, a folder, a link: a link is removed, not
// followed), and checks it is gone.
func clearOut(out string) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return fmt.Errorf("make the verifier's folder: %w", err)
	}
	for _, name := range []string{RewardJSON, RewardTXT, JudgesJSON, CollectedDir} {
		p := filepath.Join(out, name)
		if err := os.RemoveAll(p); err != nil {
			return fmt.Errorf("remove %s left before the verifier ran: %w", p, err)
		}
		if _, err := os.Lstat(p); !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove %s left before the verifier ran: it is still there (%v)", p, err)
		}
	}
	return nil
}

// readTests reads tests/case.json and tests/eval.yaml. The eval is read as
// if it were at tests/ (its judges' files are there); what it names that a
// trial does not carry (the dataset, inputs.tools prompt files, which the
// export compiled) need not be there: the case's folder is tests/case/.
func readTests(tests string) (CaseInfo, *config.Eval, error) {
	var info CaseInfo
	caseFile := filepath.Join(tests, CaseFile)
	b, err := os.ReadFile(caseFile)
	if err != nil {
		return info, nil, fmt.Errorf("read the task's case: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&info); err != nil {
		return info, nil, fmt.Errorf("%s: %w", caseFile, err)
	}
	if info.CaseID == "" || !rundir.SafeSegment(info.CaseID) {
		return info, nil, fmt.Errorf("%s: case_id %q is not a case's folder name", caseFile, info.CaseID)
	}
	evalFile := filepath.Join(tests, EvalFile)
	data, err := os.ReadFile(evalFile)
	if err != nil {
		return info, nil, fmt.Errorf("read the task's eval: %w", err)
	}
	ev, err := config.ParseCopy(evalFile, data, evalFile)
	var es config.Errors
	if errors.As(err, &es) {
		var left config.Errors
		for _, e := range es {
			if !notCarried(e) {
				left = append(left, e)
			}
		}
		if len(left) == 0 {
			err = nil
		} else {
			err = left
		}
	}
	if err != nil {
		return info, nil, err
	}
	if info.Step != "" && !hasStep(ev, info.Step) {
		return info, nil, fmt.Errorf("%s: step %q is none of %s's execution.steps", caseFile, info.Step, evalFile)
	}
	return info, ev, nil
}

// notCarried is a problem of eval.yaml that only says a file a trial does
// not carry is missing.
func notCarried(e config.Error) bool {
	if e.Code != config.CodeSemantic {
		return false
	}
	if e.Field == "dataset.path" {
		return true
	}
	var i int
	var rest string
	n, _ := fmt.Sscanf(e.Field, "inputs.tools[%d].%s", &i, &rest)
	return n == 2 && rest == "prompt_file"
}

func hasStep(ev *config.Eval, step string) bool {
	for _, s := range ev.Execution.Steps {
		if s.ID == step {
			return true
		}
	}
	return false
}

// plantedTests lists what differs in tests/ from what the export put there
// (want: CaseInfo.Tests), as the local tamper check words it: "<path>:
// added|changed|removed". Harbor uploads tests/ over what is there, so a
// difference is what the agent left in /tests before the upload.
func plantedTests(tests string, want map[string]string) ([]string, error) {
	var out []string
	seen := map[string]bool{CaseFile: true}
	err := filepath.WalkDir(tests, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(tests, p)
		rel = filepath.ToSlash(rel)
		switch {
		case rel == "." || rel == CaseFile:
			return nil
		case d.IsDir():
			return nil
		case !d.Type().IsRegular():
			// A link (to a folder too: never followed) or a FIFO: the
			// export writes neither.
			out = append(out, rel+": added")
			return nil
		}
		sum, err := workspace.FileSHA256(p)
		if err != nil {
			return err
		}
		seen[rel] = true
		switch w, ok := want[rel]; {
		case !ok:
			out = append(out, rel+": added")
		case w != sum:
			out = append(out, rel+": changed")
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("check the task's tests/ folder: %w", err)
	}
	for rel := range want {
		if !seen[rel] {
			out = append(out, rel+": removed")
		}
	}
	sort.Strings(out)
	return out, nil
}

// collectTrial writes the one-case run directory dir: the case's result
// and transcript from the agent's log, and what the local run collects
// from the workspace, by the engine's own code (engine.Collector). planted
// (plantedTests) makes the case tampered.
func collectTrial(o VerifyOptions, info CaseInfo, ev *config.Eval, dir rundir.Dir, planted []string) error {
	id := info.CaseID
	caseOut := dir.Case(id)
	if err := os.MkdirAll(caseOut, 0o755); err != nil {
		return fmt.Errorf("make the collected case's folder: %w", err)
	}
	red := redact.FromEnviron(o.Environ)
	c := &results.Case{CaseID: id}
	calls, err := parseAgentLog(filepath.Join(o.AgentLogs, ClaudeCodeLog), dir.Transcript(id), info.Step, red, c)
	if err != nil {
		return err
	}
	k := engine.Collector{Outputs: ev.Outputs, Redactor: red, Warn: o.Warn, Collection: workspace.NewCollection(engine.CollectLimits(ev))}
	if fi, err := os.Lstat(o.Workdir); err != nil || !fi.IsDir() {
		// The agent removed its workdir or put a link in its place:
		// nothing is collected from it, and its case is judged without.
		c.Error = joinErr(c.Error, fmt.Sprintf("the workdir %s is not a folder (%v): nothing collected from it", o.Workdir, err))
	} else {
		k.Collect(o.Workdir, caseOut, c, calls)
		base, err := readBaseline(filepath.Join(o.Tests, BaselineFile))
		if err != nil {
			return err
		}
		files, err := workspace.ModifiedSince(o.Workdir, base, engine.OutputPaths(ev))
		if err != nil {
			o.Warn(fmt.Sprintf("%s: %v", id, err))
		}
		k.Modified(o.Workdir, caseOut, c, files)
		engine.MarkOverLimit(c, k.Collection)
	}
	if len(planted) > 0 {
		c.Status, c.Tampered = results.StatusTampered, planted
		c.Error = joinErr(c.Error, "files were planted in the task's tests/ folder before Harbor uploaded it")
	}
	engine.RedactCase(c, red)
	if err := results.WriteJSON(dir.CaseResult(id), c); err != nil {
		return fmt.Errorf("write the collected case's result: %w", err)
	}
	return nil
}

func joinErr(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// parseAgentLog reads the claude-code agent's log at logFile with the
// stream parser the claude-code runner uses (lines of its stderr in
// between are skipped as the runner skips them), writes the transcript to
// trFile and fills c as the engine records an invocation. A missing log
// (the agent never started) is the case's error, not the verifier's. It
// returns the tool calls, for the answers delivered.
func parseAgentLog(logFile, trFile, step string, red *redact.Redactor, c *results.Case) ([]transcript.ToolCall, error) {
	f, err := os.Create(trFile)
	if err != nil {
		return nil, fmt.Errorf("create the transcript: %w", err)
	}
	redW := red.JSONWriter(f)
	tr := transcript.NewWriter(redW)
	onEvent := func(e transcript.Event) {
		e.Step = step
		tr.Write(e)
	}
	res := claudecode.Result{}
	sum, logErr := parseLog(logFile, onEvent)
	res.Summary = sum
	switch {
	case logErr != nil:
		res.ExitCode, res.Err = -1, fmt.Errorf("no agent log: %w", logErr)
		tr.Write(transcript.Event{Kind: transcript.KindError, Step: step, Text: res.Err.Error()})
	case sum.ResultEvents == 0:
		// The stream stopped before its result (the agent was killed at
		// Harbor's timeout, or crashed): not a completed run.
		res.ExitCode = -1
		res.Err = fmt.Errorf("the agent's log %s has no result event: it stopped before its end", logFile)
	default:
		res.ExitCode = claudecode.ExitCode(0, sum)
	}
	if err := errors.Join(tr.Flush(), redW.Close(), f.Close()); err != nil {
		return nil, fmt.Errorf("write the transcript: %w", err)
	}
	engine.RecordInvocation(c, res.RunnerResult(red), 0)
	return sum.ToolCalls, nil
}

// parseLog parses the regular file p with the claude-code runner's own
// stream parser (claudecode.ParseLog); a link or a FIFO in its place is
// not read.
func parseLog(p string, onEvent func(transcript.Event)) (*claudecode.Summary, error) {
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		sum, _ := claudecode.ParseLog(strings.NewReader(""), nil)
		return sum, err
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		sum, _ := claudecode.ParseLog(strings.NewReader(""), nil)
		return sum, fmt.Errorf("%s is not a regular file", p)
	}
	return claudecode.ParseLog(f, onEvent)
}

// readBaseline reads tests/baseline.json.
func readBaseline(p string) (map[string]string, error) {
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, fmt.Errorf("read the task's baseline: %w", err)
	}
	var m map[string]string
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	return m, nil
}

// trialFiles are judges.json and reward.json of a verdict. reward.json is
// flat numbers only: reward, and each judge's value by name (a judge
// named "reward" or UnjudgedKey is left out of it; judges.json has it);
// UnjudgedKey 1 with a reward of 0 when the reward could not be composed
// here.
func trialFiles(v *score.TrialVerdict) (Judges, map[string]float64) {
	j := Judges{Reward: v.Reward, PerJudge: map[string]JudgeResult{}}
	reward := map[string]float64{}
	for _, tj := range v.Judges {
		r := JudgeResult{JudgeType: tj.Kind, NotRun: tj.Why}
		if vd := tj.Verdict; vd != nil {
			r.Value, r.Passed, r.Rationale, r.Error, r.Skipped = vd.Value, vd.Passed, vd.Rationale, vd.Error, vd.Skipped
			if vd.Value != nil && tj.Name != "reward" && tj.Name != UnjudgedKey {
				reward[tj.Name] = *vd.Value
			}
		}
		j.PerJudge[tj.Name] = r
	}
	if v.Reward == nil {
		reward["reward"], reward[UnjudgedKey] = 0, 1
		return j, reward
	}
	reward["reward"] = *v.Reward
	return j, reward
}

// writeJSON writes v to p atomically (a reader never sees half a file).
func writeJSON(p string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encode %s: %w", filepath.Base(p), err)
	}
	if err := atomicfile.Write(p, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", p, err)
	}
	return nil
}
