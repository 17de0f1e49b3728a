package runner

import (
	"io/fs"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agent-eval/agent-eval/internal/boundary"
	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/permissions"
	"github.com/agent-eval/agent-eval/internal/results"
)

// World is the boundary one agent process in w runs in (package
// boundary), or nil when the run draws none (Boundary is off): its
// workspace's slot (the workspace and the agent's own HOME and TMPDIR) to
// read and write, in repo mode the project to read and its output folder
// to write; the harness binary, the agent binary's install and ro (the
// runner's own: its config folder, a plugin) to read; the eval's denied
// paths in the workspace hidden; and a network of its own that reaches the
// loopback URLs of env (the fake model, a test server the eval names) and
// the hosts permissions.network allows. rw are more folders the runner's
// agent writes (its config folder, its own HOME where that is not the
// slot). env is the agent's whole environment.
func (s RunSetup) World(w Workspace, agentBin string, env []string, rw, ro []string) *boundary.Spec {
	if !s.Boundary.On {
		return nil
	}
	spec := &boundary.Spec{}
	if slot := s.OwnHome(w.Dir); slot != "" {
		spec.RW = append(spec.RW, slot)
	} else {
		spec.RW = append(spec.RW, w.Dir)
	}
	if s.Repo != "" {
		spec.RO = append(spec.RO, s.Repo)
		spec.RO = append(spec.RO, linkedGitDirs(s.Repo)...)
		spec.RW = append(spec.RW, w.Dir)
	}
	for _, d := range rw {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			spec.RW = append(spec.RW, d)
		}
	}
	spec.RO = append(spec.RO, s.HarnessBin)
	spec.RO = append(spec.RO, Install(agentBin)...)
	spec.RO = append(spec.RO, ro...)
	for _, p := range s.Eval.Permissions.ReadOnly {
		p = config.ResolveEnv(config.EnvMap{"p": p}, os.LookupEnv)["p"]
		if p == "" {
			continue
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(s.Eval.Dir(), p)
		}
		spec.RO = append(spec.RO, Install(p)...)
	}
	if s.Repo != "" {
		spec.Hide = append(spec.Hide, DeniedIn(s.Repo, s.Permissions)...)
	}
	spec.Hide = append(spec.Hide, DeniedIn(w.Dir, s.Permissions)...)
	spec.Freeze = WriteDeniedIn(w.Dir, s.Permissions)
	spec.Quota = &boundary.Quota{Bytes: s.Eval.DiskBytes(), Files: s.Eval.DiskFiles()}
	// The fake model and the OTLP endpoint too where the runner names them
	// in a config file of the agent's (Codex's config.toml), not its
	// environment.
	reach := append(env[:len(env):len(env)], "FAKE="+s.FakeModelURL, "OTLP="+s.AgentOTLP)
	spec.Net = &boundary.Net{Forward: LoopbackAddrs(reach)}
	if n := s.Eval.Permissions.Network; n != nil {
		spec.Net.Hosts = slices.Clone(n.Allow)
		if slices.Contains(n.Allow, "localhost") {
			// The machine's loopback by any of its names, as Claude Code's
			// sandbox takes it.
			spec.Net.Hosts = append(spec.Net.Hosts, "127.0.0.1", "::1")
		}
	}
	if s.FakeModelURL == "" {
		spec.Net.Hosts = append(spec.Net.Hosts, modelHosts(s.Eval.Runner.Type)...)
		for _, kv := range env {
			k, v, _ := strings.Cut(kv, "=")
			if !slices.Contains(modelURLKeys, k) {
				continue
			}
			if u, err := url.Parse(v); err == nil && u.Hostname() != "" && len(LoopbackAddrs([]string{kv})) == 0 {
				spec.Net.Hosts = append(spec.Net.Hosts, u.Hostname())
			}
		}
	}
	return spec
}

// modelHosts are the hosts each runner's agent reaches its model at by
// default (an empty type is claude-code's), which its boundary's proxy lets through (a cli agent's are the
// eval's to list in permissions.network).
func modelHosts(t string) []string {
	switch Type(t) {
	case TypeClaudeCode, "":
		return []string{"api.anthropic.com", "openrouter.ai"}
	case TypeCodex:
		return []string{"api.openai.com", "chatgpt.com"}
	case TypeGemini:
		return []string{"generativelanguage.googleapis.com", "cloudcode-pa.googleapis.com", "oauth2.googleapis.com"}
	case TypeCursor:
		return []string{"*.cursor.sh", "*.cursor.com"}
	}
	return nil
}

