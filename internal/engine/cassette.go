package engine

import (
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"path/filepath"
	"strings"

	"github.com/agent-eval/agent-eval/internal/atomicfile"
	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/fakeapi"
	"github.com/agent-eval/agent-eval/internal/results"
	"github.com/agent-eval/agent-eval/internal/rundir"
	"github.com/agent-eval/agent-eval/internal/runner"
)

// The real APIs run --record forwards to when neither runner.env nor the
// environment names another (ANTHROPIC_BASE_URL, OPENAI_BASE_URL,
// GOOGLE_GEMINI_BASE_URL).
const (
	DefaultAnthropicURL = "https://api.anthropic.com"
	DefaultOpenAIURL    = "https://api.openai.com/v1"
	DefaultGeminiURL    = "https://generativelanguage.googleapis.com"
)

// upstream is where a runner's recorded requests go and with which of
// the harness's credentials.
type upstream struct {
	env, url string // the base URL's variable and its value
	// strip is the path prefix the agent's requests carry that url holds.
	strip string
	auth  func(http.Header)
}

// recordUpstream is the real API of the run's runner: its base URL and
// credentials read through get (runner.env first, then the environment).
func recordUpstream(rt runner.Type, get func(string) string) (upstream, error) {
	switch rt {
	case runner.TypeCodex:
		// Codex's own provider reads OPENAI_BASE_URL; the agent reaches
		// the recorder at <recorder>/v1/responses.
		u := upstream{env: "OPENAI_BASE_URL", url: firstNonBlank(get("OPENAI_BASE_URL"), DefaultOpenAIURL), strip: "/v1"}
		key := firstNonBlank(get("OPENAI_API_KEY"), get("CODEX_API_KEY"))
		if key == "" {
			return u, usageErrorf("--record forwards the agents' requests to %s with the harness's credentials, and neither OPENAI_API_KEY nor CODEX_API_KEY is set", u.url)
		}
		org, project := get("OPENAI_ORGANIZATION"), get("OPENAI_PROJECT")
		u.auth = func(h http.Header) {
			h.Set("Authorization", "Bearer "+key)
			if org != "" {
				h.Set("OpenAI-Organization", org)
			}
			if project != "" {
				h.Set("OpenAI-Project", project)
			}
		}
		return u, nil
	case runner.TypeGemini:
		u := upstream{env: "GOOGLE_GEMINI_BASE_URL", url: firstNonBlank(get("GOOGLE_GEMINI_BASE_URL"), DefaultGeminiURL)}
		key := firstNonBlank(get("GEMINI_API_KEY"), get("GOOGLE_API_KEY"))
		if key == "" {
			return u, usageErrorf("--record forwards the agents' requests to %s with the harness's credentials, and neither GEMINI_API_KEY nor GOOGLE_API_KEY is set (Vertex AI is not recorded)", u.url)
		}
		u.auth = func(h http.Header) { h.Set("X-Goog-Api-Key", key) }
		return u, nil
	}
	u := upstream{env: "ANTHROPIC_BASE_URL", url: firstNonBlank(get("ANTHROPIC_BASE_URL"), DefaultAnthropicURL)}
	key, token := get("ANTHROPIC_API_KEY"), get("ANTHROPIC_AUTH_TOKEN")
	if key == "" && token == "" {
		return u, usageErrorf("--record forwards the agents' requests to %s with the harness's credentials, and neither ANTHROPIC_API_KEY nor ANTHROPIC_AUTH_TOKEN is set", u.url)
	}
	u.auth = func(h http.Header) {
		if key != "" {
			h.Set("X-Api-Key", key)
			return
		}
		h.Set("Authorization", "Bearer "+token)
	}
	return u, nil
}

