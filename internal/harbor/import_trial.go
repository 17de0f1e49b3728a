package harbor

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/agent-eval/agent-eval/internal/clip"
	"github.com/agent-eval/agent-eval/internal/engine"
	"github.com/agent-eval/agent-eval/internal/redact"
	"github.com/agent-eval/agent-eval/internal/results"
	"github.com/agent-eval/agent-eval/internal/rundir"
	"github.com/agent-eval/agent-eval/internal/runner/claudecode"
	"github.com/agent-eval/agent-eval/internal/transcript"
)

// importTrial writes one trial into t.folder and returns its case.
func importTrial(t *trial, attempt, attempts int) (*results.Case, []string, error) {
	id := t.info.CaseID
	c := newCase(id)
	c.Harbor = &results.HarborTrial{Trial: t.name, Attempt: attempt, Attempts: attempts}
	if err := os.MkdirAll(t.folder.Path, 0o755); err != nil {
		return nil, nil, err
	}
	tf, err := os.Create(t.folder.Transcript())
	if err != nil {
		return nil, nil, err
	}
	trRed := t.red.JSONWriter(tf)
	tw := transcript.NewWriter(trRed)
	var warns []string
	var calls []transcript.ToolCall
	collected := collectedCase(trialVerifier, t.info.CaseID)
	switch {
	case t.res == nil:
		c.ExitCode, c.Status = -1, results.StatusInfraError
		c.Harbor.InfraError = "Harbor wrote no result.json: the trial did not finish"
		c.Error = c.Harbor.InfraError
	case len(t.steps) == 0:
		c.Prompt = instruction(filepath.Join(t.task, InstructionFile))
		tw.Write(transcript.Event{Kind: transcript.KindPrompt, Text: c.Prompt})
		sum, w, err := agentLog(t, filepath.Join(trialAgentDir, claudeCodeLog), t.folder, tw, "")
		if err != nil {
			return nil, nil, err
		}
		warns = append(warns, w...)
		fromSummary(c, sum, t.res.AgentResult, t.res.AgentExecution)
		outcome(c, t.res.ExceptionInfo, t.res.AgentExecution.started())
		warns = append(warns, verdict(c, t.dir, trialVerifier)...)
		calls = sum.ToolCalls
	default:
		collected, calls, warns = importSteps(t, c, tw)
	}
	if err := errors.Join(tw.Flush(), trRed.Close(), tf.Close()); err != nil {
		return nil, nil, fmt.Errorf("write the transcript: %w", err)
	}
	if t.res != nil {
		w, err := collect(t, collected, c, calls)
		if err != nil {
			return nil, nil, err
		}
		warns = append(warns, w...)
	}
	redactCase(c, t.red)
	if err := results.WriteJSON(t.folder.Result(), c); err != nil {
		return nil, nil, fmt.Errorf("write the case's result: %w", err)
	}
	return c, warns, nil
}

// redactCase hides the importing process's secrets in what the case
// records from the trial, as a local run's record is redacted: the
// stream's result and denials (engine.RedactCase), and Harbor's exception
// messages (they quote what a command printed) and the verifier's
// rationales.
func redactCase(c *results.Case, red *redact.Redactor) {
	engine.RedactCase(c, red)
	for _, x := range append([]*results.Case{c}, c.Steps...) {
		h := x.Harbor
		if h == nil {
			continue
		}
		h.Exception, h.InfraError, h.VerifierError = red.String(h.Exception), red.String(h.InfraError), red.String(h.VerifierError)
		for name, j := range h.Judges {
			j.Rationale, j.Error = red.String(j.Rationale), red.String(j.Error)
			h.Judges[name] = j
		}
	}
}