// modelURLKeys are the variables that point an agent at its model API
// elsewhere: their hosts are let through too.
var modelURLKeys = []string{"ANTHROPIC_BASE_URL", "ANTHROPIC_BEDROCK_BASE_URL", "ANTHROPIC_VERTEX_BASE_URL", "OPENAI_BASE_URL",
	"GOOGLE_GEMINI_BASE_URL", "GEMINI_BASE_URL", "CODE_ASSIST_ENDPOINT"}

// BoundaryDecision says whether the run draws the agent's world itself
// (package boundary), and why not.
type BoundaryDecision struct {
	On  bool
	Why string
}

// Install is what of an agent binary's install the agent must read: the
// binary (and where its link leads) and, for a program installed by npm,
// the node_modules folder it is in (its own files and its native parts).
func Install(bin string) []string {
	if bin == "" {
		return nil
	}
	if !strings.Contains(bin, "/") {
		p, err := exec.LookPath(bin)
		if err != nil {
			return nil
		}
		bin = p
	}
	abs, err := filepath.Abs(bin)
	if err != nil {
		return nil
	}
	out := []string{abs}
	real, err := filepath.EvalSymlinks(abs)
	if err == nil && real != abs {
		out = append(out, real)
	}
	for _, p := range []string{abs, real} {
		if i := strings.Index(p, "/node_modules/"); i >= 0 {
			out = append(out, p[:i+len("/node_modules")])
		}
	}
	return out
}

// maxDeniedWalk bounds the entries DeniedIn looks at.
const maxDeniedWalk = 200_000

// DeniedIn lists the existing files and folders under dir that the eval
// denies the agent to read (a Read deny rule matches them), folders whole.
func DeniedIn(dir string, c permissions.Compiled) []string {
	return deniedIn(dir, c, "Read", "Read", "Bash", "Grep", "Glob")
}

// WriteDeniedIn lists the existing files and folders under dir that the
// eval denies the agent's file-editing tools (Edit, Write, MultiEdit,
// NotebookEdit rules on a path): the boundary makes them read-only for
// every process of the agent, whichever tool or command writes.
func WriteDeniedIn(dir string, c permissions.Compiled) []string {
	var out []string
	for _, tool := range []string{"Edit", "Write", "MultiEdit", "NotebookEdit"} {
		for _, p := range deniedIn(dir, c, tool, tool) {
			if !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
	}
	return out
}

// deniedIn lists the existing paths under dir a call of probe on them is
// denied by the rules of tools.
func deniedIn(dir string, c permissions.Compiled, probe string, tools ...string) []string {
	var reads []string
	for _, r := range c.Deny {
		if tool, _, ok := strings.Cut(r, "("); ok && slices.Contains(tools, tool) {
			reads = append(reads, r)
		}
	}
	if len(reads) == 0 {
		return nil
	}
	var out []string
	seen := 0
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		seen++
		if err != nil || seen > maxDeniedWalk {
			return filepath.SkipDir
		}
		if p == dir {
			return nil
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		v := permissions.Match(nil, reads, permissions.Call{Tool: probe, Input: map[string]any{"file_path": p, "notebook_path": p}, CWD: dir})
		if v.Decision == "deny" {
			out = append(out, p)
			if d.IsDir() {
				return filepath.SkipDir
			}
		}
		return nil
	})
	return out
}

// LoopbackAddrs are the loopback host:port addresses the URLs among env's
// values name: what the agent is pointed at on this machine.
func LoopbackAddrs(env []string) []string {
	var out []string
	for _, kv := range env {
		_, v, _ := strings.Cut(kv, "=")
		for _, f := range strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ' ' || r == ';' }) {
			u, err := url.Parse(f)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https" && u.Scheme != "ws" && u.Scheme != "wss") {
				continue
			}
			hosts := []string{u.Hostname()}
			if u.Hostname() == "localhost" {
				hosts = []string{"127.0.0.1", "::1"} // either may be the one it resolves to
			}
			port := u.Port()
			if port == "" {
				port = map[string]string{"http": "80", "ws": "80", "https": "443", "wss": "443"}[u.Scheme]
			}
			for _, h := range hosts {
				ip := net.ParseIP(h)
				if ip == nil || !ip.IsLoopback() {
					continue
				}
				addr := net.JoinHostPort(ip.String(), port)
				if !slices.Contains(out, addr) {
					out = append(out, addr)
				}
			}
		}
	}
	return out
}

