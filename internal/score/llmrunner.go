package score

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/agent-eval/agent-eval/internal/atomicfile"
	"github.com/agent-eval/agent-eval/internal/filestat"
	"github.com/agent-eval/agent-eval/internal/llm"
	"github.com/agent-eval/agent-eval/internal/redact"
	"github.com/agent-eval/agent-eval/internal/rundir"
)

// LLMRunner makes the judges' model calls: through internal/llm (which
// honours ANTHROPIC_BASE_URL and retries 429/529 with backoff), at most
// Concurrency at once, with verdicts cached in the run directory.
type LLMRunner struct {
	client  *llm.Client
	sem     chan struct{}
	cache   rundir.Dir
	noCache bool
	timeout time.Duration
	salt    string // sets this runner's cache entries apart (the fake's)
	red     func() *redact.Redactor
	made    atomic.Int64
	cached  atomic.Int64
	failed  atomic.Int64
	// warn hears the first verdict that could not be cached (nil: no one).
	warn     func(string)
	warnOnce sync.Once
}

// Retries is how many times a transient model error (429, 529, other 5xx)
// is retried, with exponential backoff, before the sample is an error.
const Retries = 4

// NewLLMRunner returns a runner caching in dir's judge_cache/ (unless
// noCache), making at most concurrency calls at once.
func NewLLMRunner(dir rundir.Dir, concurrency int, noCache bool) *LLMRunner {
	if concurrency < 1 {
		concurrency = 1
	}
	red := sync.OnceValue(func() *redact.Redactor {
		if red, err := runRedactor(dir); err == nil {
			return red
		}
		return redact.FromEnviron(os.Environ())
	})
	return &LLMRunner{client: llm.New(Retries), sem: make(chan struct{}, concurrency), cache: dir, noCache: noCache, timeout: 5 * time.Minute, red: red}
}

// NewFakeLLMRunner is NewLLMRunner against the fake Messages API at
// baseURL (score --fake-model), answering from script. Its verdicts are
// cached apart from real ones (a scripted verdict never answers a later
// real scoring) and under the script's content: a verdict of an earlier
// version of the script never answers for the edited one.
func NewFakeLLMRunner(dir rundir.Dir, concurrency int, noCache bool, baseURL string, script []byte) *LLMRunner {
	r := NewLLMRunner(dir, concurrency, noCache)
	sum := sha256.Sum256(script)
	r.client, r.salt = llm.NewAt(Retries, baseURL, "fake-model"), "fake-model "+hex.EncodeToString(sum[:])
	return r
}

// Counts are the calls made, answered from the cache, and failed.
func (r *LLMRunner) Counts() (made, cached, failed int) {
	return int(r.made.Load()), int(r.cached.Load()), int(r.failed.Load())
}

// cacheKey identifies one verdict: the model, the system prompt, the
// rendered prompt, the tool's schema and the sample index.
func (r *LLMRunner) cacheKey(req llm.ToolRequest, sample int) string {
	schema, _ := json.Marshal(req.Schema)
	h := sha256.New()
	if r.salt != "" {
		h.Write([]byte(r.salt))
		h.Write([]byte{0})
	}
	for _, part := range []string{req.Model, req.System, req.User, req.Tool, string(schema), fmt.Sprint(sample)} {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))[:40]
}

// reply is one model answer: the tool's input, or the reply's text.
type reply struct {
	Input json.RawMessage `json:"input,omitempty"`
	Text  string          `json:"text,omitempty"`
}

// call asks the model, or the cache. fromCache says which answered. Only
// answers the caller accepted (keep) are cached: use store afterwards.
func (r *LLMRunner) call(ctx context.Context, req llm.ToolRequest, sample int) (reply, bool, error) {
	key := r.cacheKey(req, sample)
	if !r.noCache && r.scoreWrote(r.cache.JudgeCacheEntry(key)) {
		if b, err := os.ReadFile(r.cache.JudgeCacheEntry(key)); err == nil {
			var rep reply
			if json.Unmarshal(b, &rep) == nil && (rep.Input != nil || rep.Text != "") {
				r.cached.Add(1)
				return rep, true, nil
			}
		}
	}
	select {
	case r.sem <- struct{}{}:
	case <-ctx.Done():
		return reply{}, false, ctx.Err()
	}
	defer func() { <-r.sem }()
	if req.Timeout == 0 {
		req.Timeout = r.timeout
	}
	in, text, err := r.client.ForcedTool(ctx, req)
	if err != nil {
		r.failed.Add(1)
		if ctx.Err() != nil {
			return reply{}, false, ctx.Err()
		}
		return reply{}, false, fmt.Errorf("ask %s: %w", req.Model, err)
	}
	r.made.Add(1)
	return reply{Input: in, Text: text}, false, nil
}

// scoreWrote reports whether the cache entry at p can only have been
// written by a scoring: its inode last changed (ctime, which no one can
// set back) after the run's run_result.json was last written, when every
// agent of the run had ended. An agent that could write the run's folder
// (sandbox off) and planted a verdict under the key its output's prompt
// would have wrote it before then. A run without run_result.json trusts
// no entry.
func (r *LLMRunner) scoreWrote(p string) bool {
	var entry, run syscall.Stat_t
	if syscall.Lstat(p, &entry) != nil || entry.Mode&syscall.S_IFMT != syscall.S_IFREG || syscall.Stat(r.cache.RunResult(), &run) != nil {
		return false
	}
	return filestat.Stat(&entry).Ctime > filestat.Stat(&run).Mtime
}

// store caches an accepted answer. A failure to cache only costs a call
// next time, so it is not an error: the first one is a warning.
func (r *LLMRunner) store(req llm.ToolRequest, sample int, rep reply) {
	// The model may quote a secret it read (an output file holding one):
	// the cache, in the run directory, keeps it redacted, as summary.yaml.
	red := r.red()
	if rep.Input != nil {
		rep.Input = red.JSON(rep.Input)
	}
	rep.Text = red.String(rep.Text)
	b, err := json.Marshal(rep)
	if err == nil {
		err = os.MkdirAll(r.cache.JudgeCache(), 0o755)
	}
	if err == nil {
		err = atomicfile.Write(r.cache.JudgeCacheEntry(r.cacheKey(req, sample)), b, 0o644)
	}
	if err != nil && r.warn != nil {
		r.warnOnce.Do(func() {
			r.warn(fmt.Sprintf("judge cache: a verdict is not cached (the next scoring asks the model again): %v", err))
		})
	}
}

// errNoModel is returned when an LLM judge has no model to call.
var errNoModel = errors.New("no judge model: set the judge's model, models.judge or $EVAL_JUDGE_MODEL")