// startRecorder puts a recording proxy between the agents and the real
// model API of their runner (run --record). The agents reach it as they
// reach the fake model (the boundary forwards its loopback port), holding
// the fake's key; the proxy, on the harness's side, adds the real
// credentials, so they never enter the agents' world.
func (st *state) startRecorder() (stop func(), err error) {
	env := config.ResolveEnv(st.ev.Runner.Env, st.p.lookupEnv)
	get := func(k string) string {
		if v, ok := env[k]; ok {
			return v
		}
		v, _ := st.p.lookupEnv(k)
		return v
	}
	up, err := recordUpstream(st.p.Runner, get)
	if err != nil {
		return nil, err
	}
	rc, err := fakeapi.NewRecorder(fakeapi.RecorderOptions{Upstream: up.url, StripPrefix: up.strip, Redactor: st.runRedactor(), Auth: up.auth})
	if err != nil {
		return nil, usageErrorf("--record: %s: %v", up.env, err)
	}
	if st.fakeURL, err = rc.Start(); err != nil {
		return nil, err
	}
	st.recorder = rc
	return func() { _ = rc.Close() }, nil
}

// cassetteName is the cassette file of a conversation: the case's
// cassette.yaml, a pipeline step's cassette.<step>.yaml.
func cassetteName(name string) string {
	if _, step, ok := strings.Cut(name, "/"); ok {
		return "cassette." + step + ".yaml"
	}
	return rundir.CassetteFile
}

// writeCassette writes what the recorder kept of conversation name into
// the case's folder dir.
func (st *state) writeCassette(dir, name string) {
	y, err := st.recorder.Cassette(name)
	if err == nil {
		err = atomicfile.Write(filepath.Join(dir, cassetteName(name)), y, 0o644)
	}
	if err != nil {
		st.obs.Warn(fmt.Sprintf("%s: --record: write the cassette: %v", name, err))
	}
}

// replayModel is the strict fake of run --replay: each case answered by
// the replayed run's cassette of it. A case without one is refused when
// it starts (noCassette), its model calls answered with an error naming
// the file.
func (st *state) replayModel(opts fakeapi.Options) *fakeapi.Server {
	opts.Strict = true
	srv := fakeapi.New(opts)
	st.noCassette = map[string]string{}
	for _, key := range st.units() {
		names := []string{key}
		for _, step := range st.ev.StepIDs() {
			names = append(names, key+"/"+step)
		}
		for _, name := range names {
			p := filepath.Join(st.p.Replay.Case(key), cassetteName(name))
			sc, err := fakeapi.LoadScript(p)
			switch {
			case errors.Is(err, fs.ErrNotExist) && name != key:
				continue // a step not recorded on its own
			case errors.Is(err, fs.ErrNotExist):
				err = fmt.Errorf("--replay: %s has no %s (record it with run --record)", st.p.Replay.Path, rel(st.p.Replay.Path, p))
			case err != nil:
				err = fmt.Errorf("--replay: %w", err)
			}
			if err != nil {
				st.noCassette[key] = err.Error()
				sc = noScript(rel(st.p.Replay.Path, p))
			}
			srv.SetScript(name, sc)
		}
	}
	return srv
}

// markDiverged makes c diverged when the replay's fake saw its agent leave
// the recording, and writes the diff into the case's folder dir.
func (st *state) markDiverged(c *results.Case, dir string) {
	if st.fake == nil || st.p.Replay.Path == "" {
		return
	}
	d, ok := st.fake.Divergence(c.CaseID)
	if !ok {
		return
	}
	key, _, _ := strings.Cut(c.CaseID, "/") // a step's case is <case>/<step>
	c.Status = results.StatusDiverged
	c.Error = fmt.Sprintf("diverged from the recording at turn %d: the agent asked what %s does not hold (see %s)", d.Turn, cassetteName(c.CaseID), rundir.DivergenceFile)
	c.Divergence = &results.Divergence{Turn: d.Turn, Diff: d.Diff, Cassette: filepath.Join(st.p.Replay.Case(key), cassetteName(c.CaseID))}
	text := fmt.Sprintf("turn %d of %s\n\n%s", d.Turn, c.Divergence.Cassette, d.Diff)
	if err := atomicfile.Write(filepath.Join(dir, rundir.DivergenceFile), []byte(text), 0o644); err != nil {
		st.obs.Warn(fmt.Sprintf("%s: write %s: %v", c.CaseID, rundir.DivergenceFile, err))
	}
}
