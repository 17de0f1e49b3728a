// Package openrouter is the OpenRouter provider plan: an eval whose agent
// model is "openrouter:/<author>/<slug>" runs Claude Code against
// OpenRouter's Anthropic-compatible API instead of Anthropic's. The plan
// is an env block (base URL, auth token, model slots, headers) that the
// claude-code runner hands Claude Code in a settings overlay
// (.eval-overlay.json, mode 0600), and the checks validate and run make
// before anything is spent.
package openrouter

import (
	"fmt"
	"math"
	"net"
	"net/url"
	"strings"

	"github.com/agent-eval/agent-eval/internal/config"
)

// Scheme prefixes an OpenRouter model id in eval.yaml.
const Scheme = "openrouter:/"

// DefaultBaseURL is OpenRouter's API without /v1.
const DefaultBaseURL = "https://openrouter.ai/api"

// DefaultKeyEnv holds the API key when the plan names no api_key_env.
const DefaultKeyEnv = "OPENROUTER_API_KEY"

// DefaultBudgetInflation multiplies the budget handed to Claude Code, whose
// cost estimate is wrong for models that are not Anthropic's.
const DefaultBudgetInflation = 50

// ManagedKeys are the variables a plan sets. No other surface (runner.env,
// execution.env) may set them under a plan, and the agent's process gets
// none of them but from the overlay.
var ManagedKeys = []string{
	"ANTHROPIC_BASE_URL", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_API_KEY", "ANTHROPIC_CUSTOM_HEADERS",
	"ANTHROPIC_MODEL", "ANTHROPIC_DEFAULT_OPUS_MODEL", "ANTHROPIC_DEFAULT_SONNET_MODEL",
	"ANTHROPIC_DEFAULT_HAIKU_MODEL", "ANTHROPIC_SMALL_FAST_MODEL", "CLAUDE_CODE_SUBAGENT_MODEL",
	"CLAUDE_CODE_USE_VERTEX", "ANTHROPIC_VERTEX_PROJECT_ID", "CLOUD_ML_REGION", "GOOGLE_CLOUD_PROJECT",
	"CLAUDE_CODE_USE_BEDROCK", "AWS_REGION", "AWS_BEARER_TOKEN_BEDROCK",
	"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC",
}

