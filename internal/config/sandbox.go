package config

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agent-eval/agent-eval/internal/pathutil"
)

// The values of permissions.sandbox.
const (
	SandboxAuto = "auto"
	SandboxOn   = "on"
	SandboxOff  = "off"
)

// SandboxMode is permissions.sandbox, SandboxAuto when unset.
func (p Permissions) SandboxMode() string {
	if p.Sandbox == "" {
		return SandboxAuto
	}
	return p.Sandbox
}

// ruleTool splits a string rule "Tool(spec)" into its tool and specifier;
// spec is "" for a bare "Tool".
func ruleTool(pattern string) (tool, spec string) {
	tool, rest, ok := strings.Cut(pattern, "(")
	if !ok || !strings.HasSuffix(rest, ")") {
		return strings.TrimSpace(pattern), ""
	}
	return strings.TrimSpace(tool), strings.TrimSuffix(rest, ")")
}

// BashDenied reports whether a deny rule forbids Bash outright (a bare
// "Bash" or "Bash(*)").
func (p Permissions) BashDenied() bool {
	for _, r := range p.Deny {
		if r.IsPath() {
			continue
		}
		if tool, spec := ruleTool(r.Pattern); tool == "Bash" && (spec == "" || spec == "*") {
			return true
		}
	}
	return false
}

