package claudecode

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agent-eval/agent-eval/internal/boundary"
	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/intercept"
	"github.com/agent-eval/agent-eval/internal/permissions"
	"github.com/agent-eval/agent-eval/internal/runner"
	"github.com/agent-eval/agent-eval/internal/testutil"
)

// agentSettings is the settings file a case's agent is pointed at
// (--settings), as agentSettingsOf reads it after st.settings.
type agentSettings struct {
	DisableAllHooks *bool `json:"disableAllHooks"`
	Permissions     struct{ Allow, Deny []string }
	Sandbox         struct {
		Enabled    bool
		Filesystem struct{ DenyRead, AllowWrite []string }
	}
}

func agentSettingsOf(t *testing.T, st *started, ws string) agentSettings {
	t.Helper()
	args, cleanup, err := st.settings(ws, nil)
	if err != nil {
		t.Fatal(err)
	}
	if cleanup != nil {
		t.Cleanup(func() {
			if err := cleanup(); err != nil {
				t.Errorf("clean up the settings file: %v", err)
			}
		})
	}
	i := slices.Index(args, "--settings")
	if i < 0 || i+1 >= len(args) {
		t.Fatalf("settings args %v: no --settings file", args)
	}
	b, err := os.ReadFile(args[i+1])
	if err != nil {
		t.Fatal(err)
	}
	var s agentSettings
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("%s: %v", args[i+1], err)
	}
	return s
}

// TestSettingsHideOtherWorkspacesAndForceHooks: the settings a case's agent
// gets deny its file tools every other slot of the workspace root and the
// user's credentials, the sandbox hides the root from Bash, and
// disableAllHooks is forced off where the hook is wired, whatever
// runner.settings says (it would switch off inputs.tools and the hook's
// path layer).
func TestSettingsHideOtherWorkspacesAndForceHooks(t *testing.T) {
	st, ws, _, _, home := hiddenSetup(t)
	st.s.Handlers = &intercept.File{}
	st.s.Eval.Runner.Settings = map[string]any{"disableAllHooks": true}
	var warned []string
	st.s.Warn = func(w string) { warned = append(warned, w) }
	s := agentSettingsOf(t, st, ws)
	if s.DisableAllHooks == nil || *s.DisableAllHooks {
		t.Errorf("disableAllHooks = %v, want false", s.DisableAllHooks)
	}
	if !strings.Contains(strings.Join(warned, "\n"), "disableAllHooks is ignored") {
		t.Errorf("no warning that disableAllHooks is ignored: %q", warned)
	}
	pats, _ := permissions.ExceptPatterns(st.s.WorkspaceRoot, filepath.Dir(ws))
	if len(pats) == 0 {
		t.Fatal("no pattern for the workspace root")
	}
	want := []string{"Read(/" + home + "/.netrc)", "Edit(/" + home + "/.netrc)"}
	for _, p := range pats {
		want = append(want, "Read("+p+")", "Edit("+p+")")
	}
	for _, w := range want {
		if !slices.Contains(s.Permissions.Deny, w) {
			t.Errorf("no deny %s in %v", w, s.Permissions.Deny)
		}
	}
	if !s.Sandbox.Enabled || !slices.Contains(s.Sandbox.Filesystem.DenyRead, st.s.WorkspaceRoot) {
		t.Errorf("sandbox %+v: not on, or the workspace root not hidden", s.Sandbox)
	}
}

// TestStartChecksTheSandbox: with the sandbox on, Start refuses (a config
// error saying how to run unconfined) where bwrap and socat are missing,
// before any agent runs; with it off the same machine starts.
func TestStartChecksTheSandbox(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "claude")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\necho '2.1.0 (Claude Code)'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", filepath.Dir(bin)) // neither bwrap nor socat
	for _, tt := range []struct {
		name string
		on   bool
		err  string
	}{
		{"sandbox on", true, "cannot start: bwrap (package bubblewrap) and socat not found"},
		{"sandbox off", false, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := runner.RunSetup{Eval: &config.Eval{}, AgentBin: bin, Private: t.TempDir(), Sandbox: config.SandboxDecision{On: tt.on, Why: "the test says so"}}
			r, err := claudeRunner{}.Start(testutil.Context(t, time.Minute), s)
			if tt.err == "" {
				if err != nil {
					t.Fatalf("Start: %v", err)
				}
				_ = r.Close()
				return
			}
			var ce *runner.ConfigError
			if !errors.As(err, &ce) || !strings.Contains(err.Error(), tt.err) || !strings.Contains(err.Error(), "permissions.sandbox: off") {
				t.Fatalf("Start = %v; want a config error holding %q", err, tt.err)
			}
		})
	}
}