// authoredKeys may not be set by eval.yaml under a plan: the plan decides
// where the agent's traffic goes and with which credentials.
var authoredKeys = []string{"ANTHROPIC_BASE_URL", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_API_KEY", "ANTHROPIC_CUSTOM_HEADERS"}

// IsModel reports whether a model id names an OpenRouter model.
func IsModel(model string) bool { return config.IsOpenRouter(model) }

// ID is the bare OpenRouter id of an "openrouter:/<author>/<slug>" model
// ("z-ai/glm-5.2:exacto"), and whether it is one.
func ID(model string) (string, bool) {
	m := strings.TrimSpace(model)
	if !strings.HasPrefix(m, "openrouter:") {
		return m, false
	}
	id := strings.TrimPrefix(strings.TrimPrefix(m, "openrouter:"), "/")
	return id, true
}

// checkID says what is wrong with an OpenRouter id, or "".
func checkID(model string) string {
	id, _ := ID(model)
	author, slug, ok := strings.Cut(id, "/")
	if !strings.HasPrefix(strings.TrimSpace(model), Scheme) || !ok || author == "" || slug == "" || strings.ContainsAny(id, " \t\r\n\x00") {
		return fmt.Sprintf("%q is not an OpenRouter model id: write openrouter:/<author>/<slug>, e.g. openrouter:/z-ai/glm-5.2", model)
	}
	return ""
}

// Plan is an OpenRouter plan in force for a run.
type Plan struct {
	BaseURL string
	// KeyEnv names the variable the key came from; Key is its value.
	KeyEnv, Key string
	// Skill, Subagent, Background and Hook are bare model ids: the agent's,
	// its subagents', Claude Code's background (haiku) slot, the hook
	// model's.
	Skill, Subagent, Background, Hook string
	// Headers are "Name: value" lines sent with every request.
	Headers []string
	// Inflation multiplies the budget handed to Claude Code.
	Inflation float64
}

// Active reports whether the run's agent model (--model, else
// models.skill) is an OpenRouter one, so a plan is in force.
func Active(ev *config.Eval, model string) bool {
	if strings.TrimSpace(model) == "" {
		model = ev.Models.Skill
	}
	return IsModel(model)
}

// Problem is one thing wrong with a plan: at names the eval.yaml field, or
// the flag, it is about.
type Problem struct{ Field, Msg string }

// New returns the plan in force for a run of ev with model (--model, else
// models.skill) and run id runID, the key read through lookup; nil and no
// problems without one. The problems are what validate and run refuse: a
// plan that cannot work, or a key that is not set.
func New(ev *config.Eval, model, runID string, lookup func(string) (string, bool)) (*Plan, []Problem) {
	var probs []Problem
	add := func(field, format string, args ...any) {
		probs = append(probs, Problem{field, fmt.Sprintf(format, args...)})
	}
	field := "models.skill"
	if strings.TrimSpace(model) != "" {
		field = "--model"
	} else {
		model = ev.Models.Skill
	}
	if !IsModel(model) {
		for _, f := range []struct{ field, model string }{{"models.subagent", ev.Models.Subagent}, {"models.hook", ev.Models.Hook}} {
			if IsModel(f.model) {
				add(f.field, "names an OpenRouter model, but the agent's model (%s) is not one: an OpenRouter plan routes the agent, its subagents and the hook model together; name the agent's model openrouter:/… too, or an Anthropic model here", strings.TrimSpace(model))
			}
		}
		return nil, probs
	}
	var cfg config.OpenRouter
	if ev.Models.Providers != nil && ev.Models.Providers.OpenRouter != nil {
		cfg = *ev.Models.Providers.OpenRouter
	}
	p := &Plan{BaseURL: strings.TrimRight(strings.TrimSpace(cfg.BaseURL), "/"), KeyEnv: strings.TrimSpace(cfg.APIKeyEnv), Inflation: DefaultBudgetInflation}
	if p.BaseURL == "" {
		p.BaseURL = DefaultBaseURL
	}
	if p.KeyEnv == "" {
		p.KeyEnv = DefaultKeyEnv
	}
	if cfg.CLIBudgetInflation != nil {
		p.Inflation = *cfg.CLIBudgetInflation
	}
	if msg := checkID(model); msg != "" {
		add(field, "%s", msg)
	}
	p.Skill, _ = ID(model)
	if typ := ev.RunnerType(); typ != "claude-code" {
		add("runner.type", "an OpenRouter plan (the agent's model %s) routes Claude Code only, and this runner is %s: use runner.type claude-code, or name a model the %s agent runs", strings.TrimSpace(model), typ, typ)
	}
	slot := func(f, m string) string {
		if strings.TrimSpace(m) == "" {
			return ""
		}
		if !IsModel(m) {
			add(f, "%q is not an OpenRouter model, but under the OpenRouter plan every request of the agent goes to OpenRouter: name it openrouter:/<author>/<slug>, or leave it unset (the plan's model)", m)
			return ""
		}
		if msg := checkID(m); msg != "" {
			add(f, "%s", msg)
		}
		id, _ := ID(m)
		return id
	}
	p.Subagent = slot("models.subagent", ev.Models.Subagent)
	if p.Subagent == "" {
		p.Subagent = p.Skill
	}
	if b := strings.TrimSpace(cfg.BackgroundModel); b != "" {
		if _, isOR := ID(b); isOR {
			b, _ = ID(b)
		}
		p.Background = b
	} else {
		p.Background = p.Skill
	}
	p.Hook = slot("models.hook", ev.Models.Hook)
	if p.Hook == "" {
		p.Hook = p.Background
	}
	if msg := checkBaseURL(p.BaseURL); msg != "" {
		add("models.providers.openrouter.base_url", "%s", msg)
	}
	if key, ok := lookup(p.KeyEnv); !ok || strings.TrimSpace(key) == "" {
		add("models.providers.openrouter.api_key_env", "the OpenRouter plan needs its API key in $%s, which is not set: export it (the key is never written into eval.yaml)", p.KeyEnv)
	} else {
		p.Key = strings.TrimSpace(key)
	}
	for _, env := range []struct {
		field string
		m     map[string]string
	}{{"runner.env", ev.Runner.Env}, {"execution.env", ev.Execution.Env}} {
		for _, k := range authoredKeys {
			if _, set := env.m[k]; set {
				add(env.field+"."+k, "is set by the OpenRouter plan: under a plan the agent's endpoint and credentials come from models.providers.openrouter and $%s; remove it here", p.KeyEnv)
			}
		}
	}
	if a := cfg.Attribution; a != nil {
		if r := strings.TrimSpace(a.Referer); r != "" {
			p.Headers = append(p.Headers, "HTTP-Referer: "+r)
		}
		title := "agent-eval"
		if a.Title != "" {
			title = strings.TrimSpace(a.Title)
		}
		if title != "" {
			p.Headers = append(p.Headers, "X-OpenRouter-Title: "+title)
		}
		if a.RunIDHeader != nil && *a.RunIDHeader && runID != "" {
			p.Headers = append(p.Headers, "x-eval-run-id: "+runID)
		}
	} else {
		p.Headers = append(p.Headers, "X-OpenRouter-Title: agent-eval")
	}
	for _, h := range p.Headers {
		if strings.ContainsAny(h, "\r\n\x00") {
			add("models.providers.openrouter.attribution", "header %q holds a line break or NUL", h)
		}
	}
	return p, probs
}

// checkBaseURL says what is wrong with a plan's base URL, or "": https, or
// http to a loopback host (a local proxy, a test's fake).
func checkBaseURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return fmt.Sprintf("%q is not a URL: write the API's base without /v1, e.g. %s", raw, DefaultBaseURL)
	}
	switch u.Scheme {
	case "https":
		return ""
	case "http":
		host := u.Hostname()
		if ip := net.ParseIP(host); host == "localhost" || ip != nil && ip.IsLoopback() {
			return ""
		}
		return fmt.Sprintf("%q is plain http to a host that is not loopback: the API key would cross the network in clear; use https", raw)
	}
	return fmt.Sprintf("%q: the scheme must be https (or http on loopback)", raw)
}