// BashOpenPaths are the paths a deny rule keeps from the agent that a Bash
// command could still read without the OS sandbox: paths denied for Bash,
// and paths denied for Read, Grep or Glob while Bash itself is not denied.
// Each appears once, in the order of the deny list.
func (p Permissions) BashOpenPaths() []string {
	if p.BashDenied() {
		return nil
	}
	var out []string
	add := func(s string) {
		if s != "" && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	for _, r := range p.Deny {
		if r.IsPath() {
			for _, t := range r.Tools {
				if t == "Bash" || t == "Read" || t == "Grep" || t == "Glob" {
					add(r.Path)
					break
				}
			}
			continue
		}
		if tool, spec := ruleTool(r.Pattern); spec != "" && (tool == "Read" || tool == "Grep" || tool == "Glob") {
			add(spec)
		}
	}
	return out
}

// SandboxDecision says whether a claude-code run turns Claude Code's sandbox
// on, and why.
type SandboxDecision struct {
	On bool
	// Why is a short reason: "permissions.sandbox: on", "permissions.network
	// is set", "secret/ is denied for Bash", ...
	Why string
	// OptedOut is set when the eval switched the sandbox off (sandbox: off,
	// or runner.settings.sandbox.enabled: false) while a path stays open to
	// Bash; Open names those paths.
	OptedOut bool
	Open     []string
	// Lost names the protections the agent's commands run without when the
	// sandbox is off (an opt-out, or a runner that has none); run says them
	// at start. Empty when the sandbox is on or Bash is denied outright.
	Lost []string
}

// sandboxDefaultWhy is the reason of a sandbox on by default.
const sandboxDefaultWhy = "it is the default for the claude-code runner"

// Sandbox decides the sandbox of the top-level runner. The claude-code
// runner has one, and it is on unless the eval opts out (permissions.sandbox:
// off, runner.settings.sandbox.enabled: false) or denies Bash outright
// (nothing then runs inside it). Any other runner has none: its Bash
// commands run unconfined, and Lost says what that leaves open.
func (e *Eval) Sandbox() SandboxDecision {
	p := e.Permissions
	open := p.BashOpenPaths()
	userOff, userOn := false, false
	if sb, ok := e.Runner.Settings["sandbox"].(map[string]any); ok {
		en, ok := sb["enabled"].(bool)
		userOff, userOn = ok && !en, ok && en
	}
	off := func(why string) SandboxDecision {
		lost := p.LostWithoutSandbox(open)
		if e.RunnerType() == "codex" || e.RunnerType() == "gemini" {
			// Their runners scrub the commands' environment themselves
			// (shell_environment_policy; Gemini CLI's redaction).
			lost = slices.DeleteFunc(lost, func(l string) bool { return l == CredentialScrubLost })
		}
		return SandboxDecision{Why: why, OptedOut: len(open) > 0, Open: open, Lost: lost}
	}
	switch {
	case e.RunnerType() == "codex" && p.SandboxMode() == SandboxOff:
		return off("permissions.sandbox: off (Codex runs danger-full-access)")
	case e.RunnerType() == "codex" && p.BashDenied():
		return SandboxDecision{Why: "Bash is denied, so no command would run inside it"}
	case e.RunnerType() == "codex":
		// Codex's own sandbox: workspace-write with the runner's
		// permission profile (internal/runner/codex).
		return SandboxDecision{On: true, Why: "it is Codex's default (workspace-write)"}
	case e.RunnerType() != DefaultRunner:
		return off("runner type " + e.RunnerType() + " has no OS sandbox")
	case p.SandboxMode() == SandboxOff:
		return off("permissions.sandbox: off")
	case userOff:
		return off("runner.settings.sandbox.enabled: false")
	case p.SandboxMode() == SandboxOn:
		return SandboxDecision{On: true, Why: "permissions.sandbox: on"}
	case userOn:
		// The harness's block (failIfUnavailable, the preflight) goes with it.
		return SandboxDecision{On: true, Why: "runner.settings.sandbox.enabled: true"}
	case p.Network != nil:
		return SandboxDecision{On: true, Why: "permissions.network is set"}
	case len(open) > 0:
		return SandboxDecision{On: true, Why: fmt.Sprintf("%s is denied while Bash may run", strings.Join(open, ", "))}
	case p.BashDenied():
		return SandboxDecision{Why: "Bash is denied, so no command would run inside it"}
	}
	return SandboxDecision{On: true, Why: sandboxDefaultWhy}
}

// CredentialScrubLost is LostWithoutSandbox's line for the environment the
// commands get, which the codex and gemini runners scrub themselves.
const CredentialScrubLost = "the credential scrub of the commands' environment (they see the API key)"

// LostWithoutSandbox names what the agent's Bash commands may do when they
// run outside the sandbox; nil when Bash is denied outright.
func (p Permissions) LostWithoutSandbox(open []string) []string {
	if p.BashDenied() {
		return nil
	}
	lost := []string{
		"writes outside the workspace (the dataset, eval.yaml's folder, the runs folder: agent-eval checks what scoring reads there for tampering after each case)",
		"reads of the other cases' workspaces, the dataset's answers and the run's logs",
		"the network allowlist (the agent's commands reach any host they can resolve)",
		CredentialScrubLost,
	}
	if len(open) > 0 {
		lost = append(lost, "path denies for Bash ("+strings.Join(open, ", ")+": only the hook's best-effort reading of the command text stands in the way)")
	}
	return lost
}

// LostInBoundary is what of lost (LostWithoutSandbox) the agent's commands
// still may do inside the harness's boundary, which keeps writes and reads
// outside the workspace from them, the network to the allowlist, and the
// workspace's denied paths hidden: the scrub of their environment alone.
func LostInBoundary(lost []string) []string {
	return slices.DeleteFunc(slices.Clone(lost), func(l string) bool { return l != CredentialScrubLost })
}

// sandbox checks permissions.sandbox against permissions.network and
// runner.settings.sandbox, and warns when a denied path stays open to Bash.
func (v *validator) sandbox() {
	p := v.e.Permissions
	// Inside the harness's boundary its proxy holds the agent to
	// permissions.network, whatever the runner and its sandbox; without
	// it only Claude Code's sandbox can.
	boundaryOff := p.Boundary == SandboxOff
	if p.Network != nil && p.SandboxMode() == SandboxOff && boundaryOff {
		v.errf("permissions.network", CodeSemantic, "permissions.network is enforced by the harness's boundary or the sandbox, which permissions.boundary: off and permissions.sandbox: off switch off; drop one of them")
	}
	if p.Network != nil && v.e.RunnerType() == "codex" && p.SandboxMode() != SandboxOff && !(len(p.Network.Allow) == 1 && p.Network.Allow[0] == "*") && len(p.Network.Allow) > 0 {
		v.errf("permissions.network", CodeSemantic, "Codex's sandbox has no host allowlist: its commands reach every host (allow: [\"*\"]) or none (allow: []); with permissions.sandbox: off the harness's boundary holds them to the list")
	} else if p.Network != nil && v.e.RunnerType() != DefaultRunner && v.e.RunnerType() != "codex" && boundaryOff {
		v.errf("permissions.network", CodeSemantic, "permissions.network needs the harness's boundary (permissions.boundary: on) or Claude Code's sandbox; runner type %s has none", v.e.RunnerType())
	}
	if sb, ok := v.e.Runner.Settings["sandbox"].(map[string]any); ok && p.Network != nil {
		if n, ok := sb["network"].(map[string]any); ok && n["allowedDomains"] != nil {
			v.errf("runner.settings.sandbox.network.allowedDomains", CodeSemantic, "permissions.network is the allowlist of the agent's hosts; drop one of the two")
		}
	}
	d := v.e.Sandbox()
	if p.Network != nil && strings.HasPrefix(d.Why, "runner.settings") {
		v.errf("runner.settings.sandbox.enabled", CodeSemantic, "runner.settings.sandbox.enabled: false switches off the sandbox that enforces permissions.network; drop one of the two")
		return
	}
	if !d.OptedOut {
		return
	}
	at := "permissions.sandbox"
	switch {
	case v.e.RunnerType() != DefaultRunner && v.e.RunnerType() != "codex":
		at = "runner.type"
	case strings.HasPrefix(d.Why, "runner.settings"):
		at = "runner.settings.sandbox.enabled"
	}
	fix := "let the sandbox run (permissions.sandbox: auto) or deny Bash"
	if at == "runner.type" {
		fix = "use the claude-code runner or deny Bash"
	}
	v.warnf(at, "%s: Bash commands can still read %s (python, symlinks, grep -r, ... get around rules on the command text); only the hook's best-effort checks of the command words stand in the way; %s",
		d.Why, strings.Join(d.Open, ", "), fix)
}

// ScoringInputs are the absolute paths the agent must not write, as they
// hold what decides a run's verdict: eval.yaml's folder whole (the eval,
// its judges' prompt, context and check code, tool_handlers.yaml), the
// dataset, the sources of shared workspace files (relative to projectRoot)
// and the programs of exec judges named by a path. Each appears once; a
// path inside another is left out. The run's own folders (the runs
// folder, the workspaces) are the caller's to leave out of them. The
// sandbox denies writes to these; the tamper check fingerprints only what
// of them scoring reads (ScoredFiles), since others (the user) may write
// the rest of eval.yaml's folder while a run goes on.
func (e *Eval) ScoringInputs(projectRoot string) []string {
	abs := func(base, p string) string {
		if !filepath.IsAbs(p) {
			p = filepath.Join(base, p)
		}
		return filepath.Clean(p)
	}
	var paths []string
	if e.path != "" {
		paths = append(paths, abs(projectRoot, e.Dir()))
	}
	if d := e.DatasetDir(); d != "" {
		paths = append(paths, abs(projectRoot, d))
	}
	if w := e.Dataset.Workspace; w != nil {
		for _, f := range w.Files {
			if f.Source != "" {
				paths = append(paths, abs(projectRoot, f.Source))
			}
		}
	}
	for _, j := range e.Judges {
		if len(j.Exec) > 0 && strings.Contains(j.Exec[0], "/") {
			paths = append(paths, abs(abs(projectRoot, e.Dir()), j.Exec[0]))
		}
	}
	return outermost(paths)
}

// outermost drops the paths that are inside (or equal to) another.
func outermost(paths []string) []string {
	slices.Sort(paths)
	var out []string
	for _, p := range paths {
		if !slices.ContainsFunc(out, func(o string) bool { return pathutil.Within(p, o) }) {
			out = append(out, p)
		}
	}
	return out
}