// TestAgentEnvScrub: under the sandbox the agent's environment turns on
// Claude Code's subprocess scrub (its commands do not see the harness's
// credentials) unless runner.env sets it; without the sandbox it is left
// alone. A credential of the caller's outside the allowlist never reaches
// the agent.
func TestAgentEnvScrub(t *testing.T) {
	t.Setenv("AWS_SECRET_ACCESS_KEY", "caller-secret")
	for _, tt := range []struct {
		name     string
		on       bool
		boundary bool
		uid      int
		env      config.EnvMap
		want     string // the scrub variable's value, "" for unset
	}{
		{"sandbox on", true, false, 0, nil, "1"},
		{"sandbox off", false, false, 0, nil, ""},
		{"runner.env says no", true, false, 0, config.EnvMap{ScrubEnv: "0"}, "0"},
		{"runner.env says yes without sandbox", false, false, 0, config.EnvMap{ScrubEnv: "1"}, "1"},
		{"in a boundary drawn by a user", true, true, 1000, nil, "1"},
		{"in a boundary drawn by root", true, true, 0, nil, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			euidWas := euid
			euid = func() int { return tt.uid }
			t.Cleanup(func() { euid = euidWas })
			r := &started{s: runner.RunSetup{Eval: &config.Eval{}, Sandbox: config.SandboxDecision{On: tt.on}, Boundary: runner.BoundaryDecision{On: tt.boundary}}}
			r.s.Eval.Runner.Env = tt.env
			env := r.agentEnv("c1", t.TempDir(), nil)
			got := ""
			for _, kv := range env {
				if v, ok := strings.CutPrefix(kv, ScrubEnv+"="); ok {
					got = v
				}
				if strings.HasPrefix(kv, "AWS_SECRET_ACCESS_KEY=") {
					t.Errorf("the caller's credential reached the agent: %s", kv)
				}
			}
			if got != tt.want {
				t.Errorf("%s = %q, want %q (env %v)", ScrubEnv, got, tt.want, env)
			}
		})
	}
}

// TestNestedSandboxSettings: inside the boundary the agent's user settings
// send its sandbox's traffic to the boundary's proxy, and, in a boundary
// drawn by root, turn on the weaker nesting (said in a warning); a
// runner.env that forces the scrub there, which Claude Code would answer by
// refusing that nesting, is a config error before any agent runs.
func TestNestedSandboxSettings(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "claude")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\necho '2.1.0 (Claude Code)'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	stub := filepath.Dir(bin)
	for _, tool := range []string{"bwrap", "socat"} {
		if err := os.WriteFile(filepath.Join(stub, tool), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", stub+":/usr/bin:/bin")
	for _, tt := range []struct {
		name   string
		uid    int
		env    config.EnvMap
		weaker bool
		err    string
	}{
		{"drawn by a user", 1000, nil, false, ""},
		{"drawn by root", 0, nil, true, ""},
		{"drawn by root, scrub forced", 0, config.EnvMap{ScrubEnv: "1"}, false, "refuses the weaker nesting"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			euidWas := euid
			euid = func() int { return tt.uid }
			t.Cleanup(func() { euid = euidWas })
			var warned []string
			ev := &config.Eval{}
			ev.Runner.Env = tt.env
			s := runner.RunSetup{Eval: ev, AgentBin: bin, Private: t.TempDir(), Sandbox: config.SandboxDecision{On: true, Why: "the test says so"},
				Boundary: runner.BoundaryDecision{On: true}, Warn: func(m string) { warned = append(warned, m) }}
			a, err := claudeRunner{}.Start(testutil.Context(t, time.Minute), s)
			if tt.err != "" {
				var ce *runner.ConfigError
				if !errors.As(err, &ce) || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("Start = %v; want a config error holding %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Start: %v", err)
			}
			t.Cleanup(func() { _ = a.Close() })
			b, err := os.ReadFile(filepath.Join(a.(*started).configDir, "settings.json"))
			if err != nil {
				t.Fatal(err)
			}
			var doc struct {
				Sandbox struct {
					Weaker      *bool `json:"enableWeakerNestedSandbox"`
					Credentials struct {
						EnvVars []struct{ Name, Mode string } `json:"envVars"`
					} `json:"credentials"`
					Network struct {
						Port int `json:"httpProxyPort"`
					} `json:"network"`
				} `json:"sandbox"`
			}
			if err := json.Unmarshal(b, &doc); err != nil {
				t.Fatal(err)
			}
			if doc.Sandbox.Network.Port != boundary.ProxyPort {
				t.Errorf("httpProxyPort = %d, want %d", doc.Sandbox.Network.Port, boundary.ProxyPort)
			}
			if got := doc.Sandbox.Weaker != nil && *doc.Sandbox.Weaker; got != tt.weaker {
				t.Errorf("enableWeakerNestedSandbox = %v, want %v (%s)", got, tt.weaker, b)
			}
			withheld := slices.ContainsFunc(doc.Sandbox.Credentials.EnvVars, func(v struct{ Name, Mode string }) bool {
				return v.Name == "ANTHROPIC_API_KEY" && v.Mode == "deny"
			})
			if withheld != tt.weaker {
				t.Errorf("the model key withheld from the sandbox's commands = %v, want %v (%s)", withheld, tt.weaker, b)
			}
			said := slices.ContainsFunc(warned, func(m string) bool { return strings.Contains(m, "weaker mode") })
			if said != tt.weaker {
				t.Errorf("warned of the weaker nesting = %v, want %v (%q)", said, tt.weaker, warned)
			}
		})
	}
}