// importSteps maps a multi-step trial: one step folder and one step case
// per [[steps]] entry, in the order Harbor ran them (step_results), their
// transcripts in the case's. It returns the collected folder of the last
// step that left one.
func importSteps(t *trial, c *results.Case, tw *transcript.Writer) (string, []transcript.ToolCall, []string) {
	var warns []string
	var calls []transcript.ToolCall
	collected := ""
	started := false
	c.Status = results.StatusCompleted
	for _, sr := range t.res.StepResults {
		if !rundir.SafeSegment(sr.StepName) {
			warns = append(warns, fmt.Sprintf("step %q cannot name a folder: skipped", sr.StepName))
			continue
		}
		sc := newCase(c.CaseID + "/" + sr.StepName)
		sc.Harbor = &results.HarborTrial{Trial: t.name, Attempt: c.Harbor.Attempt, Attempts: c.Harbor.Attempts}
		c.Steps = append(c.Steps, sc)
		stepRel := filepath.Join(trialStepsDir, sr.StepName)
		sf := t.folder.Step(sr.StepName)
		if err := os.MkdirAll(sf.Path, 0o755); err != nil {
			warns = append(warns, err.Error())
			continue
		}
		sc.Prompt = instruction(filepath.Join(t.task, StepsDirName, sr.StepName, InstructionFile))
		tw.Write(transcript.Event{Kind: transcript.KindPrompt, Step: sr.StepName, Text: sc.Prompt})
		sum, w, err := agentLog(t, filepath.Join(stepRel, trialAgentDir, claudeCodeLog), sf, tw, sr.StepName)
		if err != nil {
			warns = append(warns, err.Error())
		}
		warns = append(warns, w...)
		fromSummary(sc, sum, sr.AgentResult, sr.AgentExecution)
		outcome(sc, sr.ExceptionInfo, sr.AgentExecution.started())
		started = started || sr.AgentExecution.started()
		warns = append(warns, verdict(sc, t.dir, filepath.Join(stepRel, trialVerifier))...)
		calls = append(calls, sum.ToolCalls...)
		if p, err := checkedPath(t.dir, collectedCase(filepath.Join(stepRel, trialVerifier), t.info.CaseID)); err == nil && p != "" {
			collected = collectedCase(filepath.Join(stepRel, trialVerifier), t.info.CaseID)
		}
		addStep(c, sc)
	}
	if len(c.Steps) > 0 {
		last := c.Steps[len(c.Steps)-1].Harbor
		c.Harbor.Reward, c.Harbor.Rewards, c.Harbor.Judges, c.Harbor.Unjudged = last.Reward, last.Rewards, last.Judges, last.Unjudged
	}
	for _, sc := range c.Steps {
		if sc.Harbor.VerifierError != "" && c.Harbor.VerifierError == "" {
			c.Harbor.VerifierError = "step " + strings.TrimPrefix(sc.CaseID, c.CaseID+"/") + ": " + sc.Harbor.VerifierError
		}
	}
	if t.res.ExceptionInfo != nil && c.Status == results.StatusCompleted {
		outcome(c, t.res.ExceptionInfo, started || t.res.AgentExecution.started())
	}
	if collected == "" {
		collected = collectedCase(trialVerifier, t.info.CaseID)
	}
	return collected, calls, warns
}

// addStep folds a step into its case, as a local pipeline does: the sums,
// the first failure, the last result.
func addStep(c, sc *results.Case) {
	c.DurationS += sc.DurationS
	c.CostUSD += sc.CostUSD
	c.NumTurns += sc.NumTurns
	c.TokenUsage.Add(sc.TokenUsage)
	transcript.AddPerModel(c.PerModelUsage, sc.PerModelUsage)
	c.PermissionDenials = append(c.PermissionDenials, sc.PermissionDenials...)
	if sc.Model != "" && c.Model == "" {
		c.Model = sc.Model
	}
	c.Result, c.IsError = sc.Result, sc.IsError
	c.TimedOut = c.TimedOut || sc.TimedOut
	step := strings.TrimPrefix(sc.CaseID, c.CaseID+"/")
	switch {
	case sc.Status == results.StatusInfraError && c.Status != results.StatusInfraError:
		c.Status, c.Error = sc.Status, "step "+step+": "+sc.Error
		if c.ExitCode == 0 {
			c.ExitCode = sc.ExitCode
		}
	case sc.ExitCode != 0 && c.ExitCode == 0:
		c.ExitCode, c.Status, c.Error = sc.ExitCode, sc.Status, "step "+step+": "+firstNonBlank(sc.Error, string(sc.Status))
		c.AbortedAtStep = step
	}
}