// Env is the plan's env block for Claude Code: where its requests go, with
// which token, and which model fills each of its slots. The other
// providers' switches are blanked, so no setting of the caller's sends the
// agent elsewhere.
func (p *Plan) Env() map[string]string {
	env := map[string]string{
		"ANTHROPIC_BASE_URL":                       p.BaseURL,
		"ANTHROPIC_AUTH_TOKEN":                     p.Key,
		"ANTHROPIC_API_KEY":                        "",
		"ANTHROPIC_MODEL":                          p.Skill,
		"ANTHROPIC_DEFAULT_OPUS_MODEL":             p.Skill,
		"ANTHROPIC_DEFAULT_SONNET_MODEL":           p.Skill,
		"ANTHROPIC_DEFAULT_HAIKU_MODEL":            p.Background,
		"ANTHROPIC_SMALL_FAST_MODEL":               p.Background,
		"CLAUDE_CODE_SUBAGENT_MODEL":               p.Subagent,
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
	}
	for _, k := range []string{"CLAUDE_CODE_USE_VERTEX", "ANTHROPIC_VERTEX_PROJECT_ID", "CLOUD_ML_REGION", "GOOGLE_CLOUD_PROJECT",
		"CLAUDE_CODE_USE_BEDROCK", "AWS_REGION", "AWS_BEARER_TOKEN_BEDROCK"} {
		env[k] = ""
	}
	if len(p.Headers) > 0 {
		env["ANTHROPIC_CUSTOM_HEADERS"] = strings.Join(p.Headers, "\n")
	}
	return env
}

// Budget is the budget handed to Claude Code for a case budget of usd:
// inflated, since Claude Code prices every model as Anthropic's; 0 when
// there is none.
func (p *Plan) Budget(usd float64) float64 {
	if usd <= 0 {
		return 0
	}
	return math.Round(usd*p.Inflation*1e6) / 1e6
}
