package score

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/agent-eval/agent-eval/internal/config"
)

// rangeList is a score_range as [min, max] (nil when undeclared).
func rangeList(r *config.ScoreRange) []float64 {
	if r == nil {
		return nil
	}
	return []float64{r.Min, r.Max}
}

// pythonShim wraps a check body (or imports a code judge's function) into
// a program speaking the exec protocol: the case as JSON on stdin, one
// {value, rationale} or {error} JSON object on stdout. What the judge
// prints goes to stderr, so it cannot forge a verdict.
const pythonShim = `import json, sys
_out = sys.stdout
sys.stdout = sys.stderr
_data = json.load(sys.stdin)
%s
try:
    _r = _judge(_data["outputs"], _data.get("arguments") or {})
except Exception as _e:
    json.dump({"error": "%%s: %%s" %% (type(_e).__name__, _e)}, _out)
    sys.exit(0)
if isinstance(_r, tuple) and len(_r) == 2:
    _v, _why = _r
elif hasattr(_r, "value"):
    _v, _why = _r.value, getattr(_r, "rationale", "")
else:
    _v, _why = _r, ""
if not isinstance(_v, (bool, int, float)) or _v is None:
    json.dump({"error": "the check returned %%r, not a bool or a number" %% (_v,)}, _out)
else:
    json.dump({"value": _v, "rationale": "" if _why is None else str(_why)}, _out)
`

// checkProgram is the Python program running a check body unchanged, as
// the body of a function of (outputs, arguments).
func checkProgram(body string) string { return fmt.Sprintf(pythonShim, checkFunc(body)) }

// checkFunc is a check body as the function _judge(outputs, arguments).
func checkFunc(body string) string {
	var b strings.Builder
	b.WriteString("def _judge(outputs, arguments):\n")
	for _, l := range strings.Split(strings.TrimRight(body, "\n"), "\n") {
		b.WriteString("    " + l + "\n")
	}
	return b.String()
}

// codeProgram imports module (a dotted name, or a .py path relative to the
// project root) and calls function(outputs=..., **arguments).
func codeProgram(module, function string) string {
	mod := strings.TrimSuffix(strings.ReplaceAll(module, "/", "."), ".py")
	def := fmt.Sprintf("import importlib\nsys.path.insert(0, '.')\n_m = importlib.import_module(%q)\ndef _judge(outputs, arguments):\n    return getattr(_m, %q)(outputs=outputs, **arguments)\n", mod, function)
	return fmt.Sprintf(pythonShim, def)
}

// maxJudgeStdout bounds what a judge may write to stdout.
const maxJudgeStdout = 16 << 20

// runProtocol runs argv (in dir, with stdin) under a timeout and reads its
// {value, rationale, error} answer. A non-zero exit, a timeout or output
// that is not that JSON object is an error sample.
func runProtocol(ctx context.Context, argv []string, dir string, stdin []byte, limit time.Duration) Outcome {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Stdin = bytes.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	// Its answer is small: a judge flooding stdout is bounded, then an
	// error sample.
	limited := &limitedBuffer{b: &stdout, n: maxJudgeStdout}
	cmd.Stdout, cmd.Stderr = limited, &limitedBuffer{b: &stderr, n: 4 << 10}
	// The judge and whatever it started die together: at the timeout or
	// cancellation the whole process group is killed.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 2 * time.Second
	err := cmd.Run()
	switch {
	case ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) && err != nil:
		return errOutcome("the judge did not finish within %s", limit)
	case ctx.Err() != nil:
		return Outcome{Err: ctx.Err()}
	case err != nil:
		msg := strings.TrimSpace(stderr.String())
		if msg != "" {
			msg = ": " + clip(lastLine(msg), 300)
		}
		return errOutcome("the judge failed (%v)%s", err, msg)
	}
	if limited.over {
		return errOutcome("the judge wrote more than %d MiB to stdout; its answer is one JSON object (log to stderr)", maxJudgeStdout>>20)
	}
	var reply struct {
		Value     any    `json:"value"`
		Rationale any    `json:"rationale"`
		Error     string `json:"error"`
	}
	// The answer is stdout, or its last line when the judge logged before
	// it.
	out := bytes.TrimSpace(stdout.Bytes())
	if !json.Valid(out) {
		if i := bytes.LastIndexByte(out, '\n'); i >= 0 {
			out = out[i+1:]
		}
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.UseNumber()
	if err := dec.Decode(&reply); err != nil {
		return errOutcome("the judge's output is not a JSON object {value, rationale}: %s", clip(strings.TrimSpace(stdout.String()), 200))
	}
	why := ""
	if reply.Rationale != nil {
		why = fmt.Sprint(reply.Rationale)
	}
	if reply.Error != "" {
		return Outcome{Err: errors.New(reply.Error), Rationale: why}
	}
	if n, ok := reply.Value.(json.Number); ok {
		f, err := n.Float64()
		if err != nil {
			return errOutcome("the judge's value %s is not a number", n)
		}
		reply.Value = f
	}
	v, err := valueOf(reply.Value)
	if err != nil {
		return Outcome{Err: err, Rationale: why}
	}
	return Outcome{Value: v, Rationale: why}
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// limitedBuffer keeps the first n bytes written to it.
type limitedBuffer struct {
	b    *bytes.Buffer
	n    int
	over bool // more than n bytes were written
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	l.over = l.over || len(p) > l.n-l.b.Len()
	if room := l.n - l.b.Len(); room > 0 {
		if len(p) > room {
			l.b.Write(p[:room])
		} else {
			l.b.Write(p)
		}
	}
	return len(p), nil
}

// caseInput is what a check, code or exec judge reads on stdin.
func caseInput(rec *Record, name string, j config.Judge) ([]byte, error) {
	args := j.Arguments
	if args == nil {
		args = map[string]any{}
	}
	b, err := json.Marshal(map[string]any{"case_id": rec.CaseID, "outputs": rec.Outputs, "arguments": args,
		"judge": map[string]any{"name": name, "feedback_type": j.FeedbackType, "score_range": rangeList(j.ScoreRange)}})
	if err != nil {
		return nil, fmt.Errorf("encode the record of %s: %w", rec.CaseID, err)
	}
	return b, nil
}
