package openrouter

import (
	"strings"
	"testing"

	"github.com/agent-eval/agent-eval/internal/config"
)

func load(t *testing.T, y string) *config.Eval {
	t.Helper()
	if !strings.Contains(y, "execution:") {
		y = "execution: {prompt: hi}\n" + y
	}
	ev, err := config.Parse("eval.yaml", []byte(y))
	if err != nil {
		t.Fatal(err)
	}
	return ev
}

func keyed(k string) (string, bool) {
	if k == "OPENROUTER_API_KEY" || k == "MY_KEY" {
		return "sk-or-1", true
	}
	return "", false
}

func TestNew(t *testing.T) {
	for _, tc := range []struct {
		name, yaml, model string
		lookup            func(string) (string, bool)
		want              []string // substrings of the problems, in order
		plan              bool
	}{
		{name: "anthropic model, no plan", yaml: "models: {skill: claude-sonnet-4-5}\n", lookup: keyed},
		{name: "plan with defaults", yaml: "models: {skill: openrouter:/z-ai/glm-5.2}\n", lookup: keyed, plan: true},
		{name: "--model puts it in force", yaml: "models: {skill: claude-sonnet-4-5}\n", model: "openrouter:/a/b", lookup: keyed, plan: true},
		{name: "missing key", yaml: "models: {skill: openrouter:/z-ai/glm-5.2}\n", lookup: func(string) (string, bool) { return "", false },
			want: []string{"needs its API key in $OPENROUTER_API_KEY"}, plan: true},
		{name: "own key variable", yaml: "models:\n  skill: openrouter:/z-ai/glm-5.2\n  providers: {openrouter: {api_key_env: MY_KEY}}\n", lookup: keyed, plan: true},
		{name: "bad id", yaml: "models: {skill: openrouter:glm}\n", lookup: keyed, want: []string{"is not an OpenRouter model id"}, plan: true},
		{name: "wrong runner", yaml: "models: {skill: openrouter:/a/b}\nrunner: {type: codex}\n", lookup: keyed, want: []string{"routes Claude Code only"}, plan: true},
		{name: "hook not OpenRouter", yaml: "models: {skill: openrouter:/a/b, hook: claude-haiku-4-5}\n", lookup: keyed, want: []string{"models.hook"}, plan: true},
		{name: "OpenRouter hook without a plan", yaml: "models: {skill: claude-sonnet-4-5, hook: openrouter:/a/b}\n", lookup: keyed, want: []string{"the agent's model (claude-sonnet-4-5) is not one"}},
		{name: "clear http elsewhere", yaml: "models:\n  skill: openrouter:/a/b\n  providers: {openrouter: {base_url: \"http://proxy.example:8080\"}}\n", lookup: keyed, want: []string{"plain http"}, plan: true},
		{name: "authored token", yaml: "models: {skill: openrouter:/a/b}\nexecution: {prompt: hi, env: {ANTHROPIC_AUTH_TOKEN: x}}\n", lookup: keyed, want: []string{"execution.env.ANTHROPIC_AUTH_TOKEN"}, plan: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, probs := New(load(t, tc.yaml), tc.model, "r1", tc.lookup)
			if (p != nil) != tc.plan {
				t.Fatalf("plan %v, want one: %v", p, tc.plan)
			}
			if len(probs) != len(tc.want) {
				t.Fatalf("problems %+v, want %d", probs, len(tc.want))
			}
			for i, w := range tc.want {
				if !strings.Contains(probs[i].Field+": "+probs[i].Msg, w) {
					t.Errorf("problem %d = %+v, want %q", i, probs[i], w)
				}
			}
		})
	}
}

func TestEnv(t *testing.T) {
	ev := load(t, "models:\n  skill: openrouter:/z-ai/glm-5.2\n  subagent: openrouter:/z-ai/glm-5.2-air\n  providers:\n    openrouter:\n      background_model: qwen/qwen3\n      attribution: {referer: https://example.org, run_id_header: true}\n      cli_budget_inflation: 10\n")
	p, probs := New(ev, "", "run-7", keyed)
	if len(probs) > 0 {
		t.Fatal(probs)
	}
	env := p.Env()
	for k, want := range map[string]string{
		"ANTHROPIC_BASE_URL": DefaultBaseURL, "ANTHROPIC_AUTH_TOKEN": "sk-or-1", "ANTHROPIC_API_KEY": "",
		"ANTHROPIC_MODEL": "z-ai/glm-5.2", "ANTHROPIC_DEFAULT_HAIKU_MODEL": "qwen/qwen3", "CLAUDE_CODE_SUBAGENT_MODEL": "z-ai/glm-5.2-air",
		"ANTHROPIC_CUSTOM_HEADERS": "HTTP-Referer: https://example.org\nX-OpenRouter-Title: agent-eval\nx-eval-run-id: run-7",
		"CLAUDE_CODE_USE_BEDROCK":  "",
	} {
		if got, ok := env[k]; !ok || got != want {
			t.Errorf("%s = %q (set %v), want %q", k, got, ok, want)
		}
	}
	for k := range env {
		if !contains(ManagedKeys, k) {
			t.Errorf("the block sets %s, which ManagedKeys does not list", k)
		}
	}
	if got := p.Budget(2); got != 20 {
		t.Errorf("Budget(2) = %v, want 20", got)
	}
	if got := p.Budget(0); got != 0 {
		t.Errorf("Budget(0) = %v", got)
	}
	if p.Hook != "qwen/qwen3" || ev.HookModel() != "qwen/qwen3" {
		t.Errorf("hook model %q / %q, want the background model", p.Hook, ev.HookModel())
	}
}

func contains(list []string, s string) bool { // slices.Contains, kept local to the test
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