// BoundaryOf says whether eval ev's agents run in the harness's boundary:
// permissions.boundary, on unless off.
func BoundaryOf(ev *config.Eval) BoundaryDecision {
	if ev.Permissions.Boundary == config.SandboxOff {
		return BoundaryDecision{Why: "permissions.boundary is off"}
	}
	return BoundaryDecision{On: true}
}

// Refusals are the boundary's refusals as run_result.json records them;
// one of a host on own (the agent CLI's own hosts, CLIHosts) is marked
// so, for the violations to tell the CLI's traffic from the model's
// (docs/violations.md#the-agent-clis-own-traffic).
func Refusals(rs []boundary.Refusal, own []string) []results.Refusal {
	var out []results.Refusal
	for _, r := range rs {
		out = append(out, results.Refusal{Host: r.Host, Count: r.Count, CLIHost: OwnHost(own, r.Host)})
	}
	return out
}

// CLIHosts are the hosts an agent CLI contacts on its own, whatever the
// model asks of it: update checks, telemetry, feature flags, auth and
// plugin indexes. agent is a runner type, or for runner type cli the
// command's program ("opencode", "claude", …; a path is taken by its
// last element); an agent it does not know has none. Each entry stands
// for the host and its subdomains. The lists come from what the boundary
// refused the pinned CLIs in our end-to-end runs and from the hosts their
// bundles name for those purposes.
func CLIHosts(agent string) []string {
	switch Type(filepath.Base(agent)) {
	case TypeClaudeCode, "claude":
		return []string{"api.anthropic.com", "statsig.anthropic.com", "statsig.com", "sentry.io",
			"datadoghq.com", "registry.npmjs.org", "storage.googleapis.com", "claude.ai"}
	case TypeCodex:
		return []string{"chatgpt.com", "github.com", "api.openai.com"}
	case TypeGemini:
		return []string{"play.googleapis.com", "registry.npmjs.org", "oauth2.googleapis.com", "cloudcode-pa.googleapis.com"}
	case TypeCursor, "cursor-agent":
		return []string{"cursor.sh", "cursor.com"}
	case "opencode":
		return []string{"opencode.ai", "models.dev", "registry.npmjs.org", "github.com"}
	}
	return nil
}

// OwnHost: host is one of own's hosts or a subdomain of one.
func OwnHost(own []string, host string) bool {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	return slices.ContainsFunc(own, func(h string) bool { return host == h || strings.HasSuffix(host, "."+h) })
}

// BaseEnv are the caller's variables every agent may get as they are: what
// a program needs to find programs and speak the user's language. The rest
// of an agent's environment is the eval's (execution.env, runner.env) and
// the runner's own; never the caller's tokens and cloud credentials.
var BaseEnv = []string{"PATH", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "LC_MESSAGES", "TERM", "COLORTERM", "NO_COLOR", "TZ", "USER", "LOGNAME", "SHELL"}

// Base is BaseEnv's variables of environ (KEY=VALUE strings).
func Base(environ []string) []string {
	var out []string
	for _, kv := range environ {
		k, _, _ := strings.Cut(kv, "=")
		if slices.Contains(BaseEnv, k) {
			out = append(out, kv)
		}
	}
	return out
}

// OwnHome is the agent's own home for workspace ws: its slot of the
// private root (workspace.HomeDir), or "" when ws is not in the root or
// the slot is not there.
func (s RunSetup) OwnHome(ws string) string {
	home := filepath.Dir(filepath.Clean(ws))
	if s.WorkspaceRoot == "" || filepath.Dir(home) != filepath.Clean(s.WorkspaceRoot) {
		return ""
	}
	if fi, err := os.Stat(home); err != nil || !fi.IsDir() {
		return ""
	}
	return home
}

// linkedGitDirs are the git folders a project that is a linked worktree
// (its .git a file naming its folder in the main repository's .git) keeps
// outside itself: its own and the main repository's common one, which git
// reads for every command there.
func linkedGitDirs(project string) []string {
	b, err := os.ReadFile(filepath.Join(project, ".git"))
	if err != nil {
		return nil // a folder, or none: nothing outside
	}
	dir, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
	if !ok {
		return nil
	}
	dir = strings.TrimSpace(dir)
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(project, dir)
	}
	out := []string{filepath.Clean(dir)}
	if c, err := os.ReadFile(filepath.Join(dir, "commondir")); err == nil {
		common := strings.TrimSpace(string(c))
		if !filepath.IsAbs(common) {
			common = filepath.Join(dir, common)
		}
		out = append(out, filepath.Clean(common))
	}
	return out
}