func firstNonBlank(a, b string) string {
	if strings.TrimSpace(a) != "" {
		return a
	}
	return b
}

func newCase(id string) *results.Case {
	return &results.Case{CaseID: id, PermissionDenials: []transcript.Denial{}, PerModelUsage: map[string]transcript.ModelUsage{}}
}

// instruction is the task's instruction.md: what the agent was prompted.
func instruction(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return strings.TrimRight(string(b), "\n")
}

// agentLog copies the agent's log (claude-code.txt) to the folder's
// stdout.log, redacted, and parses it as it was with the claude-code
// runner's parser, writing the transcript events (of step) to tw. A trial
// without a log (its agent never started) has an empty summary.
func agentLog(t *trial, rel string, folder rundir.CaseFolder, tw *transcript.Writer, step string) (sum *summary, warns []string, err error) {
	empty := func() (*summary, error) { return claudecode.ParseLog(strings.NewReader(""), nil) }
	f, err := openUntrusted(t.dir, rel)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		sum, err := empty()
		return sum, nil, err
	case err != nil:
		sum, e2 := empty()
		return sum, []string{fmt.Sprintf("the agent's log %s refused: %v", rel, reason(err))}, e2
	}
	defer f.Close()
	file, err := os.Create(folder.Stdout())
	if err != nil {
		return nil, nil, err
	}
	out := t.red.JSONWriter(file)
	sum, err = claudecode.ParseLog(io.TeeReader(f, out), func(e transcript.Event) {
		e.Step = step
		tw.Write(e)
	})
	if cerr := errors.Join(out.Close(), file.Close()); err == nil && cerr != nil {
		err = fmt.Errorf("write %s: %w", file.Name(), cerr)
	}
	return sum, nil, err
}

// summary is what the agent's stream said, as the claude-code runner's
// parser reads it.
type summary = claudecode.Summary

// fromSummary fills the case from the stream's summary, then from Harbor's
// agent_result (its tokens and cost, when it has them) and agent_execution
// (the duration).
func fromSummary(c *results.Case, sum *summary, ac *agentContext, exec *timing) {
	c.CostUSD, c.TokenUsage, c.NumTurns = sum.CostUSD, sum.Usage, sum.NumTurns
	if sum.PerModel != nil {
		c.PerModelUsage = sum.PerModel
	}
	c.Model, c.Result, c.IsError = sum.Model, sum.Result, sum.IsError
	if sum.Denials != nil {
		c.PermissionDenials = sum.Denials
	}
	if ac != nil {
		if ac.NInputTokens != nil || ac.NOutputTokens != nil {
			cache := deref(ac.NCacheTokens)
			c.TokenUsage = transcript.Usage{InputTokens: deref(ac.NInputTokens) - cache, OutputTokens: deref(ac.NOutputTokens),
				CacheReadTokens: cache}
		}
		if ac.CostUSD != nil {
			c.CostUSD = *ac.CostUSD
		}
	}
	c.DurationS = exec.seconds()
}

func deref(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}

