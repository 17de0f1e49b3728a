package config

import (
	"fmt"
	"slices"
	"strings"
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
}

// Sandbox decides the sandbox of the top-level runner. Only the claude-code
// runner has one: for any other runner it is off, and Open names what its
// Bash commands can still read.
func (e *Eval) Sandbox() SandboxDecision {
	p := e.Permissions
	open := p.BashOpenPaths()
	userOff, userOn := false, false
	if sb, ok := e.Runner.Settings["sandbox"].(map[string]any); ok {
		en, ok := sb["enabled"].(bool)
		userOff, userOn = ok && !en, ok && en
	}
	switch {
	case e.RunnerType() != DefaultRunner:
		return SandboxDecision{Why: "runner type " + e.RunnerType() + " has no OS sandbox", OptedOut: len(open) > 0, Open: open}
	case p.SandboxMode() == SandboxOff:
		return SandboxDecision{Why: "permissions.sandbox: off", OptedOut: len(open) > 0, Open: open}
	case userOff:
		return SandboxDecision{Why: "runner.settings.sandbox.enabled: false", OptedOut: len(open) > 0, Open: open}
	case p.SandboxMode() == SandboxOn:
		return SandboxDecision{On: true, Why: "permissions.sandbox: on"}
	case userOn:
		// The harness's block (failIfUnavailable, the preflight) goes with it.
		return SandboxDecision{On: true, Why: "runner.settings.sandbox.enabled: true"}
	case p.Network != nil:
		return SandboxDecision{On: true, Why: "permissions.network is set"}
	case len(open) > 0:
		return SandboxDecision{On: true, Why: fmt.Sprintf("%s is denied while Bash may run", strings.Join(open, ", "))}
	}
	return SandboxDecision{Why: "no path is denied for Bash and no network limit is set"}
}

// sandbox checks permissions.sandbox against permissions.network and
// runner.settings.sandbox, and warns when a denied path stays open to Bash.
func (v *validator) sandbox() {
	p := v.e.Permissions
	if p.Network != nil && p.SandboxMode() == SandboxOff {
		v.errf("permissions.network", CodeSemantic, "permissions.network is enforced by the sandbox, which permissions.sandbox: off switches off; drop one of the two")
	}
	if p.Network != nil && v.e.RunnerType() != DefaultRunner {
		v.errf("permissions.network", CodeSemantic, "permissions.network needs Claude Code's sandbox; runner type %s has none", v.e.RunnerType())
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
	case v.e.RunnerType() != DefaultRunner:
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