// outcome sets the case's status and exit code from Harbor's exception:
// the agent's own failures (a timeout, a non-zero exit) as a local run
// records them; a verifier's failure as the verifier's error, the case
// keeping the agent's status; any other exception once the agent had
// started (agentStarted) as the agent's failure, for the agent had the
// container and may have caused it (killed its init, filled its disk);
// only one before as an infrastructure error, which score leaves
// unjudged.
func outcome(c *results.Case, exc *exceptionInfo, agentStarted bool) {
	switch {
	case exc == nil && c.IsError:
		c.ExitCode, c.Status = 1, results.StatusFailed
		c.Error = "the agent ended with an error: " + clip.String(c.Result, 200)
	case exc == nil:
		c.ExitCode, c.Status = 0, results.StatusCompleted
	case exc.Type == agentTimeout:
		c.ExitCode, c.Status, c.TimedOut, c.Error = -1, results.StatusTimeout, true, exc.String()
	case exc.Type == agentCancelled:
		c.ExitCode, c.Status, c.Interrupted, c.Error = -1, results.StatusInterrupted, true, "interrupted"
	case agentsException(exc.Type):
		c.ExitCode, c.Status, c.Error = exc.exitCode(), results.StatusFailed, exc.String()
	case verifierException(exc.Type):
		// The verifier ran in the container the agent had (its background
		// processes, its files): the agent may have made it fail, so its
		// failure is no infrastructure error, which score would leave out.
		// The case keeps the agent's own status and is judged.
		c.Harbor.VerifierError = exc.String()
		outcome(c, nil, agentStarted)
	case agentStarted:
		c.ExitCode, c.Status = -1, results.StatusFailed
		c.Error = exc.String() + " (after the agent started: judged as its failure, it had the container)"
	default:
		c.ExitCode, c.Status, c.Error = -1, results.StatusInfraError, exc.String()
		c.Harbor.InfraError = exc.String()
	}
	if exc != nil {
		c.Harbor.Exception = exc.String()
	}
}

// verdict reads the reward and the judges the verifier left in root/rel.
// No reward (no file, or one that does not read) when the case was not
// unjudged is recorded as the verifier's error, never a 0; the case keeps
// its status: the verifier ran where the agent had been, so its failure
// is no way out of score's verdict.
func verdict(c *results.Case, root, rel string) []string {
	h := c.Harbor
	var warns []string
	var js struct {
		PerJudge map[string]struct {
			Value     any    `json:"value"`
			Rationale string `json:"rationale"`
			JudgeType string `json:"judge_type"`
			Error     string `json:"error"`
		} `json:"per_judge"`
	}
	switch err := readMeta(root, filepath.Join(rel, JudgesJSON), &js); {
	case err == nil:
		h.Judges = map[string]results.HarborJudge{}
		for name, j := range js.PerJudge {
			h.Judges[name] = results.HarborJudge{Value: number(j.Value), Rationale: clip.String(j.Rationale, 2000), JudgeType: j.JudgeType, Error: j.Error}
		}
	case !errors.Is(err, fs.ErrNotExist):
		warns = append(warns, fmt.Sprintf("%s refused: %v", JudgesJSON, reason(err)))
	}
	missing := readReward(h, root, rel)
	if missing != "" && h.InfraError == "" && h.VerifierError == "" {
		h.VerifierError = missing
	}
	return warns
}

// readReward fills h's reward from reward.json (else reward.txt) and
// returns why there is none, or "".
func readReward(h *results.HarborTrial, root, rel string) string {
	var raw map[string]any
	err := readMeta(root, filepath.Join(rel, RewardJSON), &raw)
	if errors.Is(err, fs.ErrNotExist) {
		b, terr := readUntrusted(root, filepath.Join(rel, RewardTXT), 64)
		if terr == nil {
			if f, perr := strconv.ParseFloat(strings.TrimSpace(string(b)), 64); perr == nil && !math.IsNaN(f) && !math.IsInf(f, 0) {
				h.Reward = &f
				return ""
			}
			return "the verifier's " + RewardTXT + " is not a number"
		}
		if errors.Is(terr, fs.ErrNotExist) {
			return "the verifier left no reward (no " + RewardJSON + ")"
		}
		err = terr
	}
	if err != nil {
		return "the verifier's reward does not read: " + reason(err)
	}
	if number(raw[UnjudgedKey]) != nil && *number(raw[UnjudgedKey]) == 1 {
		h.Unjudged = true
		return ""
	}
	r := number(raw["reward"])
	if r == nil {
		return "the verifier's " + RewardJSON + " has no reward"
	}
	h.Reward = r
	for k, v := range raw {
		if k == "reward" || k == UnjudgedKey {
			continue
		}
		if n := number(v); n != nil {
			if h.Rewards == nil {
				h.Rewards = map[string]float64{}
			}
			h.Rewards[k] = *n
		}
	}
	return ""
}

// number is v as a finite number (true and false as 1 and 0), or nil.
func number(v any) *float64 {
	var f float64
	switch x := v.(type) {
	case float64:
		f = x
	case bool:
		if x {
			f = 1
		}
	default:
		return nil
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil
	}
	return &f
}

// collect copies what the verifier collected in the container (rel: a
// one-case run directory's case folder) into the case's folder: the hook's
// ledger, outputs/ and _modified/; links and other non-files are refused.
// The answers delivered come from the ledger and the host's own parse of
// the agent's log (calls); the verifier's copies of the transcript and the
// case's result are not read.
func collect(t *trial, rel string, c *results.Case, calls []transcript.ToolCall) ([]string, error) {
	var warns []string
	switch err := copyUntrusted(t.dir, filepath.Join(rel, rundir.LedgerFile), t.folder.Ledger(), t.red); {
	case err == nil:
		f, err := os.Open(t.folder.Ledger())
		if err != nil {
			return nil, err
		}
		answered, lost, err := rundir.DeliveredAnswers(f, calls)
		_ = f.Close()
		if err != nil {
			warns = append(warns, err.Error())
		}
		c.Answers, c.AnswerLog, c.AnswersNotDelivered = len(answered), answered, lost
		c.AnswersByTier = results.TierCounts(answered)
	case errors.Is(err, fs.ErrNotExist):
	case errors.Is(err, errNotRegular) || strings.Contains(err.Error(), "escapes"):
		warns = append(warns, fmt.Sprintf("%s refused: %v", filepath.ToSlash(filepath.Join(rel, rundir.LedgerFile)), reason(err)))
	default:
		return nil, err
	}
	tamperedInTrial(t.dir, rel, c, t.red)
	_, refused, err := copyTreeUntrusted(t.dir, filepath.Join(rel, rundir.OutputsDir), t.folder.Outputs())
	if err != nil {
		return nil, err
	}
	modified, refused2, err := copyTreeUntrusted(t.dir, filepath.Join(rel, rundir.ModifiedDir), t.folder.Modified())
	if err != nil {
		return nil, err
	}
	c.ModifiedFiles = modified
	for _, r := range append(refused, refused2...) {
		warns = append(warns, "refused "+r)
	}
	return warns, nil
}

// tamperedInTrial makes c tampered when the verifier found files planted
// in the task's tests/ folder (its collected case is tampered). The rest
// of the verifier's case is not read, but this one finding is kept: an
// agent gains only by hiding it, never by making it up.
func tamperedInTrial(root, rel string, c *results.Case, red *redact.Redactor) {
	var vc struct {
		Status   results.Status `json:"status"`
		Tampered []string       `json:"tampered"`
	}
	if readMeta(root, filepath.Join(rel, rundir.RunResultFile), &vc) != nil || vc.Status != results.StatusTampered {
		return
	}
	if len(vc.Tampered) > 20 {
		vc.Tampered = append(vc.Tampered[:20], fmt.Sprintf("… %d more", len(vc.Tampered)-20))
	}
	for i, s := range vc.Tampered {
		vc.Tampered[i] = red.String(clip.String(s, 300))
	}
	if len(vc.Tampered) == 0 {
		vc.Tampered = []string{"the trial's verifier found the case tampered"}
	}
	c.Status, c.Tampered = results.StatusTampered, vc.Tampered
	c.Error = joinErr(c.Error, "the trial's verifier found files planted in the task's tests/ folder before Harbor uploaded it")
}

// collectedCase is the case folder of the one-case run directory the
// verifier left in a trial's verifier folder (layout.go CollectedDir).
func collectedCase(verifier, id string) string {
	return filepath.Join(verifier, CollectedDir, rundir.CasesDir, id)
}
